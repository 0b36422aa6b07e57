package dev.rendezvous.controller.service;

import com.fasterxml.jackson.core.type.TypeReference;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fields of the service's Host the controller reads. {@code inventory} and {@code node_labels} are JSON
 * documents carried as strings, as upstream's API does.
 */
public record Host(
    String id,
    String infraEnvId,
    String clusterId,
    String status,
    String role,
    String suggestedRole,
    Boolean bootstrap,
    String requestedHostname,
    String inventory,
    Progress progress,
    String nodeLabels,
    String machineConfigPoolName) {

  /** {@code host-progress-info}. */
  public record Progress(HostStage currentStage, String progressInfo, String stageStartedAt, String stageUpdatedAt) {
  }

  /** The parts of the agent's inventory the controller needs. */
  public record Inventory(String hostname, List<Interface> interfaces) {
    public Inventory {
      interfaces = interfaces == null ? List.of() : List.copyOf(interfaces);
    }
  }

  /** An inventory interface; addresses in CIDR form. */
  public record Interface(String name, List<String> ipv4Addresses, List<String> ipv6Addresses) {
  }

  public HostStage currentStage() {
    return progress == null ? null : progress.currentStage();
  }

  /** When the current stage began, if the service said. */
  public Instant stageStartedAt() {
    if (progress == null || progress.stageStartedAt() == null || progress.stageStartedAt().isBlank()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(progress.stageStartedAt()).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** Role after auto-assignment: {@code suggested_role} when the role is {@code auto-assign}. */
  public HostRole effectiveRole() {
    HostRole r = HostRole.fromWire(role);
    if ((r == null || r == HostRole.AUTO_ASSIGN) && suggestedRole != null) {
      HostRole s = HostRole.fromWire(suggestedRole);
      if (s != null) {
        return s;
      }
    }
    return r;
  }

  public boolean isBootstrap() {
    return Boolean.TRUE.equals(bootstrap);
  }

  public Inventory parsedInventory() {
    if (inventory == null || inventory.isBlank()) {
      return new Inventory(null, List.of());
    }
    try {
      return Json.MAPPER.readValue(inventory, Inventory.class);
    } catch (Exception e) {
      return new Inventory(null, List.of());
    }
  }

  /** The node name this host should get: requested hostname, else the inventory's, lowercased; null if neither. */
  public String expectedNodeName(Inventory inv) {
    String name = requestedHostname;
    if (name == null || name.isBlank()) {
      name = inv.hostname();
    }
    return name == null || name.isBlank() ? null : name.toLowerCase(Locale.ROOT);
  }

  /** The host's IP addresses (prefix lengths stripped). */
  public static List<String> addresses(Inventory inv) {
    List<String> ips = new ArrayList<>();
    for (Interface nic : inv.interfaces()) {
      addStripped(ips, nic.ipv4Addresses());
      addStripped(ips, nic.ipv6Addresses());
    }
    return ips;
  }

  private static void addStripped(List<String> into, List<String> cidrs) {
    if (cidrs == null) {
      return;
    }
    for (String cidr : cidrs) {
      if (cidr != null && !cidr.isBlank()) {
        int slash = cidr.indexOf('/');
        into.add(slash < 0 ? cidr : cidr.substring(0, slash));
      }
    }
  }

  /** The labels the user asked for on this host's node (empty if none or unparsable). */
  public Map<String, String> parsedNodeLabels() {
    if (nodeLabels == null || nodeLabels.isBlank()) {
      return Map.of();
    }
    try {
      Map<String, String> m = Json.MAPPER.readValue(nodeLabels, new TypeReference<LinkedHashMap<String, String>>() { });
      return m == null ? Map.of() : m;
    } catch (Exception e) {
      return Map.of();
    }
  }
}
