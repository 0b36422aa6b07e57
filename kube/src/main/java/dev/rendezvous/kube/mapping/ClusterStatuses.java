package dev.rendezvous.kube.mapping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * An AgentClusterInstall's status from its cluster as the REST API shows it and from the Agents bound to it, with
 * upstream's condition types, reasons and messages (SpecSynced, RequirementsMet, Validated, Completed, Failed,
 * Stopped). Also decides whether the installation may start: upstream starts it by itself once the cluster is ready,
 * exactly the required agents are bound, all approved, and the installation is not held. Pure functions.
 */
public final class ClusterStatuses {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Set<String> INSTALLING = Set.of("preparing-for-installation", "installing", "installing-pending-user-action",
      "finalizing", "installed", "adding-hosts");
  static final Set<String> STOPPED = Set.of("error", "cancelled");

  private ClusterStatuses() {}

  /**
   * The Agents bound to a ClusterDeployment by role (an auto-assigned one by the role the service suggests; still
   * undecided ones apart), as upstream's InsufficientAgents check counts them; unapproved and spec-error ones too.
   */
  public record AgentTally(int masters, int workers, int arbiters, int undecided, int unapproved, int unsynced) {
    public static final AgentTally NONE = new AgentTally(0, 0, 0, 0, 0, 0);

    public int total() {
      return masters + workers + arbiters + undecided;
    }

    /** Exactly the required number bound, and no role over its count (undecided ones fill what is left). */
    public boolean meets(ClusterSpecs.Requirements r) {
      return total() == r.total() && masters <= r.controlPlane() && workers <= r.workers() && arbiters <= r.arbiters();
    }
  }

  /** The outcome of one evaluation: the new status and whether the reconciler should start the installation. */
  public record Evaluation(ObjectNode status, boolean startInstall) {}

  public static Evaluation evaluate(JsonNode previousStatus, JsonNode cluster, SyncResult sync, AgentTally tally,
      ClusterSpecs.Requirements req, boolean hold, String apiBase, Instant now) {
    ObjectNode s = JSON.createObjectNode();
    Conditions c = new Conditions(previousStatus.path("conditions"), now, true);
    c.set("SpecSynced", sync.ok(), sync.reason(), sync.message());
    String status = cluster == null ? "" : cluster.path("status").asText();
    String info = cluster == null ? "" : cluster.path("status_info").asText();
    boolean agentsOk = tally.meets(req);
    boolean start = false;
    // upstream's clusterRequirementsMet: agents are counted only once the cluster is ready
    if (cluster == null) {
      c.set("RequirementsMet", false, "NotAvailable", "Information not available");
    } else if ("installed".equals(status) || "error".equals(status)) {
      c.set("RequirementsMet", true, "ClusterInstallationStopped", "The cluster installation stopped");
    } else if (INSTALLING.contains(status)) {
      c.set("RequirementsMet", true, "ClusterAlreadyInstalling", "The cluster requirements are met");
    } else if (!"ready".equals(status)) {
      c.set("RequirementsMet", false, "ClusterNotReady", "The cluster is not ready to begin the installation");
    } else if (!agentsOk) {
      c.set("RequirementsMet", false, "InsufficientAgents", String.format("The cluster currently requires exactly %d"
          + " master agents, %d arbiter agents and %d worker agents, but currently registered %d master agents, %d"
          + " arbiter agents and %d worker agents", req.controlPlane(), req.arbiters(), req.workers(),
          tally.masters(), tally.arbiters(), tally.workers()));
    } else if (tally.unsynced() > 0) {
      c.set("RequirementsMet", false, "UnsyncedAgents",
          "The cluster currently has " + tally.unsynced() + " agents with spec error");
    } else if (tally.unapproved() > 0) {
      c.set("RequirementsMet", false, "UnapprovedAgents",
          "The installation is pending on the approval of " + tally.unapproved() + " agents");
    } else {
      c.set("RequirementsMet", true, "ClusterIsReady", "The cluster is ready to begin the installation");
      start = sync.ok() && !hold;
    }
    validated(c, cluster, status);
    if (cluster == null) {
      c.set("Completed", false, "InstallationNotStarted", "The installation has not yet started");
    } else if ("installed".equals(status) || "adding-hosts".equals(status)) {
      c.set("Completed", true, "InstallationCompleted", "The installation has completed: " + info);
    } else if ("error".equals(status)) {
      c.set("Completed", false, "InstallationFailed", "The installation has failed: " + info);
    } else if (INSTALLING.contains(status)) {
      c.set("Completed", false, "InstallationInProgress", "The installation is in progress: " + info);
    } else if (hold && "ready".equals(status)) {
      c.set("Completed", false, "InstallationOnHold",
          "The installation is on hold. To unhold set holdInstallation to false");
    } else {
      c.set("Completed", false, "InstallationNotStarted", "The installation has not yet started");
    }
    if ("error".equals(status)) {
      c.set("Failed", true, "InstallationFailed", "The installation failed: " + info);
    } else {
      c.set("Failed", false, "InstallationNotFailed", "The installation has not failed");
    }
    switch (status) {
      case "installed", "adding-hosts" -> c.set("Stopped", true, "InstallationCompleted",
          "The installation has stopped because it completed successfully");
      case "error" -> c.set("Stopped", true, "InstallationFailed", "The installation has stopped due to error");
      case "cancelled" -> c.set("Stopped", true, "InstallationCancelled",
          "The installation has stopped because it was cancelled");
      default -> c.set("Stopped", false, "InstallationNotStopped", "The installation is waiting to start or in progress");
    }
    s.set("conditions", c.build());
    ObjectNode debug = s.putObject("debugInfo");
    if (cluster != null) {
      String id = cluster.path("id").asText();
      debug.put("eventsURL", apiBase + "/events?cluster_id=" + id);
      debug.put("logsURL", INSTALLING.contains(status) || STOPPED.contains(status)
          ? apiBase + "/clusters/" + id + "/logs" : "");
      debug.put("state", status);
      debug.put("stateInfo", info);
      s.putObject("progress").put("totalPercentage", cluster.path("progress").path("total_percentage").asLong(0));
      copyVips(cluster, s);
      if (cluster.path("machine_networks").isArray() && !cluster.path("machine_networks").isEmpty()) {
        ArrayNode mn = s.putArray("machineNetwork");
        cluster.path("machine_networks").forEach(n -> mn.addObject().put("cidr", n.path("cidr").asText()));
      }
      if (cluster.has("user_managed_networking")) {
        s.put("userManagedNetworking", cluster.path("user_managed_networking").asBoolean());
      }
      if (cluster.path("platform").hasNonNull("type")) {
        s.put("platformType", platformType(cluster.path("platform").path("type").asText()));
      }
      JsonNode validations = parsed(cluster.path("validations_info"));
      if (validations != null && validations.isObject()) {
        s.set("validationsInfo", validations);
      }
    } else {
      debug.put("eventsURL", "").put("logsURL", "");
      s.putObject("progress").put("totalPercentage", 0);
    }
    s.put("controlPlaneAgentsDiscovered", tally.masters());
    s.put("workerAgentsDiscovered", tally.workers());
    return new Evaluation(s, start);
  }

  private static void validated(Conditions c, JsonNode cluster, String status) {
    if (cluster == null) {
      c.set("Validated", false, "ValidationsUnknown", "The cluster's validations have not yet been calculated");
      return;
    }
    JsonNode validations = parsed(cluster.path("validations_info"));
    if (validations == null || !validations.isObject() || validations.isEmpty()) {
      c.set("Validated", false, "ValidationsUnknown", "The cluster's validations have not yet been calculated");
      return;
    }
    List<String> failing = failingMessages(validations);
    switch (status) {
      case "insufficient" -> c.set("Validated", false, "ValidationsFailing",
          "The cluster's validations are failing: " + String.join(",", failing));
      case "pending-for-input" -> c.set("Validated", false, "ValidationsUserPending",
          "The cluster's validations are pending for user: " + String.join(",", failing));
      default -> {
        if (failing.isEmpty() || INSTALLING.contains(status) || "ready".equals(status)) {
          c.set("Validated", true, "ValidationsPassing", "The cluster's validations are passing");
        } else {
          c.set("Validated", false, "ValidationsFailing",
              "The cluster's validations are failing: " + String.join(",", failing));
        }
      }
    }
  }

  /** Messages of every validation not in success, in the order the service lists them. */
  static List<String> failingMessages(JsonNode validations) {
    List<String> out = new ArrayList<>();
    if (validations != null && validations.isObject()) {
      validations.fields().forEachRemaining(group -> group.getValue().forEach(v -> {
        if (!"success".equals(v.path("status").asText()) && !"disabled".equals(v.path("status").asText())) {
          out.add(v.path("message").asText());
        }
      }));
    }
    return out;
  }

  /** The service keeps validations_info as a JSON string, as upstream does. */
  static JsonNode parsed(JsonNode maybeString) {
    if (maybeString == null || maybeString.isMissingNode() || maybeString.isNull()) {
      return null;
    }
    if (maybeString.isTextual()) {
      try {
        return JSON.readTree(maybeString.asText());
      } catch (IOException e) {
        return null;
      }
    }
    return maybeString;
  }

  private static void copyVips(JsonNode cluster, ObjectNode s) {
    for (String[] f : new String[][] {{"api_vips", "apiVIPs", "apiVIP"}, {"ingress_vips", "ingressVIPs", "ingressVIP"}}) {
      JsonNode vips = cluster.path(f[0]);
      if (vips.isArray() && !vips.isEmpty()) {
        ArrayNode a = s.putArray(f[1]);
        vips.forEach(v -> a.add(v.path("ip").asText()));
        s.put(f[2], vips.get(0).path("ip").asText());
      }
    }
  }

  /** Upstream's PlatformType spelling for the API's platform type. */
  static String platformType(String apiType) {
    return switch (apiType) {
      case "baremetal" -> "BareMetal";
      case "none" -> "None";
      case "vsphere" -> "VSphere";
      case "nutanix" -> "Nutanix";
      case "external" -> "External";
      default -> apiType;
    };
  }
}
