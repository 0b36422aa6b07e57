package dev.rendezvous.gateway;

import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;

/** JSON answers in upstream's shapes. */
final class HttpReplies {

    private HttpReplies() {
    }

    static Future<Void> json(RoutingContext ctx, int status, Object body) {
        return ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                .end(AgentWire.write(body));
    }

    static void error(RoutingContext ctx, int status, String reason) {
        if (!ctx.response().ended()) {
            json(ctx, status, AgentWire.ApiError.of(status, reason));
        }
    }

    /** The bus did not take the event: retryable, the agent comes back after {@code Retry-After} seconds. */
    static void busUnavailable(RoutingContext ctx, int retryAfterSeconds) {
        if (!ctx.response().ended()) {
            ctx.response().putHeader("Retry-After", Integer.toString(retryAfterSeconds));
            error(ctx, 503, "the event bus is unavailable, retry later");
        }
    }
}
