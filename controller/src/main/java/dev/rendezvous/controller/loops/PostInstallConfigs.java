package dev.rendezvous.controller.loops;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.Cluster;
import dev.rendezvous.controller.service.ClusterStatus;
import dev.rendezvous.controller.service.FinalizingStage;
import dev.rendezvous.controller.service.Json;
import dev.rendezvous.controller.service.MonitoredOperator;
import dev.rendezvous.controller.service.OperatorStatus;
import dev.rendezvous.controller.service.Requests;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.RepeatingTask;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Upstream's PostInstallConfigs: waits for the cluster to be {@code finalizing}, then walks the finalizing stages
 * (reporting each until the service accepts it): wait for the console operator (and the cluster version operator
 * when CHECK_CLUSTER_VERSION) to be available, upload the ingress CA, follow the OLM operators when there are any,
 * stage {@code Done}, and finally complete-installation (success, or upstream's error with the cluster operators
 * report).
 *
 * <p>Restartable: it starts from the service's finalizing stage and reports only stages ahead of it; the service's
 * view of an operator wins (an operator the service already has as available is done), a monitored operator is
 * PUT only when its status or message changed, and the router CA is not uploaded again once the service moved past
 * that stage.
 */
public final class PostInstallConfigs {
  public static final String OPERATORS_TIMEOUT_ERROR =
      "Stopped waiting for cluster operators to be available: context deadline exceeded";
  public static final String CLUSTER_OPERATORS_REPORT = "CLUSTER_OPERATORS_REPORT";
  static final String CONSOLE = "console";
  static final String CVO = "cvo";
  static final int FAILED_CSV_TOLERANCE = 10;

  private final ControllerContext ctx;
  private final AtomicReference<RepeatingTask> current = new AtomicReference<>();
  private final Map<String, Integer> failedCsvSightings = new ConcurrentHashMap<>();
  private volatile FinalizingStage reached;
  private volatile Boolean consoleWasEnabled;

  /** What complete-installation will say. */
  record Outcome(boolean success, String errorInfo, Map<String, Object> data) {
  }

  public PostInstallConfigs(ControllerContext ctx) {
    this.ctx = ctx;
  }

  public CompletableFuture<Void> run() {
    ctx.cluster.addChangeListener(() -> {
      RepeatingTask t = current.get();
      if (t != null) {
        t.poke();
      }
    });
    AtomicReference<Cluster> seen = new AtomicReference<>();
    return ctx.waitFor("wait for finalizing", ctx.config.timings().checkInterval(), null,
        () -> ctx.service.getCluster(true).thenApply(c -> {
          seen.set(c);
          return ClusterStatus.FINALIZING.equals(c.status());
        }), null, current)
        .thenCompose(v -> {
          reached = seen.get().finalizingStage();
          ctx.log.info("Start post install configs (service's finalizing stage: {})", reached);
          return finalizeCluster();
        })
        .thenCompose(outcome -> {
          if (!outcome.success()) {
            ctx.log.error("{}", outcome.errorInfo());
            ctx.markError();
          }
          return completeInstallation(outcome);
        })
        .whenComplete((v, t) -> ctx.log.info("Finished PostInstallConfigs"));
  }

  private CompletableFuture<Outcome> finalizeCluster() {
    return reportStage(FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS)
        .thenCompose(v -> waitForClusterOperators())
        .thenCompose(end -> {
          if (end != ControllerContext.WaitEnd.SATISFIED) {
            Map<String, Object> data = new LinkedHashMap<>();
            data.put(CLUSTER_OPERATORS_REPORT, operatorReport());
            return CompletableFuture.completedFuture(new Outcome(false, OPERATORS_TIMEOUT_ERROR, data));
          }
          return addRouterCa()
              .thenCompose(x -> olmOperators().exceptionally(t -> {
                // upstream: OLM trouble never fails the installation; the service degrades the cluster instead
                ctx.log.warn("Error while initializing OLM operators: {}", ControllerLog.describe(t));
                return null;
              }))
              .thenCompose(x -> reportStage(FinalizingStage.DONE))
              .thenApply(x -> new Outcome(true, "", null));
        });
  }

  // ---- finalizing stages ------------------------------------------------------------------------------------

  /** Reports a stage ahead of the service's, retrying every check interval until accepted. */
  private CompletableFuture<Void> reportStage(FinalizingStage stage) {
    if (FinalizingStage.position(stage) <= FinalizingStage.position(reached)) {
      ctx.log.info("Finalizing stage {} already reached (service is at {})", stage, reached);
      return CompletableFuture.completedFuture(null);
    }
    return ctx.untilAccepted("finalizing stage " + stage, ctx.config.timings().checkInterval(),
        () -> ctx.service.updateFinalizingStage(stage).whenComplete((v, t) -> {
          if (t == null) {
            reached = stage;
            ctx.log.info("Finalizing stage {} reported", stage);
          } else {
            ctx.log.warn("Failed to report finalizing stage {}: {}", stage, ControllerLog.describe(t));
          }
        }));
  }

  // ---- cluster operators ------------------------------------------------------------------------------------

  private CompletableFuture<ControllerContext.WaitEnd> waitForClusterOperators() {
    ctx.log.info("Waiting for cluster operators");
    Instant deadline = Instant.now().plus(ctx.config.timings().operatorsTimeout());
    return ctx.waitFor("cluster operators", ctx.config.timings().operatorPoll(), deadline,
        this::clusterOperatorsAvailable, null, current);
  }

  private CompletableFuture<Boolean> clusterOperatorsAvailable() {
    Optional<Views.ClusterVersion> cv = ctx.cluster.clusterVersion();
    if (cv.isEmpty()) {
      ctx.log.warn("Failed to check if console is enabled: no ClusterVersion yet");
      return CompletableFuture.completedFuture(false);
    }
    boolean console = cv.get().capabilityEnabled("Console");
    if (!Boolean.valueOf(console).equals(consoleWasEnabled)) {
      consoleWasEnabled = console;
      ctx.log.info("Console is {}", console ? "enabled, will wait for the console operator to be available"
          : "disabled, will not wait for the console operator to be available");
    }
    return ctx.service.getMonitoredOperators().thenCompose(monitored -> {
      CompletableFuture<Boolean> consoleDone = !console ? CompletableFuture.completedFuture(true)
          : checkOperator(CONSOLE, find(monitored, CONSOLE), () -> ctx.cluster.clusterOperator(CONSOLE)
              .map(co -> OperatorConditions.of(co.conditions(), co.version())));
      return consoleDone.thenCompose(consoleOk -> {
        if (!ctx.config.checkClusterVersion()) {
          return CompletableFuture.completedFuture(consoleOk);
        }
        return checkOperator(CVO, find(monitored, CVO), () -> ctx.cluster.clusterVersion()
            .map(v -> OperatorConditions.of(v.conditions(), v.desiredVersion())))
            .thenApply(cvoOk -> cvoOk && consoleOk);
      });
    });
  }

  /**
   * Upstream's checkAndUpdateOperatorAvailability: done once the service says available; otherwise report the
   * cluster's status when it differs from the service's (status, or a non-empty message), and count as done only
   * when what was reported is available.
   */
  private CompletableFuture<Boolean> checkOperator(String name, MonitoredOperator inService,
      Supplier<Optional<OperatorConditions.Reported>> inCluster) {
    if (inService != null && inService.status() == OperatorStatus.AVAILABLE) {
      ctx.log.info("Service acknowledged <{}> operator is available for cluster {}", name, ctx.log.clusterId());
      return CompletableFuture.completedFuture(true);
    }
    Optional<OperatorConditions.Reported> now = inCluster.get();
    if (now.isEmpty()) {
      ctx.log.warn("Failed to get <{}> operator: not in the cluster yet", name);
      return CompletableFuture.completedFuture(false);
    }
    return reportIfChanged(name, inService, now.get());
  }

  private CompletableFuture<Boolean> reportIfChanged(String name, MonitoredOperator inService,
      OperatorConditions.Reported now) {
    if (inService == null) {
      ctx.log.warn("The service does not monitor operator {}", name);
      return CompletableFuture.completedFuture(false);
    }
    String svcInfo = inService.statusInfo() == null ? "" : inService.statusInfo();
    boolean changed = inService.status() != now.status() || (!now.message().isEmpty() && !now.message().equals(svcInfo));
    if (!changed) {
      return CompletableFuture.completedFuture(false);
    }
    ctx.log.info("Operator <{}> updated, status: {} -> {}, message: {} -> {}.", name, inService.status(),
        now.status(), svcInfo, now.message());
    return ctx.service.reportOperator(new Requests.OperatorReport(name, now.status(), now.message(), now.version()))
        .handle((v, t) -> {
          if (t != null) {
            ctx.log.warn("Failed to update {} operator status {} with message {}: {}", name, now.status(),
                now.message(), ControllerLog.describe(t));
            return false;
          }
          return now.status() == OperatorStatus.AVAILABLE;
        });
  }

  private static MonitoredOperator find(List<MonitoredOperator> ops, String name) {
    for (MonitoredOperator o : ops) {
      if (name.equals(o.name())) {
        return o;
      }
    }
    return null;
  }

  /** Upstream's operatorReport: every ClusterOperator's mapped status, for the failure's data (and the log). */
  private List<Map<String, Object>> operatorReport() {
    List<Map<String, Object>> report = new ArrayList<>();
    for (Views.ClusterOperator co : ctx.cluster.clusterOperators()) {
      ctx.log.info("Operator {}, statuses: {}", co.name(), co.conditions());
      OperatorConditions.Reported r = OperatorConditions.of(co.conditions(), co.version());
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", co.name());
      entry.put("status", r.status().wire());
      entry.put("status_info", r.message());
      report.add(entry);
    }
    return report;
  }

  // ---- router CA --------------------------------------------------------------------------------------------

  private CompletableFuture<Void> addRouterCa() {
    boolean alreadyUploaded = FinalizingStage.position(reached) > FinalizingStage.position(FinalizingStage.ADDING_ROUTER_CA);
    return reportStage(FinalizingStage.ADDING_ROUTER_CA).thenCompose(v -> {
      if (alreadyUploaded) {
        ctx.log.info("Ingress CA already uploaded (service is at {})", reached);
        return CompletableFuture.completedFuture(null);
      }
      return ctx.waitFor("router ca", ctx.config.timings().routerCaInterval(), null, this::uploadRouterCa, null, current)
          .thenApply(end -> null);
    });
  }

  private CompletableFuture<Boolean> uploadRouterCa() {
    Optional<String> ca = ctx.cluster.ingressCaBundle();
    if (ca.isEmpty()) {
      ctx.log.debug("fetching default-ingress-cert configmap from openshift-config-managed namespace: not there yet");
      return CompletableFuture.completedFuture(false);
    }
    ctx.log.info("Start adding ingress ca to cluster. Sending ingress certificate to inventory service. Certificate data {}",
        ca.get());
    return ctx.service.uploadIngressCert(ca.get()).handle((v, t) -> {
      if (t != null) {
        ctx.log.error("Failed to upload ingress ca to assisted-service: {}", ControllerLog.describe(t));
        return false;
      }
      ctx.log.info("Ingress ca successfully sent to inventory");
      return true;
    });
  }

  // ---- OLM operators ----------------------------------------------------------------------------------------

  private CompletableFuture<Void> olmOperators() {
    AtomicReference<List<MonitoredOperator>> olm = new AtomicReference<>(List.of());
    return ctx.waitFor("fetch OLM operators", ctx.config.timings().fetchRetryInterval(), null,
        () -> ctx.service.getMonitoredOperators().handle((ops, t) -> {
          if (t != null) {
            ctx.log.error("Error fetching the monitored operators from assisted-service: {}", ControllerLog.describe(t));
            return false;
          }
          olm.set(ops.stream().filter(MonitoredOperator::isOlm).toList());
          return true;
        }), null, current)
        .thenCompose(v -> {
          List<MonitoredOperator> ops = olm.get();
          if (ops.isEmpty()) {
            ctx.log.info("No OLM operators found.");
            return CompletableFuture.completedFuture(null);
          }
          return followOlm(ops);
        });
  }

  private CompletableFuture<Void> followOlm(List<MonitoredOperator> ops) {
    List<String> errors = new ArrayList<>();
    FinalizingStage init = FinalizingStage.WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION;
    FinalizingStage apply = FinalizingStage.APPLYING_OLM_MANIFESTS;
    FinalizingStage csv = FinalizingStage.WAITING_FOR_OLM_OPERATORS_CSV;
    return reportStage(init)
        .thenCompose(v -> ctx.waitFor("OLM CSVs created", ctx.config.timings().checkInterval(), null,
            () -> initializedOperators(ops).thenApply(ready -> ready.size() == ops.size()), timedOut(init), current))
        .thenCompose(end -> {
          if (end != ControllerContext.WaitEnd.SATISFIED) {
            errors.add("Failed to wait for some of the OLM operators to be initialized");
          }
          return reportStage(apply);
        })
        .thenCompose(v -> ctx.waitFor("OLM manifests", ctx.config.timings().checkInterval(), null,
            () -> applyManifests(ops), timedOut(apply), current))
        .thenCompose(end -> {
          if (end != ControllerContext.WaitEnd.SATISFIED) {
            errors.add("Stopped applying post manifests");
          }
          return reportStage(csv);
        })
        .thenCompose(v -> waitForCsvs())
        .thenCompose(end -> {
          if (end != ControllerContext.WaitEnd.SATISFIED) {
            errors.add("Stopped waiting for OLM operators be installed");
          }
          if (errors.isEmpty()) {
            return CompletableFuture.completedFuture(null);
          }
          ctx.log.warn("OLM operators: {}", String.join("; ", errors));
          return ctx.retry("mark pending OLM operators failed", FAILED_CSV_TOLERANCE,
              ctx.config.timings().checkInterval(), this::failPendingOlmOperators).thenApply(ok -> null);
        });
  }

  /** The service marked this finalizing stage timed out: stop waiting (upstream's isStageTimedOut). */
  private Supplier<CompletableFuture<Boolean>> timedOut(FinalizingStage stage) {
    return () -> ctx.service.getCluster(true).thenApply(c -> c.finalizingStageTimedOut(stage));
  }

  /** Names of the operators whose Subscription has a current CSV that exists. */
  private CompletableFuture<List<String>> initializedOperators(List<MonitoredOperator> ops) {
    List<String> ready = new ArrayList<>();
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (MonitoredOperator op : ops) {
      chain = chain
          .thenCompose(v -> ctx.cluster.cleanUpFailedOlmInstalls(op.namespace(), op.subscriptionName())
              .exceptionally(t -> {
                ctx.log.warn("Failed to handle OLMEarlySetupBug for {}: {}", op.name(), ControllerLog.describe(t));
                return null;
              }))
          .thenCompose(v -> currentCsv(op))
          .thenAccept(csv -> {
            if (csv.isPresent()) {
              ctx.log.info("{} operator is initialized", op.name());
              synchronized (ready) {
                ready.add(op.name());
              }
            }
          });
    }
    return chain.handle((v, t) -> {
      if (t != null) {
        ctx.log.warn("Error while fetching the OLM operators' state: {}", ControllerLog.describe(t));
      }
      return ready;
    });
  }

  private CompletableFuture<Optional<Views.Csv>> currentCsv(MonitoredOperator op) {
    return ctx.cluster.subscriptionCurrentCsv(op.namespace(), op.subscriptionName()).thenCompose(name -> name.isEmpty()
        ? CompletableFuture.completedFuture(Optional.<Views.Csv>empty())
        : ctx.cluster.csv(op.namespace(), name.get()));
  }

  /** Upstream's manifest entries in custom_manifests.json: {@code {"Name": operator, "Content": base64 YAML}}. */
  private record Manifest(String name, String content) {
  }

  private CompletableFuture<Boolean> applyManifests(List<MonitoredOperator> ops) {
    return ctx.service.downloadClusterFile("custom_manifests.json").thenCompose(file -> {
      if (file.isEmpty()) {
        ctx.log.info("No custom manifests to apply");
        return CompletableFuture.completedFuture(true);
      }
      List<Manifest> manifests = new ArrayList<>();
      try {
        for (Map<String, String> m : Json.MAPPER.readValue(file.get(), MANIFESTS)) {
          manifests.add(new Manifest(m.get("Name"), m.get("Content")));
        }
      } catch (java.io.IOException e) {
        ctx.log.error("Failed to unmarshal custom manifest file: {}", e.getMessage());
        return CompletableFuture.completedFuture(false);
      }
      return initializedOperators(ops).thenCompose(ready -> {
        ctx.log.info("Ready operators to be applied: {}", ready);
        List<byte[]> toApply = new ArrayList<>();
        for (Manifest m : manifests) {
          if (ready.contains(m.name())) {
            toApply.add(Base64.getDecoder().decode(m.content()));
          }
        }
        if (toApply.isEmpty()) {
          return CompletableFuture.completedFuture(true);
        }
        return ctx.service.downloadCredentials("kubeconfig-noingress")
            .thenCompose(kubeconfig -> ctx.cluster.applyManifests(kubeconfig, toApply))
            .handle((v, t) -> {
              if (t != null) {
                ctx.log.error("Failed to apply manifest file: {}", ControllerLog.describe(t));
                return false;
              }
              ctx.log.info("Applied {} OLM manifests", toApply.size());
              return true;
            });
      });
    });
  }

  /**
   * Waits until every OLM operator the service still has progressing is available or failed in the service. A CSV
   * in phase Failed is reported only after {@value #FAILED_CSV_TOLERANCE} sightings (upstream's intent; its code
   * never counts, see the README), which rides out OLM's transient failures.
   */
  private CompletableFuture<ControllerContext.WaitEnd> waitForCsvs() {
    FinalizingStage stage = FinalizingStage.WAITING_FOR_OLM_OPERATORS_CSV;
    return ctx.waitFor("OLM CSVs", ctx.config.timings().checkInterval(), null, () -> ctx.service.getMonitoredOperators()
        .thenCompose(ops -> {
          List<MonitoredOperator> pending = ops.stream().filter(o -> o.isOlm() && !o.settled()).toList();
          CompletableFuture<Boolean> all = CompletableFuture.completedFuture(true);
          for (MonitoredOperator op : pending) {
            all = all.thenCompose(soFar -> csvReported(op).thenApply(done -> soFar && done));
          }
          return all;
        }), timedOut(stage), current);
  }

  private CompletableFuture<Boolean> csvReported(MonitoredOperator op) {
    return currentCsv(op).thenCompose(csv -> {
      if (csv.isEmpty()) {
        return CompletableFuture.completedFuture(false);
      }
      OperatorConditions.Reported now = OperatorConditions.ofCsv(csv.get());
      if (now.status() == OperatorStatus.FAILED) {
        int seen = failedCsvSightings.merge(op.name(), 1, Integer::sum);
        if (seen < FAILED_CSV_TOLERANCE) {
          ctx.log.warn("Operator {} CSV failed ({} of {} sightings before reporting it)", op.name(), seen,
              FAILED_CSV_TOLERANCE);
          return CompletableFuture.completedFuture(false);
        }
        ctx.markOperatorError(op.name());
      } else {
        failedCsvSightings.remove(op.name());
      }
      return reportIfChanged(op.name(), op, now).thenApply(ok -> ok || now.status() == OperatorStatus.FAILED);
    });
  }

  /** Upstream's updatePendingOLMOperators: every OLM operator still progressing is reported failed. */
  private CompletableFuture<Void> failPendingOlmOperators() {
    return ctx.service.getMonitoredOperators().thenCompose(ops -> {
      CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
      for (MonitoredOperator op : ops) {
        if (op.isOlm() && !op.settled()) {
          ctx.markOperatorError(op.name());
          chain = chain.thenCompose(v -> ctx.service.reportOperator(new Requests.OperatorReport(op.name(),
              OperatorStatus.FAILED, "Waiting for operator timed out", op.version() == null ? "" : op.version())));
        }
      }
      return chain;
    });
  }

  // ---- completion ------------------------------------------------------------------------------------------

  private CompletableFuture<Void> completeInstallation(Outcome outcome) {
    ctx.log.info("Start complete installation step, with params success: {}, error info: {}", outcome.success(),
        outcome.errorInfo());
    return ctx.untilAccepted("complete-installation", ctx.config.timings().operatorPoll(),
        () -> ctx.service.completeInstallation(outcome.success(), outcome.errorInfo(), outcome.data())
            .whenComplete((v, t) -> {
              if (t != null) {
                ctx.log.error("complete-installation failed: {}", ControllerLog.describe(t));
              }
            }))
        .thenRun(() -> ctx.log.info("Done complete installation step"));
  }

  private static final TypeReference<List<Map<String, String>>> MANIFESTS = new TypeReference<>() { };
}
