package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.DomainEventRecorded;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.StepsToDeliver;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Hosts come from agent registrations on the bus (the gateway publishes them); here the test
 * publishes the registration event itself on the real Kafka, as a gateway would.
 */
class HostApiTest {
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  @Test
  void registeredHostCanBeReadUpdatedListedAndDeleted() throws Exception {
    String clusterId = api.post("/clusters", Api.cluster("hosts-crud")).json().getString("id");
    String infraEnvId = api.post("/infra-envs", Api.infraEnv("hosts-ie", clusterId)).json().getString("id");
    String hostId = UUID.randomUUID().toString();
    // listed and got before its hosts come: the kept view of it must follow their counts
    assertEquals(0, api.get("/clusters").array().stream().map(JsonObject.class::cast)
        .filter(c -> c.getString("id").equals(clusterId)).findFirst().orElseThrow().getInteger("total_host_count"));
    assertEquals(0, api.get("/clusters/" + clusterId + "?exclude-hosts=true").json().getInteger("total_host_count"));
    ConcurrentLinkedQueue<BusEvent> steps = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<BusEvent> events = new ConcurrentLinkedQueue<>();
    try (BusProducer producer = new BusProducer(system.kafkaBootstrap(), "test-gateway");
        BusConsumer stepReader = BusConsumer.fanOut(system.kafkaBootstrap(), List.of(Topics.STEPS, Topics.EVENTS),
            BusConsumer.StartFrom.EARLIEST, e -> {
              if (hostId.equals(e.hostId())) {
                (e.payload() instanceof StepsToDeliver ? steps : events).add(e);
              }
              return CompletableFuture.completedFuture(null);
            })) {
      BusEvent registration = BusEvent.of(clusterId, infraEnvId, hostId,
          new HostRegistered(hostId, infraEnvId, clusterId, "rdv-agent/0.1.0", "websocket"));
      producer.publish(Topics.HOST_REGISTRATIONS, registration).get(10, TimeUnit.SECONDS);

      String hostPath = "/infra-envs/" + infraEnvId + "/hosts/" + hostId;
      JsonObject host = Await.until("host row", Duration.ofSeconds(20), () -> {
        Api.Reply r = api.get(hostPath);
        return r.status() == 200 ? r.json() : null;
      });
      assertEquals("Host", host.getString("kind"));
      assertEquals("discovering", host.getString("status"));
      assertEquals(clusterId, host.getString("cluster_id"));
      assertEquals("rdv-agent/0.1.0", host.getString("discovery_agent_version"));
      assertEquals("auto-assign", host.getString("role"));

      StepsToDeliver planned = (StepsToDeliver) Await.until("inventory step on the steps topic", Duration.ofSeconds(20),
          steps::peek).payload();
      assertEquals("inventory", planned.instructions().get(0).stepType());
      assertTrue(planned.instructions().get(0).stepId().matches("inventory-[0-9a-f]{8}"));
      DomainEventRecorded relayed = (DomainEventRecorded) Await.until("event relayed to the events topic",
          Duration.ofSeconds(20), events::peek).payload();
      assertEquals("host_registration_succeeded", relayed.name());

      // Replaying the very same bus event changes nothing.
      String before = api.get(hostPath).body();
      producer.publish(Topics.HOST_REGISTRATIONS, registration).get(10, TimeUnit.SECONDS);
      BusEvent marker = BusEvent.of(clusterId, infraEnvId, hostId,
          new HostRegistered(UUID.randomUUID().toString(), infraEnvId, clusterId, "x", "http"));
      producer.publish(Topics.HOST_REGISTRATIONS, marker).get(10, TimeUnit.SECONDS);
      Await.until("a later event on the same partition handled", Duration.ofSeconds(20),
          () -> api.get("/infra-envs/" + infraEnvId + "/hosts").array().size() == 2);
      // the marker host joining the cluster may re-evaluate this host's validations (mtu-valid waits for a peer
      // now); everything else must be as it was
      JsonObject was = new JsonObject(before);
      JsonObject now = api.get(hostPath).json();
      for (JsonObject h : List.of(was, now)) {
        h.remove("validations_info");
        h.remove("updated_at");
      }
      assertEquals(was, now, "replayed registration left the host untouched");
      // the registration and the state machine's move "" -> discovering; the replay added none
      assertEquals(List.of("host_registration_succeeded", "host_status_updated"), api.get("/events?host_id=" + hostId)
          .array().stream().map(o -> ((JsonObject) o).getString("name")).toList());

      JsonArray listed = api.get("/clusters/" + clusterId + "/hosts").array();
      assertEquals(2, listed.size());
      JsonObject inList = api.get("/clusters?with_hosts=true").array().stream().map(JsonObject.class::cast)
          .filter(c -> c.getString("id").equals(clusterId)).findFirst().orElseThrow();
      assertEquals(2, inList.getJsonArray("hosts").size());
      assertEquals(2, inList.getInteger("total_host_count"));
      // without hosts the cluster's GET and the list count them in SQL: the same counts, no host records (the GET
      // first: the list would renew the view they share)
      JsonObject got = api.get("/clusters/" + clusterId + "?exclude-hosts=true").json();
      assertEquals(2, got.getInteger("total_host_count"));
      assertEquals(inList.getInteger("ready_host_count"), got.getInteger("ready_host_count"));
      assertFalse(got.containsKey("hosts"));
      JsonObject counted = api.get("/clusters").array().stream().map(JsonObject.class::cast)
          .filter(c -> c.getString("id").equals(clusterId)).findFirst().orElseThrow();
      assertEquals(2, counted.getInteger("total_host_count"));
      assertEquals(2, counted.getInteger("enabled_host_count"));
      assertEquals(inList.getInteger("ready_host_count"), counted.getInteger("ready_host_count"));
      assertFalse(counted.containsKey("hosts"));
      assertEquals(1, api.get("/clusters/" + clusterId).json().getJsonArray("hosts").stream()
          .filter(h -> ((JsonObject) h).getString("id").equals(hostId)).count());

      Api.Reply patched = api.patch(hostPath, new JsonObject().put("host_role", "master").put("host_name", "master-0"));
      assertEquals(201, patched.status(), patched.body());
      assertEquals("master", patched.json().getString("role"));
      assertEquals("master-0", patched.json().getString("requested_hostname"));
      assertEquals(1, api.get("/clusters/" + clusterId + "/hosts?role=master").array().size());
      // the filters run in the query: a status of the host keeps it, another leaves it out
      assertEquals(1, api.get("/clusters/" + clusterId + "/hosts?role=master&status=" + patched.json().getString("status"))
          .array().size());
      assertEquals(0, api.get("/clusters/" + clusterId + "/hosts?role=master&status=installed").array().size());
      Api.Reply badDisk = api.patch(hostPath, new JsonObject().put("disks_selected_config",
          new JsonArray().add(new JsonObject().put("id", "/dev/sdz").put("role", "install"))));
      assertEquals(400, badDisk.status());
      assertEquals("disks_selected_config[0].id", badDisk.json().getString("field"));
      assertEquals(400, api.patch(hostPath, new JsonObject().put("host_role", "bootstrap")).status());

      // the gateway's question (which attached hosts are still registered), against the table
      RegisteredHosts registered = new RegisteredHosts(system.pool());
      dev.rendezvous.gateway.HostCheck.Host self = new dev.rendezvous.gateway.HostCheck.Host(infraEnvId, hostId);
      dev.rendezvous.gateway.HostCheck.Host otherInfraEnv = new dev.rendezvous.gateway.HostCheck.Host(
          UUID.randomUUID().toString(), hostId);
      dev.rendezvous.gateway.HostCheck.Host malformed = new dev.rendezvous.gateway.HostCheck.Host(infraEnvId, "x");
      assertEquals(java.util.Set.of(self), registered.registered(List.of(self, otherInfraEnv, malformed))
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));

      assertEquals(204, api.delete(hostPath).status());
      assertEquals(404, api.get(hostPath).status());
      assertEquals(1, api.get("/infra-envs/" + infraEnvId + "/hosts").array().size());
      assertEquals(java.util.Set.of(), registered.registered(List.of(self))
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS), "a deleted host is not registered");
    }
  }
}
