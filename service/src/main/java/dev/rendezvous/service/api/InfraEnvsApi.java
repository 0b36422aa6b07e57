package dev.rendezvous.service.api;

import dev.rendezvous.service.api.params.HostParams;
import dev.rendezvous.service.api.params.InfraEnvParams;
import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.brain.HostUpdateRejected;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.EventRecord;
import dev.rendezvous.service.repo.EventRepository;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import dev.rendezvous.service.repo.InfraEnvRepository;
import dev.rendezvous.service.repo.InfraEnvRepository.InfraEnvRow;
import dev.rendezvous.service.repo.Times;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.time.OffsetDateTime;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The infra-env routes of the REST API v2 and the hosts under them (list, get, update through the host state machine,
 * delete), with upstream's paths, JSON names and status codes. Mounted by {@link RestApi} behind the user's auth.
 */
final class InfraEnvsApi {
  private static final Logger LOG = LoggerFactory.getLogger(InfraEnvsApi.class);

  private final Pool db;
  private final ReleaseCatalog catalog;
  private final InfraEnvParams infraEnvParams;
  private final Function<InfraEnvRow, ApiViews.DownloadUrl> downloadUrl;
  private final Brain brain;
  /** The agent-based installer's infra-env id (upstream's INFRA_ENV_ID): its ISO was made for it. */
  private volatile UUID pinnedId;

  InfraEnvsApi(Pool db, ReleaseCatalog catalog, Function<InfraEnvRow, ApiViews.DownloadUrl> downloadUrl, Brain brain) {
    this.db = db;
    this.catalog = catalog;
    this.infraEnvParams = new InfraEnvParams(catalog);
    this.downloadUrl = downloadUrl;
    this.brain = brain;
  }

  void pinId(UUID id) {
    this.pinnedId = id;
  }

  /** The routes; the user's auth must already be on {@code BASE/*}. */
  void mount(Router router) {
    String b = ApiViews.BASE;
    router.post(b + "/infra-envs").handler(this::createInfraEnv);
    router.get(b + "/infra-envs").handler(this::listInfraEnvs);
    router.get(b + "/infra-envs/:infra_env_id").handler(this::getInfraEnv);
    router.patch(b + "/infra-envs/:infra_env_id").handler(this::updateInfraEnv);
    router.delete(b + "/infra-envs/:infra_env_id").handler(this::deleteInfraEnv);
    router.get(b + "/infra-envs/:infra_env_id/downloads/image-url").handler(this::imageUrl);
    router.get(b + "/infra-envs/:infra_env_id/hosts").handler(this::listInfraEnvHosts);
    router.get(b + "/infra-envs/:infra_env_id/hosts/:host_id").handler(this::getHost);
    router.patch(b + "/infra-envs/:infra_env_id/hosts/:host_id").handler(this::updateHost);
    router.delete(b + "/infra-envs/:infra_env_id/hosts/:host_id").handler(this::deleteHost);
  }

  private void createInfraEnv(RoutingContext ctx) {
    RestApi.handle(ctx, 201, () -> {
      Tenant t = UserAuth.tenant(ctx);
      JsonObject p = infraEnvParams.forCreate(Requests.body(ctx));
      UUID clusterId = p.containsKey("cluster_id") ? UUID.fromString((String) p.remove("cluster_id")) : null;
      String pullSecret = (String) p.remove("pull_secret");
      String name = (String) p.remove("name");
      OffsetDateTime now = Times.now();
      java.util.Optional<String> kubeKey = KubeOwnership.requestedKey(ctx);
      return dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> {
        // a custom resource's infra-env that exists already is returned: a reconcile after a restart finds it
        Future<java.util.Optional<UUID>> found = kubeKey.isEmpty() ? Future.succeededFuture(java.util.Optional.empty())
            : KubeOwnership.existing(tx, "infra_envs", kubeKey.get());
        return found.compose(existing -> existing.isPresent()
            ? InfraEnvRepository.get(tx, t.name(), existing.get()).map(o -> o.orElseThrow(
                () -> ApiError.conflict("the infra-env of " + kubeKey.get() + " belongs to another tenant")))
            : insertInfraEnv(tx, t, clusterId, name, p, pullSecret, now, kubeKey));
      }).map(row -> {
        LOG.atInfo().addKeyValue("infra_env_id", row.id()).addKeyValue("cluster_id", row.clusterId()).log("infra-env registered");
        return ApiViews.infraEnv(row, downloadUrl.apply(row));
      });
    });
  }

  private Future<InfraEnvRow> insertInfraEnv(io.vertx.sqlclient.SqlConnection tx, Tenant t, UUID clusterId, String name,
      JsonObject p, String pullSecret, OffsetDateTime now, java.util.Optional<String> kubeKey) {
    Future<Void> check = Future.succeededFuture();
    if (clusterId != null) {
      check = ClusterRepository.get(tx, t.name(), clusterId).map(o -> {
        ClusterRow c = o.orElseThrow(() -> new ApiError(404, "cluster_id", "cluster " + clusterId + " not found"));
        if (!p.containsKey("openshift_version")) {
          p.put("openshift_version", c.openshiftVersion());
        }
        return null;
      });
    }
    UUID pinned = pinnedId;
    // the pinned id goes to the first infra-env only: a second one (none is expected on a site) gets its own
    Future<UUID> id = pinned == null ? Future.succeededFuture(UUID.randomUUID())
        : InfraEnvRepository.get(tx, t.name(), pinned).map(o -> o.isPresent() ? UUID.randomUUID() : pinned);
    return check.compose(v -> id).compose(newId -> {
      if (!p.containsKey("openshift_version")) {
        p.put("openshift_version", catalog.defaultRelease().openshiftVersion());
      }
      InfraEnvRow row = new InfraEnvRow(newId, t.name(), clusterId, name, p, 1, now, now);
      return InfraEnvRepository.insert(tx, row, pullSecret)
          .compose(x -> kubeKey.isEmpty() ? Future.<Void>succeededFuture()
              : KubeOwnership.mark(tx, "infra_envs", row.id(), kubeKey.get()))
          .compose(x -> EventRepository.record(tx, EventRecord.info(t.name(), "infra_env_registered",
              "Registered infra env " + name, clusterId, row.id(), null)))
          .map(x -> row);
    });
  }

  private void listInfraEnvs(RoutingContext ctx) {
    RestApi.handle(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID clusterId = Requests.queryUuid(ctx, "cluster_id");
      return InfraEnvRepository.list(db, t.name(), clusterId).map(rows -> {
        JsonArray out = new JsonArray();
        rows.forEach(r -> out.add(ApiViews.infraEnv(r, downloadUrl.apply(r))));
        return out;
      });
    });
  }

  private void getInfraEnv(RoutingContext ctx) {
    RestApi.handle(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "infra_env_id");
      return infraEnv(t, id).map(r -> ApiViews.infraEnv(r, downloadUrl.apply(r)));
    });
  }

  /**
   * upstream's presigned-url: a fresh ISO URL whose download credential expires ({@code expires_at}; the zero time
   * when the image service is configured with URLs that never expire).
   */
  private void imageUrl(RoutingContext ctx) {
    RestApi.handle(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "infra_env_id");
      return infraEnv(t, id).map(r -> {
        ApiViews.DownloadUrl url = downloadUrl.apply(r);
        return new JsonObject().put("url", url.url()).put("expires_at", url.expiresAtText());
      });
    });
  }

  private void updateInfraEnv(RoutingContext ctx) {
    RestApi.handle(ctx, 201, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "infra_env_id");
      JsonObject body = Requests.body(ctx);
      return dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> InfraEnvRepository.get(tx, t.name(), id)
          .map(o -> o.orElseThrow(() -> ApiError.notFound("infra-env", id)))
          .compose(e -> {
            JsonObject spec = infraEnvParams.merge(e.spec(), body);
            String pullSecret = (String) spec.remove("pull_secret");
            InfraEnvRow next = new InfraEnvRow(e.id(), e.tenant(), e.clusterId(), e.name(), spec, e.rowVersion() + 1,
                e.createdAt(), Times.now(), e.signingKeyGeneration());
            return InfraEnvRepository.updateSpec(tx, next, e.rowVersion(), pullSecret).map(ok -> {
              if (!ok) {
                throw ApiError.conflict("infra-env " + id + " was changed concurrently; retry");
              }
              return next;
            });
          }))
          .map(r -> ApiViews.infraEnv(r, downloadUrl.apply(r)));
    });
  }

  private void deleteInfraEnv(RoutingContext ctx) {
    RestApi.handle(ctx, 204, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "infra_env_id");
      return dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> InfraEnvRepository.get(tx, t.name(), id)
          .map(o -> o.orElseThrow(() -> ApiError.notFound("infra-env", id)))
          .compose(e -> HostRepository.countByInfraEnv(tx, id).compose(n -> {
            if (n > 0) {
              throw ApiError.conflict("infra-env " + id + " still has " + n + " host(s); delete them first");
            }
            return InfraEnvRepository.delete(tx, t.name(), id)
                .compose(v -> EventRepository.record(tx, EventRecord.info(t.name(), "infra_env_deregistered",
                    "Deregistered infra env " + e.name(), e.clusterId(), null, null)));
          })))
          // this instance's gateway refuses the infra-env's agents at once; other instances within their follow
          .onSuccess(v -> dev.rendezvous.service.auth.InfraEnvTokenStates.deleted(id, java.time.Instant.now()))
          .map(v -> null);
    });
  }

  // ---- hosts

  private void listInfraEnvHosts(RoutingContext ctx) {
    RestApi.handle(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "infra_env_id");
      return infraEnv(t, id).compose(e -> HostViewStream.infraEnvHosts(db, t.name(), id));
    });
  }

  private void getHost(RoutingContext ctx) {
    RestApi.handle(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      return host(t, ie, id).map(ApiViews::host);
    });
  }

  /** Role, host name and installation disk go through the host state machine, which re-validates the host. */
  private void updateHost(RoutingContext ctx) {
    RestApi.handle(ctx, 201, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      HostUpdates u = HostUpdates.of(HostParams.forUpdate(Requests.body(ctx)));
      return host(t, ie, id)
          .compose(h -> Future.fromCompletionStage(brain.updateHost(ie, id, u.role(), u.hostname(), u.diskId(),
              u.diskField(), u.specChanges()).toCompletionStage(), ctx.vertx().getOrCreateContext()))
          .recover(e -> Future.failedFuture(e instanceof HostUpdateRejected r ? new ApiError(r.status(), r.field(),
              r.getMessage()) : e))
          .compose(v -> host(t, ie, id))
          .map(ApiViews::host);
    });
  }

  private void deleteHost(RoutingContext ctx) {
    RestApi.handle(ctx, 204, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      return dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> HostRepository.get(tx, t.name(), ie, id, HostRepository.Documents.NONE)
          .map(o -> o.orElseThrow(() -> ApiError.notFound("host", id)))
          .compose(h -> HostRepository.delete(tx, ie, id)
              .compose(v -> EventRepository.record(tx, EventRecord.info(t.name(), "host_deregistered",
                  "Host " + RestApi.displayName(h) + ": deregistered", h.clusterId(), ie, id)))))
          .map(v -> null);
    });
  }

  private Future<InfraEnvRow> infraEnv(Tenant t, UUID id) {
    return InfraEnvRepository.get(db, t.name(), id).map(o -> o.orElseThrow(() -> ApiError.notFound("infra-env", id)));
  }

  private Future<HostRow> host(Tenant t, UUID ie, UUID id) {
    return HostRepository.get(db, t.name(), ie, id).map(o -> o.orElseThrow(() -> ApiError.notFound("host", id)));
  }
}
