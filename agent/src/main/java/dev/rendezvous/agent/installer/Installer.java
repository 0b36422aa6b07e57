package dev.rendezvous.agent.installer;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The installer (reference §1.3–§1.10, upstream's assisted-installer): stages reported in upstream's order per role,
 * the waits on the other hosts, the bootstrap (or single node) starting the controller, the OS written to the disk
 * ({@link Disk}: simulated in dry-run, {@link ImageWriter} on a real host), then the reboot (only of a machine booted
 * from the discovery image; a dry run reports it, any other host is left to its operator). Nothing here blocks a
 * thread: each step is a future, each wait a scheduled poll, so a swarm of thousands of installers runs on a few
 * threads.
 */
public final class Installer {
  /** Writes the OS and the host's Ignition to the installation disk, reporting percentages. */
  public interface Disk {
    CompletableFuture<Void> write(InstallRequest request, java.util.function.IntConsumer percent);

    /** Stops a write under way (the installation was cancelled): the write then fails. */
    default void stop() {
    }

    /** Whether this disk is the machine's own, to boot from: then the machine is rebooted after Rebooting. */
    default boolean reboots() {
      return false;
    }

    default void reboot() throws Exception {
    }
  }
  private static final Logger LOG = LoggerFactory.getLogger(Installer.class);
  /** The bootstrap pivots once two other masters joined its control plane; a worker reboots once two are Done (§1.8). */
  private static final Set<String> JOINED = Set.of("Joined", "Done");
  private static final Set<String> DONE = Set.of("Done");

  /** How long the simulated work takes: each stage's work, and how often a wait looks again. */
  public record Timings(Duration stageWork, Duration poll, Duration waitLimit) {
    public static Timings scaled(double scale) {
      return new Timings(Duration.ofMillis(Math.max(10, (long) (30_000 * scale))), Duration.ofMillis(500),
          Duration.ofMinutes(60));
    }
  }

  private final InstallRequest request;
  private final ServiceCalls service;
  private final ScheduledExecutorService scheduler;
  private final ControllerLauncher launcher;
  private final String serviceUrl;
  private final String token;
  private final Timings timings;
  private final Disk disk;
  private volatile ControllerLauncher.Running controller;
  private volatile boolean stopped;

  /** A dry-run installer: the disk write is simulated. */
  public Installer(InstallRequest request, ServiceCalls service, ScheduledExecutorService scheduler,
      ControllerLauncher launcher, String serviceUrl, String token, Timings timings) {
    this(request, service, scheduler, launcher, serviceUrl, token, timings, null);
  }

  public Installer(InstallRequest request, ServiceCalls service, ScheduledExecutorService scheduler,
      ControllerLauncher launcher, String serviceUrl, String token, Timings timings, Disk disk) {
    this.disk = disk;
    this.request = request;
    this.service = service;
    this.scheduler = scheduler;
    this.launcher = launcher;
    this.serviceUrl = serviceUrl;
    this.token = token;
    this.timings = timings;
  }

  /** Runs the installation; completes when the host "reboots" (or fails, after reporting Failed). */
  public CompletableFuture<Void> run() {
    LOG.atInfo().addKeyValue("cluster_id", request.clusterId()).addKeyValue("infra_env_id", request.infraEnvId())
        .addKeyValue("host_id", request.hostId()).log("dry-run installation as " + request.role());
    CompletableFuture<Void> flow = report("Starting installation", request.role());
    if (request.bootstrap() || request.singleNode()) {
      flow = flow.thenCompose(v -> startBootstrap());
    }
    flow = flow.thenCompose(v -> report("Installing", request.finalRole()));
    if (request.singleNode()) {
      flow = flow.thenCompose(v -> report("Waiting for bootkube", "")).thenCompose(v -> controllerReady());
    }
    flow = flow.thenCompose(v -> writeImage());
    if ("worker".equals(request.role())) {
      flow = flow.thenCompose(v -> report("Waiting for control plane", "Waiting for masters"))
          .thenCompose(v -> awaitMasters(DONE, 2, "two masters done"));
    }
    if (request.bootstrap() && !request.singleNode()) {
      flow = flow.thenCompose(v -> report("Waiting for control plane", "Waiting for bootstrap node preparation"))
          .thenCompose(v -> awaitMasters(JOINED, 2, "two other masters joined"))
          .thenCompose(v -> report("Waiting for bootkube", ""))
          .thenCompose(v -> work())
          .thenCompose(v -> report("Waiting for controller", ""))
          .thenCompose(v -> controllerReady());
    }
    // a dry run pretends; a host booted from the discovery image reboots (in a minute, as upstream's); anything else is
    // left for its operator (or its BMC) to reboot
    flow = flow.thenCompose(v -> report("Rebooting", disk == null ? (request.singleNode() ? "" : "Dry run: no reboot")
        : disk.reboots() ? "" : "The disk is written; this agent does not reboot its machine"));
    if (disk != null && disk.reboots()) {
      flow = flow.thenRun(() -> {
        try {
          disk.reboot();
        } catch (Exception e) {
          throw new java.util.concurrent.CompletionException("could not reboot: " + e.getMessage(), e);
        }
      });
    }
    return flow.handle((v, t) -> {
      if (t == null) {
        return CompletableFuture.<Void>completedFuture(null);
      }
      Throwable cause = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
      if (stopped) {
        // cancelled by the service: it already moved the host on, so nothing more is reported, not even Failed
        LOG.atInfo().addKeyValue("host_id", request.hostId()).log("installation stopped");
        return CompletableFuture.<Void>failedFuture(new java.util.concurrent.CancellationException("installation stopped"));
      }
      LOG.atWarn().addKeyValue("host_id", request.hostId()).log("dry-run installation failed: " + cause);
      return report("Failed", String.valueOf(cause.getMessage())).handle((x, y) -> (Void) null)
          .thenCompose(x -> CompletableFuture.<Void>failedFuture(cause));
    }).thenCompose(f -> f);
  }

  /**
   * Stops this installation (upstream's stop-installation stops the installer container): no further stage is
   * reported and a disk write under way is broken off. The host's disk is left as it is; a reset and a new install
   * write it again.
   */
  public void stop() {
    stopped = true;
    if (disk != null) {
      disk.stop();
    }
  }

  /** The controller, while it runs (the bootstrap's and single node's). */
  public ControllerLauncher.Running controller() {
    return controller;
  }

  /** §1.5: bootstrap.ign fetched (proves the service has it), then the controller started. */
  private CompletableFuture<Void> startBootstrap() {
    if (request.singleNode()) {
      return launch();
    }
    return service.download("/clusters/" + request.clusterId() + "/downloads/files?file_name=bootstrap.ign")
        .thenCompose(ign -> {
          if (ign.length == 0) {
            return CompletableFuture.failedFuture(new IllegalStateException("bootstrap.ign is empty"));
          }
          return launch();
        });
  }

  private CompletableFuture<Void> launch() {
    try {
      controller = launcher.launch(request, serviceUrl, token);
      // the controller runs until the installation ends; then it is closed
      controller.finished().whenComplete((o, t) -> controller.close());
      return CompletableFuture.completedFuture(null);
    } catch (Exception e) {
      return CompletableFuture.failedFuture(new IllegalStateException("could not start the controller: " + e, e));
    }
  }

  private CompletableFuture<Void> controllerReady() {
    ControllerLauncher.Running c = controller;
    return c == null ? CompletableFuture.completedFuture(null) : c.ready()
        .orTimeout(timings.waitLimit().toMillis(), TimeUnit.MILLISECONDS).thenApply(x -> null);
  }

  /** Writing image to disk with percentages, as upstream reports coreos-installer's progress. */
  private CompletableFuture<Void> writeImage() {
    if (disk != null) {
      java.util.concurrent.atomic.AtomicReference<CompletableFuture<Void>> reports =
          new java.util.concurrent.atomic.AtomicReference<>(CompletableFuture.completedFuture(null));
      return disk.write(request, pct -> reports.updateAndGet(prev -> prev.thenCompose(v ->
              report("Writing image to disk", pct + "%"))))
          .thenCompose(v -> reports.get());
    }
    CompletableFuture<Void> f = CompletableFuture.completedFuture(null);
    for (String pct : List.of("0%", "33%", "66%", "100%")) {
      f = f.thenCompose(v -> report("Writing image to disk", pct)).thenCompose(v -> work());
    }
    return f;
  }

  private CompletableFuture<Void> awaitMasters(Set<String> stages, int wanted, String what) {
    long deadline = System.nanoTime() + timings.waitLimit().toNanos();
    CompletableFuture<Void> done = new CompletableFuture<>();
    poll(stages, wanted, what, deadline, done);
    return done;
  }

  private void poll(Set<String> stages, int wanted, String what, long deadline, CompletableFuture<Void> done) {
    service.clusterMasters(request).whenComplete((hosts, t) -> {
      if (stopped) { // a stopped installation waits for nothing more (a new install step may start another)
        done.completeExceptionally(new java.util.concurrent.CancellationException("installation stopped"));
      } else if (t == null && count(hosts, stages) >= wanted) {
        done.complete(null);
      } else if (System.nanoTime() > deadline) {
        done.completeExceptionally(new IllegalStateException("timed out waiting for " + what));
      } else {
        scheduler.schedule(() -> poll(stages, wanted, what, deadline, done), timings.poll().toMillis(),
            TimeUnit.MILLISECONDS);
      }
    });
  }

  /** Masters other than this host (the bootstrap counts as a master) at one of {@code stages}. */
  private int count(JsonNode hosts, Set<String> stages) {
    int n = 0;
    for (JsonNode h : hosts) {
      boolean master = "master".equals(h.path("role").asText()) || h.path("bootstrap").asBoolean();
      if (master && !request.hostId().equals(h.path("id").asText())
          && stages.contains(h.path("progress").path("current_stage").asText())) {
        n++;
      }
    }
    return n;
  }

  private CompletableFuture<Void> work() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    scheduler.schedule(() -> f.complete(null), timings.stageWork().toMillis(), TimeUnit.MILLISECONDS);
    return f;
  }

  private CompletableFuture<Void> report(String stage, String info) {
    if (stopped) {
      return CompletableFuture.failedFuture(new java.util.concurrent.CancellationException("installation stopped"));
    }
    // A report the service refuses (409: e.g. a retry of a stage the first, slow attempt already set) is logged and
    // the installation goes on, as upstream's installer does; a service that could not be reached after the retries
    // still fails the installation, so it is reported rather than left waiting for a stage that never arrives.
    return service.progress(request, stage, info).exceptionally(t -> {
      Throwable cause = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
      if (!(cause instanceof ServiceCalls.Refused)) {
        throw t instanceof java.util.concurrent.CompletionException c ? c : new java.util.concurrent.CompletionException(t);
      }
      LOG.atWarn().addKeyValue("host_id", request.hostId()).addKeyValue("stage", stage)
          .log("progress report refused: " + cause.getMessage());
      return null;
    });
  }
}
