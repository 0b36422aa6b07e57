package dev.rendezvous.service.api;

import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Clusters and infra-envs owned by a Kubernetes custom resource (the kube face made them). The CR is their source of
 * truth, so a REST write to one (or to a host of such an infra-env) is refused with 409 naming the CR, unless the
 * request names the same owner in {@value #HEADER} — which only the kube face does, and only admin tokens may.
 * Reads stay open. Upstream, in kube-api mode, refuses user REST calls altogether (local auth: "User Authentication
 * not allowed"); we keep reading and unrelated objects open and refuse only what a CR owns.
 */
public final class KubeOwnership {
  /** The owner a request acts for: {@code Kind/namespace/name} of the custom resource. */
  public static final String HEADER = "X-Rdv-Kube-Key";

  private static final Pattern OWNED_PATH = Pattern.compile(
      Pattern.quote(ApiViews.BASE) + "/(clusters|infra-envs)/([0-9a-fA-F-]{36})(/.*)?");

  private final Pool db;

  public KubeOwnership(Pool db) {
    this.db = db;
  }

  /** The key a create request asks its new object to carry: the header of an admin, else empty. */
  static Optional<String> requestedKey(RoutingContext ctx) {
    String key = ctx.request().getHeader(HEADER);
    Tenant t = UserAuth.tenant(ctx);
    if (key == null || key.isBlank() || t == null || !t.admin()) {
      return Optional.empty();
    }
    return Optional.of(key.strip());
  }

  /** Mounted after user authentication and before the user routes that write. */
  public void mount(Router router) {
    router.route(ApiViews.BASE + "/*").handler(this::guard);
  }

  private void guard(RoutingContext ctx) {
    HttpMethod m = ctx.request().method();
    if (m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS) {
      ctx.next();
      return;
    }
    Matcher path = OWNED_PATH.matcher(ctx.request().path());
    if (!path.matches()) {
      ctx.next();
      return;
    }
    UUID id;
    try {
      id = UUID.fromString(path.group(2));
    } catch (IllegalArgumentException e) {
      ctx.next(); // the route's own parameter check answers it
      return;
    }
    boolean cluster = path.group(1).equals("clusters");
    owner(db, cluster ? "clusters" : "infra_envs", id).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      Optional<String> owner = ar.result();
      if (owner.isEmpty() || owner.equals(requestedKey(ctx))) {
        ctx.next();
        return;
      }
      ErrorReplies.send(ctx, 409, null, (cluster ? "cluster " : "infra-env ") + id + " is managed by the custom resource "
          + owner.get() + " on the Kubernetes API: change the custom resource instead (REST reads stay open)");
    });
  }

  private static Future<Optional<String>> owner(SqlClient db, String table, UUID id) {
    return db.preparedQuery("SELECT kube_key FROM " + table + " WHERE id = $1").execute(Tuple.of(id))
        .map(rs -> rs.size() == 0 ? Optional.<String>empty()
            : Optional.ofNullable(rs.iterator().next().getString(0)));
  }

  /** The object a kube key already names, if any (a create for a key that exists returns it). */
  static Future<Optional<UUID>> existing(SqlClient db, String table, String key) {
    return db.preparedQuery("SELECT id FROM " + table + " WHERE kube_key = $1").execute(Tuple.of(key))
        .map(rs -> rs.size() == 0 ? Optional.<UUID>empty() : Optional.of(rs.iterator().next().getUUID(0)));
  }

  /**
   * Marks a just-inserted row as owned by {@code key} (same transaction as the insert). The key is also in the spec,
   * so the REST views show {@code kube_key} and a restarted kube face finds its objects by listing them.
   */
  static Future<Void> mark(SqlClient db, String table, UUID id, String key) {
    return db.preparedQuery("UPDATE " + table + " SET kube_key = $2, spec = spec || jsonb_build_object('kube_key', $2::text)"
        + " WHERE id = $1").execute(Tuple.of(id, key))
        .mapEmpty();
  }
}
