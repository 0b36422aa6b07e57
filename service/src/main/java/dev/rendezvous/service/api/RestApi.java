package dev.rendezvous.service.api;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.ClusterActionRequested;
import dev.rendezvous.service.api.params.ClusterParams;
import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.EventRecord;
import dev.rendezvous.service.repo.EventRepository;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import dev.rendezvous.service.repo.InfraEnvRepository.InfraEnvRow;
import dev.rendezvous.service.repo.Times;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.sqlclient.Pool;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user-facing REST API v2: clusters, events and catalogue endpoints here, infra-envs and their hosts in
 * {@link InfraEnvsApi}, with upstream's paths, JSON names and status codes. Agent-facing paths are the gateway's.
 */
public final class RestApi {
  private static final Logger LOG = LoggerFactory.getLogger(RestApi.class);
  /** Statuses in which a cluster's or host's user settings may change (upstream's pre-install set). */
  static final Set<String> CLUSTER_EDITABLE = Set.of("insufficient", "ready", "pending-for-input", "adding-hosts");
  static final Set<String> CLUSTER_BUSY = Set.of("preparing-for-installation", "installing", "finalizing",
      "installing-pending-user-action");

  private final Pool db;
  private final ReleaseCatalog catalog;
  private final UserAuth auth;
  private final ClusterParams clusterParams;
  private final InfraEnvsApi infraEnvs;
  private CatalogApi catalogApi;
  private EventStreamApi eventStream;
  private final long bodyLimitBytes;
  private final BusPublisher bus;
  private final Brain brain;
  private final ClusterViews clusterViews;

  /** Publishes to the bus; the future fails when the broker did not take the record. */
  @FunctionalInterface
  public interface BusPublisher {
    Future<Void> publish(String topic, BusEvent event);
  }

  /** Cluster actions and the statuses each may start from (upstream's state machine). */
  static final java.util.Map<String, Set<String>> ACTION_FROM = java.util.Map.of(
      ClusterActionRequested.INSTALL, Set.of("ready"),
      ClusterActionRequested.CANCEL, Set.of("preparing-for-installation", "installing", "installing-pending-user-action",
          "error", "finalizing"),
      ClusterActionRequested.RESET, Set.of("preparing-for-installation", "installing", "installing-pending-user-action",
          "error", "cancelled", "finalizing"));

  public RestApi(Pool db, ReleaseCatalog catalog, UserAuth auth, Function<InfraEnvRow, ApiViews.DownloadUrl> downloadUrl,
      long bodyLimitBytes, BusPublisher bus, Brain brain) {
    this.bus = bus;
    this.brain = brain;
    this.db = db;
    this.catalog = catalog;
    this.auth = auth;
    this.clusterParams = new ClusterParams(catalog);
    this.clusterViews = new ClusterViews(catalog);
    this.infraEnvs = new InfraEnvsApi(db, catalog, downloadUrl, brain);
    this.bodyLimitBytes = bodyLimitBytes;
  }

  /** Infra-envs are registered with this id (the agent-based installer's ISO was made for it), the first one only. */
  public RestApi pinInfraEnvId(java.util.UUID id) {
    infraEnvs.pinId(id);
    return this;
  }

  private Function<InfraEnvRow, String> bootArtifacts;

  /**
   * How a reclaimed host of an infra-env gets the discovery image: download-boot-artifacts' request, its URLs signed
   * for the infra-env. Without it an unbind cannot reclaim (409).
   */
  public RestApi bootArtifacts(Function<InfraEnvRow, String> request) {
    this.bootArtifacts = request;
    return this;
  }

  private InstallFilesApi installFiles;
  private InstallReportsApi installReports;
  private dev.rendezvous.service.auth.AgentOrUserAuth agentOrUser;

  /**
   * The installation routes: files and credentials, reports of the installer and controller. {@code agentOrUser}
   * authenticates the routes upstream also opens to agent tokens.
   */
  public RestApi installation(InstallFilesApi files, InstallReportsApi reports, dev.rendezvous.service.auth.AgentOrUserAuth agentOrUser) {
    this.installFiles = files;
    this.installReports = reports;
    this.agentOrUser = agentOrUser;
    return this;
  }

  /** The live event stream (mounted with the user routes). */
  public RestApi eventStream(EventStreamApi stream) {
    this.eventStream = stream;
    return this;
  }

  /** The reference endpoints, preflight requirements and UI settings (mounted with the user routes). */
  public RestApi catalog(CatalogApi catalogApi) {
    this.catalogApi = catalogApi;
    return this;
  }

  /** Path clean-up, body limit and JSON errors for everything under /api; call before mounting any /api route. */
  public void mountCommon(Router router) {
    router.route().order(-100).handler(RestApi::cleanPath);
    if (installReports != null) {
      installReports.mountUpload(router, agentOrUser); // log bundles carry their own, larger, body limit
    }
    router.route("/api/*").handler(BodyHandler.create(false).setBodyLimit(bodyLimitBytes));
    router.route("/api/*").failureHandler(ErrorReplies::handle);
    for (int code : new int[] {400, 404, 405, 413, 415, 500}) {
      router.errorHandler(code, ErrorReplies::handle);
    }
  }

  /** User routes; the gateway's agent routes must be mounted before this (they do their own auth). */
  public void mount(Router router) {
    String b = ApiViews.BASE;
    router.get(b + "/clusters/default-config").handler(auth).handler(this::defaultConfig);
    if (agentOrUser != null) {
      // upstream's agentAuth operations: the installer and the controller call them with the agent token
      router.get(b + "/clusters/:cluster_id").handler(agentOrUser).handler(this::getCluster);
      router.get(b + "/clusters/:cluster_id/hosts").handler(agentOrUser).handler(this::listClusterHosts);
      installFiles.mountAgentRoutes(router, agentOrUser);
      installReports.mountAgentRoutes(router, agentOrUser);
      // upstream's agentAuth and urlAuth (presigned api_key) on an infra-env's files; the handler is InfraEnvDownloads'
      router.get(b + "/infra-envs/:infra_env_id/downloads/files").handler(agentOrUser);
      // a cluster's logs: users, or a URL presigned for its logs (files-presigned?file_name=logs; a URL presigned
      // for another of its files does not do); no agent token (upstream's V2DownloadClusterLogs has no agentAuth)
      router.get(b + "/clusters/:cluster_id/logs").handler(ctx -> {
        if (ctx.request().getHeader("X-Secret-Key") != null
            || !PresignedUrls.isClusterToken(ctx.request().getParam("api_key"))) {
          ctx.next();
        } else if (!PresignedUrls.LOGS.equals(ctx.request().getParam("file_name"))) {
          ErrorReplies.send(ctx, 403, "api_key", "the presigned URL is for another file");
        } else {
          agentOrUser.handle(ctx); // checks the token is for this cluster's logs
        }
      });
    }
    router.route(b + "/*").handler(auth);
    new KubeOwnership(db).mount(router); // what a custom resource owns is changed through it, not REST
    router.post(b + "/clusters").handler(this::createCluster);
    router.get(b + "/clusters").handler(this::listClusters);
    router.get(b + "/clusters/:cluster_id").handler(this::getCluster);
    router.patch(b + "/clusters/:cluster_id").handler(this::updateCluster);
    router.delete(b + "/clusters/:cluster_id").handler(this::deleteCluster);
    router.get(b + "/clusters/:cluster_id/hosts").handler(this::listClusterHosts);
    for (String action : ACTION_FROM.keySet()) {
      router.post(b + "/clusters/:cluster_id/actions/" + action).handler(ctx -> clusterAction(ctx, action));
    }
    infraEnvs.mount(router);
    router.get(b + "/events").handler(this::listEvents);
    if (eventStream != null) {
      eventStream.mount(router);
    }
    router.get(b + "/openshift-versions").handler(this::openshiftVersions);
    if (catalogApi != null) {
      catalogApi.mount(router);
    }
    dev.rendezvous.service.brain.UserActions actions = new dev.rendezvous.service.brain.UserActions(brain);
    new ClusterActionsApi(db, catalog, actions).mount(router);
    new HostActionsApi(db, actions, bootArtifacts).mount(router);
    if (installFiles != null) {
      installFiles.mountUserRoutes(router);
      installReports.mountUserRoutes(router);
    }
  }

  /** Upstream's server cleans "//" and a trailing "/" instead of answering 404; so do we. */
  static void cleanPath(RoutingContext ctx) {
    String path = ctx.request().path();
    if (path.length() > 1 && (path.contains("//") || path.endsWith("/"))) {
      String clean = path.replaceAll("/{2,}", "/");
      if (clean.length() > 1 && clean.endsWith("/")) {
        clean = clean.substring(0, clean.length() - 1);
      }
      String q = ctx.request().query();
      ctx.reroute(ctx.request().method(), q == null ? clean : clean + "?" + q);
      return;
    }
    ctx.next();
  }

  // ---- clusters

  private void createCluster(RoutingContext ctx) {
    handle(ctx, 201, () -> {
      Tenant t = UserAuth.tenant(ctx);
      JsonObject p = clusterParams.forCreate(Requests.body(ctx));
      OffsetDateTime now = Times.now();
      String pullSecret = (String) p.remove("pull_secret");
      String name = (String) p.remove("name");
      String version = (String) p.remove("openshift_version");
      ClusterRow row = new ClusterRow(UUID.randomUUID(), t.name(), name, version, "insufficient",
          "Cluster is not ready for install", now, p, null, null, null, null, 1, now, now);
      java.util.Optional<String> kubeKey = KubeOwnership.requestedKey(ctx);
      return dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> (kubeKey.isEmpty()
              ? Future.succeededFuture(java.util.Optional.<UUID>empty())
              : KubeOwnership.existing(tx, "clusters", kubeKey.get()))
              .compose(found -> {
                if (found.isPresent()) { // the custom resource's cluster exists: a reconcile after a restart finds it
                  return ClusterRepository.get(tx, t.name(), found.get())
                      .map(o -> o.orElseThrow(() -> ApiError.conflict("the cluster of " + kubeKey.get()
                          + " belongs to another tenant")));
                }
                return ClusterRepository.insert(tx, row, pullSecret)
                    .compose(v -> kubeKey.isEmpty() ? Future.<Void>succeededFuture()
                        : KubeOwnership.mark(tx, "clusters", row.id(), kubeKey.get()))
                    .compose(v -> EventRepository.record(tx, EventRecord.info(t.name(), "cluster_registration_succeeded",
                        "Successfully registered cluster " + name, row.id(), null, null)))
                    .map(v -> {
                      LOG.atInfo().addKeyValue("cluster_id", row.id()).addKeyValue("tenant", t.name())
                          .log("cluster registered");
                      return row;
                    });
              }))
          .map(c -> ApiViews.cluster(c, catalog, List.of(), true));
    });
  }

  private void listClusters(RoutingContext ctx) {
    handle(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      boolean withHosts = Requests.queryBool(ctx, "with_hosts", false);
      if (!withHosts) { // counts only: a host's record carries its inventory and its view of every peer
        return clusterViews.list(ctx.vertx(), db, t.name());
      }
      return ClusterRepository.list(db, t.name()).compose(rows -> HostViewStream.clusters(db, t.name(), rows, catalog));
    });
  }

  private void getCluster(RoutingContext ctx) {
    handle(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      if (Requests.queryBool(ctx, "exclude-hosts", false)) { // what controllers poll: counts, no host read
        return clusterViews.one(db, t.name(), id);
      }
      return cluster(t, id).compose(c -> HostViewStream.cluster(db, t.name(), c, catalog));
    });
  }

  private void updateCluster(RoutingContext ctx) {
    handle(ctx, 201, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      JsonObject body = Requests.body(ctx);
      return dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> ClusterRepository.getForUpdate(tx, t.name(), id)
          .map(o -> o.orElseThrow(() -> ApiError.notFound("cluster", id)))
          .compose(c -> {
            if (!CLUSTER_EDITABLE.contains(c.status())) {
              throw ApiError.conflict("cluster " + id + " is " + c.status() + "; it can be updated only before installation");
            }
            JsonObject spec = clusterParams.merge(c.spec(), body);
            String name = (String) spec.remove("name");
            String pullSecret = (String) spec.remove("pull_secret");
            ClusterRow next = new ClusterRow(c.id(), c.tenant(), name == null ? c.name() : name, c.openshiftVersion(),
                c.status(), c.statusInfo(), c.statusUpdatedAt(), spec, c.validationsInfo(), c.progress(),
                c.installStartedAt(), c.installCompletedAt(), c.rowVersion() + 1, c.createdAt(), Times.now(), c.state());
            return ClusterRepository.updateSpec(tx, next, c.rowVersion(), pullSecret).map(ok -> {
              if (!ok) {
                throw ApiError.conflict("cluster " + id + " was changed concurrently; retry");
              }
              return next;
            });
          }))
          // upstream re-evaluates the cluster at once: validations and status answer the new settings
          .compose(c -> ClusterReevaluation.now(brain, id, ctx.vertx().getOrCreateContext()))
          .compose(r -> cluster(t, id))
          .compose(c -> HostViewStream.cluster(db, t.name(), c, catalog));
    });
  }

  private void deleteCluster(RoutingContext ctx) {
    handle(ctx, 204, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      return dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> ClusterRepository.get(tx, t.name(), id)
          .map(o -> o.orElseThrow(() -> ApiError.notFound("cluster", id)))
          .compose(c -> {
            if (CLUSTER_BUSY.contains(c.status())) {
              throw ApiError.conflict("cluster " + id + " is " + c.status() + "; cancel the installation before deleting it");
            }
            // Hosts bound to the cluster go with it; its infra-envs stay, unbound (FK ON DELETE SET NULL).
            return HostRepository.deleteByCluster(tx, id)
                .compose(v -> ClusterRepository.delete(tx, t.name(), id))
                .compose(v -> EventRepository.record(tx, EventRecord.info(t.name(), "cluster_deregistered",
                    "Deregistered cluster " + c.name(), id, null, null)));
          }))
          .map(v -> null);
    });
  }

  private void defaultConfig(RoutingContext ctx) {
    handle(ctx, 200, () -> Future.succeededFuture(new JsonObject()
        .put("cluster_network_cidr", "10.128.0.0/14")
        .put("cluster_network_host_prefix", 23)
        .put("service_network_cidr", "172.30.0.0/16")
        .put("cluster_networks_ipv4", new JsonArray().add(new JsonObject().put("cidr", "10.128.0.0/14").put("host_prefix", 23)))
        .put("service_networks_ipv4", new JsonArray().add(new JsonObject().put("cidr", "172.30.0.0/16")))
        .put("ntp_source", "")
        .put("inactive_deletion_hours", 720)
        .put("forbidden_hostnames", new JsonArray().add("bootstrap").add("localhost").add("localhost.localdomain")
            .add("localhost4").add("localhost4.localdomain4").add("localhost6").add("localhost6.localdomain6"))));
  }

  /**
   * install, cancel, reset: checked against the cluster's status here for an immediate 409, then
   * handed to the brain over the bus, which applies the state machine (202: accepted, not yet done).
   */
  private void clusterAction(RoutingContext ctx, String action) {
    handle(ctx, 202, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      return cluster(t, id).compose(c -> {
        if (!ACTION_FROM.get(action).contains(c.status())) {
          JsonObject extra = null;
          if (ClusterActionRequested.INSTALL.equals(action) && c.validationsInfo() != null) {
            extra = new JsonObject().put("validations_info", c.validationsInfo().toString()); // as upstream: why not ready
          }
          throw new ApiError(409, null, "cluster " + id + " is " + c.status() + "; " + action + " is possible only from "
              + new java.util.TreeSet<>(ACTION_FROM.get(action)), extra);
        }
        BusEvent e = BusEvent.ofCluster(id.toString(), new ClusterActionRequested(action, "tenant:" + t.name()));
        return bus.publish(Topics.CLUSTER_ACTIONS, e)
            .recover(err -> Future.failedFuture(new ApiError(503, "the message bus did not take the request; retry")))
            .compose(v -> HostViewStream.cluster(db, t.name(), c, catalog));
      });
    });
  }

  private void listClusterHosts(RoutingContext ctx) {
    handle(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      List<String> roles = Requests.queryList(ctx, "role", List.of("master", "arbiter", "worker", "auto-assign"));
      String status = ctx.request().getParam("status");
      // as upstream: the inventory and the connectivity report only when asked for (the report alone is ~300 KB
      // per host in a 1,000-host cluster, and the installers poll this list)
      HostRepository.Documents docs = HostRepository.Documents.of(Requests.queryBool(ctx, "with-inventory", false),
          Requests.queryBool(ctx, "with-connectivity", false));
      if (docs == HostRepository.Documents.ALL || docs == HostRepository.Documents.CONNECTIVITY) {
        return cluster(t, id).compose(c -> HostViewStream.clusterHosts(db, t.name(), id, docs, roles, status));
      }
      return cluster(t, id).compose(c -> HostRepository.listByCluster(db, t.name(), id, docs, roles, status)).map(hs -> {
        JsonArray out = new JsonArray();
        for (HostRow h : hs) {
          out.add(ApiViews.host(h));
        }
        return out;
      });
    });
  }

  // ---- events and catalogue

  private void listEvents(RoutingContext ctx) {
    Tenant t = UserAuth.tenant(ctx);
    Future<EventRepository.Page> page;
    try {
      List<UUID> hostIds = new java.util.ArrayList<>(Requests.queryUuids(ctx, "host_ids"));
      UUID single = Requests.queryUuid(ctx, "host_id");
      if (single != null) {
        hostIds.add(single);
      }
      Long limit = Requests.queryLong(ctx, "limit");
      Long offset = Requests.queryLong(ctx, "offset");
      String order = ctx.request().getParam("order");
      if (order != null && !order.isEmpty() && !order.equals("ascending") && !order.equals("descending")) {
        throw new InvalidInputException("order", "must be ascending or descending");
      }
      List<String> categories = Requests.queryList(ctx, "categories", List.of("user", "metrics"));
      EventRepository.Query q = new EventRepository.Query(t.name(), Requests.queryUuid(ctx, "cluster_id"), hostIds,
          Requests.queryUuid(ctx, "infra_env_id"), Requests.queryBool(ctx, "cluster_level", false),
          Requests.queryBool(ctx, "deleted_hosts", false),
          Requests.queryList(ctx, "severities", List.of("info", "warning", "error", "critical")),
          categories.isEmpty() ? List.of("user") : categories, ctx.request().getParam("message"),
          limit == null ? 5000 : (limit < 0 ? -1 : limit), offset == null || offset < 0 ? 0 : offset,
          "descending".equals(order));
      page = EventRepository.list(db, q);
    } catch (RuntimeException e) {
      ctx.fail(e);
      return;
    }
    page.onSuccess(p -> ctx.response()
            .putHeader("Content-Type", "application/json")
            .putHeader("Severity-Count-Info", Long.toString(p.severityCounts().getLong("info")))
            .putHeader("Severity-Count-Warning", Long.toString(p.severityCounts().getLong("warning")))
            .putHeader("Severity-Count-Error", Long.toString(p.severityCounts().getLong("error")))
            .putHeader("Severity-Count-Critical", Long.toString(p.severityCounts().getLong("critical")))
            .putHeader("Event-Count", Long.toString(p.total()))
            .end(p.events().encode()))
        .onFailure(ctx::fail);
  }

  private void openshiftVersions(RoutingContext ctx) {
    handle(ctx, 200, () -> {
      JsonObject out = new JsonObject();
      for (ReleaseCatalog.Release r : catalog.releases()) {
        out.put(r.openshiftVersion(), new JsonObject()
            .put("display_name", r.displayName())
            .put("support_level", r.supportLevel())
            .put("default", r.isDefault())
            .put("cpu_architectures", new JsonArray(r.cpuArchitectures())));
      }
      return Future.succeededFuture(out);
    });
  }

  // ---- helpers

  private Future<ClusterRow> cluster(Tenant t, UUID id) {
    return ClusterRepository.get(db, t.name(), id).map(o -> o.orElseThrow(() -> ApiError.notFound("cluster", id)));
  }

  static String displayName(HostRow h) {
    return h.requestedHostname() != null ? h.requestedHostname() : h.id().toString();
  }

  /** Runs an action and answers with its JSON (or no body for 204); any failure goes to the JSON error handler. */
  static void handle(RoutingContext ctx, int status, Supplier<Future<?>> action) {
    Future<?> f;
    try {
      f = action.get();
    } catch (RuntimeException e) {
      ctx.fail(e);
      return;
    }
    f.onFailure(ctx::fail).onSuccess(body -> {
      if (body instanceof Streamed s) {
        stream(ctx, status, s);
      } else if (status == 204 || body == null) {
        ctx.response().setStatusCode(status).end();
      } else {
        encode(ctx, body).onFailure(ctx::fail).onSuccess(bytes -> ctx.response().setStatusCode(status)
            .putHeader("Content-Type", "application/json").end(bytes));
      }
    });
  }

  /** A body written to the response as it is made ({@link HostViewStream}), rather than encoded whole first. */
  interface Streamed {
    /** Completes once all was written; fails with the head written when it stopped part way. */
    Future<Void> writeTo(HttpServerResponse response, Vertx vertx);
  }

  private static void stream(RoutingContext ctx, int status, Streamed body) {
    HttpServerResponse response = ctx.response().setStatusCode(status);
    if (ctx.request().version() == io.vertx.core.http.HttpVersion.HTTP_1_0) {
      response.putHeader("Connection", "close"); // no chunks in HTTP/1.0: the end of the connection ends the answer
    }
    body.writeTo(response, ctx.vertx()).onFailure(e -> {
      if (response.closed()) {
        LOG.atDebug().log("a client left before its streamed view was written");
      } else if (!response.headWritten()) {
        ctx.fail(e);
      } else { // half a view must not read as a whole one
        LOG.atWarn().setCause(e).log("a streamed view stopped part way; its connection is reset");
        response.reset();
      }
    });
  }

  /**
   * Above this many hosts in a view built whole, its JSON is encoded on a worker thread. The views that carry the
   * connectivity reports (hundreds of MB for a big cluster) are streamed instead ({@link HostViewStream}); what is
   * built whole is host lists without the reports.
   */
  static final int LARGE_VIEW_HOSTS = 50;

  /**
   * JSON straight to bytes (no intermediate String: a big cluster's view would take three times its size), on a
   * worker thread when it is large, so an event loop never spends a second encoding hundreds of MB.
   */
  static Future<Buffer> encode(RoutingContext ctx, Object body) {
    boolean large = body instanceof JsonArray a && a.size() > LARGE_VIEW_HOSTS
        || body instanceof JsonObject o && o.getValue("hosts") instanceof JsonArray hs && hs.size() > LARGE_VIEW_HOSTS;
    if (!large) {
      return Future.succeededFuture(bytes(body));
    }
    return ctx.vertx().executeBlocking(() -> bytes(body), false);
  }

  private static Buffer bytes(Object body) {
    if (body instanceof Buffer b) {
      return b; // encoded already
    }
    if (body instanceof JsonObject o) {
      return o.toBuffer();
    }
    if (body instanceof JsonArray a) {
      return a.toBuffer();
    }
    return Buffer.buffer(body.toString());
  }
}
