package dev.rendezvous.service.api;

import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.feed.EventFeed;
import dev.rendezvous.service.feed.EventFilter;
import dev.rendezvous.service.feed.EventStream;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * {@code GET /v2/events/stream}: the tenant's events as they happen, as server-sent events (not part of upstream's
 * API). SSE rather than a websocket because the feed only flows one way, browsers' EventSource reconnects by itself
 * and resumes with Last-Event-ID, and curl or any HTTP proxy handles it as a plain long response. Filters are
 * {@code GET /v2/events}' own; resume with the {@code Last-Event-ID} header or {@code last_event_id} (0 replays
 * everything retained).
 */
public final class EventStreamApi {
  private static final List<String> SEVERITIES = List.of("info", "warning", "error", "critical");
  private final Vertx vertx;
  private final EventFeed feed;
  private final int maxPending;
  private final long heartbeatMillis;

  public EventStreamApi(Vertx vertx, EventFeed feed, int maxPending, long heartbeatMillis) {
    this.vertx = vertx;
    this.feed = feed;
    this.maxPending = maxPending;
    this.heartbeatMillis = heartbeatMillis;
  }

  /** Mounted among the user routes (after the user auth handler). */
  public void mount(Router router) {
    router.get(ApiViews.BASE + "/events/stream").handler(this::stream);
  }

  private void stream(RoutingContext ctx) {
    EventFilter filter;
    Long last;
    try {
      Tenant t = UserAuth.tenant(ctx);
      Set<UUID> hosts = new HashSet<>(Requests.queryUuids(ctx, "host_ids"));
      UUID single = Requests.queryUuid(ctx, "host_id");
      if (single != null) {
        hosts.add(single);
      }
      List<String> severities = Requests.queryList(ctx, "severities", SEVERITIES);
      List<String> categories = Requests.queryList(ctx, "categories", List.of("user", "metrics"));
      filter = new EventFilter(t.name(), Requests.queryUuid(ctx, "cluster_id"), hosts,
          Requests.queryBool(ctx, "cluster_level", false), Requests.queryUuid(ctx, "infra_env_id"),
          new HashSet<>(severities.isEmpty() ? SEVERITIES : severities),
          new HashSet<>(categories.isEmpty() ? List.of("user") : categories));
      last = lastEventId(ctx);
    } catch (RuntimeException e) {
      ctx.fail(e);
      return;
    }
    new EventStream(vertx, feed, filter, ctx.response(), maxPending).start(last, heartbeatMillis);
  }

  private static Long lastEventId(RoutingContext ctx) {
    String header = ctx.request().getHeader("Last-Event-ID");
    String field = header != null ? "Last-Event-ID" : "last_event_id";
    String v = header != null ? header : ctx.request().getParam("last_event_id");
    if (v == null || v.isBlank()) {
      return null;
    }
    try {
      long n = Long.parseLong(v.strip());
      if (n < 0) {
        throw new InvalidInputException(field, "must be an event id (0 or more)");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new InvalidInputException(field, "must be an event id (a number)");
    }
  }
}
