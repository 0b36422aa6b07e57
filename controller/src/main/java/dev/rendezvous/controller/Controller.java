package dev.rendezvous.controller;

import dev.rendezvous.controller.cluster.ClusterPort;
import dev.rendezvous.controller.cluster.Fabric8ClusterPort;
import dev.rendezvous.controller.config.ConfigLoader;
import dev.rendezvous.controller.config.ControllerConfig;
import dev.rendezvous.controller.dryrun.SimulatedCluster;
import dev.rendezvous.controller.dryrun.SimulatedDurations;
import dev.rendezvous.controller.loops.ControllerContext;
import dev.rendezvous.controller.loops.InstallationWatcher;
import dev.rendezvous.controller.loops.LogsUploader;
import dev.rendezvous.controller.loops.NodeLabelsLoop;
import dev.rendezvous.controller.loops.NodesLoop;
import dev.rendezvous.controller.loops.PostInstallConfigs;
import dev.rendezvous.controller.loops.ReadyState;
import dev.rendezvous.controller.service.AssistedServiceClient;
import dev.rendezvous.controller.service.Cluster;
import dev.rendezvous.controller.service.HttpClients;
import dev.rendezvous.controller.service.ProxySettings;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.Lifecycle;
import dev.rendezvous.controller.support.SharedRuntime;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The controller's entry point, shared by its own launcher ({@code rendezvous-controller}), the test rigs that stand
 * in for the Job's pod, and the dry-run bootstrap installer, which runs a dry-run controller in its own JVM.
 *
 * <p>{@code env} carries upstream's settings ({@code CLUSTER_ID}, {@code INVENTORY_URL}, {@code OPENSHIFT_VERSION},
 * {@code CONTROL_PLANE_COUNT}, {@code DRY_ENABLE}, the token as {@code PULL_SECRET_TOKEN}, ...), the way the Job's
 * ConfigMap and Secret give them to the pod; {@code args} are flags that override them.
 *
 * <p>Start-up follows upstream (assisted_installer_main.go): cluster client, cluster-wide proxy, service client,
 * invoker, ready state (the {@code AssistedControllerIsReady} event), then the loops side by side (nodes and CSRs,
 * post-install configs, node labels, log snapshots) while the installation watcher polls the cluster's status;
 * when that ends, the loops stop and the final log bundle is uploaded. A controller owns no thread: everything runs
 * on the JVM-wide {@link SharedRuntime}.
 */
public final class Controller implements AutoCloseable {

  /** How a controller run ended. */
  public enum Outcome { COMPLETED, FAILED, CLUSTER_GONE, STOPPED }

  private final ControllerConfig config;
  private final ControllerLog log;
  private final SharedRuntime runtime = SharedRuntime.get();
  private final Lifecycle loops = new Lifecycle();
  private final Lifecycle finalUpload = new Lifecycle();
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final CompletableFuture<Outcome> finished = new CompletableFuture<>();
  private volatile ClusterPort cluster;
  private volatile boolean closed;
  private final java.util.concurrent.atomic.AtomicBoolean counted = new java.util.concurrent.atomic.AtomicBoolean();

  private Controller(ControllerConfig config) {
    this.config = config;
    this.log = new ControllerLog(config.clusterId(), config.logTailChars());
  }

  /**
   * Starts a controller (simulated cluster when dry-run is set) and returns at once.
   *
   * @throws dev.rendezvous.controller.config.ConfigException when a setting is missing or malformed
   */
  public static Controller start(Map<String, String> env, String[] args) {
    return start(ConfigLoader.load(env, args));
  }

  /** Starts a controller with settings already read. */
  public static Controller start(ControllerConfig config) {
    Controller c = new Controller(config);
    c.runtime.scheduler().execute(c::launch);
    return c;
  }

  /**
   * Completes once the controller is running in the cluster and has said so (upstream creates the event
   * {@code AssistedControllerIsReady} in its namespace, which the bootstrap installer waits for).
   */
  public CompletableFuture<Void> ready() {
    return ready;
  }

  /** Completes when the controller stopped on its own (installation completed or failed, cluster gone). */
  public CompletableFuture<Outcome> finished() {
    return finished;
  }

  public ControllerConfig config() {
    return config;
  }

  /** What the controller keeps of its own log (what it uploads when it has no pod log). */
  public byte[] logTail() {
    return log.snapshot();
  }

  /** Stops every loop; {@link #finished()} completes with {@link Outcome#STOPPED}. */
  @Override
  public void close() {
    closed = true;
    uncount();
    loops.stop();
    finalUpload.stop();
    ClusterPort c = cluster;
    if (c != null) {
      c.close();
    }
    ready.completeExceptionally(new CancellationException("controller closed"));
    if (finished.complete(Outcome.STOPPED)) {
      log.info("Controller stopped");
    }
  }

  // ---- start-up ---------------------------------------------------------------------------------------------

  private void launch() {
    try {
      log.info("Start running assisted-installer-controller. Configuration is: {}", config);
      if (config.notifyNumReboots()) {
        log.warn("NOTIFY_NUM_REBOOTS is set, but this controller does not count node reboots (see its README)");
      }
      CompletableFuture<AssistedServiceClient> service;
      if (config.dryRun()) {
        if (!closed && counted.compareAndSet(false, true)) {
          runtime.dryRunControllerStarted(); // its loops' polls share the JVM's budget while it runs
        }
        AssistedServiceClient client = serviceClient(ProxySettings.NONE);
        SimulatedCluster sim = new SimulatedCluster(config.namespace(),
            SimulatedDurations.realistic().scaled(config.dryRunTimeScale()), runtime.scheduler(), client, log,
            config.controlPlaneCount(), config.timings().checkInterval(), Clock.systemUTC());
        cluster = sim;
        service = sim.start().thenApply(v -> client);
      } else {
        Fabric8ClusterPort port = Fabric8ClusterPort.connect(config.kubeconfig(), config.namespace(), log);
        cluster = port;
        service = port.start()
            .thenCompose(v -> port.clusterProxy().exceptionally(t -> {
              log.warn("Cannot read the cluster-wide proxy, going direct: {}", ControllerLog.describe(t));
              return ProxySettings.NONE;
            }))
            .thenApply(proxy -> {
              if (!proxy.isNone()) {
                log.info("Using the cluster-wide proxy: http {} https {} no_proxy {}", proxy.httpProxy(),
                    proxy.httpsProxy(), proxy.noProxy());
              }
              return serviceClient(proxy);
            });
      }
      if (closed) {
        cluster.close();
      }
      service.thenCompose(this::run).whenComplete(this::finish);
    } catch (RuntimeException e) {
      finish(null, e);
    }
  }

  private AssistedServiceClient serviceClient(ProxySettings proxy) {
    if (config.skipCertVerification()) {
      log.warn("SKIP_CERT_VERIFICATION: the service's TLS certificate is not verified; anyone on the path can pose as "
          + "the service");
    }
    return new AssistedServiceClient(
        HttpClients.shared(new HttpClients.Tls(config.skipCertVerification(), config.caCertPath()), proxy,
            runtime.httpExecutor()),
        runtime.serviceCalls(), runtime.serviceReports(), config.inventoryUrl(), config.token(), config.clusterId(),
        config.retry(), runtime.scheduler(), log,
        config.timings().requestTimeout(), () -> closed);
  }

  private CompletableFuture<Outcome> run(AssistedServiceClient service) {
    ControllerContext ctx = new ControllerContext(config, service, cluster, log, runtime.scheduler(), loops);
    return cluster.installInvoker().exceptionally(t -> Optional.empty()).thenCompose(invoker -> {
      if (invoker.isPresent() && "agent-installer".equals(invoker.get())) {
        log.warn("Invoker is agent-installer: this controller follows the assisted-service flow regardless");
      }
      return new ReadyState(ctx).run();
    }).thenCompose(seen -> {
      ready.complete(null);
      boolean untaint = removeUninitializedTaint(seen);
      log.info("Remove uninitialized taint: {}", untaint);
      watch(new NodesLoop(ctx, untaint).run(), "nodes");
      watch(new PostInstallConfigs(ctx).run(), "post install configs");
      watch(new NodeLabelsLoop(ctx).run(), "node labels");
      LogsUploader logs = new LogsUploader(ctx);
      logs.startPeriodic();
      return new InstallationWatcher(ctx).run().thenCompose(end -> {
        loops.stop();
        Outcome outcome = switch (end) {
          case INSTALLED -> Outcome.COMPLETED;
          case FAILED -> Outcome.FAILED;
          case GONE -> Outcome.CLUSTER_GONE;
        };
        if (end == InstallationWatcher.End.GONE) {
          return CompletableFuture.completedFuture(outcome);
        }
        return logs.uploadSummary(finalUpload).thenApply(v -> outcome);
      });
    });
  }

  /** Upstream untaints on platforms whose cloud provider never initializes the nodes it did not create. */
  private static boolean removeUninitializedTaint(Cluster cluster) {
    String platform = cluster == null ? null : cluster.platformType();
    return "nutanix".equals(platform) || "vsphere".equals(platform);
  }

  private void watch(CompletableFuture<Void> loop, String name) {
    loop.whenComplete((v, t) -> {
      if (t != null && !(unwrap(t) instanceof CancellationException) && !closed) {
        log.error("{} ended with an error: {}", name, ControllerLog.describe(t));
      }
    });
  }

  private void finish(Outcome outcome, Throwable failure) {
    if (failure != null && !closed && !(unwrap(failure) instanceof CancellationException)) {
      log.error("Controller failed: {}", ControllerLog.describe(failure));
      ready.completeExceptionally(unwrap(failure));
    }
    Outcome result = closed ? Outcome.STOPPED : outcome == null ? Outcome.FAILED : outcome;
    uncount();
    loops.stop();
    ClusterPort c = cluster;
    if (c != null) {
      c.close();
    }
    if (finished.complete(result)) {
      log.info("Controller finished: {}", result);
    }
  }

  private void uncount() {
    if (counted.compareAndSet(true, false)) {
      runtime.dryRunControllerEnded();
    }
  }

  private static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
