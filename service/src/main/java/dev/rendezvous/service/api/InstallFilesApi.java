package dev.rendezvous.service.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
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
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * An installation's files over upstream's API: cluster downloads (Ignition configs, metadata, install-config,
 * custom manifests) and credentials, the host's Ignition (installer), the install-config and its overrides, custom
 * manifests, the console credentials, and per-host Ignition overrides.
 */
public final class InstallFilesApi {
  static final Set<String> DOWNLOAD_STATUSES = Set.of("installing", "finalizing", "installed", "error", "adding-hosts",
      "cancelled", "installing-pending-user-action");
  static final List<String> FILE_NAMES = List.of("bootstrap.ign", "master.ign", "worker.ign", "arbiter.ign",
      "metadata.json", "install-config.yaml", "custom_manifests.json", "custom_manifests.yaml");
  static final List<String> CREDENTIALS = List.of("kubeadmin-password", "kubeconfig", "kubeconfig-noingress");
  static final Set<String> MANIFEST_FOLDERS = Set.of("manifests", "openshift");
  private static final Pattern MANIFEST_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,253}\\.(yaml|yml|json)");
  private static final int MAX_MANIFEST_BYTES = 1024 * 1024;
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Pool db;
  private final Brain brain;
  private final String generator;

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
    router.get(b + "/clusters/:cluster_id/manifests").handler(this::listManifests);
    router.post(b + "/clusters/:cluster_id/manifests").handler(this::createManifest);
    router.patch(b + "/clusters/:cluster_id/manifests").handler(this::updateManifest);
    router.delete(b + "/clusters/:cluster_id/manifests").handler(this::deleteManifest);
    router.get(b + "/clusters/:cluster_id/manifests/files").handler(this::downloadManifest);
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
          return ManifestRepository.list(db, id).map(InstallFilesApi::manifestsYaml);
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
              HostRepository.listByCluster(db, t.name(), id))
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
          .compose(v -> brain.refresh(WorkKey.cluster(id)).otherwiseEmpty())
          .map(v -> Status.CREATED);
    });
  }

  // ------------------------------------------------------------------------------------------ manifests

  /**
   * The user's manifests; with {@code include_system_generated} also those the system added to the last
   * preparation (the OLM operators'), as upstream's {@code manifest_source: system}. A user file of the same path
   * is listed as the user's.
   */
  private void listManifests(RoutingContext ctx) {
    handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      boolean system = Requests.queryBool(ctx, "include_system_generated", false);
      return cluster(ctx, id).compose(c -> Future.all(ManifestRepository.list(db, id), system
          ? ClusterFileRepository.names(db, id, ClusterArtifacts.SYSTEM_MANIFEST_PREFIX)
          : Future.succeededFuture(List.<String>of()))).map(all -> {
            TreeMap<String, JsonObject> byPath = new TreeMap<>();
            for (String stored : all.<List<String>>resultAt(1)) {
              String[] folderAndName = stored.substring(ClusterArtifacts.SYSTEM_MANIFEST_PREFIX.length()).split("/", 2);
              byPath.put(stored, manifestView(folderAndName[0], folderAndName[1]).put("manifest_source", "system"));
            }
            for (ManifestRepository.Manifest m : all.<List<ManifestRepository.Manifest>>resultAt(0)) {
              byPath.put(ClusterArtifacts.systemManifest(m.folder(), m.fileName()), manifestView(m.folder(), m.fileName()));
            }
            return new JsonArray(new ArrayList<>(byPath.values()));
          });
    });
  }

  private void createManifest(RoutingContext ctx) {
    handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      JsonObject body = Requests.body(ctx);
      String folder = folder(body.getValue("folder"), "folder");
      String name = fileName(body.getValue("file_name"), "file_name");
      String content = manifestContent(body.getValue("content"), "content");
      return editableCluster(ctx, id).compose(c -> ManifestRepository.put(db, id, folder, name, content))
          .map(created -> new Created(manifestView(folder, name)));
    });
  }

  private void updateManifest(RoutingContext ctx) {
    handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      JsonObject body = Requests.body(ctx);
      String folder = folder(body.getValue("folder"), "folder");
      String name = fileName(body.getValue("file_name"), "file_name");
      String newFolder = body.getValue("updated_folder") == null ? folder : folder(body.getValue("updated_folder"), "updated_folder");
      String newName = body.getValue("updated_file_name") == null ? name : fileName(body.getValue("updated_file_name"), "updated_file_name");
      String newContent = body.getValue("updated_content") == null ? null : manifestContent(body.getValue("updated_content"), "updated_content");
      return editableCluster(ctx, id).compose(c -> dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> ManifestRepository.get(tx, id, folder, name)
          .compose(o -> {
            ManifestRepository.Manifest m = o.orElseThrow(() -> new ApiError(404, "file_name", "manifest " + folder + "/"
                + name + " not found"));
            String content = newContent == null ? m.content() : newContent;
            Future<Boolean> moved = newFolder.equals(folder) && newName.equals(name) ? Future.succeededFuture(true)
                : ManifestRepository.delete(tx, id, folder, name);
            return moved.compose(v -> ManifestRepository.put(tx, id, newFolder, newName, content));
          })))
          .map(v -> manifestView(newFolder, newName));
    });
  }

  private void deleteManifest(RoutingContext ctx) {
    handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String folder = folder(ctx.request().getParam("folder", "manifests"), "folder");
      String name = fileName(ctx.request().getParam("file_name"), "file_name");
      return editableCluster(ctx, id).compose(c -> ManifestRepository.delete(db, id, folder, name)).map(found -> {
        if (!found) {
          throw new ApiError(404, "file_name", "manifest " + folder + "/" + name + " not found");
        }
        return null; // 200 without a body, as upstream's V2DeleteClusterManifest
      });
    });
  }

  private void downloadManifest(RoutingContext ctx) {
    handle(ctx, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String folder = folder(ctx.request().getParam("folder", "manifests"), "folder");
      String name = fileName(ctx.request().getParam("file_name"), "file_name");
      // the user's, else one the system added (upstream serves both from the same store)
      return cluster(ctx, id).compose(c -> ManifestRepository.get(db, id, folder, name)).compose(o -> o.isPresent()
          ? Future.succeededFuture(o.get().content().getBytes(StandardCharsets.UTF_8))
          : ClusterFileRepository.get(db, id, ClusterArtifacts.systemManifest(folder, name)).map(f -> f.orElseThrow(
              () -> new ApiError(404, "file_name", "manifest " + folder + "/" + name + " not found")).content()))
          .map(bytes -> new Download(name, bytes));
    });
  }

  static JsonObject manifestView(String folder, String name) {
    return new JsonObject().put("folder", folder).put("file_name", name).put("manifest_source", "user");
  }

  /** custom_manifests.yaml: the user's manifests joined. */
  private static byte[] manifestsYaml(List<ManifestRepository.Manifest> ms) {
    StringBuilder b = new StringBuilder();
    for (ManifestRepository.Manifest m : ms) {
      b.append("---\n").append(m.content().strip()).append('\n');
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String folder(Object v, String field) {
    if (!(v instanceof String s) || !MANIFEST_FOLDERS.contains(s)) {
      throw new InvalidInputException(field, "must be one of " + MANIFEST_FOLDERS);
    }
    return s;
  }

  private static String fileName(Object v, String field) {
    if (!(v instanceof String s) || !MANIFEST_NAME.matcher(s).matches()) {
      throw new InvalidInputException(field, "must be a file name ending in .yaml, .yml or .json (no directories)");
    }
    return s;
  }

  /** Base64 of YAML or JSON that parses (every document of a YAML stream), at most 1 MiB. */
  private static String manifestContent(Object v, String field) {
    if (!(v instanceof String s) || s.isEmpty()) {
      throw new InvalidInputException(field, "is required: the manifest, base64 encoded");
    }
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(s.strip());
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(field, "is not valid base64");
    }
    if (raw.length > MAX_MANIFEST_BYTES) {
      throw new InvalidInputException(field, "is larger than " + MAX_MANIFEST_BYTES + " bytes");
    }
    String text = new String(raw, StandardCharsets.UTF_8);
    try (var parser = YAML.getFactory().createParser(text)) {
      var docs = YAML.readValues(parser, com.fasterxml.jackson.databind.JsonNode.class);
      boolean any = false;
      while (docs.hasNextValue()) {
        var n = docs.nextValue();
        if (n != null && !n.isNull() && !n.isObject()) {
          throw new InvalidInputException(field, "every YAML document must be a mapping");
        }
        any |= n != null && n.isObject();
      }
      if (!any) {
        throw new InvalidInputException(field, "holds no manifest");
      }
    } catch (java.io.IOException | RuntimeException e) {
      if (e instanceof InvalidInputException iie) {
        throw iie;
      }
      throw new InvalidInputException(field, "is not valid YAML or JSON: " + firstLine(e.getMessage()));
    }
    return text;
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

  private Future<ClusterRow> cluster(RoutingContext ctx, UUID id) {
    return ClusterRepository.get(db, UserAuth.tenant(ctx).name(), id)
        .map(o -> o.orElseThrow(() -> ApiError.notFound("cluster", id)));
  }

  private Future<ClusterRow> editableCluster(RoutingContext ctx, UUID id) {
    return cluster(ctx, id).map(c -> {
      if (!RestApi.CLUSTER_EDITABLE.contains(c.status())) {
        throw ApiError.conflict("cluster " + id + " is " + c.status() + "; its manifests can change only before installation");
      }
      return c;
    });
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

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
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
