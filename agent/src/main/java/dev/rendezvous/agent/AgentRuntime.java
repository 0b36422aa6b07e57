package dev.rendezvous.agent;

import dev.rendezvous.agent.dryrun.DryRunExecutors;
import dev.rendezvous.agent.dryrun.DryRunHost;
import dev.rendezvous.agent.executor.ApiVipConnectivityExecutor;
import dev.rendezvous.agent.executor.ConnectivityCheckExecutor;
import dev.rendezvous.agent.executor.ContainerImageAvailabilityExecutor;
import dev.rendezvous.agent.executor.DhcpLeaseAllocateExecutor;
import dev.rendezvous.agent.executor.DiskSpeedCheckExecutor;
import dev.rendezvous.agent.executor.DomainResolutionExecutor;
import dev.rendezvous.agent.executor.FreeAddressesExecutor;
import dev.rendezvous.agent.executor.InventoryExecutor;
import dev.rendezvous.agent.executor.LogsGatherExecutor;
import dev.rendezvous.agent.executor.LogsUploader;
import dev.rendezvous.agent.executor.NtpSynchronizerExecutor;
import dev.rendezvous.agent.executor.StopInstallationExecutor;
import dev.rendezvous.agent.executor.TangConnectivityExecutor;
import dev.rendezvous.agent.executor.UpgradeAgentExecutor;
import dev.rendezvous.agent.executor.VerifyVipsExecutor;
import dev.rendezvous.agent.inventory.HardwareProbe;
import dev.rendezvous.agent.inventory.InventoryCollector;
import dev.rendezvous.agent.inventory.InventoryTruncation;
import dev.rendezvous.agent.inventory.OshiHardwareProbe;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.ProcessCommandRunner;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepRunner;
import dev.rendezvous.agent.step.UnsupportedStepExecutor;
import dev.rendezvous.agent.transport.AgentClients;
import dev.rendezvous.agent.transport.AgentStats;
import dev.rendezvous.agent.transport.GatewayClient;
import dev.rendezvous.agent.transport.HostAgent;
import dev.rendezvous.agent.wire.StepTypes;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What agents of one process share: the Vert.x instance (not owned), the HTTP and websocket clients,
 * the step worker pool and the counters. Builds real agents (this host's identity and executors) and
 * dry-run agents (canned answers; thousands per JVM).
 */
public final class AgentRuntime {
  private final Vertx vertx;
  private final AgentClients clients;
  private final ExecutorService stepPool;
  private final AgentStats stats = new AgentStats();
  private final StepExecutor unsupported = new UnsupportedStepExecutor();
  /** Dry-run installers: one HTTP client and two timer threads for all of this runtime's hosts. */
  /**
   * The dry-run controllers this runtime's installers started and that still run: they live in the simulated
   * cluster, which goes with the simulated site (once, left running after a test's site was stopped, they retried
   * a gone service for the rest of the test JVM).
   */
  private final java.util.Set<dev.rendezvous.agent.installer.ControllerLauncher.Running> controllers =
      java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.ScheduledExecutorService installTimers =
      Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "rdv-installer-timer");
        t.setDaemon(true);
        return t;
      });
  private volatile java.net.http.HttpClient installHttp;

  private AgentRuntime(Vertx vertx, AgentClients clients, ExecutorService stepPool) {
    this.vertx = vertx;
    this.clients = clients;
    this.stepPool = stepPool;
  }

  /** Clients sized for {@code agents} connections; {@code config} gives TLS settings and the step pool size. */
  public static AgentRuntime create(Vertx vertx, AgentConfig config, int agents) {
    AtomicInteger n = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(config.stepThreads(), r -> {
      Thread t = new Thread(r, "rdv-agent-step-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    return new AgentRuntime(vertx, AgentClients.create(vertx, config, agents), pool);
  }

  public AgentStats stats() {
    return stats;
  }

  public AgentClients clients() {
    return clients;
  }

  /** The agent of this host: identity from DMI / machine-id, real executors. */
  public HostAgent realAgent(AgentConfig config) {
    HostRoot root = new HostRoot(config.hostRoot());
    String hostId = HostIdentity.resolve(root, config.hostId()).hostId();
    GatewayClient gateway = new GatewayClient(clients.web(), config.url(), config.token(), config.agentVersion());
    Map<String, StepExecutor> executors =
        realExecutors(config, root, new ProcessCommandRunner(), new OshiHardwareProbe(), gateway);
    return new HostAgent(vertx, config, hostId, clients, runner(executors, config), stats);
  }

  /** A simulated host; {@code config.hostId()} must be set (or is derived from the infra-env and index). */
  public HostAgent dryRunAgent(AgentConfig config) {
    String hostId = config.hostId().orElseGet(() -> HostIdentity.resolve(new HostRoot(config.hostRoot()),
        java.util.Optional.empty()).hostId());
    int index = config.dryRunIndex().orElse(DryRunHost.indexFor(hostId));
    DryRunHost host = new DryRunHost(hostId, index, config.dryRunCidr(), config.hostname().orElse(null));
    GatewayClient gateway = new GatewayClient(clients.web(), config.url(), config.token(), config.agentVersion());
    Map<String, StepExecutor> executors = DryRunExecutors.create(host, gateway);
    executors.put(dev.rendezvous.agent.wire.StepTypes.INSTALL, dryRunInstall(config));
    executors.put(dev.rendezvous.agent.wire.StepTypes.DOWNLOAD_BOOT_ARTIFACTS,
        dev.rendezvous.agent.dryrun.DryRunReclaim.downloadBootArtifacts(gateway::download));
    return new HostAgent(vertx, config, hostId, clients, runner(executors, config), stats);
  }

  /**
   * The dry-run installer: stages as upstream's, simulated durations ({@code RDV_AGENT_DRY_RUN_TIME_SCALE}, default
   * 0.01: a 30 s step takes 0.3 s), the bootstrap or single node running the controller in this process.
   */
  private StepExecutor dryRunInstall(AgentConfig config) {
    double scale = Double.parseDouble(System.getenv().getOrDefault("RDV_AGENT_DRY_RUN_TIME_SCALE", "0.01"));
    return new dev.rendezvous.agent.installer.InstallExecutor(request -> {
      dev.rendezvous.agent.installer.ServiceCalls calls = new dev.rendezvous.agent.installer.ServiceCalls(
          installHttp(config), config.url().toString(), config.token(), installTimers, 30);
      return new dev.rendezvous.agent.installer.Installer(request, calls, installTimers,
          tracked(dev.rendezvous.agent.installer.ControllerLauncher.inProcessDryRun(scale, serviceTls(config))),
          config.url().toString(), config.token(),
          dev.rendezvous.agent.installer.Installer.Timings.scaled(scale)).run();
    });
  }

  /**
   * A real host's installer: the OS written by {@link dev.rendezvous.agent.installer.RealDisk} (file-backed or loop
   * disks only, unless the machine was booted from the discovery image: then its disks, and a reboot after), the
   * bootstrap rendering the controller's Job into the new cluster's manifests.
   */
  private static StepExecutor realInstall(AgentConfig config, HostRoot root, CommandRunner commands,
      java.util.concurrent.atomic.AtomicReference<dev.rendezvous.agent.installer.Installer> running) {
    java.util.concurrent.ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "rdv-installer");
      t.setDaemon(true);
      return t;
    });
    java.net.http.HttpClient http = installClient(config);
    return new dev.rendezvous.agent.installer.InstallExecutor(request -> {
      dev.rendezvous.agent.installer.ServiceCalls calls = new dev.rendezvous.agent.installer.ServiceCalls(
          http, config.url().toString(), config.token(), timers, 360);
      dev.rendezvous.agent.installer.Installer installer = new dev.rendezvous.agent.installer.Installer(request, calls,
          timers, dev.rendezvous.agent.installer.ControllerLauncher.manifests(root.root(),
              request.controllerImageOr("rendezvous-controller:latest"), serviceTls(config)),
          config.url().toString(), config.token(),
          new dev.rendezvous.agent.installer.Installer.Timings(java.time.Duration.ZERO, java.time.Duration.ofSeconds(5),
              java.time.Duration.ofMinutes(60)),
          new dev.rendezvous.agent.installer.RealDisk(calls, http, Executors.newCachedThreadPool(), root.root(),
              dev.rendezvous.agent.installer.BootOrder.ofThisMachine(commands),
              dev.rendezvous.agent.installer.DiscoveryHost.detect(root, commands)));
      running.set(installer); // what a stop-installation step stops
      return installer.run();
    });
  }

  /**
   * The installer's client speaks HTTP/1.1, as upstream's does: the JDK client's HTTP/2 (h2c on a plain URL) puts
   * every request on one connection and fails them with "too many concurrent streams" once the server's stream limit
   * is reached (JDK-8225647) rather than queueing or opening another connection; 7 of 1,000 swarm installers failed so.
   */
  private static java.net.http.HttpClient installClient(AgentConfig config) {
    return java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1)
        .sslContext(dev.rendezvous.controller.service.HttpClients.sslContext(serviceTls(config)))
        .connectTimeout(java.time.Duration.ofSeconds(30)).build();
  }

  private java.net.http.HttpClient installHttp(AgentConfig config) {
    java.net.http.HttpClient h = installHttp;
    if (h == null) {
      synchronized (this) {
        if (installHttp == null) {
          installHttp = installClient(config);
        }
        h = installHttp;
      }
    }
    return h;
  }

  /** How the installer and the controller trust the service: as the agent does (its --insecure, its --cacert). */
  private static dev.rendezvous.controller.service.HttpClients.Tls serviceTls(AgentConfig config) {
    return new dev.rendezvous.controller.service.HttpClients.Tls(config.insecure(), config.caCert());
  }

  public HostAgent agent(AgentConfig config) {
    return config.dryRun() ? dryRunAgent(config) : realAgent(config);
  }

  /** The executors of a real host, one per supported step type. */
  public static Map<String, StepExecutor> realExecutors(
      AgentConfig config, HostRoot root, CommandRunner commands, HardwareProbe probe, LogsUploader uploader) {
    InventoryCollector collector = new InventoryCollector(root, commands, probe, config.hostname(), config.includeLoopDisks());
    Map<String, StepExecutor> m = new HashMap<>();
    var running = new java.util.concurrent.atomic.AtomicReference<dev.rendezvous.agent.installer.Installer>();
    m.put(StepTypes.INSTALL, realInstall(config, root, commands, running));
    m.put(StepTypes.INVENTORY, new InventoryExecutor(collector, InventoryTruncation.DEFAULT_MAX_DISKS));
    m.put(StepTypes.CONNECTIVITY_CHECK, new ConnectivityCheckExecutor(commands, collector::interfaces, 3));
    m.put(StepTypes.FREE_NETWORK_ADDRESSES, new FreeAddressesExecutor(commands, collector::interfaces, 64));
    m.put(StepTypes.NTP_SYNCHRONIZER, new NtpSynchronizerExecutor(commands));
    m.put(StepTypes.DOMAIN_RESOLUTION, new DomainResolutionExecutor());
    m.put(StepTypes.INSTALLATION_DISK_SPEED_CHECK, new DiskSpeedCheckExecutor(root, 22L * 1024 * 1024));
    m.put(StepTypes.CONTAINER_IMAGE_AVAILABILITY, new ContainerImageAvailabilityExecutor(commands));
    m.put(StepTypes.LOGS_GATHER, new LogsGatherExecutor(root, commands, config.logFile(), uploader));
    java.net.http.HttpClient probes = java.net.http.HttpClient.newBuilder()
        .connectTimeout(java.time.Duration.ofSeconds(10)).build();
    m.put(StepTypes.VERIFY_VIPS, new VerifyVipsExecutor(commands, collector::interfaces));
    m.put(StepTypes.DHCP_LEASE_ALLOCATE, new DhcpLeaseAllocateExecutor(collector::interfaces,
        java.time.Duration.ofSeconds(2), java.time.Clock.systemUTC()));
    if (uploader instanceof dev.rendezvous.agent.transport.GatewayClient gateway) {
      m.put(StepTypes.UPGRADE_AGENT, new UpgradeAgentExecutor(
          java.util.Optional.ofNullable(System.getenv("RDV_AGENT_JAR_URL")), UpgradeAgentExecutor.runningJar(),
          gateway::download));
      m.put(StepTypes.DOWNLOAD_BOOT_ARTIFACTS,
          new dev.rendezvous.agent.reclaim.DownloadBootArtifactsExecutor(root, commands, gateway::download));
    }
    m.put(StepTypes.REBOOT_FOR_RECLAIM, new dev.rendezvous.agent.reclaim.RebootForReclaimExecutor(root, commands));
    m.put(StepTypes.TANG_CONNECTIVITY_CHECK, new TangConnectivityExecutor(probes, java.time.Duration.ofSeconds(10)));
    m.put(StepTypes.API_VIP_CONNECTIVITY_CHECK, new ApiVipConnectivityExecutor(probes, java.time.Duration.ofSeconds(10)));
    m.put(StepTypes.STOP_INSTALLATION, new StopInstallationExecutor(commands, () -> {
      dev.rendezvous.agent.installer.Installer i = running.getAndSet(null);
      if (i != null) {
        i.stop();
      }
      return i != null;
    }));
    return m;
  }

  private StepRunner runner(Map<String, StepExecutor> executors, AgentConfig config) {
    return new StepRunner(vertx, stepPool, executors, unsupported, config.stepTimeout());
  }

  /** The launcher, its controllers closed with this runtime when they have not finished by then. */
  private dev.rendezvous.agent.installer.ControllerLauncher tracked(dev.rendezvous.agent.installer.ControllerLauncher l) {
    return (request, url, token) -> {
      dev.rendezvous.agent.installer.ControllerLauncher.Running running = l.launch(request, url, token);
      controllers.add(running);
      running.finished().whenComplete((o, t) -> controllers.remove(running));
      return running;
    };
  }

  /** How long a closing runtime lets its controllers finish (their last reports, the log upload) before closing them. */
  static final java.time.Duration CONTROLLERS_GRACE = java.time.Duration.ofSeconds(20);

  public Future<Void> close() {
    // a controller outlives its installer by a little (an installed cluster's final log upload): it gets the grace
    // period to finish, then is closed (one whose service is gone would retry for ever); the runtime does not wait
    java.util.List<java.util.concurrent.CompletableFuture<?>> closing = new java.util.ArrayList<>();
    for (dev.rendezvous.agent.installer.ControllerLauncher.Running c : java.util.List.copyOf(controllers)) {
      closing.add(c.finished().copy().orTimeout(CONTROLLERS_GRACE.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
          .whenComplete((o, t) -> c.close()));
    }
    controllers.clear();
    controllersClosed = java.util.concurrent.CompletableFuture.allOf(closing.toArray(
        java.util.concurrent.CompletableFuture[]::new)).handle((v, t) -> null);
    return closeNow();
  }

  private volatile java.util.concurrent.CompletableFuture<Void> controllersClosed =
      java.util.concurrent.CompletableFuture.completedFuture(null);

  /**
   * After {@link #close()}: completes once its controllers finished or were closed at the grace period's end (a
   * process that ends with its runtime waits for this, or their last reports are lost).
   */
  public java.util.concurrent.CompletableFuture<Void> controllersClosed() {
    return controllersClosed;
  }

  private Future<Void> closeNow() {
    stepPool.shutdownNow();
    installTimers.shutdownNow();
    return clients.close();
  }
}
