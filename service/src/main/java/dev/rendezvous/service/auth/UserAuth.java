package dev.rendezvous.service.auth;

import dev.rendezvous.service.api.ErrorReplies;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Bearer-token authentication for user requests. Known tokens are cached for a minute so a busy
 * client does not cost a query per request; unknown ones are always checked again.
 */
public final class UserAuth implements Handler<RoutingContext> {
  public static final String TENANT_KEY = "rdv.tenant";
  private static final long CACHE_MILLIS = 60_000;

  private final TokenStore tokens;
  private final boolean disabled;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  private record Cached(Tenant tenant, long until) {}

  public UserAuth(TokenStore tokens, boolean disabled) {
    this.tokens = tokens;
    this.disabled = disabled;
  }

  public static Tenant tenant(RoutingContext ctx) {
    return ctx.get(TENANT_KEY);
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (ctx.get(TENANT_KEY) != null) {
      ctx.next(); // already authenticated by a route's own handler (agent token or presigned URL)
      return;
    }
    if (disabled) {
      ctx.put(TENANT_KEY, new Tenant(Tenant.DEFAULT, true));
      ctx.next();
      return;
    }
    String header = ctx.request().getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7) || header.length() <= 7) {
      ctx.response().putHeader("WWW-Authenticate", "Bearer");
      ErrorReplies.send(ctx, 401, "Authorization", "a bearer token is required (Authorization: Bearer <token>)");
      return;
    }
    String token = header.substring(7).strip();
    String key = TokenStore.hash(token);
    Cached c = cache.get(key);
    long now = System.currentTimeMillis();
    if (c != null && c.until > now) {
      ctx.put(TENANT_KEY, c.tenant);
      ctx.next();
      return;
    }
    tokens.lookup(token).onComplete(ar -> {
      if (ar.failed()) {
        ctx.fail(ar.cause());
        return;
      }
      Optional<Tenant> t = ar.result();
      if (t.isEmpty()) {
        ErrorReplies.send(ctx, 401, "Authorization", "unknown or revoked token");
        return;
      }
      cache.put(key, new Cached(t.get(), now + CACHE_MILLIS));
      ctx.put(TENANT_KEY, t.get());
      ctx.next();
    });
  }
}
