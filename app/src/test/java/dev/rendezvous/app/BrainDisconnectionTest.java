package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The monitor's clock: with a 3 s disconnection timeout, hosts whose agents go quiet become disconnected,
 * and known again when they check in. Its own system, so the short timeout touches no other test's hosts.
 */
class BrainDisconnectionTest {
  @TempDir Path dataDir;

  @Test
  void quietHostsDisconnectAndComeBackOnCheckIn() throws Exception {
    try (Rendezvous system = TestSystem.start(dataDir, Map.of("host-disconnection-timeout-seconds", "3"))) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      List<String> hosts = BrainFlowTest.newHosts(3);
      try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
        BrainFlowTest.Ready r = BrainFlowTest.readyCluster(api, gw, "brain-quiet", hosts);
        hosts.forEach(h -> gw.checkIn(r.cluster(), r.infraEnv(), h));
        BrainFlowTest.awaitHosts(api, r.infraEnv(), hosts, "known");

        // no more check-ins: after the timeout the monitor moves every host to disconnected
        BrainFlowTest.awaitHosts(api, r.infraEnv(), hosts, "disconnected");
        assertEquals("Host has stopped communicating with the installation service",
            BrainFlowTest.host(api, r.infraEnv(), hosts.get(0)).getString("status_info"));
        BrainFlowTest.awaitCluster(api, r.cluster(), "insufficient");

        hosts.forEach(h -> gw.checkIn(r.cluster(), r.infraEnv(), h));
        BrainFlowTest.awaitHosts(api, r.infraEnv(), hosts, "known");
        BrainFlowTest.awaitCluster(api, r.cluster(), "ready");
        String events = api.get("/events?cluster_id=" + r.cluster()).body();
        assertTrue(events.contains("updated status from known to disconnected"), events);
        assertTrue(events.contains("updated status from disconnected to known"), events);
      }
    }
  }
}
