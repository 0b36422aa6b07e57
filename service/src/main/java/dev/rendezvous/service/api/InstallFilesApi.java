package dev.rendezvous.service.api;

import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.brain.WorkKey;
import dev.rendezvous.service.install.ClusterArtifacts;
import dev.rendezvous.service.install.HostIgnition;
import dev.rendezvous.service.install.InstallConfigInputs;
import dev.rendezvous.service.install.InstallConfigRenderer;
import dev.rendezvous.service.repo.ClusterFileRepository;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.EventRecord;
import dev.rendezvous.service.repo.EventRepository;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import dev.rendezvous.service.repo.ManifestRepository;
import dev.rendezvous.service.repo.Times;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * An installation's files over upstream's API: cluster downloads (Ignition configs, metadata, install-config,
 * custom manifests) and credentials, the host's Ignition (installer), the install-config and its overrides, the
 * console credentials, and per-host Ignition overrides. The custom manifests themselves: {@link ClusterManifestsApi}.
 */
public final class InstallFilesApi {
  static final Set<String> DOWNLOAD_STATUSES = Set.of("installing", "finalizing", "installed", "error", "adding-hosts",
      "cancelled", "installing-pending-user-action");
  static final List<String> FILE_NAMES = List.of("bootstrap.ign", "master.ign", "worker.ign", "arbiter.ign",
      "metadata.json", "install-config.yaml", "custom_manifests.json", "custom_manifests.yaml");
  static final List<String> CREDENTIALS = List.of("kubeadmin-password", "kubeconfig", "kubeconfig-noingress");

  private final Pool db;
  private final Brain brain;
  private final String generator;
  private final ClusterManifestsApi manifests;

  private volatile dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors mirrors;

  /** The site's mirror registries, shown in the rendered install-config (null: none). */
  public InstallFilesApi mirrors(dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors m) {
    this.mirrors = m;
    return this;
  }

  public InstallFilesApi(Pool db, Brain brain, String generatorName) {
    this.db = db;
    this.brain = brain;
    this.generator = generatorName;
    this.manifests = new ClusterManifestsApi(db, this);
  }

  /**
   * Has the brain evaluate the cluster again (a custom manifest added or removed moves
   * custom-manifests-requirements-satisfied), as a cluster update does; a failure is logged, the monitor's passes
   * catch up.
   */
  Future<Void> reevaluate(java.util.UUID clusterId, RoutingContext ctx) {
    return ClusterReevaluation.now(brain, clusterId, ctx.vertx().getOrCreateContext());
  }

  /** Routes the installer and controller call with their agent token (or a user with a bearer token). */
  public void mountAgentRoutes(Router router, Handler<RoutingContext> agentOrUser) {
    String b = ApiViews.BASE;
    router.get(b + "/clusters/:cluster_id/downloads/files").handler(agentOrUser).handler(this::downloadFile);
    router.get(b + "/clusters/:cluster_id/downloads/credentials").handler(agentOrUser).handler(this::downloadCredentials);
    router.get(b + "/infra-env/:infra_env_id/hosts/:host_id/downloads/ignition").handler(agentOrUser)
        .handler(this::downloadHostIgnition);
  }

  /** User routes, after the user auth handler. */
  public void mountUserRoutes(Router router) {
    String b = ApiViews.BASE;
    router.get(b + "/clusters/:cluster_id/install-config").handler(this::getInstallConfig);
    router.patch(b + "/clusters/:cluster_id/install-config").handler(this::patchInstallConfig);
    manifests.mount(router);
    router.get(b + "/clusters/:cluster_id/credentials").handler(this::credentials);
    router.get(b + "/infra-envs/:infra_env_id/hosts/:host_id/ignition").handler(this::getHostIgnition);
    router.patch(b + "/infra-envs/:infra_env_id/hosts/:host_id/ignition").handler(this::patchHostIgnition);
  }

  // ------------------------------------------------------------------------------------------ downloads

  private void downloadFile(RoutingContext ctx) {
    handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String name = required(ctx, "file_name", FILE_NAMES);
      return cluster(ctx, id).compose(c -> {
        requireDownloadable(c, name);
        if (name.equals(ClusterArtifacts.CONTROLLER_MANIFESTS)) {
          // upstream's: the OLM operators' resources for the controller, there only when the cluster has operators
          return ClusterFileRepository.get(db, id, name).map(f -> f.orElseThrow(() -> new ApiError(404, "file_name",
              "cluster " + id + " has no OLM operator manifests")).content());
        }
        if (name.startsWith("custom_manifests.")) {
          return ManifestRepository.list(db, id).map(ClusterManifestsApi::manifestsYaml);
        }
        return ClusterFileRepository.get(db, id, name).map(f -> f.orElseThrow(() -> new ApiError(404, "file_name",
            name + " was not generated for cluster " + id)).content());
      }).map(bytes -> new Download(name, bytes));
    });
  }

  private void downloadCredentials(RoutingContext ctx) {
    handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String name = required(ctx, "file_name", CREDENTIALS);
      return cluster(ctx, id).compose(c -> {
        requireDownloadable(c, name);
        if (name.equals(ClusterArtifacts.KUBECONFIG)) {
          // upstream: the kubeconfig with the ingress CA once the controller uploaded it, before that the one without
          return ClusterFileRepository.get(db, id, ClusterArtifacts.KUBECONFIG).compose(k -> k.isPresent()
              ? Future.succeededFuture(k) : ClusterFileRepository.get(db, id, ClusterArtifacts.KUBECONFIG_NOINGRESS));
        }
        return ClusterFileRepository.get(db, id, name);
      }).map(f -> new Download(name, f.orElseThrow(() -> new ApiError(404, "file_name", name + " was not generated for cluster "
          + id)).content()));
    });
  }

  private void downloadHostIgnition(RoutingContext ctx) {
    handle(ctx, () -> {
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID hostId = Requests.pathUuid(ctx, "host_id");
      Tenant t = UserAuth.tenant(ctx);
      return HostRepository.get(db, t.name(), ie, hostId, HostRepository.Documents.NONE).compose(o -> {
        HostRow h = o.orElseThrow(() -> ApiError.notFound("host", hostId));
        if (h.clusterId() == null) {
          throw new ApiError(400, "host_id", "host " + hostId + " is not bound to a cluster; it has no installation Ignition");
        }
        return ClusterRepository.get(db, t.name(), h.clusterId()).compose(co -> {
          ClusterRow c = co.orElseThrow(() -> ApiError.notFound("cluster", h.clusterId()));
          String file = HostIgnition.roleFile(effectiveRole(h), h.bootstrap());
          requireDownloadable(c, file);
          if (c.state() != null && c.state().getBoolean("day2", false)) {
            // a host added to an installed cluster: it boots from that cluster's Machine Config Server
            return Future.succeededFuture(new Download(h.id() + ".ign", HostIgnition.forHost(
                dev.rendezvous.service.install.Day2Ignition.pointer(c.spec(), c.name(), effectiveRole(h)),
                h.requestedHostname(), h.spec().getString("ignition_config_overrides"))));
          }
          return ClusterFileRepository.get(db, c.id(), file).map(f -> {
            byte[] role = f.orElseThrow(() -> new ApiError(409, "cluster " + c.id() + " has no " + file + " yet")).content();
            return new Download(h.id() + ".ign", HostIgnition.forHost(role, h.requestedHostname(),
                h.spec().getString("ignition_config_overrides")));
          });
        });
      });
    });
  }

  private void requireDownloadable(ClusterRow c, String name) {
    if (!DOWNLOAD_STATUSES.contains(c.status())) {
      throw ApiError.conflict("cluster " + c.id() + " is " + c.status() + "; " + name
          + " can be downloaded once the installation started");
    }
  }

  // --------------------------------------------------------------------------------- install-config

  private void getInstallConfig(RoutingContext ctx) {
    handle(ctx, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      return cluster(ctx, id).compose(c -> Future.all(ClusterRepository.pullSecret(db, t.name(), id),
              HostRepository.listByCluster(db, t.name(), id, HostRepository.Documents.INVENTORY))
          .map(all -> {
            String secret = all.<java.util.Optional<String>>resultAt(0).orElse("");
            List<HostRow> hosts = all.resultAt(1);
            return new JsonText(InstallConfigRenderer.render(InstallConfigInputs.of(c, hosts, secret).withMirrors(mirrors)));
          }));
    });
  }

  /** Body: a JSON string holding a JSON object merged over the rendered install-config (upstream's overrides). */
  private void patchInstallConfig(RoutingContext ctx) {
    handle(ctx, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String overrides = jsonString(ctx, "install_config_params");
      try {
        InstallConfigRenderer.parseOverrides(overrides);
      } catch (IllegalArgumentException e) {
        throw new InvalidInputException("install_config_params", e.getMessage());
      }
      return dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> ClusterRepository.getForUpdate(tx, t.name(), id)
          .map(o -> o.orElseThrow(() -> ApiError.notFound("cluster", id)))
          .compose(c -> {
            if (!RestApi.CLUSTER_EDITABLE.contains(c.status())) {
              throw ApiError.conflict("cluster " + id + " is " + c.status() + "; its install-config can change only before installation");
            }
            JsonObject spec = c.spec().copy().put("install_config_overrides", overrides);
            ClusterRow next = new ClusterRow(c.id(), c.tenant(), c.name(), c.openshiftVersion(), c.status(), c.statusInfo(),
                c.statusUpdatedAt(), spec, c.validationsInfo(), c.progress(), c.installStartedAt(), c.installCompletedAt(),
                c.rowVersion() + 1, c.createdAt(), Times.now(), c.state());
            return ClusterRepository.updateSpec(tx, next, c.rowVersion(), null).compose(ok -> {
              if (!ok) {
                throw ApiError.conflict("cluster " + id + " was changed concurrently; retry");
              }
              return EventRepository.record(tx, EventRecord.info(t.name(), "install_config_applied",
                  "Custom install config was applied to the cluster", id, null, null));
            });
          }))
          .compose(v -> brain.settingsChanged(WorkKey.cluster(id)).otherwiseEmpty())
          .map(v -> Status.CREATED);
    });
  }

  // ------------------------------------------------------------------------------------ credentials

  private void credentials(RoutingContext ctx) {
    handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      return cluster(ctx, id).compose(c -> {
        if (!"installed".equals(c.status()) && !consoleAvailable(c)) {
          throw ApiError.conflict("cluster " + id + " is " + c.status()
              + "; its credentials are available once the console operator is available");
        }
        return ClusterFileRepository.get(db, id, ClusterArtifacts.KUBEADMIN_PASSWORD).map(f -> new JsonObject()
            .put("username", "kubeadmin")
            .put("password", new String(f.orElseThrow(() -> new ApiError(404, "no kubeadmin password was generated for cluster "
                + id)).content(), StandardCharsets.UTF_8).strip())
            .put("console_url", "https://console-openshift-console.apps." + c.name() + "."
                + c.spec().getString("base_dns_domain", "")));
      });
    });
  }

  private static boolean consoleAvailable(ClusterRow c) {
    JsonArray ops = c.state() == null ? null : c.state().getJsonArray("monitored_operators");
    if (ops == null) {
      return false;
    }
    for (Object o : ops) {
      JsonObject op = (JsonObject) o;
      if ("console".equals(op.getString("name")) && "available".equals(op.getString("status"))) {
        return true;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------------------ host Ignition overrides

  private void getHostIgnition(RoutingContext ctx) {
    handle(ctx, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      return HostRepository.get(db, t.name(), ie, id, HostRepository.Documents.NONE).map(o -> new JsonObject().put("config",
          o.orElseThrow(() -> ApiError.notFound("host", id)).spec().getString("ignition_config_overrides", "")));
    });
  }

  private void patchHostIgnition(RoutingContext ctx) {
    handle(ctx, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      JsonObject body = Requests.body(ctx);
      if (!(body.getValue("config") instanceof String config)) {
        throw new InvalidInputException("config", "is required: the Ignition config overrides, as a JSON string");
      }
      String problem = config.isEmpty() ? null : HostIgnition.overridesProblem(config);
      if (problem != null) {
        throw new InvalidInputException("config", problem);
      }
      return HostRepository.get(db, t.name(), ie, id, HostRepository.Documents.NONE)
          .map(o -> o.orElseThrow(() -> ApiError.notFound("host", id)))
          .compose(h -> brain.updateHost(ie, id, null, null, null, null,
              new JsonObject().put("ignition_config_overrides", config)))
          .recover(e -> Future.failedFuture(e instanceof dev.rendezvous.service.brain.HostUpdateRejected r
              ? new ApiError(r.status(), r.field(), r.getMessage()) : e))
          .map(v -> Status.CREATED);
    });
  }

  // ---------------------------------------------------------------------------------------- helpers

  Future<ClusterRow> cluster(RoutingContext ctx, UUID id) {
    return ClusterRepository.get(db, UserAuth.tenant(ctx).name(), id)
        .map(o -> o.orElseThrow(() -> ApiError.notFound("cluster", id)));
  }

  private static String effectiveRole(HostRow h) {
    return "auto-assign".equals(h.role()) && h.suggestedRole() != null ? h.suggestedRole() : h.role();
  }

  private static String required(RoutingContext ctx, String param, List<String> allowed) {
    String v = ctx.request().getParam(param);
    if (v == null || v.isEmpty()) {
      throw new InvalidInputException(param, "is required (one of " + allowed + ")");
    }
    if (!allowed.contains(v)) {
      throw new InvalidInputException(param, "'" + v + "' must be one of " + allowed);
    }
    return v;
  }

  /** A body that is a JSON string (upstream's install-config PATCH). */
  static String jsonString(RoutingContext ctx, String field) {
    String raw = ctx.body() == null ? null : ctx.body().asString();
    if (raw == null || raw.isBlank()) {
      throw new InvalidInputException(field, "is required");
    }
    Object v;
    try {
      v = Json.decodeValue(raw);
    } catch (DecodeException e) {
      throw new InvalidInputException(field, "is not valid JSON");
    }
    if (!(v instanceof String s)) {
      throw new InvalidInputException(field, "must be a JSON string");
    }
    return s;
  }

  /** A file answer. */
  record Download(String fileName, byte[] content) {}

  /** A JSON string answer (upstream returns install-config as a string). */
  record JsonText(String text) {}

  /** An answer with a JSON body and status 201. */
  record Created(Object body) {}

  /** An answer without a body. */
  enum Status { CREATED, NO_CONTENT, ACCEPTED }

  void handle(RoutingContext ctx, Supplier<Future<?>> action) {
    Future<?> f;
    try {
      f = action.get();
    } catch (RuntimeException e) {
      ctx.fail(e);
      return;
    }
    f.onSuccess(body -> reply(ctx, body, generator)).onFailure(ctx::fail);
  }

  static void reply(RoutingContext ctx, Object body, String generator) {
    var r = ctx.response();
    if (body instanceof Download d) {
      r.putHeader("Content-Type", "application/octet-stream")
          .putHeader("Content-Disposition", "attachment; filename=\"" + d.fileName() + "\"");
      if (generator != null) {
        r.putHeader("X-Rendezvous-Generator", generator);
      }
      r.setStatusCode(200).end(Buffer.buffer(d.content()));
    } else if (body instanceof JsonText t) {
      r.setStatusCode(200).putHeader("Content-Type", "application/json").end(Json.encode(t.text()));
    } else if (body instanceof Created c) {
      r.setStatusCode(201).putHeader("Content-Type", "application/json").end(c.body().toString());
    } else if (body == Status.CREATED) {
      r.setStatusCode(201).end();
    } else if (body == Status.NO_CONTENT) {
      r.setStatusCode(204).end();
    } else if (body == Status.ACCEPTED) {
      r.setStatusCode(202).end();
    } else if (body == null) {
      r.setStatusCode(200).end();
    } else {
      r.setStatusCode(200).putHeader("Content-Type", "application/json").end(body.toString());
    }
  }
}
