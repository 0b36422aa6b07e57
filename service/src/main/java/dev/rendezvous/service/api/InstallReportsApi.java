package dev.rendezvous.service.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.FinalizingStageReported;
import dev.rendezvous.bus.event.InstallationCompletionReported;
import dev.rendezvous.bus.event.KubeconfigStored;
import dev.rendezvous.bus.event.LogsReported;
import dev.rendezvous.bus.event.OperatorStatusReported;
import dev.rendezvous.service.api.InstallFilesApi.Download;
import dev.rendezvous.service.api.InstallFilesApi.Status;
import dev.rendezvous.service.api.RestApi.BusPublisher;
import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.cluster.InstallReports;
import dev.rendezvous.service.install.ClusterArtifacts;
import dev.rendezvous.service.repo.ClusterFileRepository;
import dev.rendezvous.service.repo.ClusterLogsRepository;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.EventRecord;
import dev.rendezvous.service.repo.EventRepository;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.Times;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.FileUpload;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.sqlclient.Pool;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * What the installer and the controller report over upstream's API: finalizing stages, monitored operators, the
 * ingress certificate (which makes the admin kubeconfig), complete-installation, log bundles and log progress, and
 * events. Each report the cluster would refuse is answered at once with upstream's status; an accepted one is
 * published on the bus (2xx once the bus has it) and applied by the brain.
 */
public final class InstallReportsApi {
  private static final Set<String> LOG_STATES = Set.of("requested", "collecting", "completed", "timeout");
  private static final Set<String> SEVERITIES = Set.of("info", "warning", "error", "critical");
  private static final Set<String> INGRESS_STATUSES = Set.of("finalizing", "installed");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private final Pool db;
  private final Brain brain;
  private final BusPublisher bus;
  private final long logsLimitBytes;
  private final String uploadsDir;
  private final InstallFilesApi replies;

  public InstallReportsApi(Pool db, Brain brain, BusPublisher bus, long logsLimitBytes, String uploadsDir) {
    this.db = db;
    this.brain = brain;
    this.bus = bus;
    this.logsLimitBytes = logsLimitBytes;
    this.uploadsDir = uploadsDir;
    this.replies = new InstallFilesApi(db, brain, null);
  }

  /** A platform handler (the router orders handler kinds) that pauses the request until the body handler runs. */
  private static final io.vertx.ext.web.handler.PlatformHandler PAUSE = ctx -> {
    ctx.request().pause();
    ctx.next();
  };

  /** The log upload, with its own body limit: mount it before the API's general body handler. */
  public void mountUpload(Router router, Handler<RoutingContext> agentOrUser) {
    // paused while the token is checked (a database read): a body that arrived meanwhile waits for the body handler
    router.post(ApiViews.BASE + "/clusters/:cluster_id/logs").handler(PAUSE).handler(agentOrUser)
        .handler(BodyHandler.create(uploadsDir).setBodyLimit(logsLimitBytes).setDeleteUploadedFilesOnEnd(true))
        .handler(this::uploadLogs);
  }

  /** The agent-token routes (after the general body handler). */
  public void mountAgentRoutes(Router router, Handler<RoutingContext> agentOrUser) {
    String b = ApiViews.BASE;
    router.put(b + "/clusters/:cluster_id/progress").handler(agentOrUser).handler(this::finalizingProgress);
    router.get(b + "/clusters/:cluster_id/monitored-operators").handler(agentOrUser).handler(this::listOperators);
    router.put(b + "/clusters/:cluster_id/monitored-operators").handler(agentOrUser).handler(this::reportOperator);
    router.post(b + "/clusters/:cluster_id/uploads/ingress-cert").handler(agentOrUser).handler(this::ingressCert);
    router.post(b + "/clusters/:cluster_id/actions/complete-installation").handler(agentOrUser).handler(this::complete);
    router.put(b + "/clusters/:cluster_id/logs-progress").handler(agentOrUser).handler(this::clusterLogsProgress);
    router.put(b + "/infra-envs/:infra_env_id/hosts/:host_id/logs-progress").handler(agentOrUser).handler(this::hostLogsProgress);
    router.post(b + "/events").handler(agentOrUser).handler(this::triggerEvent);
  }

  /** User routes, after the user auth handler. */
  public void mountUserRoutes(Router router) {
    router.get(ApiViews.BASE + "/clusters/:cluster_id/logs").handler(this::downloadLogs);
  }

  // --------------------------------------------------------------------------------- controller reports

  private void finalizingProgress(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String stage = text(Requests.body(ctx), "finalizing_stage", true);
      return report(ctx, id, (c, now) -> InstallReports.finalizingStage(c, stage, now),
          new FinalizingStageReported(stage)).map(v -> null);
    });
  }

  private void listOperators(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String only = ctx.request().getParam("operator_name");
      return cluster(ctx, id).map(c -> {
        JsonArray out = new JsonArray();
        for (JsonObject o : ApiViews.monitoredOperators(c)) {
          if (only == null || only.isEmpty() || only.equals(o.getString("name"))) {
            out.add(o);
          }
        }
        return out;
      });
    });
  }

  private void reportOperator(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      JsonObject body = Requests.body(ctx);
      String name = text(body, "name", true);
      String status = text(body, "status", true);
      String info = text(body, "status_info", false);
      String version = text(body, "version", false);
      return report(ctx, id, (c, now) -> InstallReports.operatorStatus(c, name, status, info, version, now),
          new OperatorStatusReported(name, status, info, version)).map(v -> null);
    });
  }

  /** Body: a JSON string, the ingress CA bundle (PEM); it is merged into kubeconfig-noingress as the kubeconfig. */
  private void ingressCert(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String pem = InstallFilesApi.jsonString(ctx, "ingress-cert-params");
      if (!pem.contains("-----BEGIN CERTIFICATE-----")) {
        throw new InvalidInputException("ingress-cert-params", "must hold a PEM certificate bundle");
      }
      return cluster(ctx, id).compose(c -> {
        if (!INGRESS_STATUSES.contains(c.status())) {
          throw ApiError.conflict("cluster " + id + " is " + c.status() + "; the ingress certificate is taken while finalizing");
        }
        return ClusterFileRepository.get(db, id, ClusterArtifacts.KUBECONFIG_NOINGRESS);
      }).compose(f -> {
        byte[] merged = withIngressCa(f.orElseThrow(() -> new ApiError(409, "cluster " + id + " has no kubeconfig-noingress"))
            .content(), pem);
        return ClusterFileRepository.put(db, id, ClusterArtifacts.KUBECONFIG, merged);
      }).compose(v -> publish(BusEvent.ofCluster(id.toString(), new KubeconfigStored()))).map(v -> Status.CREATED);
    });
  }

  /** As upstream: the ingress CA is appended to the cluster's certificate-authority-data. */
  static byte[] withIngressCa(byte[] kubeconfig, String ingressCa) {
    try {
      JsonNode root = YAML.readTree(kubeconfig);
      for (JsonNode c : root.path("clusters")) {
        if (c.path("cluster") instanceof ObjectNode cluster) {
          String ca = new String(Base64.getDecoder().decode(cluster.path("certificate-authority-data").asText("")),
              StandardCharsets.UTF_8);
          String merged = (ca.endsWith("\n") || ca.isEmpty() ? ca : ca + "\n") + ingressCa.strip() + "\n";
          cluster.put("certificate-authority-data", Base64.getEncoder().encodeToString(merged.getBytes(StandardCharsets.UTF_8)));
        }
      }
      return YAML.writeValueAsBytes(root);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException("stored kubeconfig-noingress does not parse: " + e.getMessage(), e);
    }
  }

  private void complete(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      JsonObject body = Requests.body(ctx);
      if (!(body.getValue("is_success") instanceof Boolean success)) {
        throw new InvalidInputException("is_success", "is required (true or false)");
      }
      String error = text(body, "error_info", false);
      Object data = body.getValue("data");
      String report = data instanceof JsonObject d && d.containsKey("CLUSTER_OPERATORS_REPORT")
          ? String.valueOf(d.getValue("CLUSTER_OPERATORS_REPORT")) : null;
      return cluster(ctx, id).compose(c -> publish(BusEvent.ofCluster(id.toString(),
          new InstallationCompletionReported(success, error, report))).map(v -> Status.ACCEPTED));
    });
  }

  // ----------------------------------------------------------------------------------------------- logs

  private void clusterLogsProgress(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String state = logsState(Requests.body(ctx));
      return report(ctx, id, (c, now) -> InstallReports.controllerLogs(c, state, now),
          new LogsReported("controller", state)).map(v -> Status.NO_CONTENT);
    });
  }

  private void hostLogsProgress(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID hostId = Requests.pathUuid(ctx, "host_id");
      String state = logsState(Requests.body(ctx));
      Tenant t = UserAuth.tenant(ctx);
      return HostRepository.get(db, t.name(), ie, hostId, HostRepository.Documents.NONE).compose(o -> {
        var h = o.orElseThrow(() -> ApiError.notFound("host", hostId));
        return publish(BusEvent.of(h.clusterId() == null ? null : h.clusterId().toString(), ie.toString(),
            hostId.toString(), new LogsReported("host", state)));
      }).map(v -> Status.NO_CONTENT);
    });
  }

  /** multipart field {@code upfile}; query logs_type host (with host_id and infra_env_id) or controller. */
  private void uploadLogs(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String type = ctx.request().getParam("logs_type");
      if (!"host".equals(type) && !"controller".equals(type) && !"node-boot".equals(type)) {
        throw new InvalidInputException("logs_type", "is required: host, controller or node-boot");
      }
      UUID hostId = Requests.queryUuid(ctx, "host_id");
      UUID infraEnvId = Requests.queryUuid(ctx, "infra_env_id");
      if (!"controller".equals(type) && (hostId == null || infraEnvId == null)) {
        throw new InvalidInputException(hostId == null ? "host_id" : "infra_env_id", "is required for " + type + " logs");
      }
      FileUpload upload = ctx.fileUploads().stream().filter(u -> "upfile".equals(u.name())).findFirst()
          .orElseThrow(() -> new InvalidInputException("upfile", "is required: the logs bundle as multipart field upfile"));
      Tenant t = UserAuth.tenant(ctx);
      Future<Void> hostCheck = hostId == null ? Future.succeededFuture()
          : HostRepository.get(db, t.name(), infraEnvId, hostId, HostRepository.Documents.NONE).map(o -> {
            var h = o.orElseThrow(() -> ApiError.notFound("host", hostId));
            if (!id.equals(h.clusterId())) {
              throw new ApiError(400, "host_id", "host " + hostId + " is not part of cluster " + id);
            }
            return null;
          });
      String fileName = type + "_logs.tar.gz";
      return hostCheck.compose(v -> cluster(ctx, id))
          .compose(c -> ctx.vertx().fileSystem().readFile(upload.uploadedFileName()))
          .compose(bytes -> ClusterLogsRepository.put(db, id, type, hostId, fileName, bytes.getBytes()))
          .compose(v -> publish(BusEvent.of(id.toString(), infraEnvId == null ? null : infraEnvId.toString(),
              hostId == null ? null : hostId.toString(), new LogsReported("controller".equals(type) ? "controller" : "host",
                  LogsReported.UPLOADED))))
          .map(v -> Status.NO_CONTENT);
    });
  }

  /** logs_type host, controller or all (default all), optionally one host's; several bundles come as one tar. */
  private void downloadLogs(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String type = ctx.request().getParam("logs_type", "all");
      if (!List.of("host", "controller", "node-boot", "all").contains(type)) {
        throw new InvalidInputException("logs_type", "must be one of host, controller, node-boot, all");
      }
      UUID hostId = Requests.queryUuid(ctx, "host_id");
      return cluster(ctx, id).compose(c -> ClusterLogsRepository.list(db, id, type.equals("all") ? null : type, hostId))
          .map(bundles -> {
            if (bundles.isEmpty()) {
              throw new ApiError(404, "logs_type", "no " + type + " logs were uploaded for cluster " + id);
            }
            if (bundles.size() == 1) {
              ClusterLogsRepository.LogBundle b = bundles.get(0);
              return new Download(bundleName(b), b.content());
            }
            return new Download("cluster_" + id + "_logs.tar", tar(bundles));
          });
    });
  }

  private static String bundleName(ClusterLogsRepository.LogBundle b) {
    return ClusterLogsRepository.NO_HOST.equals(b.hostId()) ? b.fileName() : b.hostId() + "_" + b.fileName();
  }

  private static byte[] tar(List<ClusterLogsRepository.LogBundle> bundles) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      for (ClusterLogsRepository.LogBundle b : bundles) {
        TarArchiveEntry e = new TarArchiveEntry(bundleName(b));
        e.setSize(b.content().length);
        e.setModTime(b.uploadedAt().toInstant().toEpochMilli());
        tar.putArchiveEntry(e);
        tar.write(b.content());
        tar.closeArchiveEntry();
      }
    } catch (IOException e) {
      throw new IllegalStateException("writing a tar in memory failed", e);
    }
    return out.toByteArray();
  }

  // --------------------------------------------------------------------------------------------- events

  /** POST /v2/events: an event the agent, installer or controller wants the user to read (upstream v2TriggerEvent). */
  private void triggerEvent(RoutingContext ctx) {
    replies.handle(ctx, () -> {
      JsonObject body = Requests.body(ctx);
      String severity = text(body, "severity", true);
      if (!SEVERITIES.contains(severity)) {
        throw new InvalidInputException("severity", "'" + severity + "' must be one of " + SEVERITIES);
      }
      String message = text(body, "message", true);
      if (message.length() > 4096) {
        throw new InvalidInputException("message", "is longer than 4096 characters");
      }
      String category = body.getValue("category") == null ? "user" : text(body, "category", true);
      if (!category.equals("user") && !category.equals("metrics")) {
        throw new InvalidInputException("category", "must be user or metrics");
      }
      UUID clusterId = uuid(body, "cluster_id");
      UUID hostId = uuid(body, "host_id");
      UUID infraEnvId = uuid(body, "infra_env_id");
      Tenant t = UserAuth.tenant(ctx);
      var agent = dev.rendezvous.service.auth.AgentOrUserAuth.agent(ctx);
      Future<Void> allowed = Future.succeededFuture();
      if (clusterId != null) {
        allowed = ClusterRepository.get(db, t.name(), clusterId).map(o -> {
          o.orElseThrow(() -> new ApiError(404, "cluster_id", "cluster " + clusterId + " not found"));
          return null;
        });
      }
      if (agent != null && infraEnvId != null && !infraEnvId.toString().equalsIgnoreCase(agent.infraEnvId())) {
        throw new ApiError(403, "infra_env_id", "the agent token is not valid for infra-env " + infraEnvId);
      }
      OffsetDateTime at = Times.now();
      if (body.getValue("event_time") instanceof String s) {
        try {
          at = Instant.parse(s).atOffset(java.time.ZoneOffset.UTC);
        } catch (RuntimeException e) {
          throw new InvalidInputException("event_time", "is not an RFC 3339 time");
        }
      }
      JsonObject props = null;
      if (body.getValue("props") instanceof String p && !p.isEmpty()) {
        try {
          props = new JsonObject(p);
        } catch (RuntimeException e) {
          throw new InvalidInputException("props", "must be a JSON object text");
        }
      }
      EventRecord e = new EventRecord(t.name(), text(body, "name", false), clusterId, hostId, infraEnvId, severity,
          category, message, at, ctx.request().getHeader("X-Request-ID"), props);
      return allowed.compose(v -> EventRepository.record(db, e)).map(v -> Status.CREATED);
    });
  }

  // ---------------------------------------------------------------------------------------------- helpers

  /** Checks the report against the cluster's current state (upstream's answer when refused), then publishes it. */
  private Future<Void> report(RoutingContext ctx, UUID clusterId,
      BiFunction<ClusterContext, Instant, ClusterTransition> check, dev.rendezvous.bus.event.BusPayload payload) {
    return cluster(ctx, clusterId)
        .compose(c -> brain.checkClusterReport(clusterId, check))
        .compose(refusal -> {
          if (refusal.isPresent()) {
            return Future.failedFuture(new ApiError(refusal.get().httpStatus(), refusal.get().message()));
          }
          return publish(BusEvent.ofCluster(clusterId.toString(), payload));
        });
  }

  private Future<Void> publish(BusEvent e) {
    return bus.publish(Topics.topicFor(e), e)
        .recover(err -> Future.failedFuture(new ApiError(503, "the message bus did not take the report; retry")));
  }

  private Future<ClusterRow> cluster(RoutingContext ctx, UUID id) {
    return ClusterRepository.get(db, UserAuth.tenant(ctx).name(), id)
        .map(o -> o.orElseThrow(() -> ApiError.notFound("cluster", id)));
  }

  private static String logsState(JsonObject body) {
    String state = text(body, "logs_state", true);
    if (!LOG_STATES.contains(state)) {
      throw new InvalidInputException("logs_state", "'" + state + "' must be one of " + LOG_STATES);
    }
    return state;
  }

  private static String text(JsonObject body, String field, boolean required) {
    Object v = body.getValue(field);
    if (v == null) {
      if (required) {
        throw new InvalidInputException(field, "is required");
      }
      return null;
    }
    if (!(v instanceof String s)) {
      throw new InvalidInputException(field, "must be a string");
    }
    if (required && s.isEmpty()) {
      throw new InvalidInputException(field, "is required");
    }
    return s;
  }

  private static UUID uuid(JsonObject body, String field) {
    Object v = body.getValue(field);
    if (v == null) {
      return null;
    }
    try {
      return UUID.fromString(String.valueOf(v));
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(field, "'" + v + "' is not a UUID");
    }
  }
}
