package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;

/**
 * Asked, after a token's signature checked out, whether it is still current: the service refuses tokens issued
 * under a signing key the user has since regenerated (upstream's regenerate-signing-key). Synchronous: the answer
 * comes from memory the service keeps up to date, so the agent edge stays free of per-request lookups.
 */
@FunctionalInterface
public interface TokenCheck {
    TokenCheck ALL = claims -> true;

    boolean current(AgentClaims claims);
}
