package dev.rendezvous.kube.mapping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Set;

/**
 * An Agent's status from its host as the REST API shows it: role, inventory in the Agent's camelCase shape, install
 * progress, validations, debug info and upstream's conditions (SpecSynced, Connected, RequirementsMet, Validated,
 * Installed, Bound) with their reasons and messages. Pure functions.
 */
public final class AgentStatuses {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> INSTALLING = Set.of("preparing-for-installation", "preparing-successful",
      "installing", "installing-in-progress", "installing-pending-user-action", "installed", "added-to-existing-cluster");
  private static final Set<String> DISCONNECTED = Set.of("disconnected", "disconnected-unbound");

  private AgentStatuses() {}

  /** A host past discovery (being installed, installed, or stopped there): its Agent's spec is no longer applied. */
  public static boolean pastDiscovery(String hostStatus) {
    return INSTALLING.contains(hostStatus) || "error".equals(hostStatus) || "cancelled".equals(hostStatus);
  }

  public static ObjectNode status(JsonNode previousStatus, JsonNode host, boolean approved, SyncResult sync,
      String apiBase, Instant now) {
    ObjectNode s = JSON.createObjectNode();
    String status = host.path("status").asText();
    String info = host.path("status_info").asText();
    Conditions c = new Conditions(previousStatus.path("conditions"), now, false);
    c.set("SpecSynced", sync.ok(), sync.reason(), sync.message());
    if (DISCONNECTED.contains(status)) {
      c.set("Connected", false, "AgentIsDisconnected",
          "The agent has not contacted the installation service in some time, user action should be taken");
    } else {
      c.set("Connected", true, "AgentIsConnected", "The agent's connection to the installation service is unimpaired");
    }
    if (INSTALLING.contains(status)) {
      c.set("RequirementsMet", true, "AgentAlreadyInstalling", "Installation already started and is in progress");
    } else if ("error".equals(status) || "cancelled".equals(status)) {
      c.set("RequirementsMet", false, "AgentInstallationStopped", "The agent installation stopped");
    } else if (!approved) {
      c.set("RequirementsMet", false, "AgentIsNotApproved", "The agent is not approved");
    } else if ("known".equals(status)) {
      c.set("RequirementsMet", true, "AgentIsReady", "The agent is ready to begin the installation");
    } else {
      c.set("RequirementsMet", false, "AgentNotReady", "The agent is not ready to begin the installation");
    }
    String failing = String.join(",", ClusterStatuses.failingMessages(ClusterStatuses.parsed(host.path("validations_info"))));
    switch (status) {
      case "insufficient", "insufficient-unbound" -> c.set("Validated", false, "ValidationsFailing",
          "The agent's validations are failing: " + failing);
      case "pending-for-input" -> c.set("Validated", false, "ValidationsUserPending",
          "The agent's validations are pending for user: " + failing);
      case "discovering", "discovering-unbound" -> c.set("Validated", false, "ValidationsUnknown",
          "The agent's validations have not yet been calculated");
      default -> c.set("Validated", true, "ValidationsPassing", "The agent's validations are passing");
    }
    if ("installed".equals(status) || "added-to-existing-cluster".equals(status)) {
      c.set("Installed", true, "InstallationCompleted", "The installation has completed: " + info);
    } else if ("error".equals(status)) {
      c.set("Installed", false, "InstallationFailed", "The installation has failed: " + info);
    } else if (INSTALLING.contains(status)) {
      c.set("Installed", false, "InstallationInProgress", "The installation is in progress: " + info);
    } else {
      c.set("Installed", false, "InstallationNotStarted", "The installation has not yet started");
    }
    if (status.endsWith("-unbound") || host.path("cluster_id").isNull() || host.path("cluster_id").isMissingNode()) {
      c.set("Bound", false, "Unbound", "The agent is not bound to any cluster deployment");
    } else if ("binding".equals(status)) {
      c.set("Bound", false, "Binding", "The agent is currently binding to a cluster deployment");
    } else if ("unbinding".equals(status)) {
      c.set("Bound", false, "Unbinding", "The agent is currently unbinding from a cluster deployment");
    } else {
      c.set("Bound", true, "Bound", "The agent is bound to a cluster deployment");
    }
    s.set("conditions", c.build());
    s.put("role", host.path("role").asText("auto-assign"));
    s.put("bootstrap", host.path("bootstrap").asBoolean(false));
    if (host.hasNonNull("installation_disk_id")) {
      s.put("installation_disk_id", host.path("installation_disk_id").asText());
    }
    JsonNode inventory = ClusterStatuses.parsed(host.path("inventory"));
    if (inventory != null && inventory.isObject()) {
      s.set("inventory", inventory(inventory));
    }
    JsonNode p = host.path("progress");
    if (p.isObject()) {
      ObjectNode progress = s.putObject("progress");
      putText(progress, "currentStage", p.path("current_stage"));
      putText(progress, "progressInfo", p.path("progress_info"));
      if (p.has("installation_percentage")) {
        progress.put("installationPercentage", p.path("installation_percentage").asLong());
      }
      putText(progress, "stageStartTime", p.path("stage_started_at"));
      putText(progress, "stageUpdateTime", p.path("stage_updated_at"));
      if (host.path("progress_stages").isArray()) {
        progress.set("progressStages", host.path("progress_stages"));
      }
    }
    JsonNode validations = ClusterStatuses.parsed(host.path("validations_info"));
    if (validations != null && validations.isObject()) {
      s.set("validationsInfo", validations);
    }
    ObjectNode debug = s.putObject("debugInfo");
    debug.put("eventsURL", apiBase + "/events?host_id=" + host.path("id").asText()
        + (host.hasNonNull("infra_env_id") ? "&infra_env_id=" + host.path("infra_env_id").asText() : ""));
    debug.put("state", status);
    debug.put("stateInfo", info);
    return s;
  }

  /** The service's inventory (upstream's snake_case) in the Agent CR's camelCase shape. */
  static ObjectNode inventory(JsonNode inv) {
    ObjectNode o = JSON.createObjectNode();
    putText(o, "hostname", inv.path("hostname"));
    putText(o, "bmcAddress", inv.path("bmc_address"));
    putText(o, "bmcV6Address", inv.path("bmc_v6address"));
    o.putObject("memory").put("physicalBytes", inv.path("memory").path("physical_bytes").asLong())
        .put("usableBytes", inv.path("memory").path("usable_bytes").asLong());
    ObjectNode cpu = o.putObject("cpu").put("count", inv.path("cpu").path("count").asLong())
        .put("clockMegahertz", (long) inv.path("cpu").path("frequency").asDouble());
    putText(cpu, "modelName", inv.path("cpu").path("model_name"));
    putText(cpu, "architecture", inv.path("cpu").path("architecture"));
    if (inv.path("cpu").path("flags").isArray()) {
      cpu.set("flags", inv.path("cpu").path("flags"));
    }
    ArrayNode nics = o.putArray("interfaces");
    for (JsonNode n : inv.path("interfaces")) {
      ObjectNode i = nics.addObject();
      putText(i, "name", n.path("name"));
      putText(i, "macAddress", n.path("mac_address"));
      i.set("ipV4Addresses", n.path("ipv4_addresses").isArray() ? n.path("ipv4_addresses") : JSON.createArrayNode());
      i.set("ipV6Addresses", n.path("ipv6_addresses").isArray() ? n.path("ipv6_addresses") : JSON.createArrayNode());
      i.set("flags", n.path("flags").isArray() ? n.path("flags") : JSON.createArrayNode());
      i.put("hasCarrier", n.path("has_carrier").asBoolean());
      i.put("mtu", n.path("mtu").asLong());
      i.put("speedMbps", n.path("speed_mbps").asLong());
      putText(i, "vendor", n.path("vendor"));
      putText(i, "product", n.path("product"));
    }
    ArrayNode disks = o.putArray("disks");
    for (JsonNode d : inv.path("disks")) {
      ObjectNode k = disks.addObject();
      putText(k, "id", d.path("id"));
      putText(k, "name", d.path("name"));
      putText(k, "path", d.path("path"));
      putText(k, "driveType", d.path("drive_type"));
      putText(k, "byPath", d.path("by_path"));
      putText(k, "byID", d.path("by_id"));
      putText(k, "model", d.path("model"));
      putText(k, "serial", d.path("serial"));
      putText(k, "vendor", d.path("vendor"));
      putText(k, "wwn", d.path("wwn"));
      putText(k, "hctl", d.path("hctl"));
      k.put("sizeBytes", d.path("size_bytes").asLong());
      k.put("bootable", d.path("bootable").asBoolean());
      JsonNode e = d.path("installation_eligibility");
      k.putObject("installationEligibility").put("eligible", e.path("eligible").asBoolean())
          .set("notEligibleReasons", e.path("not_eligible_reasons").isArray() ? e.path("not_eligible_reasons")
              : JSON.createArrayNode());
    }
    JsonNode v = inv.path("system_vendor");
    ObjectNode vendor = o.putObject("systemVendor");
    putText(vendor, "manufacturer", v.path("manufacturer"));
    putText(vendor, "productName", v.path("product_name"));
    putText(vendor, "serialNumber", v.path("serial_number"));
    vendor.put("virtual", v.path("virtual").asBoolean());
    ObjectNode boot = o.putObject("boot");
    putText(boot, "currentBootMode", inv.path("boot").path("current_boot_mode"));
    putText(boot, "pxeInterface", inv.path("boot").path("pxe_interface"));
    return o;
  }

  private static void putText(ObjectNode o, String field, JsonNode v) {
    if (v != null && !v.isMissingNode() && !v.isNull() && !v.asText().isEmpty()) {
      o.put(field, v.asText());
    }
  }
}
