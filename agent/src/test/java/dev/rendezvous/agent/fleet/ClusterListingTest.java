package dev.rendezvous.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rendezvous.agent.fleet.FleetApi.Listed;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The swarm reads the cluster list as it streams in, keeping four fields of each cluster. */
class ClusterListingTest {
  @Test
  void eachClustersOwnFieldsAreReadAndNestedDocumentsWithTheSameNamesAreSkipped() throws IOException {
    String list = """
        [{"id": "c1", "kind": "Cluster", "hosts": [{"id": "h1", "status": "installing"}],
          "validations_info": "{\\"status\\": \\"x\\"}", "status": "installed",
          "api_vips": [{"ip": "10.0.0.1", "cluster_id": "c1"}], "total_host_count": 3, "ready_host_count": 2,
          "platform": {"type": "baremetal", "status": {"id": "nested"}}},
         {"status": "ready", "id": "c2", "total_host_count": 1, "ready_host_count": 1, "enabled_host_count": 7},
         {"id": "c3", "feature_usage": null}]""";
    List<Listed> listed = FleetApi.readListing(new ByteArrayInputStream(list.getBytes(StandardCharsets.UTF_8)));
    assertEquals(List.of(new Listed("c1", "installed", 3, 2), new Listed("c2", "ready", 1, 1),
        new Listed("c3", "", 0, 0)), listed);
  }

  @Test
  void anEmptyListIsNoClusterAndAnythingButAListIsAnError() throws IOException {
    assertEquals(List.of(), FleetApi.readListing(new ByteArrayInputStream("[]".getBytes(StandardCharsets.UTF_8))));
    assertThrows(IOException.class, () -> FleetApi.readListing(
        new ByteArrayInputStream("{\"code\": \"401\"}".getBytes(StandardCharsets.UTF_8))));
    assertThrows(IOException.class, () -> FleetApi.readListing(
        new ByteArrayInputStream("[{\"id\": \"c1\", \"status\": ".getBytes(StandardCharsets.UTF_8))));
  }
}
