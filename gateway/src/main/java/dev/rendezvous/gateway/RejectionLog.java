package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refused agent input (too large, malformed) from an authenticated agent: a log line each time, and a
 * {@code agent_message_rejected} event on the bus at most once per host (or infra-env) and reason per interval,
 * so a misbehaving agent cannot flood the bus.
 */
final class RejectionLog {

    private static final Logger LOG = LoggerFactory.getLogger(RejectionLog.class);
    private static final int MAX_TRACKED = 10_000;

    private final GatewayEvents events;
    private final long intervalNanos;
    private final ConcurrentHashMap<String, Long> lastPublished = new ConcurrentHashMap<>();

    RejectionLog(GatewayEvents events, GatewayConfig config) {
        this.events = events;
        this.intervalNanos = config.checkInInterval().toNanos();
    }

    void record(AgentClaims claims, String hostId, String reason, String detail) {
        if (claims == null) {
            return;
        }
        String host = hostId != null && AgentTokens.isUuid(hostId) ? hostId : null;
        LOG.warn("agent input refused: infra_env_id={} host_id={} reason={} {}", claims.infraEnvId(), host, reason, detail);
        String key = claims.infraEnvId() + "/" + host + "/" + reason;
        long now = System.nanoTime();
        Long previous = lastPublished.get(key);
        if (previous != null && now - previous < intervalNanos) {
            return;
        }
        if (lastPublished.size() > MAX_TRACKED) {
            lastPublished.clear();
        }
        lastPublished.put(key, now);
        events.rejected(claims, host, reason, detail);
    }
}
