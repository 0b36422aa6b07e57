package dev.rendezvous.service.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.cluster.DhcpVips;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DhcpVipFilesTest {
  private static final UUID ID = UUID.fromString("c0000000-0000-0000-0000-0000000000aa");
  private static final String LEASE = "lease {\n  interface \"api\";\n  fixed-address 10.0.0.30;\n  renew never;\n}\n";

  private static ClusterRow row(boolean dhcp, JsonObject state) {
    OffsetDateTime t = OffsetDateTime.parse("2026-11-29T08:00:00Z");
    return new ClusterRow(ID, "t", "c", "4.16", "ready", "", t, new JsonObject().put("vip_dhcp_allocation", dhcp), null,
        null, null, null, 1, t, t, state);
  }

  @Test
  void theControlPlaneGetsKeepalivedsMonitorConfigAndTheLeases() {
    JsonObject state = new JsonObject().put("dhcp_vips", new JsonObject().put("api_vip", "10.0.0.30")
        .put("ingress_vip", "10.0.0.31").put("api_vip_lease", LEASE).put("ingress_vip_lease", ""));
    Map<String, String> files = DhcpVipFiles.of(row(true, state));
    assertEquals(java.util.List.of("/etc/keepalived/unsupported-monitor.conf", "/etc/keepalived/lease-api"),
        java.util.List.copyOf(files.keySet()));
    String monitor = files.get("/etc/keepalived/unsupported-monitor.conf");
    assertTrue(monitor.contains("mac-address: " + DhcpVips.mac(ID, 0) + "\n    ip-address: 10.0.0.30\n"), monitor);
    assertTrue(monitor.contains("mac-address: " + DhcpVips.mac(ID, 1) + "\n    ip-address: 10.0.0.31\n"), monitor);

    byte[] master = DhcpVipFiles.addTo("{\"ignition\":{\"version\":\"3.2.0\"}}".getBytes(StandardCharsets.UTF_8), files);
    JsonArray written = new JsonObject(new String(master, StandardCharsets.UTF_8)).getJsonObject("storage")
        .getJsonArray("files");
    JsonObject lease = written.getJsonObject(1);
    assertEquals("/etc/keepalived/lease-api", lease.getString("path"));
    assertEquals(0644, lease.getInteger("mode"));
    String source = lease.getJsonObject("contents").getString("source");
    assertTrue(source.startsWith("data:,lease%20%7B%0A"), source); // spaces as %20, as upstream's PathEscape
    assertEquals(LEASE, URLDecoder.decode(source.substring("data:,".length()), StandardCharsets.UTF_8));
  }

  @Test
  void nothingWithoutDhcpModeOrBeforeALease() {
    assertTrue(DhcpVipFiles.of(row(true, new JsonObject())).isEmpty());
    assertTrue(DhcpVipFiles.of(row(false, new JsonObject().put("dhcp_vips", new JsonObject().put("api_vip", "10.0.0.30")
        .put("ingress_vip", "10.0.0.31")))).isEmpty());
  }
}
