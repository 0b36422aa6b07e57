package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;
import java.util.Optional;

/**
 * Checks {@code X-Secret-Key} on every agent path before anything else is read: missing or invalid → 401,
 * a token of another infra-env than the path's → 403. The token itself is never logged. A security-policy
 * handler, so Vert.x Web runs it before the body handler: nobody unauthenticated makes us buffer a body.
 */
final class AgentAuth implements SecurityPolicyHandler {

    static final String HEADER = "X-Secret-Key";
    private static final String CLAIMS = "rdv.agent-claims";

    private final byte[] secret;
    private final GatewayMetrics metrics;
    private final java.util.function.Supplier<TokenCheck> check;

    AgentAuth(byte[] secret, GatewayMetrics metrics, java.util.function.Supplier<TokenCheck> check) {
        this.secret = secret.clone();
        this.metrics = metrics;
        this.check = check;
    }

    @Override
    public void handle(RoutingContext ctx) {
        Optional<AgentClaims> claims = AgentTokens.verify(secret, ctx.request().getHeader(HEADER));
        if (claims.isEmpty()) {
            metrics.rejected(GatewayMetrics.REASON_UNAUTHENTICATED);
            HttpReplies.error(ctx, 401, "missing or invalid " + HEADER);
            return;
        }
        if (!check.get().current(claims.get())) {
            metrics.rejected(GatewayMetrics.REASON_UNAUTHENTICATED);
            HttpReplies.error(ctx, 401, "the " + HEADER + " was issued under a signing key that has been regenerated");
            return;
        }
        if (!claims.get().infraEnvId().equals(ctx.pathParam("infra_env_id"))) {
            metrics.rejected(GatewayMetrics.REASON_FORBIDDEN);
            HttpReplies.error(ctx, 403, "the agent token is not valid for infra-env " + ctx.pathParam("infra_env_id"));
            return;
        }
        ctx.put(CLAIMS, claims.get());
        ctx.next();
    }

    static AgentClaims claims(RoutingContext ctx) {
        return ctx.get(CLAIMS);
    }
}
