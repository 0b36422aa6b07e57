package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;
import java.util.Optional;

/**
 * Checks {@code X-Secret-Key} on every agent path before anything else is read: missing or invalid → 401,
 * a token of another infra-env than the path's → 403, of a deleted infra-env → 404. The token itself is never logged. A security-policy
 * handler, so Vert.x Web runs it before the body handler: nobody unauthenticated makes us buffer a body.
 */
final class AgentAuth implements SecurityPolicyHandler {

    static final String HEADER = "X-Secret-Key";
    private static final String CLAIMS = "rdv.agent-claims";

    private final byte[] secret;
    private final GatewayMetrics metrics;
    private final java.util.function.Supplier<TokenCheck> check;
    /**
     * Tokens already verified, with their claims: every agent of an infra-env sends its one token with each request, and
     * a token's claims never change, so its HMAC and claims JSON are checked once (3 % of the CPU of a registration
     * burst), not per request. Whether its signing key is still current is asked on every request. Only valid tokens
     * are kept; past the bound the memo starts over.
     */
    private final java.util.Map<String, AgentClaims> verified = new java.util.concurrent.ConcurrentHashMap<>();
    static final int MAX_VERIFIED_TOKENS = 16_384;

    AgentAuth(byte[] secret, GatewayMetrics metrics, java.util.function.Supplier<TokenCheck> check) {
        this.secret = secret.clone();
        this.metrics = metrics;
        this.check = check;
    }

    @Override
    public void handle(RoutingContext ctx) {
        Optional<AgentClaims> claims = verify(ctx.request().getHeader(HEADER));
        if (claims.isEmpty()) {
            metrics.rejected(GatewayMetrics.REASON_UNAUTHENTICATED);
            HttpReplies.error(ctx, 401, "missing or invalid " + HEADER);
            return;
        }
        TokenCheck.Verdict verdict = check.get().check(claims.get());
        if (verdict == TokenCheck.Verdict.INFRA_ENV_DELETED) {
            metrics.rejected(GatewayMetrics.REASON_INFRA_ENV_UNKNOWN);
            HttpReplies.error(ctx, 404, "infra-env " + claims.get().infraEnvId() + " not found");
            return;
        }
        if (verdict == TokenCheck.Verdict.KEY_REGENERATED) {
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

    private Optional<AgentClaims> verify(String token) {
        AgentClaims known = token == null ? null : verified.get(token);
        if (known != null) {
            return Optional.of(known);
        }
        Optional<AgentClaims> claims = AgentTokens.verify(secret, token);
        if (claims.isPresent()) {
            if (verified.size() >= MAX_VERIFIED_TOKENS) {
                verified.clear();
            }
            verified.put(token, claims.get());
        }
        return claims;
    }

    static AgentClaims claims(RoutingContext ctx) {
        return ctx.get(CLAIMS);
    }
}
