package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;

/**
 * Asked, after a token's signature checked out, whether it is still good: the service refuses tokens issued under a
 * signing key the user has since regenerated (upstream's regenerate-signing-key, 401), and answers the agents of an
 * infra-env the user deleted 404, as upstream does (its agent then stops asking). Synchronous: the answer comes from
 * memory the service keeps up to date, so the agent edge stays free of per-request lookups.
 */
@FunctionalInterface
public interface TokenCheck {
    TokenCheck ALL = claims -> Verdict.CURRENT;

    enum Verdict { CURRENT, KEY_REGENERATED, INFRA_ENV_DELETED }

    Verdict check(AgentClaims claims);
}
