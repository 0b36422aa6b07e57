package dev.rendezvous.controller.cluster;

import dev.rendezvous.controller.service.ProxySettings;
import dev.rendezvous.controller.support.ControllerLog;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequest;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestCondition;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestConditionBuilder;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestStatus;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The controller's view of a real cluster through fabric8: nodes, CSRs, ClusterOperators, the ClusterVersion, the
 * ingress CA configmap and the controller namespace's events are followed by informers (list once, then watch);
 * the rest are plain calls, run on two threads of this adapter's own (the DSL blocks). The OpenShift kinds
 * (config.openshift.io: ClusterOperator, ClusterVersion, Proxy) are read as generic resources at a fixed address
 * ({@link #CLUSTER_OPERATORS}...): no discovery call, so a cluster that does not serve them yet is simply retried.
 */
public final class Fabric8ClusterPort implements ClusterPort {
  public static final String BOOTSTRAP_KUBECONFIG = "/tmp/bootstrap-secrets/kubeconfig";
  static final String INGRESS_CM_NAMESPACE = "openshift-config-managed";
  static final String INGRESS_CM_NAME = "default-ingress-cert";
  static final String UNINITIALIZED_TAINT = "node.cloudprovider.kubernetes.io/uninitialized";
  static final String OLM_API = "operators.coreos.com/v1alpha1";
  static final String MARKETPLACE_NAMESPACE = "openshift-marketplace";
  static final String MCS_NAMESPACE = "openshift-machine-config-operator";
  static final String CONTROLLER_JOB = "assisted-installer-controller";
  private static final Duration SYNC_WAIT = Duration.ofSeconds(30);
  static final ResourceDefinitionContext CLUSTER_OPERATORS = openshiftConfig("clusteroperators", "ClusterOperator");
  static final ResourceDefinitionContext CLUSTER_VERSIONS = openshiftConfig("clusterversions", "ClusterVersion");
  static final ResourceDefinitionContext PROXIES = openshiftConfig("proxies", "Proxy");

  private final KubernetesClient client;
  private final boolean ownsClient;
  private final String namespace;
  private final ControllerLog log;
  private final ExecutorService blocking;
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();
  /** The kind each informer follows, for the logs (a generic informer's type says nothing). */
  private final Map<SharedIndexInformer<?>, String> informerKinds = new IdentityHashMap<>();
  private SharedIndexInformer<Node> nodes;
  private SharedIndexInformer<CertificateSigningRequest> csrs;
  private SharedIndexInformer<GenericKubernetesResource> operators;
  private SharedIndexInformer<GenericKubernetesResource> versions;
  private SharedIndexInformer<ConfigMap> ingressCa;
  private SharedIndexInformer<Event> events;
  private volatile Boolean approvalSubresourceServed;

  /**
   * @param client an existing client (not closed by {@link #close()})
   * @param namespace the controller's namespace (events, its pod, diagnostics)
   */
  public Fabric8ClusterPort(KubernetesClient client, String namespace, ControllerLog log) {
    this(client, false, namespace, log);
  }

  private Fabric8ClusterPort(KubernetesClient client, boolean ownsClient, String namespace, ControllerLog log) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.namespace = namespace;
    this.log = log;
    this.blocking = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "rdv-controller-kube");
      t.setDaemon(true);
      return t;
    });
  }

  /** A cluster-scoped kind of config.openshift.io/v1. */
  private static ResourceDefinitionContext openshiftConfig(String plural, String kind) {
    return new ResourceDefinitionContext.Builder().withGroup("config.openshift.io").withVersion("v1")
        .withPlural(plural).withKind(kind).withNamespaced(false).build();
  }

  /**
   * Upstream's choice of credentials: an explicit kubeconfig (running by hand), else the bootstrap kubeconfig an
   * SNO host mounts for a fast start, else the pod's service account (or KUBECONFIG / ~/.kube/config outside a pod).
   */
  public static Fabric8ClusterPort connect(Optional<Path> kubeconfig, String namespace, ControllerLog log) {
    Config config;
    Optional<Path> file = kubeconfig.or(() -> Optional.of(Path.of(BOOTSTRAP_KUBECONFIG)).filter(Files::isReadable));
    if (file.isPresent()) {
      try {
        config = Config.fromKubeconfig(Files.readString(file.get(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read kubeconfig " + file.get(), e);
      }
      log.info("Kubernetes credentials from {}", file.get());
    } else {
      config = Config.autoConfigure(null);
      log.info("Kubernetes credentials from the environment (in-cluster service account or KUBECONFIG)");
    }
    return new Fabric8ClusterPort(new KubernetesClientBuilder().withConfig(config).build(), true, namespace, log);
  }

  // ---- lifecycle --------------------------------------------------------------------------------------------

  @Override
  public CompletableFuture<Void> start() {
    nodes = follow("nodes", client.nodes().runnableInformer(0), KubeObjectViews::toNode);
    csrs = follow("certificatesigningrequests", client.certificates().v1().certificateSigningRequests()
        .runnableInformer(0), KubeObjectViews::toCsr);
    operators = follow("clusteroperators", CLUSTER_OPERATORS.getKind(),
        client.genericKubernetesResources(CLUSTER_OPERATORS).runnableInformer(0), KubeObjectViews::toOperator);
    versions = follow("clusterversions", CLUSTER_VERSIONS.getKind(),
        client.genericKubernetesResources(CLUSTER_VERSIONS).runnableInformer(0), KubeObjectViews::toVersion);
    ingressCa = follow("configmap " + INGRESS_CM_NAMESPACE + "/" + INGRESS_CM_NAME,
        client.configMaps().inNamespace(INGRESS_CM_NAMESPACE).withName(INGRESS_CM_NAME).runnableInformer(0),
        cm -> cm.getData() == null ? null : cm.getData().get("ca-bundle.crt"));
    events = follow("events in " + namespace, client.v1().events().inNamespace(namespace).runnableInformer(0),
        e -> e.getMetadata().getName());
    List<CompletableFuture<Void>> started = new ArrayList<>();
    for (SharedIndexInformer<?> i : informers) {
      started.add(i.start().toCompletableFuture());
    }
    // A kind the cluster does not serve (no OpenShift CRDs yet) keeps retrying in the background; do not wait on it
    // forever: the loops treat its absence as "not there yet".
    return CompletableFuture.allOf(started.toArray(CompletableFuture[]::new))
        .completeOnTimeout(null, SYNC_WAIT.toSeconds(), TimeUnit.SECONDS)
        .exceptionally(t -> null)
        .thenRun(() -> {
          for (SharedIndexInformer<?> i : informers) {
            if (!i.hasSynced()) {
              log.warn("Watch not listed yet (keeps retrying): {}", informerKinds.get(i));
            }
          }
        });
  }

  /** An informer whose handler tells the listeners only when the loops' view of an object changed. */
  private <T extends HasMetadata> SharedIndexInformer<T> follow(String what, SharedIndexInformer<T> informer,
      Function<T, Object> view) {
    return follow(what, informer.getApiTypeClass().getSimpleName(), informer, view);
  }

  private <T extends HasMetadata> SharedIndexInformer<T> follow(String what, String kind,
      SharedIndexInformer<T> informer, Function<T, Object> view) {
    informer.exceptionHandler((started, t) -> {
      log.warn("Watch of {} failed, retrying: {}", what, ControllerLog.describe(t));
      return true;
    });
    informer.addEventHandler(new ResourceEventHandler<T>() {
      @Override
      public void onAdd(T obj) {
        changed();
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        if (!Objects.equals(view.apply(oldObj), view.apply(newObj))) {
          changed();
        }
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        changed();
      }
    });
    informers.add(informer);
    informerKinds.put(informer, kind);
    return informer;
  }

  private void changed() {
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        log.warn("change listener failed: {}", ControllerLog.describe(e));
      }
    }
  }

  @Override
  public void addChangeListener(Runnable listener) {
    listeners.add(listener);
  }

  @Override
  public void close() {
    for (SharedIndexInformer<?> i : informers) {
      try {
        i.stop();
      } catch (RuntimeException e) {
        // closing anyway
      }
    }
    blocking.shutdownNow();
    if (ownsClient) {
      client.close();
    }
  }

  private <T> CompletableFuture<T> async(Supplier<T> call) {
    return CompletableFuture.supplyAsync(call, blocking);
  }

  private CompletableFuture<Void> asyncRun(Runnable call) {
    return CompletableFuture.runAsync(call, blocking);
  }

  // ---- reads from the watches -------------------------------------------------------------------------------

  @Override
  public CompletableFuture<Void> ping() {
    return asyncRun(() -> client.nodes().list(new ListOptionsBuilder().withLimit(1L).build()));
  }

  @Override
  public List<Views.Node> nodes() {
    return nodes.getStore().list().stream().map(KubeObjectViews::toNode)
        .sorted(Comparator.comparing(Views.Node::name)).toList();
  }

  @Override
  public List<Views.Csr> csrs() {
    return csrs.getStore().list().stream().map(KubeObjectViews::toCsr)
        .sorted(Comparator.comparing(Views.Csr::name)).toList();
  }

  @Override
  public Optional<Views.ClusterOperator> clusterOperator(String name) {
    return Optional.ofNullable(operators.getStore().getByKey(name)).map(KubeObjectViews::toOperator);
  }

  @Override
  public List<Views.ClusterOperator> clusterOperators() {
    return operators.getStore().list().stream().map(KubeObjectViews::toOperator)
        .sorted(Comparator.comparing(Views.ClusterOperator::name)).toList();
  }

  @Override
  public Optional<Views.ClusterVersion> clusterVersion() {
    return Optional.ofNullable(versions.getStore().getByKey("version")).map(KubeObjectViews::toVersion);
  }

  @Override
  public Optional<String> ingressCaBundle() {
    ConfigMap cm = ingressCa.getStore().getByKey(INGRESS_CM_NAMESPACE + "/" + INGRESS_CM_NAME);
    return Optional.ofNullable(cm).map(ConfigMap::getData).map(d -> d.get("ca-bundle.crt")).filter(s -> !s.isBlank());
  }

  // ---- writes and occasional reads ----------------------------------------------------------------------------

  @Override
  public CompletableFuture<Void> approveCsr(String name, String reason, String message) {
    return asyncRun(() -> {
      CertificateSigningRequestCondition approved = new CertificateSigningRequestConditionBuilder()
          .withType("Approved").withStatus("True").withReason(reason).withMessage(message)
          .withLastUpdateTime(Instant.now().toString()).build();
      if (approvalSubresourceServed()) {
        client.certificates().v1().certificateSigningRequests().withName(name).approve(approved);
        return;
      }
      // The server does not advertise certificatesigningrequests/approval (the fabric8 CRUD mock does not serve
      // it): record the condition through /status, the only other place it can live. A real API server always
      // advertises /approval, so this branch never runs there (and would be ignored there: /status keeps
      // approval conditions unchanged; the CSR would simply stay pending and be retried).
      CertificateSigningRequest csr = client.certificates().v1().certificateSigningRequests().withName(name).get();
      if (csr == null) {
        throw new IllegalStateException("CSR " + name + " is gone");
      }
      if (csr.getStatus() == null) {
        csr.setStatus(new CertificateSigningRequestStatus());
      }
      csr.getStatus().getConditions().add(approved);
      client.certificates().v1().certificateSigningRequests().resource(csr).updateStatus();
    });
  }

  /** Discovery: does the server serve certificatesigningrequests/approval? (cached once answered). */
  private boolean approvalSubresourceServed() {
    Boolean known = approvalSubresourceServed;
    if (known != null) {
      return known;
    }
    try {
      APIResourceList list = client.getApiResources("certificates.k8s.io/v1");
      boolean served = list != null && list.getResources().stream().map(APIResource::getName)
          .anyMatch("certificatesigningrequests/approval"::equals);
      approvalSubresourceServed = served;
      if (!served) {
        log.warn("The API server does not advertise certificatesigningrequests/approval; approving through /status");
      }
      return served;
    } catch (KubernetesClientException e) {
      return true; // what every real API server serves
    }
  }

  @Override
  public CompletableFuture<Views.EventCreation> createEvent(String ns, String name, String reason, String message,
      String involvedObjectName) {
    return async(() -> {
      String now = Instant.now().toString();
      Event event = new EventBuilder()
          .withNewMetadata().withName(name).withNamespace(ns).endMetadata()
          .withNewInvolvedObject().withName(involvedObjectName).withNamespace(ns).endInvolvedObject()
          .withReason(reason).withMessage(message).withType("Normal").withCount(1)
          .withFirstTimestamp(now).withLastTimestamp(now)
          .withNewSource().withComponent(involvedObjectName).endSource()
          .build();
      try {
        client.v1().events().inNamespace(ns).resource(event).create();
        return Views.EventCreation.CREATED;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409) {
          return Views.EventCreation.ALREADY_EXISTS;
        }
        throw e;
      }
    });
  }

  @Override
  public CompletableFuture<Void> mergeNodeLabels(String node, Map<String, String> labels) {
    return asyncRun(() -> {
      Map<String, Object> patch = Map.of("metadata", Map.of("labels", labels));
      client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE),
          client.getKubernetesSerialization().asJson(patch));
    });
  }

  @Override
  public CompletableFuture<Void> removeUninitializedTaint(String node) {
    return asyncRun(() -> client.nodes().withName(node).edit(n -> {
      if (n.getSpec() != null && n.getSpec().getTaints() != null) {
        List<Taint> kept = new ArrayList<>(n.getSpec().getTaints());
        kept.removeIf(t -> UNINITIALIZED_TAINT.equals(t.getKey()));
        n.getSpec().setTaints(kept);
      }
      return n;
    }));
  }

  @Override
  public CompletableFuture<Void> setMachineConfigPoolPaused(String pool, boolean paused) {
    return asyncRun(() -> client.genericKubernetesResources("machineconfiguration.openshift.io/v1", "MachineConfigPool")
        .withName(pool).patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"paused\":" + paused + "}}"));
  }

  @Override
  public CompletableFuture<Optional<String>> subscriptionCurrentCsv(String ns, String subscription) {
    return async(() -> {
      GenericKubernetesResource sub = client.genericKubernetesResources(OLM_API, "Subscription")
          .inNamespace(ns).withName(subscription).get();
      Object csv = sub == null ? null : sub.get("status", "currentCSV");
      return Optional.ofNullable(csv).map(Object::toString).filter(s -> !s.isBlank());
    });
  }

  @Override
  public CompletableFuture<Optional<Views.Csv>> csv(String ns, String name) {
    return async(() -> {
      GenericKubernetesResource csv = client.genericKubernetesResources(OLM_API, "ClusterServiceVersion")
          .inNamespace(ns).withName(name).get();
      if (csv == null) {
        return Optional.empty();
      }
      return Optional.of(new Views.Csv(name, str(csv.get("status", "phase")), str(csv.get("status", "message")),
          str(csv.get("spec", "version"))));
    });
  }

  @Override
  public CompletableFuture<Void> cleanUpFailedOlmInstalls(String ns, String subscription) {
    return asyncRun(() -> {
      for (Job job : client.batch().v1().jobs().inNamespace(MARKETPLACE_NAMESPACE).list().getItems()) {
        if (jobFailed(job)) {
          log.info("Deleting failed OLM job {}", job.getMetadata().getName());
          client.batch().v1().jobs().inNamespace(MARKETPLACE_NAMESPACE).withName(job.getMetadata().getName()).delete();
        }
      }
      for (GenericKubernetesResource plan : client.genericKubernetesResources(OLM_API, "InstallPlan").inNamespace(ns)
          .list().getItems()) {
        boolean ownedBySubscription = plan.getMetadata().getOwnerReferences().stream()
            .anyMatch((OwnerReference o) -> "Subscription".equals(o.getKind()) && subscription.equals(o.getName()));
        if (ownedBySubscription && "Failed".equals(str(plan.get("status", "phase")))) {
          log.info("Deleting failed install plan {}", plan.getMetadata().getName());
          client.genericKubernetesResources(OLM_API, "InstallPlan").inNamespace(ns)
              .withName(plan.getMetadata().getName()).delete();
        }
      }
    });
  }

  private static boolean jobFailed(Job job) {
    if (job.getStatus() == null) {
      return false;
    }
    if (job.getStatus().getFailed() != null && job.getStatus().getFailed() > 0) {
      return true;
    }
    for (JobCondition c : job.getStatus().getConditions()) {
      if ("Failed".equals(c.getType())) {
        return "True".equals(c.getStatus());
      }
    }
    return false;
  }

  @Override
  public CompletableFuture<Void> applyManifests(Optional<byte[]> kubeconfig, List<byte[]> manifests) {
    return asyncRun(() -> {
      KubernetesClient admin = kubeconfig
          .map(k -> new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(new String(k, StandardCharsets.UTF_8)))
              .build())
          .orElse(null);
      try {
        KubernetesClient c = admin == null ? client : admin;
        for (byte[] m : manifests) {
          c.resourceList(new String(m, StandardCharsets.UTF_8)).resources()
              .forEach(r -> r.fieldManager("assisted-installer-controller").forceConflicts().serverSideApply());
        }
      } finally {
        if (admin != null) {
          admin.close();
        }
      }
    });
  }

  @Override
  public CompletableFuture<String> machineConfigServerLogs(Duration since) {
    return async(() -> {
      StringBuilder logs = new StringBuilder();
      for (Pod p : client.pods().inNamespace(MCS_NAMESPACE).withLabel("k8s-app", "machine-config-server").list()
          .getItems()) {
        logs.append(client.pods().inNamespace(MCS_NAMESPACE).withName(p.getMetadata().getName())
            .sinceSeconds((int) Math.max(1, since.toSeconds())).getLog());
      }
      return logs.toString();
    });
  }

  @Override
  public CompletableFuture<Optional<byte[]>> controllerPodLog(String ns) {
    return async(() -> {
      List<Pod> pods = client.pods().inNamespace(ns).withLabel("job-name", CONTROLLER_JOB).list().getItems();
      for (Pod p : pods) {
        if (p.getStatus() != null && "Running".equals(p.getStatus().getPhase())) {
          String l = client.pods().inNamespace(ns).withName(p.getMetadata().getName()).getLog();
          return Optional.of(l.getBytes(StandardCharsets.UTF_8));
        }
      }
      return Optional.empty();
    });
  }

  @Override
  public CompletableFuture<List<Views.NamedFile>> namespaceDiagnostics(String ns) {
    return async(() -> {
      List<Views.NamedFile> files = new ArrayList<>();
      String dir = "must-gather/namespaces/" + ns + "/";
      for (Pod p : client.pods().inNamespace(ns).list().getItems()) {
        String pod = p.getMetadata().getName();
        List<Container> containers = p.getSpec() == null ? List.of() : p.getSpec().getContainers();
        for (Container c : containers) {
          try {
            String l = client.pods().inNamespace(ns).withName(pod).inContainer(c.getName()).tailingLines(20000)
                .getLog();
            files.add(new Views.NamedFile(dir + "pods/" + pod + "/" + c.getName() + ".log",
                l.getBytes(StandardCharsets.UTF_8)));
          } catch (KubernetesClientException e) {
            log.warn("No log of {}/{} {}: {}", ns, pod, c.getName(), ControllerLog.describe(e));
          }
        }
      }
      StringBuilder ev = new StringBuilder();
      client.v1().events().inNamespace(ns).list().getItems().stream()
          .sorted(Comparator.comparing(e -> String.valueOf(e.getLastTimestamp())))
          .forEach(e -> ev.append(e.getLastTimestamp()).append(' ').append(e.getType()).append(' ')
              .append(e.getReason()).append(' ')
              .append(e.getInvolvedObject() == null ? "" : e.getInvolvedObject().getName()).append(": ")
              .append(e.getMessage()).append('\n'));
      files.add(new Views.NamedFile(dir + "events.txt", ev.toString().getBytes(StandardCharsets.UTF_8)));
      StringBuilder ops = new StringBuilder();
      for (Views.ClusterOperator co : clusterOperators()) {
        ops.append(co.name()).append(' ').append(co.version()).append(' ').append(co.conditions()).append('\n');
      }
      files.add(new Views.NamedFile("must-gather/cluster-operators.txt", ops.toString().getBytes(StandardCharsets.UTF_8)));
      return files;
    });
  }

  @Override
  public CompletableFuture<ProxySettings> clusterProxy() {
    return async(() -> {
      GenericKubernetesResource p = client.genericKubernetesResources(PROXIES).withName("cluster").get();
      return p == null ? ProxySettings.NONE : KubeObjectViews.toProxySettings(p);
    });
  }

  @Override
  public CompletableFuture<Optional<String>> installInvoker() {
    return async(() -> {
      ConfigMap cm = client.configMaps().inNamespace("openshift-config").withName("openshift-install-manifests").get();
      return Optional.ofNullable(cm).map(ConfigMap::getData).map(d -> d.get("invoker"));
    });
  }

  private static String str(Object o) {
    return o == null ? "" : o.toString();
  }
}
