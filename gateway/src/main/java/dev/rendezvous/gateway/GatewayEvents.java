package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.DomainEventRecorded;
import dev.rendezvous.bus.event.HostProgressReported;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Instant;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what agents do into typed bus events. The partition key is the token's cluster id, else the infra-env id.
 * Every returned future completes on the caller's Vert.x context (or the publisher's thread when there is none).
 */
final class GatewayEvents {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayEvents.class);

    private final BusPublisher publisher;
    private final GatewayMetrics metrics;
    private final String gatewayId;

    GatewayEvents(BusPublisher publisher, GatewayMetrics metrics, String gatewayId) {
        this.publisher = publisher;
        this.metrics = metrics;
        this.gatewayId = gatewayId;
    }

    String gatewayId() {
        return gatewayId;
    }

    Future<Void> registered(AgentClaims claims, String hostId, String agentVersion) {
        return publish(BusEvent.of(claims.clusterId(), claims.infraEnvId(), hostId,
                new HostRegistered(hostId, claims.infraEnvId(), claims.clusterId(), agentVersion, AgentPresence.HTTP,
                        true)));
    }

    Future<Void> reply(AgentClaims claims, String hostId, StepReplyReceived reply) {
        return publish(BusEvent.of(claims.clusterId(), claims.infraEnvId(), hostId, reply));
    }

    Future<Void> progress(AgentClaims claims, String hostId, HostProgressReported progress) {
        return publish(BusEvent.of(claims.clusterId(), claims.infraEnvId(), hostId, progress));
    }

    Future<Void> presence(AgentClaims claims, String hostId, String state, String transport, String agentVersion) {
        return publish(BusEvent.of(claims.clusterId(), claims.infraEnvId(), hostId,
                new AgentPresence(state, transport, gatewayId, agentVersion, true)));
    }

    /**
     * A refused agent message, as a user-visible warning event (name {@code agent_message_rejected}); best effort,
     * callers rate-limit it per host.
     */
    void rejected(AgentClaims claims, String hostId, String reason, String detail) {
        String props = AgentWire.write(java.util.Map.of("reason", reason, "detail", detail, "gateway_id", gatewayId));
        publish(BusEvent.of(claims.clusterId(), claims.infraEnvId(), hostId, new DomainEventRecorded(
                "agent_message_rejected", "warning", "user",
                "Agent message refused by the gateway: " + reason + " (" + detail + ")", Instant.now(), props)));
    }

    private Future<Void> publish(BusEvent event) {
        Promise<Void> promise = Promise.promise();
        io.vertx.core.Context context = io.vertx.core.Vertx.currentContext();
        try {
            publisher.publish(event).whenComplete((ok, failure) -> {
                Runnable complete = () -> {
                    if (failure == null) {
                        promise.complete();
                    } else {
                        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                                ? failure.getCause() : failure;
                        metrics.publishFailed();
                        LOG.warn("bus refused {} for host {}: {}", event.type(), event.hostId(), cause.toString());
                        promise.fail(cause);
                    }
                };
                if (context != null) {
                    context.runOnContext(v -> complete.run());
                } else {
                    complete.run();
                }
            });
        } catch (RuntimeException e) {
            metrics.publishFailed();
            LOG.warn("bus refused {} for host {}: {}", event.type(), event.hostId(), e.toString());
            promise.fail(e);
        }
        return promise.future();
    }
}
