package dev.rendezvous.service.auth;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import dev.rendezvous.service.api.ErrorReplies;
import io.vertx.core.Future;
import io.vertx.ext.web.handler.SecurityPolicyHandler;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * For the operations upstream marks agentAuth as well as userAuth (the installer's and the controller's calls): an
 * {@code X-Secret-Key} agent token is accepted for its own infra-env and its hosts, and for the cluster its infra-env
 * is bound to or any of its hosts belongs to; the request then acts for that cluster's tenant. Without the header
 * the user's bearer token is checked as on every other route. A security-policy handler: it runs before a body is read.
 */
public final class AgentOrUserAuth implements SecurityPolicyHandler {
  public static final String AGENT_KEY = "rdv.agent";
  public static final String AGENT_HEADER = "X-Secret-Key";
  private static final long CACHE_MILLIS = 30_000;

  private final UserAuth users;
  private final byte[] secret;
  private final Pool db;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  private record Cached(String tenant, long until) {}

  /** The tenant the token acts for, or why it may not (status 403 or 404). */
  private record Access(String tenant, int status, String reason) {
    static Access allowed(String tenant) {
      return new Access(tenant, 200, null);
    }
  }

  public AgentOrUserAuth(UserAuth users, String agentTokenSecret, Pool db) {
    this.users = users;
    this.secret = agentTokenSecret.getBytes(StandardCharsets.UTF_8);
    this.db = db;
  }

  /** The agent claims of the request, when it came with an agent token. */
  public static AgentClaims agent(RoutingContext ctx) {
    return ctx.get(AGENT_KEY);
  }

  /** The query parameter of presigned URLs (upstream's urlAuth). */
  public static final String URL_KEY = "api_key";
  @Override
  public void handle(RoutingContext ctx) {
    String token = ctx.request().getHeader(AGENT_HEADER);
    String field = AGENT_HEADER;
    if (token == null || token.isEmpty()) {
      token = ctx.request().getParam(URL_KEY);
      field = URL_KEY;
    }
    if (token == null || token.isEmpty()) {
      users.handle(ctx);
      return;
    }
    if (dev.rendezvous.service.api.PresignedUrls.isClusterToken(token)) {
      presignedCluster(ctx, token);
      return;
    }
    Optional<AgentClaims> verified = AgentTokens.verify(secret, token);
    if (verified.isEmpty()) {
      ErrorReplies.send(ctx, 401, field, "the agent token is not valid");
      return;
    }
    AgentClaims claims = verified.get();
    if (InfraEnvTokenStates.isDeleted(claims.infraEnvId())) {
      ErrorReplies.send(ctx, 404, null, "infra-env " + claims.infraEnvId() + " not found");
      return;
    }
    if (!InfraEnvTokenStates.isCurrent(claims.infraEnvId(), claims.generation())) {
      ErrorReplies.send(ctx, 401, field, "the token was signed with a key that has been regenerated");
      return;
    }
    String infraEnv = ctx.pathParam("infra_env_id");
    String cluster = ctx.pathParam("cluster_id");
    if (infraEnv != null && !infraEnv.equalsIgnoreCase(claims.infraEnvId())) {
      ErrorReplies.send(ctx, 403, AGENT_HEADER, "the agent token is not valid for infra-env " + infraEnv);
      return;
    }
    UUID clusterId = cluster == null ? null : parse(cluster);
    if (cluster != null && clusterId == null) {
      ErrorReplies.send(ctx, 400, "cluster_id", "'" + cluster + "' is not a UUID");
      return;
    }
    String key = claims.infraEnvId() + "|" + clusterId + "|" + claims.generation();
    Cached c = cache.get(key);
    long now = System.currentTimeMillis();
    Future<Access> access = c != null && c.until > now ? Future.succeededFuture(Access.allowed(c.tenant))
        : lookup(claims, clusterId).onSuccess(a -> {
          if (a.tenant() != null) {
            cache.put(key, new Cached(a.tenant(), now + CACHE_MILLIS));
          }
        });
    String f = field;
    access.onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().tenant() == null) {
        ErrorReplies.send(ctx, ar.result().status(), f, ar.result().reason());
      } else {
        ctx.put(AGENT_KEY, claims);
        ctx.put(UserAuth.TENANT_KEY, new Tenant(ar.result().tenant(), false));
        ctx.next();
      }
    });
  }

  /** The tenant the token acts for on {@code clusterId} (null: its own infra-env), or why not. */
  private Future<Access> lookup(AgentClaims claims, UUID clusterId) {
    UUID infraEnv = UUID.fromString(claims.infraEnvId());
    if (clusterId == null) {
      return db.preparedQuery("SELECT tenant, signing_key_generation FROM infra_envs WHERE id = $1").execute(Tuple.of(infraEnv))
          .map(rs -> {
            if (rs.size() == 0) {
              return new Access(null, 404, "infra-env " + infraEnv + " not found");
            }
            var row = rs.iterator().next();
            return row.getInteger(1) != claims.generation() ? stale()
                : Access.allowed(row.getString(0));
          });
    }
    boolean claimed = clusterId.toString().equalsIgnoreCase(claims.clusterId());
    return db.preparedQuery("SELECT c.tenant, $3 OR EXISTS (SELECT 1 FROM infra_envs ie WHERE ie.id = $2 AND ie.cluster_id = c.id)"
            + " OR EXISTS (SELECT 1 FROM hosts h WHERE h.infra_env_id = $2 AND h.cluster_id = c.id),"
            + " (SELECT signing_key_generation FROM infra_envs WHERE id = $2) FROM clusters c WHERE c.id = $1")
        .execute(Tuple.of(clusterId, infraEnv, claimed))
        .map(rs -> {
          if (rs.size() == 0) {
            return new Access(null, 404, "cluster " + clusterId + " not found");
          }
          var row = rs.iterator().next();
          Integer generation = row.getInteger(2);
          if (generation != null && generation != claims.generation()) {
            return stale();
          }
          return row.getBoolean(1) ? Access.allowed(row.getString(0))
              : new Access(null, 403, "the agent token is not valid for cluster " + clusterId);
        });
  }

  private static Access stale() {
    return new Access(null, 401, "the token was signed with a key that has been regenerated");
  }

  /** A presigned cluster URL: valid for its cluster and file until it expires; acts for the cluster's tenant. */
  private void presignedCluster(RoutingContext ctx, String token) {
    Optional<dev.rendezvous.service.api.PresignedUrls.ClusterGrant> grant =
        dev.rendezvous.service.api.PresignedUrls.verify(secret, token, java.time.Instant.now());
    if (grant.isEmpty()) {
      ErrorReplies.send(ctx, 401, URL_KEY, "the presigned URL is not valid or has expired");
      return;
    }
    UUID cluster = parse(ctx.pathParam("cluster_id") == null ? "" : ctx.pathParam("cluster_id"));
    if (!grant.get().clusterId().equals(cluster) || !grant.get().fileName().equals(ctx.request().getParam("file_name"))) {
      ErrorReplies.send(ctx, 403, URL_KEY, "the presigned URL is for another file");
      return;
    }
    db.preparedQuery("SELECT tenant FROM clusters WHERE id = $1").execute(Tuple.of(cluster)).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
      } else if (ar.result().size() == 0) {
        ErrorReplies.send(ctx, 404, null, "cluster " + cluster + " not found");
      } else {
        ctx.put(UserAuth.TENANT_KEY, new Tenant(ar.result().iterator().next().getString(0), false));
        ctx.next();
      }
    });
  }

  private static UUID parse(String s) {
    try {
      return UUID.fromString(s);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
