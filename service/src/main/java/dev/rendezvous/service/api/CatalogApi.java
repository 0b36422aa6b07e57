package dev.rendezvous.service.api;

import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.domain.operators.OlmOperator;
import dev.rendezvous.service.domain.operators.OperatorSupportLevels;
import dev.rendezvous.service.domain.validation.HardwareRequirements;
import dev.rendezvous.service.domain.validation.HardwareRequirements.RoleRequirements;
import dev.rendezvous.service.domain.validation.OperatorRequirements;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.Future;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The reference endpoints upstream's UI reads before its first screen (supported operators, component versions,
 * managed domains, support levels by feature and architecture), a cluster's preflight hardware requirements, and
 * its UI settings. Support levels say what this build really does: features it implements are {@code supported};
 * the OLM operators are as upstream decides per release, CPU architecture and platform
 * ({@link OperatorSupportLevels}): their hardware needs are validated, their subscriptions rendered into the
 * installation and the controller follows them.
 */
public final class CatalogApi {
  /** The OLM operators a cluster may ask for (ClusterParams accepts these names). */
  static final List<String> OPERATORS = OlmOperator.names();
  /** The features other than the operators; theirs depend on the request ({@link #features}). */
  private static final Map<String, String> FEATURES = features();
  /** Upstream's architecture-support-level-id for each catalog architecture (its answer's keys). */
  private static final Map<String, String> ARCHITECTURES = orderedMap("x86_64", "X86_64_ARCHITECTURE", "arm64",
      "ARM64_ARCHITECTURE", "ppc64le", "PPC64LE_ARCHITECTURE", "s390x", "S390X_ARCHITECTURE", "multi",
      "MULTIARCH_RELEASE_IMAGE");

  private final Pool db;
  private final ReleaseCatalog catalog;
  private final HardwareRequirements hardware;
  private final String version;
  private final List<JsonObject> managedDomains;

  public CatalogApi(Pool db, ReleaseCatalog catalog, HardwareRequirements hardware, String version,
      List<JsonObject> managedDomains) {
    this.db = db;
    this.catalog = catalog;
    this.hardware = hardware;
    this.version = version;
    this.managedDomains = List.copyOf(managedDomains);
  }

  private static Map<String, String> features() {
    Map<String, String> f = new LinkedHashMap<>();
    // upstream's feature-support-level-id values only: the UI looks features up by these keys
    for (String supported : List.of("SNO", "USER_MANAGED_NETWORKING", "CLUSTER_MANAGED_NETWORKING", "FULL_ISO",
        "MINIMAL_ISO", "CUSTOM_MANIFEST", "BAREMETAL_PLATFORM", "NONE_PLATFORM", "PLATFORM_MANAGED_NETWORKING",
        "OVN_NETWORK_TYPE")) {
      f.put(supported, "supported");
    }
    // accepted and written into the install config, but their network operators' manifests are the user's to add;
    // a single node takes day-2 workers through the add-hosts flow, which is not proven on one here
    for (String preview : List.of("CILIUM_NETWORK_TYPE", "CALICO_NETWORK_TYPE", "CISCO_ACI_NETWORK_TYPE",
        "NONE_NETWORK_TYPE", "SINGLE_NODE_EXPANSION")) {
      f.put(preview, "dev-preview");
    }
    // the UI takes a missing id for supported: every id upstream knows and this build does not do is listed
    for (String absent : List.of("NUTANIX_INTEGRATION", "VSPHERE_INTEGRATION", "EXTERNAL_PLATFORM_OCI",
        "EXTERNAL_PLATFORM", "VIP_AUTO_ALLOC", "DUAL_STACK", "DUAL_STACK_VIPS", "DUAL_STACK_PRIMARY_IPV6",
        "USER_MANAGED_LOAD_BALANCER", "TNA", "TNF",
        // OLM operators upstream offers and this build does not (supported-operators does not list them)
        "OSC", "NODE_FEATURE_DISCOVERY", "NVIDIA_GPU", "AMD_GPU", "PIPELINES", "SERVICEMESH", "SERVERLESS",
        "OPENSHIFT_AI", "AUTHORINO", "KMM", "NODE_HEALTHCHECK", "SELF_NODE_REMEDIATION", "FENCE_AGENTS_REMEDIATION",
        "NODE_MAINTENANCE", "KUBE_DESCHEDULER", "CLUSTER_OBSERVABILITY", "NUMA_RESOURCES", "OADP", "METALLB", "LOKI",
        "OPENSHIFT_LOGGING")) {
      f.put(absent, "unavailable");
    }
    return Map.copyOf(f);
  }

  private static Map<String, String> orderedMap(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(m);
  }

  /** Mount after the user auth handler. */
  public void mount(Router router) {
    String b = ApiViews.BASE;
    router.get(b + "/supported-operators").handler(ctx -> reply(ctx, 200, () -> Future.succeededFuture(new JsonArray(OPERATORS))));
    router.get(b + "/supported-operators/:operator_name").handler(this::operatorProperties);
    router.get(b + "/operators/bundles").handler(ctx -> reply(ctx, 200, () -> Future.succeededFuture(new JsonArray())));
    // no bundles are offered, so every bundle id is unknown (upstream's 404)
    router.get(b + "/operators/bundles/:id").handler(ctx -> ctx.fail(new ApiError(404, "id",
        "bundle '" + ctx.pathParam("id") + "' is not supported")));
    router.get(b + "/component-versions").handler(ctx -> reply(ctx, 200, () -> Future.succeededFuture(new JsonObject()
        .put("release_tag", version)
        .put("versions", new JsonObject().put("assisted-installation-service", "rendezvous-" + version)
            .put("discovery-agent", "rendezvous-agent-" + version).put("assisted-installer", "rendezvous-agent-" + version)
            .put("assisted-installer-controller", "rendezvous-controller-" + version)))));
    router.get(b + "/domains").handler(ctx -> reply(ctx, 200, () -> Future.succeededFuture(new JsonArray(List.copyOf(managedDomains)))));
    router.get(b + "/release-sources").handler(ctx -> reply(ctx, 200, this::releaseSources));
    router.get(b + "/support-levels/features").handler(ctx -> reply(ctx, 200, () -> Future.succeededFuture(
        new JsonObject().put("features", new JsonObject(new LinkedHashMap<>(features(ctx, requireVersion(ctx))))))));
    router.get(b + "/support-levels/features/detailed").handler(ctx -> reply(ctx, 200,
        () -> Future.succeededFuture(detailed(features(ctx, requireVersion(ctx))))));
    router.get(b + "/support-levels/architectures").handler(ctx -> reply(ctx, 200, () -> {
      ReleaseCatalog.Release r = requireVersion(ctx);
      JsonObject a = new JsonObject();
      ARCHITECTURES.forEach((arch, id) -> a.put(id, r.cpuArchitectures().contains(arch) ? "supported" : "unavailable"));
      return Future.succeededFuture(new JsonObject().put("architectures", a));
    }));
    router.get(b + "/clusters/:cluster_id/preflight-requirements").handler(this::preflight);
    router.get(b + "/clusters/:cluster_id/ui-settings").handler(this::getUiSettings);
    router.put(b + "/clusters/:cluster_id/ui-settings").handler(this::putUiSettings);
  }


  /** Every feature's level for the release and the request's cpu_architecture and platform_type. */
  private static Map<String, String> features(RoutingContext ctx, ReleaseCatalog.Release r) {
    Map<String, String> f = new LinkedHashMap<>(FEATURES);
    // as upstream: OpenShiftSDN is gone from 4.15 on; four or five control-plane nodes come with 4.18
    f.put("SDN_NETWORK_TYPE", HardwareRequirements.versionAtLeast(r.openshiftVersion(), 4, 15) ? "unavailable" : "supported");
    f.put("NON_STANDARD_HA_CONTROL_PLANE",
        HardwareRequirements.versionAtLeast(r.openshiftVersion(), 4, 18) ? "supported" : "unavailable");
    String arch = ctx.request().getParam("cpu_architecture");
    String platform = ctx.request().getParam("platform_type");
    String external = ctx.request().getParam("external_platform_name");
    for (OlmOperator op : OlmOperator.values()) {
      f.put(op.wire().toUpperCase(java.util.Locale.ROOT),
          OperatorSupportLevels.level(op, r.openshiftVersion(), arch, platform, external));
    }
    return f;
  }

  /** GetDetailedSupportedFeatures: the same levels as features, as feature and operator objects. */
  private static JsonObject detailed(Map<String, String> levels) {
    JsonArray features = new JsonArray();
    JsonArray operators = new JsonArray();
    for (Map.Entry<String, String> f : new java.util.TreeMap<>(levels).entrySet()) {
      String op = f.getKey().toLowerCase(java.util.Locale.ROOT);
      JsonObject o = new JsonObject().put("feature-support-level-id", f.getKey()).put("support_level", f.getValue())
          .put("incompatibilities", new JsonArray());
      if (OPERATORS.contains(op)) {
        List<String> deps = OlmOperator.parse(op).orElseThrow().dependencies().stream()
            .map(d -> d.toUpperCase(java.util.Locale.ROOT)).toList();
        operators.add(o.put("name", op).put("dependencies", new JsonArray(deps)));
      } else {
        features.add(o);
      }
    }
    return new JsonObject().put("features", features).put("operators", operators);
  }

  private ReleaseCatalog.Release requireVersion(RoutingContext ctx) {
    String v = ctx.request().getParam("openshift_version");
    if (v == null || v.isBlank()) {
      throw new InvalidInputException("openshift_version", "is required");
    }
    return catalog.find(v).orElseThrow(() -> new InvalidInputException("openshift_version",
        "'" + v + "' is not a supported OpenShift version"));
  }

  private void operatorProperties(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      String name = ctx.pathParam("operator_name");
      if (!OPERATORS.contains(name)) {
        throw new ApiError(404, "operator_name", "operator '" + name + "' is not supported", null);
      }
      return Future.succeededFuture(new JsonArray()); // upstream's operators declare no properties either
    });
  }

  private Future<JsonArray> releaseSources() {
    JsonArray out = new JsonArray();
    for (ReleaseCatalog.Release r : catalog.releases()) {
      JsonArray channels = new JsonArray();
      r.cpuArchitectures().forEach(a -> channels.add(new JsonObject().put("cpu_architecture", a)
          .put("channels", new JsonArray().add("stable"))));
      // upstream's required multi_cpu_architectures: what the release's multi-architecture payload covers
      JsonArray multi = r.releaseImages().containsKey("multi") ? new JsonArray(r.cpuArchitectures()) : new JsonArray();
      out.add(new JsonObject().put("openshift_version", r.openshiftVersion()).put("multi_cpu_architectures", multi)
          .put("upgrade_channels", channels));
    }
    return Future.succeededFuture(out);
  }

  /** Per-role minimums (upstream's preflight-hardware-requirements); single-node clusters get the SNO numbers. */
  private void preflight(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      return ClusterRepository.get(db, UserAuth.tenant(ctx).name(), id).map(o -> {
        var c = o.orElseThrow(() -> ApiError.notFound("cluster", id));
        boolean sno = c.spec().getLong("control_plane_count", 3L) == 1L;
        JsonObject ocp = new JsonObject()
            .put("master", role(sno ? hardware.sno() : hardware.master()))
            .put("worker", role(hardware.worker()));
        if (!sno) {
          ocp.put("arbiter", role(hardware.arbiter()));
        }
        JsonArray operators = new JsonArray();
        JsonArray asked = c.spec().getJsonArray("olm_operators", new JsonArray());
        for (int i = 0; i < asked.size(); i++) {
          OlmOperator.parse(asked.getJsonObject(i).getString("name"))
              .ifPresent(op -> operators.add(operator(OperatorRequirements.preflight(op, sno))));
        }
        return new JsonObject().put("ocp", ocp).put("operators", operators);
      });
    });
  }

  private static JsonObject operator(OperatorRequirements.Preflight p) {
    return new JsonObject().put("operator_name", p.operatorName()).put("dependencies", new JsonArray(p.dependencies()))
        .put("requirements", new JsonObject().put("master", role(p.master())).put("worker", role(p.worker())));
  }

  private static JsonObject role(OperatorRequirements.RoleNeeds n) {
    return new JsonObject().put("quantitative", new JsonObject().put("cpu_cores", n.cpuCores()).put("ram_mib", n.ramMib()))
        .put("qualitative", new JsonArray(n.qualitative()));
  }

  private static JsonObject role(RoleRequirements r) {
    JsonObject q = new JsonObject().put("cpu_cores", r.cpuCores()).put("ram_mib", r.ramMib())
        .put("disk_size_gb", r.diskSizeGb()).put("installation_disk_speed_threshold_ms", r.installationDiskSpeedThresholdMs());
    if (r.networkLatencyThresholdMs() != null) {
      q.put("network_latency_threshold_ms", r.networkLatencyThresholdMs());
    }
    if (r.packetLossPercentage() != null) {
      q.put("packet_loss_percentage", r.packetLossPercentage());
    }
    return new JsonObject().put("quantitative", q).put("qualitative", new JsonArray());
  }

  private void getUiSettings(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      return db.preparedQuery("SELECT ui_settings FROM clusters WHERE id = $1 AND tenant = $2")
          .execute(Tuple.of(id, UserAuth.tenant(ctx).name())).map(rows -> {
            if (rows.size() == 0) {
              throw ApiError.notFound("cluster", id);
            }
            return Json.encode(rows.iterator().next().getString(0)); // a JSON string, as upstream
          });
    });
  }

  /** The body is upstream's JSON string; any other JSON value is kept as its text, so a UI sending an object works. */
  private void putUiSettings(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String text = ctx.body() == null ? null : ctx.body().asString();
      if (text == null || text.isBlank()) {
        throw new InvalidInputException("ui_settings", "is required");
      }
      Object value;
      try {
        value = Json.decodeValue(text);
      } catch (io.vertx.core.json.DecodeException e) {
        throw new InvalidInputException("ui_settings", "is not valid JSON");
      }
      String settings = value instanceof String s ? s : text;
      if (settings.length() > 64 * 1024) {
        throw new InvalidInputException("ui_settings", "is longer than 65536 characters");
      }
      return db.preparedQuery("UPDATE clusters SET ui_settings = $3 WHERE id = $1 AND tenant = $2")
          .execute(Tuple.of(id, UserAuth.tenant(ctx).name(), settings)).map(rows -> {
            if (rows.rowCount() == 0) {
              throw ApiError.notFound("cluster", id);
            }
            return Json.encode(settings);
          });
    });
  }

  private static void reply(RoutingContext ctx, int status, Supplier<Future<?>> action) {
    Future<?> f;
    try {
      f = action.get();
    } catch (RuntimeException e) {
      ctx.fail(e);
      return;
    }
    f.onSuccess(body -> ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json")
        .end(body.toString())).onFailure(ctx::fail);
  }
}
