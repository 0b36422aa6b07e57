package dev.rendezvous.service.install;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.cluster.DhcpVips;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a control-plane node of a cluster whose VIPs a DHCP server leased needs to keep them (upstream's
 * updateDhcpFiles): keepalived's monitor configuration naming each VIP's MAC and address
 * ({@code /etc/keepalived/unsupported-monitor.conf}), and the leases themselves ({@code lease-api},
 * {@code lease-ingress}) so its DHCP client renews the same addresses. Added to {@code master.ign}. Pure.
 */
public final class DhcpVipFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private DhcpVipFiles() {}

  /** Path to content; empty unless the cluster is in vip_dhcp_allocation mode and holds leased VIPs. */
  public static Map<String, String> of(ClusterRow c) {
    DhcpVips leased = c.leasedVips();
    if (leased == null) {
      return Map.of();
    }
    Map<String, String> files = new LinkedHashMap<>();
    files.put("/etc/keepalived/unsupported-monitor.conf", "api-vip:\n"
        + "    name: api\n    mac-address: " + DhcpVips.mac(c.id(), 0) + "\n    ip-address: " + leased.apiVip() + "\n"
        + "ingress-vip:\n"
        + "    name: ingress\n    mac-address: " + DhcpVips.mac(c.id(), 1) + "\n    ip-address: " + leased.ingressVip()
        + "\n");
    putIfSet(files, "/etc/keepalived/lease-api", leased.apiVipLease());
    putIfSet(files, "/etc/keepalived/lease-ingress", leased.ingressVipLease());
    return files;
  }

  /** {@code ignition} with the files added (mode 0644, as upstream's), as upstream writes them: data URLs. */
  public static byte[] addTo(byte[] ignition, Map<String, String> files) {
    if (files.isEmpty()) {
      return ignition;
    }
    try {
      ObjectNode config = (ObjectNode) JSON.readTree(ignition);
      files.forEach((path, content) -> HostIgnition.addFile(config, path,
          "data:," + URLEncoder.encode(content, StandardCharsets.UTF_8).replace("+", "%20")));
      return JSON.writeValueAsBytes(config);
    } catch (IOException | ClassCastException e) {
      throw new IllegalStateException("master.ign does not parse: " + e.getMessage(), e);
    }
  }

  private static void putIfSet(Map<String, String> files, String path, String content) {
    if (content != null && !content.isEmpty()) {
      files.put(path, content);
    }
  }
}
