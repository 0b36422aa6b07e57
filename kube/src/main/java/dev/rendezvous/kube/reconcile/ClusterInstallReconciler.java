package dev.rendezvous.kube.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.kube.Kinds;
import dev.rendezvous.kube.WorkQueue;
import dev.rendezvous.kube.mapping.ClusterSpecs;
import dev.rendezvous.kube.mapping.ClusterStatuses;
import dev.rendezvous.kube.mapping.SpecError;
import dev.rendezvous.kube.mapping.SyncResult;
import dev.rendezvous.kube.service.ServiceApi.ServiceError;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AgentClusterInstall + its ClusterDeployment → a cluster, in small named steps as Strimzi reconciles: remove on
 * deletion, keep the finalizer, read what the spec refers to (ClusterDeployment, ClusterImageSet, pull secret), create
 * or update the cluster, then status from the cluster and its Agents; start the installation once upstream would; when
 * installed, the admin kubeconfig and password Secrets and the ClusterDeployment's {@code installed}/{@code clusterMetadata}.
 */
public final class ClusterInstallReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterInstallReconciler.class);
  public static final String FINALIZER = "agentclusterinstall.agent-install.openshift.io/ai-deprovision";
  /** Upstream's annotation with install-config overrides (JSON), applied before the installation. */
  public static final String INSTALL_CONFIG_OVERRIDES = "agent-install.openshift.io/install-config-overrides";

  private final KubeContext k;
  /** What was last applied per ACI: its generation, its ClusterDeployment's and the pull secret (no PATCH when unchanged). */
  private final Map<String, String> applied = new ConcurrentHashMap<>();
  /** When the installation of a cluster was last asked for: not again within {@link #INSTALL_RETRY}. */
  private final Map<String, Instant> installAsked = new ConcurrentHashMap<>();
  private static final Duration INSTALL_RETRY = Duration.ofSeconds(30);
  /** Cluster states in which the service takes a spec change (before installation). */
  private static final java.util.Set<String> EDITABLE = java.util.Set.of("insufficient", "ready", "pending-for-input");

  public ClusterInstallReconciler(KubeContext k) {
    this.k = k;
  }

  @Override
  public void reconcile(String ns, String name) {
    Optional<JsonNode> found = k.store().get(Kinds.AGENT_CLUSTER_INSTALL, ns, name);
    if (found.isEmpty()) {
      applied.remove(ns + "/" + name);
      return;
    }
    JsonNode aci = found.get();
    String owner = KubeContext.owner(Kinds.AGENT_CLUSTER_INSTALL, ns, name);
    if (KubeContext.deleting(aci)) {
      remove(aci, owner);
      return;
    }
    k.finalizer(Kinds.AGENT_CLUSTER_INSTALL, aci, FINALIZER, true);
    if (ownedByGoneDeployment(aci, ns)) {
      return;
    }
    Inputs in;
    try {
      in = inputs(aci, ns);
    } catch (SpecError e) {
      writeStatus(aci, null, null, SyncResult.inputError(e.getMessage()));
      if (e.field().endsWith("pullSecretRef")) {
        throw new WorkQueue.Requeue(k.missingRetry()); // Secrets are not watched: look again
      }
      return;
    }
    String clusterId;
    SyncResult sync = SyncResult.OK;
    try {
      clusterId = apply(aci, in, owner);
    } catch (SpecError e) {
      writeStatus(aci, k.index().clusterOf(ns + "/" + name).orElse(null), in.cd, SyncResult.inputError(e.getMessage()));
      return;
    } catch (ServiceError e) {
      if (!e.inputError()) {
        writeStatus(aci, k.index().clusterOf(ns + "/" + name).orElse(null), in.cd, SyncResult.backendError(e.getMessage()));
        throw e;
      }
      sync = SyncResult.inputError(ClusterSpecs.crField(e.field()) + ": " + e.getMessage());
      clusterId = k.index().clusterOf(ns + "/" + name).orElse(null);
    }
    writeStatus(aci, clusterId, in.cd, sync);
  }

  /**
   * The AgentClusterInstall belongs to its ClusterDeployment (an ownerReference, as upstream sets it): a real API
   * server's garbage collector deletes it with the ClusterDeployment. Sets the reference once, and deletes the
   * AgentClusterInstall itself when the ClusterDeployment it was made for is gone (a hub without the collector, or a
   * reference not yet set); its finalizer then removes the cluster. True when it was deleted.
   */
  private boolean ownedByGoneDeployment(JsonNode aci, String ns) {
    String cdName = aci.path("spec").path("clusterDeploymentRef").path("name").asText("");
    Optional<JsonNode> cd = cdName.isEmpty() ? Optional.empty() : k.store().get(Kinds.CLUSTER_DEPLOYMENT, ns, cdName);
    String ownerUid = null;
    for (JsonNode ref : aci.path("metadata").path("ownerReferences")) {
      if (Kinds.CLUSTER_DEPLOYMENT.kind.equals(ref.path("kind").asText())) {
        ownerUid = ref.path("uid").asText();
      }
    }
    if (cd.isEmpty()) {
      boolean made = k.index().clusterOf(ns + "/" + KubeContext.name(aci)).isPresent();
      if (ownerUid != null || made) {
        LOG.atInfo().addKeyValue("cr", ns + "/" + KubeContext.name(aci))
            .log("its ClusterDeployment is gone: the AgentClusterInstall goes too");
        k.store().delete(Kinds.AGENT_CLUSTER_INSTALL, ns, KubeContext.name(aci));
        return true;
      }
      return false; // never made anything: the missing ClusterDeployment is an input error, below
    }
    String uid = cd.get().path("metadata").path("uid").asText();
    if (!uid.equals(ownerUid)) {
      k.store().update(Kinds.AGENT_CLUSTER_INSTALL, aci, o -> {
        com.fasterxml.jackson.databind.node.ArrayNode refs = ((ObjectNode) o.path("metadata")).putArray("ownerReferences");
        refs.addObject().put("apiVersion", Kinds.CLUSTER_DEPLOYMENT.apiVersion()).put("kind", Kinds.CLUSTER_DEPLOYMENT.kind)
            .put("name", cdName).put("uid", uid);
        return o;
      });
    }
    return false;
  }

  private record Inputs(JsonNode cd, String pullSecret, String releaseImage) {}

  private Inputs inputs(JsonNode aci, String ns) {
    String cdName = aci.path("spec").path("clusterDeploymentRef").path("name").asText("");
    if (cdName.isEmpty()) {
      throw new SpecError("AgentClusterInstall.spec.clusterDeploymentRef.name", "is required");
    }
    JsonNode cd = k.store().get(Kinds.CLUSTER_DEPLOYMENT, ns, cdName).orElseThrow(() -> new SpecError(
        "AgentClusterInstall.spec.clusterDeploymentRef", "ClusterDeployment " + ns + "/" + cdName + " not found"));
    String setName = aci.path("spec").path("imageSetRef").path("name").asText("");
    if (setName.isEmpty()) {
      throw new SpecError("AgentClusterInstall.spec.imageSetRef.name", "is required");
    }
    JsonNode set = k.store().get(Kinds.CLUSTER_IMAGE_SET, null, setName).orElseThrow(() -> new SpecError(
        "AgentClusterInstall.spec.imageSetRef", "ClusterImageSet " + setName + " not found"));
    String secretName = cd.path("spec").path("pullSecretRef").path("name").asText("");
    if (secretName.isEmpty()) {
      throw new SpecError("ClusterDeployment.spec.pullSecretRef", "is required");
    }
    String releaseImage = set.path("spec").path("releaseImage").asText("");
    String key = ns + "/" + KubeContext.name(aci);
    if (k.index().clusterOf(key).isPresent() && specVersion(aci, cd, releaseImage).equals(applied.get(key))) {
      return new Inputs(cd, null, releaseImage); // applied already: no Secret to read (a bus event's reconcile)
    }
    String pullSecret = k.store().secretValue(ns, secretName, ".dockerconfigjson").orElseThrow(() -> new SpecError(
        "ClusterDeployment.spec.pullSecretRef", "Secret " + ns + "/" + secretName
            + " with key .dockerconfigjson not found"));
    return new Inputs(cd, pullSecret, releaseImage);
  }

  /**
   * What was applied: the generations of the AgentClusterInstall and its ClusterDeployment, the release image and the
   * overrides. A changed pull secret alone is applied at the next change of these (upstream watches labelled Secrets).
   */
  private static String specVersion(JsonNode aci, JsonNode cd, String releaseImage) {
    return aci.path("metadata").path("generation").asText() + "/" + cd.path("metadata").path("generation").asText()
        + "/" + releaseImage + "/" + aci.path("metadata").path("annotations").path(INSTALL_CONFIG_OVERRIDES).asText("");
  }

  /** Creates the cluster (the service returns the existing one for this owner) or applies a changed spec. */
  private String apply(JsonNode aci, Inputs in, String owner) {
    String key = KubeContext.ns(aci) + "/" + KubeContext.name(aci);
    String version = specVersion(aci, in.cd, in.releaseImage);
    Optional<String> known = k.index().clusterOf(key);
    String id;
    if (known.isEmpty()) {
      ObjectNode params = ClusterSpecs.createParams(in.cd, aci, in.pullSecret, in.releaseImage);
      id = k.service().createCluster(owner, params).path("id").asText();
      k.index().cluster(key, id);
      // InfraEnvs bound to this cluster may be waiting for it
      k.store().list(Kinds.INFRA_ENV, KubeContext.ns(aci)).forEach(ie -> k.queue().add(
          KubeContext.key(Kinds.INFRA_ENV, KubeContext.ns(ie), KubeContext.name(ie))));
      LOG.atInfo().addKeyValue("cluster_id", id).addKeyValue("cr", key).log("cluster made for its AgentClusterInstall");
    } else {
      id = known.get();
      if (version.equals(applied.get(key))) {
        return id;
      }
      JsonNode cluster = k.service().cluster(id).orElse(null);
      if (cluster == null || !EDITABLE.contains(cluster.path("status").asText())) {
        applied.put(key, version); // installing or installed (spec.installed, a restart): nothing to change
        return id;
      }
      ObjectNode params = ClusterSpecs.updateParams(aci);
      params.put("pull_secret", in.pullSecret);
      params.put("base_dns_domain", in.cd.path("spec").path("baseDomain").asText());
      k.service().updateCluster(id, owner, params);
    }
    manifestsAndOverrides(aci, id, owner);
    applied.put(key, version);
    return id;
  }

  /** ConfigMaps named by manifestsConfigMapRef(s) become the cluster's custom manifests; overrides patch install-config. */
  private void manifestsAndOverrides(JsonNode aci, String clusterId, String owner) {
    String ns = KubeContext.ns(aci);
    java.util.List<String> maps = new java.util.ArrayList<>();
    if (aci.path("spec").path("manifestsConfigMapRef").hasNonNull("name")) {
      maps.add(aci.path("spec").path("manifestsConfigMapRef").path("name").asText());
    }
    aci.path("spec").path("manifestsConfigMapRefs").forEach(r -> maps.add(r.path("name").asText()));
    if (!maps.isEmpty()) {
      java.util.Set<String> existing = new java.util.HashSet<>();
      k.service().manifests(clusterId).forEach(m -> existing.add(m.path("folder").asText() + "/" + m.path("file_name").asText()));
      for (String cm : maps) {
        Map<String, String> data = k.store().configMapData(ns, cm).orElseThrow(() -> new SpecError(
            "AgentClusterInstall.spec.manifestsConfigMapRefs", "ConfigMap " + ns + "/" + cm + " not found"));
        for (var e : data.entrySet()) {
          if (existing.contains("openshift/" + e.getKey())) {
            k.service().deleteManifest(clusterId, owner, "openshift", e.getKey());
          }
          k.service().createManifest(clusterId, owner, "openshift", e.getKey(), e.getValue());
        }
      }
    }
    String overrides = aci.path("metadata").path("annotations").path(INSTALL_CONFIG_OVERRIDES).asText("");
    if (!overrides.isBlank()) {
      k.service().installConfigOverrides(clusterId, owner, overrides);
    }
  }

  private void writeStatus(JsonNode aci, String clusterId, JsonNode cd, SyncResult sync) {
    String ns = KubeContext.ns(aci);
    JsonNode cluster = clusterId == null ? null : k.service().cluster(clusterId).orElse(null);
    String cdName = aci.path("spec").path("clusterDeploymentRef").path("name").asText("");
    ClusterStatuses.AgentTally tally = AgentTallies.of(k, ns, cdName, cluster);
    boolean hold = aci.path("spec").path("holdInstallation").asBoolean(false);
    ClusterStatuses.Evaluation eval = ClusterStatuses.evaluate(aci.path("status"), cluster, sync, tally,
        ClusterSpecs.requirements(aci), hold, k.apiBase(), k.clock().instant());
    k.status(Kinds.AGENT_CLUSTER_INSTALL, aci, eval.status());
    Instant now = k.clock().instant();
    Instant last = installAsked.get(clusterId == null ? "" : clusterId);
    if (eval.startInstall() && (last == null || now.isAfter(last.plus(INSTALL_RETRY)))) {
      // a preparation that fails puts the cluster back to ready: ask again, but not at once (no hot loop)
      installAsked.put(clusterId, now);
      k.queue().addAfter(KubeContext.key(Kinds.AGENT_CLUSTER_INSTALL, ns, KubeContext.name(aci)),
          INSTALL_RETRY.plusSeconds(1));
      try {
        k.service().clusterAction(clusterId, KubeContext.owner(Kinds.AGENT_CLUSTER_INSTALL, ns, KubeContext.name(aci)),
            "install");
        LOG.atInfo().addKeyValue("cluster_id", clusterId).log("installation started: requirements met, agents approved");
      } catch (ServiceError e) {
        if (e.status() != 409) {
          throw e;
        }
        // the cluster left ready meanwhile: its next event brings this back
      }
    }
    if (cluster != null && "installed".equals(cluster.path("status").asText()) && cd != null
        && !cd.path("spec").path("installed").asBoolean(false)) {
      installed(cd, cluster);
    }
  }

  /** The admin kubeconfig and password as Secrets beside the ClusterDeployment, then {@code spec.installed}. */
  private void installed(JsonNode cd, JsonNode cluster) {
    String ns = KubeContext.ns(cd);
    String cdName = KubeContext.name(cd);
    String id = cluster.path("id").asText();
    String kubeconfig = k.service().kubeconfig(id);
    JsonNode creds = k.service().credentials(id);
    var ownerRef = new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
        .withApiVersion(Kinds.CLUSTER_DEPLOYMENT.apiVersion()).withKind(Kinds.CLUSTER_DEPLOYMENT.kind)
        .withName(cdName).withUid(cd.path("metadata").path("uid").asText()).build();
    String kubeconfigSecret = cdName + "-admin-kubeconfig";
    String passwordSecret = cdName + "-admin-password";
    k.store().putSecret(new SecretBuilder().withNewMetadata().withName(kubeconfigSecret).withNamespace(ns)
        .withOwnerReferences(ownerRef).addToLabels("hive.openshift.io/cluster-deployment-name", cdName).endMetadata()
        .addToStringData("kubeconfig", kubeconfig).build());
    k.store().putSecret(new SecretBuilder().withNewMetadata().withName(passwordSecret).withNamespace(ns)
        .withOwnerReferences(ownerRef).addToLabels("hive.openshift.io/cluster-deployment-name", cdName).endMetadata()
        .addToStringData("username", creds.path("username").asText("kubeadmin"))
        .addToStringData("password", creds.path("password").asText()).build());
    k.store().update(Kinds.CLUSTER_DEPLOYMENT, cd, o -> {
      ObjectNode spec = ((ObjectNode) o.path("spec")).put("installed", true);
      ObjectNode meta = spec.putObject("clusterMetadata")
          .put("clusterID", cluster.path("openshift_cluster_id").asText(id)).put("infraID", id);
      meta.putObject("adminKubeconfigSecretRef").put("name", kubeconfigSecret);
      meta.putObject("adminPasswordSecretRef").put("name", passwordSecret);
      return o;
    });
    LOG.atInfo().addKeyValue("cluster_id", id).addKeyValue("cr", ns + "/" + cdName)
        .log("installed: admin kubeconfig and password Secrets written");
  }

  /** Deletion: the cluster goes (its installation cancelled first), then the finalizer. */
  private void remove(JsonNode aci, String owner) {
    String key = KubeContext.ns(aci) + "/" + KubeContext.name(aci);
    // not in the index (a create whose answer was lost): the service still knows the owner
    Optional<String> id = k.index().clusterOf(key).or(() -> k.ownedId(k.service().clusters(), owner));
    if (id.isPresent()) {
      try {
        k.service().deleteCluster(id.get(), owner);
      } catch (ServiceError e) {
        if (e.status() != 409) {
          throw e;
        }
        k.service().clusterAction(id.get(), owner, "cancel");
        k.service().deleteCluster(id.get(), owner);
      }
      LOG.atInfo().addKeyValue("cluster_id", id.get()).addKeyValue("cr", key).log("cluster removed with its AgentClusterInstall");
    }
    k.index().forgetInstall(key);
    applied.remove(key);
    id.ifPresent(installAsked::remove);
    k.finalizer(Kinds.AGENT_CLUSTER_INSTALL, aci, FINALIZER, false);
  }
}
