package dev.rendezvous.kube.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.kube.Kinds;
import dev.rendezvous.kube.WorkQueue;
import dev.rendezvous.kube.mapping.Conditions;
import dev.rendezvous.kube.mapping.InfraEnvSpecs;
import dev.rendezvous.kube.mapping.SpecError;
import dev.rendezvous.kube.service.ServiceApi.ServiceError;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * InfraEnv (+ the NMStateConfigs its label selector picks) → an infra-env: remove on deletion (its Agents first, whose
 * own finalizers remove their hosts), keep the finalizer, read the pull secret and the cluster it refers to, create or
 * update, then status (ISO URL, boot artifacts, ImageCreated) and an Agent for every host that registered without one
 * yet (after a restart the bus may not have told). The ISO URL carries a download credential that expires: the
 * InfraEnv comes back before half its lifetime has passed, for a fresh one.
 */
public final class InfraEnvReconciler implements Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(InfraEnvReconciler.class);
  public static final String FINALIZER = "infraenv.agent-install.openshift.io/ai-deprovision";

  private final KubeContext k;
  private final Map<String, String> applied = new ConcurrentHashMap<>();
  /** InfraEnvs whose image changed since their status was written (a new createdTime, a new URL). */
  private final Map<String, Boolean> imageChanged = new ConcurrentHashMap<>();
  private final Map<String, Instant> urlRefreshAt = new ConcurrentHashMap<>();

  public InfraEnvReconciler(KubeContext k) {
    this.k = k;
  }

  @Override
  public void reconcile(String ns, String name) {
    Optional<JsonNode> found = k.store().get(Kinds.INFRA_ENV, ns, name);
    String key = ns + "/" + name;
    if (found.isEmpty()) {
      applied.remove(key);
      urlRefreshAt.remove(key);
      return;
    }
    JsonNode ie = found.get();
    String owner = KubeContext.owner(Kinds.INFRA_ENV, ns, name);
    if (KubeContext.deleting(ie)) {
      remove(ie, owner);
      return;
    }
    k.finalizer(Kinds.INFRA_ENV, ie, FINALIZER, true);
    String id;
    try {
      id = apply(ie, owner);
    } catch (SpecError e) {
      imageStatus(ie, null, "Failed to create image: " + e.getMessage());
      if (e.field().contains("pullSecretRef") || e.field().contains("clusterRef")) {
        throw new WorkQueue.Requeue(k.missingRetry()); // Secrets are not watched; the cluster may be on its way
      }
      return;
    } catch (ServiceError e) {
      String field = InfraEnvSpecs.crField(e.field());
      imageStatus(ie, k.index().infraEnvOf(key).orElse(null), "Failed to create image: "
          + (e.inputError() ? field + ": " : "") + e.getMessage());
      if (!e.inputError()) {
        throw e;
      }
      return;
    }
    JsonNode infraEnv = imageStatus(ie, id, null);
    agentsForNewHosts(ie, id);
    Instant refresh = urlRefreshAt.get(key);
    if (infraEnv != null && refresh != null) {
      Duration in = Duration.between(k.clock().instant(), refresh);
      if (in.compareTo(Duration.ofDays(365)) < 0) {
        k.queue().addAfter(KubeContext.key(Kinds.INFRA_ENV, ns, name), in.isNegative() ? Duration.ofSeconds(1)
            : in.plusSeconds(1));
      }
    }
  }

  private String apply(JsonNode ie, String owner) {
    String ns = KubeContext.ns(ie);
    String key = ns + "/" + KubeContext.name(ie);
    String secretName = ie.path("spec").path("pullSecretRef").path("name").asText("");
    if (secretName.isEmpty()) {
      throw new SpecError("InfraEnv.spec.pullSecretRef", "is required");
    }
    String pullSecret = k.store().secretValue(ns, secretName, ".dockerconfigjson").orElseThrow(() -> new SpecError(
        "InfraEnv.spec.pullSecretRef", "Secret " + ns + "/" + secretName + " with key .dockerconfigjson not found"));
    String clusterId = null;
    JsonNode ref = ie.path("spec").path("clusterRef");
    if (ref.hasNonNull("name")) {
      String refNs = ref.path("namespace").asText(ns);
      clusterId = clusterOfDeployment(refNs, ref.path("name").asText()).orElseThrow(() -> new SpecError(
          "InfraEnv.spec.clusterRef", "no cluster for ClusterDeployment " + refNs + "/" + ref.path("name").asText()
              + " yet (its AgentClusterInstall makes it)"));
    }
    List<JsonNode> nmstate = nmStateConfigs(ie);
    String version = ie.path("metadata").path("generation").asText() + "/" + pullSecret.hashCode() + "/" + clusterId
        + "/" + InfraEnvSpecs.staticNetworkConfig(nmstate).toString().hashCode();
    Optional<String> known = k.index().infraEnvOf(key);
    if (known.isEmpty()) {
      JsonNode created = k.service().createInfraEnv(owner, InfraEnvSpecs.createParams(ie, pullSecret, clusterId, nmstate));
      String id = created.path("id").asText();
      k.index().infraEnv(key, id);
      applied.put(key, version);
      imageChanged.put(key, true);
      LOG.atInfo().addKeyValue("infra_env_id", id).addKeyValue("cr", key).log("infra-env made for its InfraEnv");
      return id;
    }
    if (!version.equals(applied.get(key))) {
      ObjectNode params = InfraEnvSpecs.updateParams(ie, nmstate);
      params.put("pull_secret", pullSecret);
      k.service().updateInfraEnv(known.get(), owner, params);
      if (applied.put(key, version) != null) {
        imageChanged.put(key, true); // not after a restart: the first reconcile re-applies what is already there
      }
    }
    return known.get();
  }

  /** The cluster made for the AgentClusterInstall of ClusterDeployment {@code ns/name}. */
  Optional<String> clusterOfDeployment(String ns, String cdName) {
    return k.store().get(Kinds.CLUSTER_DEPLOYMENT, ns, cdName)
        .map(cd -> cd.path("spec").path("clusterInstallRef").path("name").asText(cdName))
        .flatMap(aciName -> k.index().clusterOf(ns + "/" + aciName))
        .or(() -> k.store().list(Kinds.AGENT_CLUSTER_INSTALL, ns).stream()
            .filter(aci -> cdName.equals(aci.path("spec").path("clusterDeploymentRef").path("name").asText()))
            .findFirst().flatMap(aci -> k.index().clusterOf(ns + "/" + KubeContext.name(aci))));
  }

  /** NMStateConfigs of the InfraEnv's namespace whose labels match its {@code nmStateConfigLabelSelector.matchLabels}. */
  List<JsonNode> nmStateConfigs(JsonNode ie) {
    JsonNode match = ie.path("spec").path("nmStateConfigLabelSelector").path("matchLabels");
    List<JsonNode> out = new ArrayList<>();
    if (!match.isObject() || match.isEmpty()) {
      return out; // upstream: no selector, no static networking
    }
    for (JsonNode n : k.store().list(Kinds.NMSTATE_CONFIG, KubeContext.ns(ie))) {
      boolean all = true;
      var it = match.fields();
      while (it.hasNext()) {
        var e = it.next();
        all &= e.getValue().asText().equals(n.path("metadata").path("labels").path(e.getKey()).asText(null));
      }
      if (all) {
        out.add(n);
      }
    }
    return out;
  }

  /** Status: the ISO URL, boot artifacts and ImageCreated; {@code error} a failure message instead. */
  private JsonNode imageStatus(JsonNode ie, String id, String error) {
    JsonNode infraEnv = id == null ? null : k.service().infraEnv(id).orElse(null);
    ObjectNode s = KubeContext.JSON.createObjectNode();
    Conditions c = new Conditions(ie.path("status").path("conditions"), k.clock().instant(), false);
    if (error != null || infraEnv == null) {
      c.set("ImageCreated", false, "ImageCreationError", error == null ? "Failed to create image: not found" : error);
      s.set("conditions", c.build());
      s.putObject("debugInfo").put("eventsURL", id == null ? "" : k.apiBase() + "/events?infra_env_id=" + id);
      k.status(Kinds.INFRA_ENV, ie, s);
      return infraEnv;
    }
    c.set("ImageCreated", true, "ImageCreated", "Image has been created");
    s.set("conditions", c.build());
    // Every read of the infra-env signs a new download credential: the URL in the status is kept until half its
    // lifetime has passed (or the image changed), else each status write would bring the next one, forever.
    String key = KubeContext.ns(ie) + "/" + KubeContext.name(ie);
    String url = infraEnv.path("download_url").asText("");
    String current = ie.path("status").path("isoDownloadURL").asText("");
    Instant now = k.clock().instant();
    Instant refreshAt = urlRefreshAt.get(key);
    boolean changedImage = imageChanged.remove(key) != null;
    if (!changedImage && !current.isEmpty() && refreshAt != null && now.isBefore(refreshAt)
        && stripCredential(url).equals(stripCredential(current))) {
      url = current;
    } else {
      urlRefreshAt.put(key, halfLife(infraEnv, now));
    }
    s.put("isoDownloadURL", url);
    String created = ie.path("status").path("createdTime").asText("");
    s.put("createdTime", !changedImage && !created.isEmpty() ? created
        : now.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
    s.set("bootArtifacts", bootArtifacts(url, id));
    s.putObject("debugInfo").put("eventsURL", k.apiBase() + "/events?infra_env_id=" + id);
    ObjectNode selector = s.putObject("agentLabelSelector");
    selector.putObject("matchLabels").put(Kinds.INFRA_ENV_LABEL, KubeContext.name(ie));
    k.status(Kinds.INFRA_ENV, ie, s);
    return infraEnv;
  }

  /** When a download URL read now should be replaced: half its lifetime ({@code expires_at}) from now. */
  private static Instant halfLife(JsonNode infraEnv, Instant now) {
    String expires = infraEnv.path("expires_at").asText("");
    if (expires.isEmpty()) {
      return now.plus(Duration.ofDays(3650));
    }
    Instant at = Instant.parse(expires);
    return at.getEpochSecond() <= 0 ? now.plus(Duration.ofDays(3650)) : now.plus(Duration.between(now, at).dividedBy(2));
  }

  private static String stripCredential(String url) {
    return url.replaceAll("api_key=[^&]*", "");
  }

  /** The image service's kernel, rootfs, initrd and iPXE script for the ISO at {@code isoUrl}. */
  static ObjectNode bootArtifacts(String isoUrl, String id) {
    ObjectNode b = KubeContext.JSON.createObjectNode();
    if (isoUrl.isEmpty()) {
      return b;
    }
    URI u = URI.create(isoUrl);
    String base = u.getScheme() + "://" + u.getRawAuthority();
    Map<String, String> q = new java.util.LinkedHashMap<>();
    for (String p : (u.getRawQuery() == null ? "" : u.getRawQuery()).split("&")) {
      int eq = p.indexOf('=');
      if (eq > 0) {
        q.put(p.substring(0, eq), p.substring(eq + 1));
      }
    }
    String archVersion = "arch=" + q.getOrDefault("arch", "x86_64") + "&version=" + q.getOrDefault("version", "");
    String credential = q.containsKey("api_key") ? "api_key=" + q.get("api_key") + "&" : "";
    b.put("kernel", base + "/boot-artifacts/kernel?" + archVersion);
    b.put("rootfs", base + "/boot-artifacts/rootfs?" + archVersion);
    b.put("initrd", base + "/images/" + id + "/pxe-initrd?" + credential + archVersion);
    b.put("ipxeScript", base + "/images/" + id + "/ipxe-script?" + credential + archVersion);
    b.put("discoveryIgnitionURL", "");
    return b;
  }

  /** An Agent for every host of the infra-env that has none (its reconcile creates it). */
  private void agentsForNewHosts(JsonNode ie, String id) {
    String ns = KubeContext.ns(ie);
    for (JsonNode h : k.service().infraEnvHosts(id)) {
      String hostId = h.path("id").asText();
      k.index().host(hostId, id);
      if (k.store().get(Kinds.AGENT, ns, hostId).isEmpty()) {
        k.queue().add(KubeContext.key(Kinds.AGENT, ns, hostId));
      }
    }
  }

  /** Deletion: the Agents first (their finalizers remove the hosts), then the infra-env, then the finalizer. */
  private void remove(JsonNode ie, String owner) {
    String ns = KubeContext.ns(ie);
    String key = ns + "/" + KubeContext.name(ie);
    List<JsonNode> agents = k.store().byIndex(Kinds.AGENT, AgentReconciler.OF_INFRA_ENV, key);
    if (!agents.isEmpty()) {
      for (JsonNode a : agents) {
        if (!KubeContext.deleting(a)) {
          k.store().delete(Kinds.AGENT, ns, KubeContext.name(a));
        }
      }
      throw new WorkQueue.Requeue(Duration.ofSeconds(1));
    }
    Optional<String> id = k.index().infraEnvOf(key).or(() -> k.ownedId(k.service().infraEnvs(), owner));
    if (id.isPresent()) {
      for (JsonNode h : k.service().infraEnvHosts(id.get())) { // hosts that never got an Agent
        k.service().deleteHost(id.get(), h.path("id").asText(), owner);
      }
      k.service().deleteInfraEnv(id.get(), owner);
      LOG.atInfo().addKeyValue("infra_env_id", id.get()).addKeyValue("cr", key).log("infra-env removed with its InfraEnv");
    }
    k.index().forgetInfraEnv(key);
    applied.remove(key);
    k.finalizer(Kinds.INFRA_ENV, ie, FINALIZER, false);
  }
}
