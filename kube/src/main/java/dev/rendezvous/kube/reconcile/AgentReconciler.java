package dev.rendezvous.kube.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.kube.Kinds;
import dev.rendezvous.kube.WorkQueue;
import dev.rendezvous.kube.mapping.AgentStatuses;
import dev.rendezvous.kube.mapping.Conditions;
import dev.rendezvous.kube.mapping.SyncResult;
import dev.rendezvous.kube.service.ServiceApi.ServiceError;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host ↔ its Agent (named by the host id, in its InfraEnv's namespace, labelled with the InfraEnv). Creates the
 * Agent when a host of a kube-managed infra-env has none (approved only if the InfraEnv says so), applies the spec
 * the user sets (binding to a ClusterDeployment, role, hostname, installation disk) and writes the status from the
 * host. Deleting an Agent removes its host; a host deleted elsewhere takes its Agent with it.
 */
public final class AgentReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(AgentReconciler.class);
  public static final String FINALIZER = "agent.agent-install.openshift.io/ai-deprovision";
  /** The Agent cache index: {@code namespace/name} of the InfraEnv an Agent belongs to (its label). */
  public static final String OF_INFRA_ENV = "of-infra-env";

  private final KubeContext k;
  private final InfraEnvReconciler infraEnvs;
  /** Per host, the node labels, pool and Ignition overrides last applied (not sent again while unchanged). */
  private final java.util.Map<String, String> appliedExtras = new java.util.concurrent.ConcurrentHashMap<>();

  public AgentReconciler(KubeContext k, InfraEnvReconciler infraEnvs) {
    this.k = k;
    this.infraEnvs = infraEnvs;
  }

  @Override
  public void reconcile(String ns, String hostId) {
    Optional<JsonNode> found = k.store().get(Kinds.AGENT, ns, hostId);
    if (found.isEmpty()) {
      createIfHostExists(ns, hostId);
      return;
    }
    JsonNode agent = found.get();
    String ieName = agent.path("metadata").path("labels").path(Kinds.INFRA_ENV_LABEL).asText("");
    String ieKey = ns + "/" + ieName;
    Optional<String> ieId = k.index().infraEnvOf(ieKey);
    String owner = KubeContext.owner(Kinds.INFRA_ENV, ns, ieName);
    if (KubeContext.deleting(agent)) {
      ieId.ifPresent(id -> k.service().deleteHost(id, hostId, owner));
      k.index().forgetHost(hostId);
      appliedExtras.remove(hostId);
      k.finalizer(Kinds.AGENT, agent, FINALIZER, false);
      requeueInstallOf(agent);
      return;
    }
    if (ieId.isEmpty()) {
      throw new WorkQueue.Requeue(k.missingRetry()); // its InfraEnv is not reconciled yet (a restart)
    }
    k.finalizer(Kinds.AGENT, agent, FINALIZER, true);
    Optional<JsonNode> host = k.service().host(ieId.get(), hostId);
    if (host.isEmpty()) {
      LOG.atInfo().addKeyValue("host_id", hostId).log("host gone from the service: its Agent goes too");
      k.finalizer(Kinds.AGENT, agent, FINALIZER, false);
      k.store().delete(Kinds.AGENT, ns, hostId);
      return;
    }
    SyncResult sync = SyncResult.OK;
    JsonNode h = host.get();
    boolean unbindAsked = !agent.path("spec").path("clusterDeploymentName").hasNonNull("name")
        && h.hasNonNull("cluster_id");
    if (AgentStatuses.pastDiscovery(h.path("status").asText()) && !unbindAsked) {
      // the host is being installed or is installed: its spec is what it was, nothing to apply but an unbind (which
      // reclaims an installed host); the last verdict on it stands
      JsonNode before = Conditions.find(agent.path("status").path("conditions"), "SpecSynced");
      if (before != null && !"True".equals(before.path("status").asText())) {
        sync = new SyncResult(false, before.path("reason").asText(), before.path("message").asText());
      }
    } else {
      try {
        if (applySpec(agent, h, ieId.get(), owner)) {
          h = k.service().host(ieId.get(), hostId).orElse(h);
        }
      } catch (ServiceError e) {
        if (!e.inputError() && e.status() != 409) {
          throw e;
        }
        sync = SyncResult.inputError(e.getMessage());
      } catch (IllegalArgumentException e) {
        sync = SyncResult.inputError(e.getMessage());
      }
    }
    boolean approved = agent.path("spec").path("approved").asBoolean(false);
    ObjectNode status = AgentStatuses.status(agent.path("status"), h, approved, sync, k.apiBase(), k.clock().instant());
    k.status(Kinds.AGENT, agent, status);
    requeueInstallOf(agent);
  }

  /** The AgentClusterInstall this Agent counts for: its tally (and so maybe the installation's start) changed. */
  private void requeueInstallOf(JsonNode agent) {
    JsonNode ref = agent.path("spec").path("clusterDeploymentName");
    if (!ref.hasNonNull("name")) {
      return;
    }
    String cdNs = ref.path("namespace").asText(KubeContext.ns(agent));
    String cdName = ref.path("name").asText();
    String aciName = k.store().get(Kinds.CLUSTER_DEPLOYMENT, cdNs, cdName)
        .map(cd -> cd.path("spec").path("clusterInstallRef").path("name").asText(cdName)).orElse(cdName);
    k.queue().addAfter(KubeContext.key(Kinds.AGENT_CLUSTER_INSTALL, cdNs, aciName), java.time.Duration.ofMillis(100));
  }

  /**
   * Upstream's shouldReclaimOnUnbind: an Agent no BareMetalHost manages is reclaimed when unbound (an installed host
   * reboots into discovery and comes back to the pool); one a BareMetalHost manages is left to the bare-metal operator,
   * which reprovisions it. Upstream also needs the spoke cluster reachable to start the agent on the node; here no
   * spoke cluster exists to start one on: the agent the host still runs does it (a dry-run agent; a real node runs none
   * after its reboot and waits in unbinding-pending-user-action once the reclaim times out).
   */
  static boolean reclaimsOnUnbind(JsonNode agent) {
    return !agent.path("metadata").path("labels").has(BMH_LABEL);
  }

  /** The label upstream's BareMetalHost agent controller puts on an Agent it manages. */
  static final String BMH_LABEL = "agent-install.openshift.io/bmh";

  /** Binding, role, hostname and disk as the spec asks; true when something was changed. */
  private boolean applySpec(JsonNode agent, JsonNode host, String ieId, String owner) {
    String hostId = KubeContext.name(agent);
    boolean changed = false;
    JsonNode ref = agent.path("spec").path("clusterDeploymentName");
    String want = null;
    if (ref.hasNonNull("name")) {
      String cdNs = ref.path("namespace").asText(KubeContext.ns(agent));
      want = infraEnvs.clusterOfDeployment(cdNs, ref.path("name").asText()).orElseThrow(() -> new WorkQueue.Requeue(
          k.missingRetry()));
    }
    String has = host.hasNonNull("cluster_id") ? host.path("cluster_id").asText() : null;
    if (want != null && !want.equals(has) || want == null && has != null) {
      if (has != null) {
        k.service().hostAction(ieId, hostId, owner, reclaimsOnUnbind(agent) ? "unbind?reclaim=true" : "unbind", null);
      }
      if (want != null) {
        k.service().hostAction(ieId, hostId, owner, "bind", KubeContext.JSON.createObjectNode().put("cluster_id", want));
      }
      changed = true;
    }
    if (want == null) {
      return changed; // unbound hosts take no role, name or disk
    }
    ObjectNode params = KubeContext.JSON.createObjectNode();
    String role = agent.path("spec").path("role").asText("");
    if (!role.isEmpty() && !role.equals("auto-assign") && !role.equals(host.path("role").asText())) {
      params.put("host_role", role);
    }
    String hostname = agent.path("spec").path("hostname").asText("");
    if (!hostname.isEmpty() && !hostname.equals(host.path("requested_hostname").asText())) {
      params.put("host_name", hostname);
    }
    String disk = agent.path("spec").path("installation_disk_id").asText("");
    if (!disk.isEmpty() && !disk.equals(host.path("installation_disk_id").asText())) {
      ArrayNode d = params.putArray("disks_selected_config");
      d.addObject().put("id", disk).put("role", "install");
    }
    // node labels, machine config pool and Ignition overrides: applied once per change of the Agent's spec
    JsonNode labels = agent.path("spec").path("nodeLabels");
    String pool = agent.path("spec").path("machineConfigPool").asText("");
    String overrides = agent.path("spec").path("ignitionConfigOverrides").asText("");
    String extras = labels.toString() + "|" + pool + "|" + overrides;
    if (!extras.equals(appliedExtras.get(hostId)) && !changed) {
      if (labels.isObject() && !labels.isEmpty()) {
        ArrayNode l = params.putArray("node_labels");
        labels.fields().forEachRemaining(e -> l.addObject().put("key", e.getKey()).put("value", e.getValue().asText()));
      }
      if (!pool.isEmpty()) {
        params.put("machine_config_pool_name", pool);
      }
      if (!overrides.isEmpty() && !overrides.equals(host.path("ignition_config_overrides").asText(""))) {
        k.service().hostIgnition(ieId, hostId, owner, overrides);
      }
      if (params.isEmpty()) {
        appliedExtras.put(hostId, extras);
      }
    }
    if (!params.isEmpty() && !changed) {
      k.service().updateHost(ieId, hostId, owner, params);
      appliedExtras.put(hostId, extras);
      changed = true;
    } else if (!params.isEmpty()) {
      k.queue().addAfter(KubeContext.key(Kinds.AGENT, KubeContext.ns(agent), hostId), java.time.Duration.ofMillis(500));
    }
    return changed;
  }

  /** A host of a kube-managed infra-env without an Agent: make it (the informer brings it back here). */
  private void createIfHostExists(String ns, String hostId) {
    Optional<String> ieId = k.index().infraEnvOfHost(hostId);
    if (ieId.isEmpty()) {
      return;
    }
    Optional<String> ieKey = k.index().infraEnvCrOf(ieId.get());
    if (ieKey.isEmpty() || !ieKey.get().startsWith(ns + "/")) {
      return;
    }
    String ieName = ieKey.get().substring(ns.length() + 1);
    Optional<JsonNode> ie = k.store().get(Kinds.INFRA_ENV, ns, ieName);
    if (ie.isEmpty() || KubeContext.deleting(ie.get()) || k.service().host(ieId.get(), hostId).isEmpty()) {
      return;
    }
    JsonNode spec = ie.get().path("spec");
    ObjectNode agent = KubeContext.JSON.createObjectNode();
    agent.put("apiVersion", Kinds.AGENT.apiVersion()).put("kind", Kinds.AGENT.kind);
    ObjectNode meta = agent.putObject("metadata").put("name", hostId).put("namespace", ns);
    ObjectNode labels = meta.putObject("labels");
    spec.path("agentLabels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
    labels.put(Kinds.INFRA_ENV_LABEL, ieName);
    meta.putArray("finalizers").add(FINALIZER);
    ObjectNode agentSpec = agent.putObject("spec")
        .put("approved", spec.path("agentApproval").path("autoApprove").asBoolean(false)).put("role", "");
    if (spec.path("clusterRef").hasNonNull("name")) {
      agentSpec.putObject("clusterDeploymentName").put("name", spec.path("clusterRef").path("name").asText())
          .put("namespace", spec.path("clusterRef").path("namespace").asText(ns));
    }
    if (k.store().create(Kinds.AGENT, ns, agent)) {
      LOG.atInfo().addKeyValue("host_id", hostId).addKeyValue("infra_env_id", ieId.get())
          .log("Agent created for a discovered host");
    }
  }
}
