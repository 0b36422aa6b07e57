package dev.rendezvous.service.consumers;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.Times;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's consumer group on the agent-facing topics. Keyed by cluster id, so one instance
 * handles all of a cluster's events in order (single writer). Each handler is idempotent.
 */
public final class BrainConsumer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BrainConsumer.class);
  public static final String GROUP = "rdv-service-brain";

  private final Vertx vertx;
  private final Pool pool;
  private final BusProducer producer;
  private final HostRegistrationHandler registrations;
  private final StepPlanner planner;
  private final BusConsumer consumer;

  /** Decides a host's next steps; replaced by the domain planner once host state drives it. */
  public interface StepPlanner {
    Future<Optional<StepsToDeliver>> plan(UUID hostId, UUID infraEnvId, UUID clusterId);
  }

  public BrainConsumer(Vertx vertx, Pool pool, BusProducer producer, String bootstrap, StepPlanner planner) {
    this.vertx = vertx;
    this.pool = pool;
    this.producer = producer;
    this.registrations = new HostRegistrationHandler(pool);
    this.planner = planner;
    // One cluster's events are handled one at a time across all these topics: a single writer per cluster.
    this.consumer = BusConsumer.builder(bootstrap).groupId(GROUP).clientId("rdv-brain")
        .topics(List.of(Topics.HOST_REGISTRATIONS, Topics.AGENT_PRESENCE))
        .orderAcrossTopics()
        .handler(this::dispatch)
        .start();
  }

  public CompletableFuture<Void> started() {
    return consumer.started();
  }

  private CompletionStage<Void> dispatch(BusEvent event) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    // Handlers run on a Vert.x context: the reactive client and timers expect one.
    vertx.runOnContext(v -> {
      Future<Void> f;
      if (event.payload() instanceof HostRegistered reg) {
        f = registrations.handle(event, reg).compose(r -> r.isPresent()
            ? planAndPublish(r.get().hostId(), r.get().infraEnvId(), r.get().clusterId())
            : Future.succeededFuture());
      } else if (event.payload() instanceof AgentPresence p) {
        f = presence(event, p);
      } else {
        f = Future.succeededFuture();
      }
      f.onComplete(ar -> {
        if (ar.succeeded()) {
          done.complete(null);
        } else {
          LOG.atWarn().setCause(ar.cause()).addKeyValue("event_id", event.eventId()).log("handler failed");
          done.completeExceptionally(ar.cause());
        }
      });
    });
    return done;
  }

  private Future<Void> presence(BusEvent event, AgentPresence p) {
    UUID host = uuid(event.hostId());
    UUID infraEnv = uuid(event.infraEnvId());
    if (host == null || infraEnv == null || AgentPresence.DISCONNECTED.equals(p.state())) {
      return Future.succeededFuture(); // a disconnection is decided by the monitor's timeout, not by one event
    }
    Future<Void> touched = HostRepository.touchCheckedIn(pool, host, infraEnv, Times.of(event.occurredAt()));
    if (!AgentPresence.CONNECTED.equals(p.state())) {
      return touched;
    }
    // A (re)connected agent may have missed steps: plan again from the stored state.
    return touched.compose(v -> planAndPublish(host, infraEnv, uuid(event.clusterId())));
  }

  private Future<Void> planAndPublish(UUID hostId, UUID infraEnvId, UUID clusterId) {
    if (hostId == null || infraEnvId == null) {
      return Future.succeededFuture();
    }
    return planner.plan(hostId, infraEnvId, clusterId).compose(steps -> {
      if (steps.isEmpty()) {
        return Future.succeededFuture();
      }
      BusEvent out = BusEvent.of(clusterId == null ? null : clusterId.toString(), infraEnvId.toString(),
          hostId.toString(), steps.get());
      return Future.fromCompletionStage(producer.publish(Topics.STEPS, out)).mapEmpty();
    });
  }

  private static UUID uuid(String s) {
    try {
      return s == null ? null : UUID.fromString(s);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  @Override
  public void close() {
    consumer.close();
  }
}
