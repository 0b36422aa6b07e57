package dev.rendezvous.service.api;

import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.brain.HostUpdateRejected;
import dev.rendezvous.service.brain.UserActions;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.domain.validation.ClusterValidationId;
import dev.rendezvous.service.domain.validation.HostValidationId;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.EventRecord;
import dev.rendezvous.service.repo.EventRepository;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.Times;
import dev.rendezvous.service.validation.InvalidInputException;
import dev.rendezvous.service.validation.Names;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Cluster paths beyond create/read/update/delete and install/cancel/reset: ignored validations, allow-add-hosts
 * (and its legacy alias allow-add-workers), day-2 import, disconnected clusters and supported platforms.
 */
public final class ClusterActionsApi {
  /** Upstream's answer wire names (swagger ignored-validations); the cluster model's names are accepted too. */
  static final String HOST_IDS = "host-validation-ids";
  static final String CLUSTER_IDS = "cluster-validation-ids";
  /** Statuses in which ignored validations may change (upstream's VerifyClusterUpdatability). */
  static final Set<String> UPDATABLE = Set.of("insufficient", "ready", "pending-for-input", "adding-hosts");

  private final Pool db;
  private final ReleaseCatalog catalog;
  private final UserActions actions;

  public ClusterActionsApi(Pool db, ReleaseCatalog catalog, UserActions actions) {
    this.db = db;
    this.catalog = catalog;
    this.actions = actions;
  }

  /** Mount after the user auth handler. */
  public void mount(Router router) {
    String b = ApiViews.BASE;
    router.post(b + "/clusters/import").handler(this::importCluster);
    router.post(b + "/clusters/disconnected").handler(this::disconnected);
    router.get(b + "/clusters/:cluster_id/ignored-validations").handler(this::getIgnored);
    router.put(b + "/clusters/:cluster_id/ignored-validations").handler(this::putIgnored);
    router.post(b + "/clusters/:cluster_id/actions/allow-add-hosts").handler(this::allowAddHosts);
    router.post(b + "/clusters/:cluster_id/actions/allow-add-workers").handler(this::allowAddHosts);
    router.get(b + "/clusters/:cluster_id/supported-platforms").handler(this::supportedPlatforms);
  }

  // ---- ignored validations

  private void getIgnored(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      return cluster(ctx, id).map(ClusterActionsApi::ignoredView);
    });
  }

  static JsonObject ignoredView(ClusterRow c) {
    JsonObject state = c.state() == null ? new JsonObject() : c.state();
    String host = state.getJsonArray("ignored_host_validations", new JsonArray()).encode();
    String cluster = state.getJsonArray("ignored_cluster_validations", new JsonArray()).encode();
    return new JsonObject().put(CLUSTER_IDS, cluster).put(HOST_IDS, host)
        .put("ignored_cluster_validations", cluster).put("ignored_host_validations", host);
  }

  private void putIgnored(RoutingContext ctx) {
    reply(ctx, 201, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      JsonObject body = Requests.body(ctx);
      Set<String> host = ids(body, HOST_IDS, "ignored_host_validations", HostValidationId.allIds(),
          HostValidationId.NON_IGNORABLE, "host");
      Set<String> cluster = ids(body, CLUSTER_IDS, "ignored_cluster_validations", clusterIds(),
          ClusterValidationId.NON_IGNORABLE, "cluster");
      return cluster(ctx, id).compose(c -> {
        if (!UPDATABLE.contains(c.status())) {
          throw new ApiError(400, null, "Cluster " + id + " is in " + c.status()
              + " state, ignored validations can be set only before installation");
        }
        return domain(actions.ignoreValidations(id, host == null ? stored(c, "ignored_host_validations") : host,
            cluster == null ? stored(c, "ignored_cluster_validations") : cluster));
      }).compose(v -> cluster(ctx, id)).map(ClusterActionsApi::ignoredView);
    });
  }

  private static Set<String> stored(ClusterRow c, String key) {
    Set<String> out = new TreeSet<>();
    JsonArray a = c.state() == null ? null : c.state().getJsonArray(key);
    if (a != null) {
      a.forEach(x -> out.add(String.valueOf(x)));
    }
    return out;
  }

  static List<String> clusterIds() {
    List<String> out = new ArrayList<>();
    for (ClusterValidationId v : ClusterValidationId.values()) {
      out.add(v.id());
    }
    HostValidationId.OPERATORS.forEach(o -> out.add(HostValidationId.operatorValidationId(o)));
    return out;
  }

  /**
   * One list of the body: a JSON-encoded string list (upstream's wire form; a JSON array is taken too), checked
   * against the known ids; null when the body does not carry it (the stored list stays).
   */
  static Set<String> ids(JsonObject body, String name, String alias, List<String> known, Set<String> nonIgnorable,
      String kind) {
    String field = body.containsKey(name) ? name : alias;
    Object raw = body.getValue(field);
    if (raw == null) {
      return null;
    }
    JsonArray list;
    if (raw instanceof JsonArray a) {
      list = a;
    } else if (raw instanceof String s) {
      if (s.isBlank()) {
        return new TreeSet<>();
      }
      try {
        Object parsed = io.vertx.core.json.Json.decodeValue(s);
        if (!(parsed instanceof JsonArray a)) {
          throw new InvalidInputException(field, "must be a JSON-encoded list of " + kind + " validation ids");
        }
        list = a;
      } catch (io.vertx.core.json.DecodeException e) {
        throw new InvalidInputException(field, "must be a JSON-encoded list of " + kind + " validation ids");
      }
    } else {
      throw new InvalidInputException(field, "must be a JSON-encoded list of " + kind + " validation ids");
    }
    Set<String> out = new LinkedHashSet<>();
    List<String> unknown = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (Object o : list) {
      if (!(o instanceof String v)) {
        throw new InvalidInputException(field, "must list validation ids as strings");
      }
      if (v.equalsIgnoreCase("all")) {
        out.add("all");
      } else if (!known.contains(v)) {
        unknown.add(v);
      } else if (nonIgnorable.contains(v)) {
        refused.add(v);
      } else {
        out.add(v);
      }
    }
    if (!unknown.isEmpty()) {
      throw new InvalidInputException(field, "Validation ID '" + String.join("', '", unknown) + "' is not a known "
          + kind + " validation");
    }
    if (!refused.isEmpty()) {
      throw new InvalidInputException(field, "unable to ignore the following " + kind + " validations ("
          + String.join(",", refused) + ")");
    }
    return new TreeSet<>(out);
  }

  // ---- day 2

  private void allowAddHosts(RoutingContext ctx) {
    reply(ctx, 202, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      return cluster(ctx, id).compose(c -> domain(actions.allowAddHosts(id))).compose(v -> clusterView(ctx, id));
    });
  }

  /** import-cluster-params: an installed cluster hosts are added to (day 2), status adding-hosts. */
  private void importCluster(RoutingContext ctx) {
    reply(ctx, 201, () -> {
      Tenant t = UserAuth.tenant(ctx);
      JsonObject body = Requests.body(ctx);
      String name = requiredString(body, "name", 54);
      String apiHost = requiredString(body, "api_vip_dnsname", 253);
      String problem = Names.hostnameProblem(apiHost);
      if (problem != null) {
        throw new InvalidInputException("api_vip_dnsname", problem);
      }
      String ocpId = requiredString(body, "openshift_cluster_id", 36);
      try {
        UUID.fromString(ocpId);
      } catch (IllegalArgumentException e) {
        throw new InvalidInputException("openshift_cluster_id", "'" + ocpId + "' is not a UUID");
      }
      String version = optionalVersion(body);
      // upstream derives name and base domain from api.<name>.<base domain>
      String[] parts = apiHost.split("\\.", 3);
      String baseDomain = "";
      if (parts.length == 3 && parts[0].equals("api")) {
        name = parts[1];
        baseDomain = parts[2];
      }
      String nameProblem = Names.clusterNameProblem(name);
      if (nameProblem != null) {
        throw new InvalidInputException("name", nameProblem);
      }
      JsonObject spec = new JsonObject().put("api_vip_dns_name", apiHost).put("openshift_cluster_id", ocpId)
          .put("imported", true).put("platform", new JsonObject().put("type", "baremetal"))
          .put("user_managed_networking", false).put("control_plane_count", 3);
      if (!baseDomain.isEmpty()) {
        spec.put("base_dns_domain", baseDomain);
      }
      JsonObject state = new JsonObject().put("day2", true);
      return insert(t, name, version, "adding-hosts", UserActions.INFO_ADDING_HOSTS, spec, state,
          "Successfully registered cluster " + name + " for adding hosts to an existing OpenShift cluster");
    });
  }

  /** An offline cluster upstream only records (status unmonitored); name and openshift_version are required. */
  private void disconnected(RoutingContext ctx) {
    reply(ctx, 201, () -> {
      Tenant t = UserAuth.tenant(ctx);
      JsonObject body = Requests.body(ctx);
      String name = requiredString(body, "name", 54);
      String nameProblem = Names.clusterNameProblem(name);
      if (nameProblem != null) {
        throw new InvalidInputException("name", nameProblem);
      }
      if (!body.containsKey("openshift_version")) {
        throw new InvalidInputException("openshift_version", "OpenShift version is required");
      }
      String version = requiredString(body, "openshift_version", 32);
      return insert(t, name, version, "unmonitored", "Cluster is not monitored", new JsonObject(), new JsonObject(),
          "Successfully registered disconnected cluster " + name);
    });
  }

  private String optionalVersion(JsonObject body) {
    Object v = body.getValue("openshift_version");
    if (v == null) {
      return catalog.defaultRelease().openshiftVersion();
    }
    if (!(v instanceof String s) || s.isBlank()) {
      throw new InvalidInputException("openshift_version", "must be a non-empty string");
    }
    return s;
  }

  private static String requiredString(JsonObject body, String field, int max) {
    Object v = body.getValue(field);
    if (v == null) {
      throw new InvalidInputException(field, "is required");
    }
    if (!(v instanceof String s) || s.isBlank()) {
      throw new InvalidInputException(field, "must be a non-empty string");
    }
    if (s.length() > max) {
      throw new InvalidInputException(field, "is longer than " + max + " characters");
    }
    return s;
  }

  private Future<JsonObject> insert(Tenant t, String name, String version, String status, String info, JsonObject spec,
      JsonObject state, String message) {
    OffsetDateTime now = Times.now();
    ClusterRow row = new ClusterRow(UUID.randomUUID(), t.name(), name, version, status, info, now, spec, null, null,
        null, null, 1, now, now, state);
    return dev.rendezvous.service.db.TransientConflict.retrying(db, tx -> ClusterRepository.insert(tx, row, "")
            .compose(v -> tx.preparedQuery("UPDATE clusters SET state = $2 WHERE id = $1").execute(Tuple.of(row.id(), state)))
            .compose(v -> EventRepository.record(tx, EventRecord.info(t.name(), "cluster_registration_succeeded", message,
                row.id(), null, null))))
        .map(v -> ApiViews.cluster(row, catalog, List.of(), true));
  }

  // ---- platforms

  /** Upstream: no hosts or a single-node cluster → [none]; otherwise every platform all hosts support here. */
  private void supportedPlatforms(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      Tenant t = UserAuth.tenant(ctx);
      return cluster(ctx, id).compose(c -> HostRepository.listByCluster(db, t.name(), id,
          HostRepository.Documents.NONE).map(hosts -> {
        boolean sno = c.spec().getLong("control_plane_count", 3L) == 1L
            || "None".equals(c.spec().getString("high_availability_mode"));
        return hosts.isEmpty() || sno ? new JsonArray().add("none") : new JsonArray().add("baremetal").add("none");
      }));
    });
  }

  // ---- helpers

  private Future<ClusterRow> cluster(RoutingContext ctx, UUID id) {
    return ClusterRepository.get(db, UserAuth.tenant(ctx).name(), id)
        .map(o -> o.orElseThrow(() -> ApiError.notFound("cluster", id)));
  }

  private Future<HostViewStream> clusterView(RoutingContext ctx, UUID id) {
    return cluster(ctx, id).compose(c -> HostViewStream.cluster(db, UserAuth.tenant(ctx).name(), c, catalog));
  }

  /** A domain refusal as upstream's error. */
  static <T> Future<T> domain(Future<T> f) {
    return f.recover(e -> Future.failedFuture(e instanceof HostUpdateRejected r
        ? new ApiError(r.status(), r.field(), r.getMessage()) : e));
  }

  static void reply(RoutingContext ctx, int status, Supplier<Future<?>> action) {
    RestApi.handle(ctx, status, action);
  }
}
