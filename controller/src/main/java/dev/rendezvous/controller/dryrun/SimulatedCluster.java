package dev.rendezvous.controller.dryrun;

import dev.rendezvous.controller.cluster.ClusterPort;
import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.AssistedServiceClient;
import dev.rendezvous.controller.service.Cluster;
import dev.rendezvous.controller.service.ClusterStatus;
import dev.rendezvous.controller.service.Host;
import dev.rendezvous.controller.service.HostRole;
import dev.rendezvous.controller.service.HostStage;
import dev.rendezvous.controller.service.MonitoredOperator;
import dev.rendezvous.controller.service.OperatorStatus;
import dev.rendezvous.controller.service.ProxySettings;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.Lifecycle;
import dev.rendezvous.controller.support.RepeatingTask;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The dry-run cluster: a simulated Kubernetes whose source of truth is the service's view of the hosts, so it
 * works across processes and survives a controller restart. Everything here is simulated:
 * <ul>
 *   <li>a host's node registers (NotReady, with a pending kubelet client CSR from the node-bootstrapper) a boot time
 *       after the host reported {@code Rebooting} (its {@code progress.stage_started_at}); its Ignition fetch shows
 *       in the machine-config server's log halfway;</li>
 *   <li>once the controller approves that CSR, the node becomes Ready after a further delay;</li>
 *   <li>once all expected masters are Ready, the ClusterVersion and the console operator go Progressing →
 *       Available on a schedule, the ingress CA configmap appears, and OLM operators' CSVs appear and succeed;</li>
 *   <li>a host the service already has as Joined has its node (CSR approved); as Done, a Ready node; an operator
 *       the service already has as available is Available.</li>
 * </ul>
 * Durations come from {@link SimulatedDurations}. No thread of its own: timers run on the shared scheduler.
 */
public final class SimulatedCluster implements ClusterPort, AssistedServiceClient.Listener {
  static final String BOOTSTRAPPER = "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper";
  private static final String INGRESS_CA = loadIngressCa();
  private static final DateTimeFormatter KLOG = DateTimeFormatter.ofPattern("MMdd HH:mm:ss.SSSSSS")
      .withZone(ZoneOffset.UTC);

  private final String namespace;
  private final SimulatedDurations durations;
  private final ScheduledExecutorService scheduler;
  private final AssistedServiceClient service;
  private final ControllerLog log;
  private final int controlPlaneCount;
  private final Duration refreshInterval;
  private final Clock clock;
  private final Lifecycle lifecycle = new Lifecycle();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  // guarded by this
  private final Map<String, SimHost> hosts = new LinkedHashMap<>();
  private final Map<String, String> events = new LinkedHashMap<>();
  private final Map<String, OperatorStatus> serviceOperators = new HashMap<>();
  private final List<MonitoredOperator> olmOperators = new ArrayList<>();
  private String openshiftVersion = "4.18.0";
  private Instant anchor;
  private Instant lastView = Instant.EPOCH;
  private ScheduledFuture<?> wakeup;
  private Instant wakeupAt;

  /** A host's machine, as the simulation sees it. */
  private static final class SimHost {
    final String hostId;
    final String node;
    final String ip;
    final boolean master;
    HostStage stage;
    Instant appearsAt;
    Instant ignitionAt;
    Instant approvedAt;
    Instant readyAt;
    Map<String, String> labels = new LinkedHashMap<>();

    SimHost(String hostId, String node, String ip, boolean master) {
      this.hostId = hostId;
      this.node = node;
      this.ip = ip;
      this.master = master;
    }

    String csrName() {
      return "csr-" + node;
    }
  }

  public SimulatedCluster(String namespace, SimulatedDurations durations, ScheduledExecutorService scheduler,
      AssistedServiceClient service, ControllerLog log, int controlPlaneCount, Duration refreshInterval, Clock clock) {
    this.namespace = namespace;
    this.durations = durations;
    this.scheduler = scheduler;
    this.service = service;
    this.log = log;
    this.controlPlaneCount = controlPlaneCount;
    this.refreshInterval = refreshInterval;
    this.clock = clock;
  }

  @Override
  public CompletableFuture<Void> start() {
    log.info("Dry run: simulated cluster (boot {}, node ready {}, cluster version {} after the masters)",
        durations.boot(), durations.nodeReady(), durations.clusterVersion());
    service.addListener(this);
    // the controller's own GETs feed the simulation; fetch only when nobody did for a while
    new RepeatingTask("simulated cluster refresh", scheduler, refreshInterval, Duration.ZERO, () -> {
      synchronized (this) {
        if (lastView.plus(refreshInterval).isAfter(clock.instant())) {
          return CompletableFuture.completedFuture(false);
        }
      }
      // the cluster without its hosts, then the hosts with their inventories: the same view, without every host's
      // connectivity report (hundreds of MB in a 1,000-host cluster)
      return service.getCluster(true).thenCompose(c -> service.getHosts()).handle((c, t) -> false);
    }, log, lifecycle).start();
    return CompletableFuture.completedFuture(null);
  }

  // ---- the service's view ----------------------------------------------------------------------------------

  @Override
  public void onCluster(Cluster cluster) {
    synchronized (this) {
      if (cluster.openshiftVersion() != null && !cluster.openshiftVersion().isBlank()) {
        openshiftVersion = cluster.openshiftVersion();
      }
      olmOperators.clear();
      for (MonitoredOperator op : cluster.monitoredOperators()) {
        if (op.status() != null) {
          serviceOperators.put(op.name(), op.status());
        }
        if (op.isOlm()) {
          olmOperators.add(op);
        }
      }
    }
    changed();
  }

  @Override
  public void onHosts(List<Host> list) {
    Instant now = clock.instant();
    synchronized (this) {
      lastView = now;
      for (Host h : list) {
        if (ClusterStatus.HOST_DISABLED.equals(h.status()) || h.id() == null) {
          continue;
        }
        SimHost sh = hosts.computeIfAbsent(h.id(), id -> newHost(h));
        observe(sh, h, now);
      }
    }
    changed();
  }

  private static SimHost newHost(Host h) {
    Host.Inventory inv = h.parsedInventory();
    String node = h.expectedNodeName(inv);
    if (node == null) {
      node = "host-" + h.id().substring(0, Math.min(8, h.id().length())).toLowerCase(Locale.ROOT);
    }
    String ip = Host.addresses(inv).stream().filter(a -> a.indexOf(':') < 0).findFirst().orElse(null);
    HostRole role = h.effectiveRole();
    boolean master = h.isBootstrap() || role == HostRole.MASTER || role == HostRole.BOOTSTRAP;
    return new SimHost(h.id(), node, ip, master);
  }

  /** Derives the host's machine from its stage (the service's view wins over what this process remembers). */
  private void observe(SimHost sh, Host h, Instant now) {
    HostStage stage = h.currentStage();
    Instant started = Optional.ofNullable(h.stageStartedAt()).orElse(now);
    sh.stage = stage;
    if (stage == null) {
      return;
    }
    switch (stage) {
      case DONE -> {
        sh.appearsAt = earliest(sh.appearsAt, now);
        sh.approvedAt = earliest(sh.approvedAt, now);
        sh.readyAt = earliest(sh.readyAt, now);
      }
      case JOINED -> {
        sh.appearsAt = earliest(sh.appearsAt, started);
        sh.approvedAt = earliest(sh.approvedAt, started);
        if (sh.readyAt == null) {
          sh.readyAt = started.plus(durations.nodeReady());
        }
      }
      case REBOOTING -> {
        if (sh.appearsAt == null) {
          sh.appearsAt = started.plus(durations.boot());
          sh.ignitionAt = started.plus(durations.ignitionFetch());
        }
      }
      case WAITING_FOR_IGNITION, CONFIGURING -> {
        if (sh.appearsAt == null) {
          sh.appearsAt = started.plus(durations.boot().minus(durations.ignitionFetch()));
        }
      }
      default -> {
      }
    }
  }

  private static Instant earliest(Instant a, Instant b) {
    return a == null || b.isBefore(a) ? b : a;
  }

  // ---- time --------------------------------------------------------------------------------------------------

  /** Notifies the loops and schedules the next moment something will change. */
  private void changed() {
    Instant next;
    synchronized (this) {
      Instant now = clock.instant();
      updateAnchor(now);
      next = nextChange(now);
      if (next != null && (wakeupAt == null || !wakeupAt.isAfter(now) || next.isBefore(wakeupAt))) {
        if (wakeup != null) {
          wakeup.cancel(false);
        }
        wakeupAt = next;
        long ms = Math.max(0, Duration.between(now, next).toMillis()) + 1;
        wakeup = scheduler.schedule(this::changed, ms, TimeUnit.MILLISECONDS);
      }
    }
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        log.warn("change listener failed: {}", ControllerLog.describe(e));
      }
    }
  }

  private void updateAnchor(Instant now) {
    if (anchor != null) {
      return;
    }
    long masters = hosts.values().stream().filter(h -> h.master).count();
    long expected = masters > 0 ? masters : controlPlaneCount;
    List<SimHost> ready = hosts.values().stream().filter(h -> h.master && isReady(h, now)).toList();
    if (expected > 0 && ready.size() >= expected) {
      anchor = ready.stream().map(h -> h.readyAt).max(Comparator.naturalOrder()).orElse(now);
      log.info("Dry run: all {} masters Ready; cluster operators start rolling out", expected);
    }
  }

  private Instant nextChange(Instant now) {
    List<Instant> times = new ArrayList<>();
    for (SimHost h : hosts.values()) {
      times.add(h.appearsAt);
      times.add(h.ignitionAt);
      times.add(h.readyAt);
    }
    if (anchor != null) {
      for (Duration d : List.of(durations.consoleProgressing(), durations.ingressCa(), durations.console(),
          durations.clusterVersion(), durations.olmCsvCreated(), durations.olmCsvSucceeded())) {
        times.add(anchor.plus(d));
      }
    }
    return times.stream().filter(t -> t != null && t.isAfter(now)).min(Comparator.naturalOrder()).orElse(null);
  }

  private static boolean present(SimHost h, Instant now) {
    return h.appearsAt != null && !now.isBefore(h.appearsAt);
  }

  private static boolean isReady(SimHost h, Instant now) {
    return present(h, now) && h.approvedAt != null && h.readyAt != null && !now.isBefore(h.readyAt);
  }

  private Duration sinceAnchor(Instant now) {
    return anchor == null ? null : Duration.between(anchor, now);
  }

  // ---- the port: nodes and CSRs ------------------------------------------------------------------------------

  @Override
  public void addChangeListener(Runnable listener) {
    listeners.add(listener);
  }

  @Override
  public CompletableFuture<Void> ping() {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized List<Views.Node> nodes() {
    Instant now = clock.instant();
    List<Views.Node> out = new ArrayList<>();
    for (SimHost h : hosts.values()) {
      if (present(h, now)) {
        Map<String, String> labels = new LinkedHashMap<>(h.labels);
        labels.put(h.master ? "node-role.kubernetes.io/master" : "node-role.kubernetes.io/worker", "");
        out.add(new Views.Node(h.node, h.ip == null ? List.of() : List.of(h.ip), isReady(h, now), labels, false,
            h.hostId));
      }
    }
    return out;
  }

  @Override
  public synchronized List<Views.Csr> csrs() {
    Instant now = clock.instant();
    List<Views.Csr> out = new ArrayList<>();
    for (SimHost h : hosts.values()) {
      if (present(h, now)) {
        out.add(new Views.Csr(h.csrName(), "kubernetes.io/kube-apiserver-client-kubelet", BOOTSTRAPPER,
            "system:node:" + h.node, List.of("system:nodes"), h.approvedAt != null, false, false));
      }
    }
    return out;
  }

  @Override
  public CompletableFuture<Void> approveCsr(String name, String reason, String message) {
    synchronized (this) {
      Instant now = clock.instant();
      SimHost h = hosts.values().stream().filter(x -> x.csrName().equals(name)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("no CSR " + name));
      if (h.approvedAt == null) {
        h.approvedAt = now;
        h.readyAt = now.plus(durations.nodeReady());
        log.info("Dry run: CSR {} approved ({}); node {} Ready in {}", name, reason, h.node, durations.nodeReady());
      }
    }
    changed();
    return CompletableFuture.completedFuture(null);
  }

  // ---- the port: operators ---------------------------------------------------------------------------------

  @Override
  public synchronized Optional<Views.ClusterOperator> clusterOperator(String name) {
    return clusterOperators().stream().filter(co -> co.name().equals(name)).findFirst();
  }

  @Override
  public synchronized List<Views.ClusterOperator> clusterOperators() {
    Duration t = sinceAnchor(clock.instant());
    List<Views.ClusterOperator> out = new ArrayList<>();
    boolean consoleAvailable = serviceOperators.get("console") == OperatorStatus.AVAILABLE
        || (t != null && t.compareTo(durations.console()) >= 0);
    if (consoleAvailable) {
      out.add(operator("console", true, "All is well"));
    } else if (t != null && t.compareTo(durations.consoleProgressing()) >= 0) {
      out.add(operator("console", false, "SyncLoopRefreshProgressing: Working toward version " + openshiftVersion));
    }
    if (t != null && t.compareTo(durations.ingressCa()) >= 0) {
      out.add(operator("ingress", true, "The \"default\" ingress controller reports Available=True"));
    }
    return out;
  }

  private Views.ClusterOperator operator(String name, boolean available, String message) {
    List<Views.Condition> c = available
        ? List.of(new Views.Condition("Available", "True", message), new Views.Condition("Progressing", "False", ""),
            new Views.Condition("Degraded", "False", ""))
        : List.of(new Views.Condition("Progressing", "True", message), new Views.Condition("Available", "False", message),
            new Views.Condition("Degraded", "False", ""));
    return new Views.ClusterOperator(name, c, available ? openshiftVersion : "");
  }

  @Override
  public synchronized Optional<Views.ClusterVersion> clusterVersion() {
    Duration t = sinceAnchor(clock.instant());
    boolean available = serviceOperators.get("cvo") == OperatorStatus.AVAILABLE
        || (t != null && t.compareTo(durations.clusterVersion()) >= 0);
    List<Views.Condition> c = available
        ? List.of(new Views.Condition("Available", "True", "Done applying " + openshiftVersion),
            new Views.Condition("Progressing", "False", "Cluster version is " + openshiftVersion))
        : List.of(new Views.Condition("Progressing", "True", "Working towards " + openshiftVersion),
            new Views.Condition("Available", "False", ""));
    return Optional.of(new Views.ClusterVersion(c, openshiftVersion, Set.of("Console"), Set.of("Console")));
  }

  @Override
  public synchronized Optional<String> ingressCaBundle() {
    Duration t = sinceAnchor(clock.instant());
    return t != null && t.compareTo(durations.ingressCa()) >= 0 ? Optional.of(INGRESS_CA) : Optional.empty();
  }

  @Override
  public synchronized CompletableFuture<Optional<String>> subscriptionCurrentCsv(String ns, String subscription) {
    Duration t = sinceAnchor(clock.instant());
    Optional<String> csv = olmOperators.stream().filter(o -> subscription.equals(o.subscriptionName())).findFirst()
        .filter(o -> t != null && t.compareTo(durations.olmCsvCreated()) >= 0)
        .map(o -> o.name() + ".v" + openshiftVersion + "-dry-run");
    return CompletableFuture.completedFuture(csv);
  }

  @Override
  public synchronized CompletableFuture<Optional<Views.Csv>> csv(String ns, String name) {
    Duration t = sinceAnchor(clock.instant());
    if (t == null || t.compareTo(durations.olmCsvCreated()) < 0) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    boolean done = t.compareTo(durations.olmCsvSucceeded()) >= 0;
    return CompletableFuture.completedFuture(Optional.of(new Views.Csv(name, done ? "Succeeded" : "Installing",
        done ? "install strategy completed with no errors" : "waiting for install components to report healthy",
        openshiftVersion + "-dry-run")));
  }

  @Override
  public CompletableFuture<Void> cleanUpFailedOlmInstalls(String ns, String subscription) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Void> applyManifests(Optional<byte[]> kubeconfig, List<byte[]> manifests) {
    log.info("Dry run: {} OLM manifests applied (simulated)", manifests.size());
    return CompletableFuture.completedFuture(null);
  }

  // ---- the port: the rest ------------------------------------------------------------------------------------

  @Override
  public synchronized CompletableFuture<Views.EventCreation> createEvent(String ns, String name, String reason,
      String message, String involvedObjectName) {
    String key = ns + "/" + name;
    if (events.containsKey(key)) {
      return CompletableFuture.completedFuture(Views.EventCreation.ALREADY_EXISTS);
    }
    events.put(key, clock.instant() + " Normal " + reason + " " + involvedObjectName + ": " + message);
    return CompletableFuture.completedFuture(Views.EventCreation.CREATED);
  }

  @Override
  public synchronized CompletableFuture<Void> mergeNodeLabels(String node, Map<String, String> labels) {
    hosts.values().stream().filter(h -> h.node.equals(node)).forEach(h -> h.labels.putAll(labels));
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Void> removeUninitializedTaint(String node) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Void> setMachineConfigPoolPaused(String pool, boolean paused) {
    return CompletableFuture.completedFuture(null);
  }

  /** Lines as the machine-config server logs an Ignition fetch, for hosts that fetched within {@code since}. */
  @Override
  public synchronized CompletableFuture<String> machineConfigServerLogs(Duration since) {
    Instant now = clock.instant();
    StringBuilder sb = new StringBuilder();
    for (SimHost h : hosts.values()) {
      if (h.ignitionAt != null && h.ip != null && !now.isBefore(h.ignitionAt)
          && h.ignitionAt.isAfter(now.minus(since))) {
        sb.append('I').append(KLOG.format(h.ignitionAt)).append("       1 api.go:117] Pool ")
            .append(h.master ? "master" : "worker").append(" requested by address:\"").append(h.ip)
            .append(":40312\" User-Agent:\"Ignition/2.19.0\" Accept-Header: \"application/vnd.coreos.ignition+json;version=3.4.0\"\n");
      }
    }
    return CompletableFuture.completedFuture(sb.toString());
  }

  @Override
  public CompletableFuture<Optional<byte[]>> controllerPodLog(String ns) {
    return CompletableFuture.completedFuture(Optional.empty());
  }

  @Override
  public synchronized CompletableFuture<List<Views.NamedFile>> namespaceDiagnostics(String ns) {
    StringBuilder ev = new StringBuilder();
    events.forEach((k, v) -> {
      if (k.startsWith(ns + "/")) {
        ev.append(v).append('\n');
      }
    });
    StringBuilder ops = new StringBuilder();
    for (Views.ClusterOperator co : clusterOperators()) {
      ops.append(co.name()).append(' ').append(co.version()).append(' ').append(co.conditions()).append('\n');
    }
    StringBuilder nodes = new StringBuilder();
    for (Views.Node n : nodes()) {
      nodes.append(n.name()).append(' ').append(n.internalIps()).append(n.ready() ? " Ready" : " NotReady").append('\n');
    }
    return CompletableFuture.completedFuture(List.of(
        new Views.NamedFile("must-gather/namespaces/" + ns + "/events.txt", bytes(ev)),
        new Views.NamedFile("must-gather/cluster-operators.txt", bytes(ops)),
        new Views.NamedFile("must-gather/nodes.txt", bytes(nodes)),
        new Views.NamedFile("must-gather/README.txt",
            "Dry run: this cluster is simulated by the controller.\n".getBytes(StandardCharsets.UTF_8))));
  }

  private static byte[] bytes(StringBuilder sb) {
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public CompletableFuture<ProxySettings> clusterProxy() {
    return CompletableFuture.completedFuture(ProxySettings.NONE);
  }

  @Override
  public CompletableFuture<Optional<String>> installInvoker() {
    return CompletableFuture.completedFuture(Optional.of("assisted-service"));
  }

  @Override
  public void close() {
    lifecycle.stop();
    synchronized (this) {
      if (wakeup != null) {
        wakeup.cancel(false);
      }
    }
  }

  String namespace() {
    return namespace;
  }

  private static String loadIngressCa() {
    try (InputStream in = SimulatedCluster.class.getResourceAsStream("ingress-ca.pem")) {
      if (in == null) {
        throw new IllegalStateException("ingress-ca.pem missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
