package dev.rendezvous.gateway;

import io.vertx.core.Future;

/**
 * Whether the service has an infra-env, asked before a host registers with it. A valid token whose infra-env is not
 * there yet is answered 503 and retried by the agent: the agent-based installer's hosts boot with a token made with
 * their ISO, before the site's service registered the infra-env (deleted infra-envs are {@link TokenCheck}'s: 404).
 */
public interface InfraEnvCheck {
    InfraEnvCheck ALL = infraEnvId -> Future.succeededFuture(true);

    Future<Boolean> exists(String infraEnvId);
}
