package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.gateway.AgentInput.InvalidInput;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The agent-facing routes. Mount them before any catch-all body handler of the router: the gateway checks the
 * token before reading a body, and applies its own body limit.
 *
 * <ul>
 *   <li>{@value #REGISTER} POST: register (upstream {@code v2RegisterHost})</li>
 *   <li>{@value #INSTRUCTIONS} GET: next steps, long poll; POST: step reply</li>
 *   <li>{@value #WEBSOCKET} GET: websocket upgrade (Rendezvous protocol v1)</li>
 * </ul>
 */
public final class GatewayRoutes {

    public static final String REGISTER = "/api/assisted-install/v2/infra-envs/:infra_env_id/hosts";
    public static final String INSTRUCTIONS = "/api/assisted-install/v2/infra-envs/:infra_env_id/hosts/:host_id/instructions";
    public static final String PROGRESS = "/api/assisted-install/v2/infra-envs/:infra_env_id/hosts/:host_id/progress";
    public static final String WEBSOCKET = "/api/rendezvous/v1/infra-envs/:infra_env_id/hosts/:host_id/ws";

    private GatewayRoutes() {
    }

    public static void mount(Router router, Gateway gateway) {
        AgentAuth auth = new AgentAuth(gateway.config().agentTokenSecret(), gateway.metrics(), gateway::tokenCheck);
        BodyHandler body = BodyHandler.create(false).setBodyLimit(gateway.config().maxBodyBytes());
        AgentHttpHandlers http = gateway.http();
        router.post(REGISTER).handler(auth).handler(body).handler(http::register).failureHandler(http::failure);
        router.get(INSTRUCTIONS).handler(auth).handler(http::nextSteps).failureHandler(http::failure);
        router.post(INSTRUCTIONS).handler(auth).handler(body).handler(http::stepReply).failureHandler(http::failure);
        router.put(PROGRESS).handler(auth).handler(body).handler(http::progress).failureHandler(http::failure);
        router.get(WEBSOCKET).handler(auth).handler(ctx -> upgrade(ctx, gateway)).failureHandler(http::failure);
    }

    private static void upgrade(RoutingContext ctx, Gateway gateway) {
        AgentClaims claims = AgentAuth.claims(ctx);
        String hostId;
        try {
            hostId = AgentInput.hostId(ctx.pathParam("host_id"));
        } catch (InvalidInput e) {
            gateway.metrics().rejected(GatewayMetrics.REASON_MALFORMED);
            HttpReplies.error(ctx, 400, e.getMessage());
            return;
        }
        if (!ctx.request().canUpgradeToWebSocket()) {
            gateway.metrics().rejected(GatewayMetrics.REASON_MALFORMED);
            HttpReplies.error(ctx, 400, "this path takes a websocket upgrade");
            return;
        }
        HostKey key = new HostKey(claims.infraEnvId(), hostId);
        ctx.request().toWebSocket().onSuccess(ws -> gateway.newSession(ws, claims, key).start());
    }
}
