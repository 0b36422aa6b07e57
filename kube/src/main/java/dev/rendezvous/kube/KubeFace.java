package dev.rendezvous.kube;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.kube.reconcile.AgentReconciler;
import dev.rendezvous.kube.reconcile.ClusterInstallReconciler;
import dev.rendezvous.kube.reconcile.InfraEnvReconciler;
import dev.rendezvous.kube.reconcile.KubeContext;
import dev.rendezvous.kube.reconcile.Reconciler;
import dev.rendezvous.kube.service.ServiceApi;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kubernetes-native face of Rendezvous: watches upstream's custom resources on a hub (informers: one list and one
 * watch per kind, no polling), reconciles them into clusters, infra-envs and hosts through the service's REST API,
 * and follows the bus's domain events ({@value Topics#EVENTS}) to write the status of what changed — a burst of events
 * about one object is one status write (the work queue keeps one entry per object, latest wins).
 *
 * <p>One kube face per hub: run it in one instance (no leader election yet).
 */
public final class KubeFace implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KubeFace.class);
  static final String GROUP = "rdv-kube";
  private static final Duration COALESCE = Duration.ofMillis(250);

  private final KubeConfig config;
  private final KubernetesClient client;
  private final KubeStore store;
  private final OwnerIndex index = new OwnerIndex();
  private final WorkQueue queue;
  private final Map<String, Reconciler> reconcilers;
  private BusConsumer events;

  private KubeFace(KubeConfig config, KubernetesClient client) {
    this.config = config;
    this.client = client;
    this.store = new KubeStore(client, config.namespaces());
    this.queue = new WorkQueue(config.workers(), this::dispatch);
    ServiceApi service = new ServiceApi(config.apiBase(), config.token(), config.apiTls());
    KubeContext k = new KubeContext(store, service, index, queue, config.apiBase(), config.missingDependencyRetry(),
        Clock.systemUTC());
    InfraEnvReconciler infraEnvs = new InfraEnvReconciler(k);
    this.reconcilers = Map.of(
        Kinds.AGENT_CLUSTER_INSTALL.kind, new ClusterInstallReconciler(k),
        Kinds.INFRA_ENV.kind, infraEnvs,
        Kinds.AGENT.kind, new AgentReconciler(k, infraEnvs));
    this.service = service;
  }

  private final ServiceApi service;

  /** Connects to the hub, rebuilds the owner index from the service, starts the informers and the bus feed. */
  public static KubeFace start(KubeConfig config, String kafkaBootstrap) throws IOException {
    KubeFace face = new KubeFace(config, client(config));
    face.rebuildIndex();
    face.watchAll();
    if (kafkaBootstrap != null) {
      face.events = BusConsumer.builder(kafkaBootstrap).groupId(GROUP).clientId("rdv-kube")
          .topics(List.of(Topics.EVENTS)).startFrom(BusConsumer.StartFrom.LATEST)
          .handler(face::onEvent).start();
    }
    LOG.atInfo().addKeyValue("namespaces", config.namespaces().isEmpty() ? "all" : config.namespaces())
        .addKeyValue("master", face.client.getMasterUrl()).log("kube face started: reconciling custom resources");
    return face;
  }

  static KubernetesClient client(KubeConfig config) throws IOException {
    if (config.kubeconfigPath() != null && !Files.isReadable(config.kubeconfigPath())) {
      throw new IOException("kubeconfig " + config.kubeconfigPath() + " is not a readable file (--kubeconfig /"
          + " RDV_KUBECONFIG; 'in-cluster' uses the pod's service account)");
    }
    Config c = config.kubeconfigPath() == null ? Config.autoConfigure(null)
        : Config.fromKubeconfig(Files.readString(config.kubeconfigPath()));
    return new KubernetesClientBuilder().withConfig(c).build();
  }

  public KubeStore store() {
    return store;
  }

  public WorkQueue queue() {
    return queue;
  }

  /** Once every informer has listed its kind. */
  public boolean synced() {
    return store.synced();
  }

  /** The clusters and infra-envs the service says CRs own (their kube_key): deletions while we were away find them. */
  private void rebuildIndex() {
    for (JsonNode c : service.clusters()) {
      String[] owner = c.path("kube_key").asText("").split("/", 3);
      if (owner.length == 3 && owner[0].equals(Kinds.AGENT_CLUSTER_INSTALL.kind)) {
        index.cluster(owner[1] + "/" + owner[2], c.path("id").asText());
      }
    }
    for (JsonNode e : service.infraEnvs()) {
      String[] owner = e.path("kube_key").asText("").split("/", 3);
      if (owner.length == 3 && owner[0].equals(Kinds.INFRA_ENV.kind)) {
        index.infraEnv(owner[1] + "/" + owner[2], e.path("id").asText());
      }
    }
  }

  private void watchAll() {
    store.watch(Kinds.CLUSTER_IMAGE_SET, (ns, r) -> store.list(Kinds.AGENT_CLUSTER_INSTALL, null).stream()
        .filter(aci -> r.getMetadata().getName().equals(aci.path("spec").path("imageSetRef").path("name").asText()))
        .forEach(aci -> queue.add(key(Kinds.AGENT_CLUSTER_INSTALL, aci))));
    store.watch(Kinds.CLUSTER_DEPLOYMENT, (ns, r) -> store.list(Kinds.AGENT_CLUSTER_INSTALL, ns).stream()
        .filter(aci -> r.getMetadata().getName().equals(aci.path("spec").path("clusterDeploymentRef").path("name").asText()))
        .forEach(aci -> queue.add(key(Kinds.AGENT_CLUSTER_INSTALL, aci))));
    store.watch(Kinds.AGENT_CLUSTER_INSTALL, (ns, r) -> queue.add(KubeContext.key(Kinds.AGENT_CLUSTER_INSTALL, ns,
        r.getMetadata().getName())));
    store.watch(Kinds.NMSTATE_CONFIG, (ns, r) -> store.list(Kinds.INFRA_ENV, ns)
        .forEach(ie -> queue.add(key(Kinds.INFRA_ENV, ie))));
    store.watch(Kinds.INFRA_ENV, (ns, r) -> queue.add(KubeContext.key(Kinds.INFRA_ENV, ns, r.getMetadata().getName())));
    store.watch(Kinds.AGENT, (ns, r) -> queue.add(KubeContext.key(Kinds.AGENT, ns, r.getMetadata().getName())), Map.of(
        "bound-to", a -> boundTo(a),
        AgentReconciler.OF_INFRA_ENV, a -> {
          String ie = a.getMetadata().getLabels() == null ? null : a.getMetadata().getLabels().get(Kinds.INFRA_ENV_LABEL);
          return ie == null ? List.of() : List.of(a.getMetadata().getNamespace() + "/" + ie);
        }));
  }

  @SuppressWarnings("unchecked")
  private static List<String> boundTo(GenericKubernetesResource agent) {
    Object spec = agent.getAdditionalProperties().get("spec");
    if (spec instanceof Map<?, ?> s && s.get("clusterDeploymentName") instanceof Map<?, ?> ref && ref.get("name") != null) {
      Object ns = ref.get("namespace");
      return List.of((ns == null || ns.toString().isEmpty() ? agent.getMetadata().getNamespace() : ns) + "/" + ref.get("name"));
    }
    return List.of();
  }

  private static String key(Kinds kind, JsonNode obj) {
    return KubeContext.key(kind, obj.path("metadata").path("namespace").asText(), obj.path("metadata").path("name").asText());
  }

  /** A domain event: the host's Agent and the cluster's AgentClusterInstall get a (coalesced) reconcile. */
  private CompletionStage<Void> onEvent(BusEvent e) {
    if (e.hostId() != null && e.infraEnvId() != null) {
      index.infraEnvCrOf(e.infraEnvId()).ifPresent(ie -> { // hosts of kube-managed infra-envs only
        index.host(e.hostId(), e.infraEnvId());
        queue.addAfter(KubeContext.key(Kinds.AGENT, ie.substring(0, ie.indexOf('/')), e.hostId()), COALESCE);
      });
    }
    if (e.clusterId() != null) {
      index.installOf(e.clusterId()).ifPresent(aci -> queue.addAfter(KubeContext.key(Kinds.AGENT_CLUSTER_INSTALL,
          aci.substring(0, aci.indexOf('/')), aci.substring(aci.indexOf('/') + 1)), COALESCE));
    }
    return CompletableFuture.completedFuture(null);
  }

  private void dispatch(String key) {
    String[] parts = key.split("/", 3);
    Reconciler r = reconcilers.get(parts[0]);
    if (r != null) {
      if (!store.synced()) {
        // a reconcile on a half-listed cache could take a missing Agent or ClusterDeployment for a deleted one
        throw new WorkQueue.Requeue(Duration.ofMillis(500));
      }
      try {
        r.reconcile(parts[1], parts[2]);
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() == 409) {
          // written meanwhile (often by ourselves, the cache not there yet): again on the current object, soon
          throw new WorkQueue.Requeue(Duration.ofMillis(200));
        }
        throw e;
      }
    }
  }

  @Override
  public void close() {
    if (events != null) {
      try {
        events.close();
      } catch (Exception e) {
        LOG.atWarn().log("kube face: closing the bus consumer failed: " + e);
      }
    }
    queue.close();
    store.close();
    client.close();
  }
}
