package dev.rendezvous.kube.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.kube.Kinds;
import dev.rendezvous.kube.mapping.ClusterStatuses.AgentTally;
import dev.rendezvous.kube.mapping.Conditions;
import java.util.HashMap;
import java.util.Map;

/** Counts the Agents bound to a ClusterDeployment (the Agent cache's "bound-to" index) by role, approval and sync. */
final class AgentTallies {
  /** The Agent cache index: {@code namespace/name} of the ClusterDeployment an Agent's spec binds it to. */
  static final String BOUND_TO = "bound-to";

  private AgentTallies() {}

  static AgentTally of(KubeContext k, String ns, String cdName, JsonNode cluster) {
    Map<String, JsonNode> hosts = new HashMap<>();
    if (cluster != null) {
      cluster.path("hosts").forEach(h -> hosts.put(h.path("id").asText(), h));
    }
    int masters = 0;
    int workers = 0;
    int arbiters = 0;
    int undecided = 0;
    int unapproved = 0;
    int unsynced = 0;
    for (JsonNode agent : k.store().byIndex(Kinds.AGENT, BOUND_TO, ns + "/" + cdName)) {
      if (KubeContext.deleting(agent)) {
        continue;
      }
      JsonNode host = hosts.get(KubeContext.name(agent));
      String role = agent.path("spec").path("role").asText("");
      if (role.isEmpty() || role.equals("auto-assign")) {
        role = host == null ? "" : host.path("role").asText("");
        if (role.isEmpty() || role.equals("auto-assign")) {
          role = host == null ? "" : host.path("suggested_role").asText("");
        }
      }
      switch (role) {
        case "master", "bootstrap" -> masters++;
        case "worker" -> workers++;
        case "arbiter" -> arbiters++;
        default -> undecided++;
      }
      if (!agent.path("spec").path("approved").asBoolean(false)) {
        unapproved++;
      }
      JsonNode synced = Conditions.find(agent.path("status").path("conditions"), "SpecSynced");
      if (synced != null && !"True".equals(synced.path("status").asText())) {
        unsynced++;
      }
    }
    return new AgentTally(masters, workers, arbiters, undecided, unapproved, unsynced);
  }
}
