package dev.rendezvous.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The gateway's meters. Names are Micrometer dot names; the Prometheus registry renders them as
 * {@code rdv_gateway_agents_connected}, {@code rdv_gateway_steps_delivered_total},
 * {@code rdv_gateway_step_delivery_latency_seconds_bucket}, {@code rdv_gateway_step_replies_received_total},
 * {@code rdv_gateway_messages_rejected_total}, {@code rdv_gateway_bus_publish_failures_total}.
 */
public final class GatewayMetrics {

    public static final String CONNECTED_AGENTS = "rdv.gateway.agents.connected";
    public static final String STEPS_DELIVERED = "rdv.gateway.steps.delivered";
    public static final String DELIVERY_LATENCY = "rdv.gateway.step.delivery.latency";
    public static final String REPLIES_RECEIVED = "rdv.gateway.step.replies.received";
    public static final String MESSAGES_REJECTED = "rdv.gateway.messages.rejected";
    public static final String BUS_PUBLISH_FAILURES = "rdv.gateway.bus.publish.failures";
    public static final String REPLIES_HELD = "rdv.gateway.replies.held";
    public static final String REPLIES_WAITING = "rdv.gateway.replies.waiting";
    public static final String PACE_FACTOR = "rdv.gateway.pace.factor";

    /** Reasons of {@link #MESSAGES_REJECTED}. */
    public static final String REASON_UNAUTHENTICATED = "unauthenticated";
    public static final String REASON_FORBIDDEN = "forbidden";
    public static final String REASON_TOO_LARGE = "too-large";
    public static final String REASON_MALFORMED = "malformed";
    public static final String REASON_UNKNOWN_TYPE = "unknown-type";
    public static final String REASON_UNSUPPORTED_VERSION = "unsupported-version";
    public static final String REASON_SLOW_CONSUMER = "slow-consumer";
    public static final String REASON_BUS_UNAVAILABLE = "bus-unavailable";
    /** A host the service does not have (deleted, or never registered) answered 404. */
    public static final String REASON_HOST_UNKNOWN = "host-unknown";
    /** An agent of an infra-env the user deleted answered 404. */
    public static final String REASON_INFRA_ENV_UNKNOWN = "infra-env-unknown";
    /** The agent went away while its step reply, registration or progress was held: never answered nor taken. */
    public static final String REASON_GONE_WHILE_HELD = "gone-while-held";
    /** A plan waiting for a poll was replaced by a newer one before the host saw it. */
    public static final String REASON_STALE_STEPS = "plan-superseded";

    private final MeterRegistry registry;
    private final Map<String, Counter> delivered = new ConcurrentHashMap<>();
    private final Map<String, Counter> replies = new ConcurrentHashMap<>();
    private final Map<String, Counter> rejected = new ConcurrentHashMap<>();
    private final Map<String, Timer> latency = new ConcurrentHashMap<>();
    private final Counter publishFailures;
    private final Counter held;

    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.publishFailures = Counter.builder(BUS_PUBLISH_FAILURES)
                .description("Events the bus refused (surfaced to the agent as retryable errors)")
                .register(registry);
        this.held = Counter.builder(REPLIES_HELD)
                .description("Step replies, registrations and progress reports held before the bus while the "
                        + "service was behind")
                .register(registry);
    }

    /** Step replies, registrations and progress reports waiting to go on the bus, read at scrape time. */
    public void heldReplies(Supplier<Number> waiting) {
        Gauge.builder(REPLIES_WAITING, waiting)
                .description("Step replies, registrations and progress reports held back right now while the service "
                        + "is behind")
                .register(registry);
    }

    public void replyHeld() {
        held.increment();
    }

    /** The back-pressure factor applied to next_instruction_seconds (1 = none), read at scrape time. */
    public void paceFactor(Supplier<Number> factor) {
        Gauge.builder(PACE_FACTOR, factor).description("How much agents are slowed down while the service is behind")
                .register(registry);
    }

    /** Registers the connected-agents gauge of one transport, read from {@code count} at scrape time. */
    public void connectedAgents(String transport, Supplier<Number> count) {
        Gauge.builder(CONNECTED_AGENTS, count).tag("transport", transport)
                .description("Agents attached to this gateway").register(registry);
    }

    /** Steps written to an agent, and the time from the planner's publish to the write. */
    public void delivered(String transport, int steps, Duration sincePublish) {
        delivered.computeIfAbsent(transport, t -> Counter.builder(STEPS_DELIVERED).tag("transport", t)
                .description("Steps written to agents").register(registry)).increment(steps);
        latency.computeIfAbsent(transport, t -> Timer.builder(DELIVERY_LATENCY).tag("transport", t)
                .description("From StepsToDeliver occurred_at to the moment the steps were written to the agent")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(2)).register(registry))
                .record(Math.max(0, sincePublish.toNanos()), TimeUnit.NANOSECONDS);
    }

    /** Upstream step types; any other agent-sent value is counted as "other" (bounded tag cardinality). */
    private static final java.util.Set<String> KNOWN_STEP_TYPES = java.util.Set.of(
            "connectivity-check", "execute", "inventory", "install", "free-network-addresses", "dhcp-lease-allocate",
            "api-vip-connectivity-check", "tang-connectivity-check", "ntp-synchronizer",
            "installation-disk-speed-check", "container-image-availability", "domain-resolution",
            "stop-installation", "logs-gather", "next-step-runner", "upgrade-agent", "download-boot-artifacts",
            "reboot-for-reclaim", "verify-vips");

    public void replyReceived(String stepType) {
        replies.computeIfAbsent(KNOWN_STEP_TYPES.contains(stepType) ? stepType : "other", t -> Counter.builder(REPLIES_RECEIVED).tag("step_type", t)
                .description("Step replies taken by the bus").register(registry)).increment();
    }

    public void rejected(String reason) {
        rejected.computeIfAbsent(reason, r -> Counter.builder(MESSAGES_REJECTED).tag("reason", r)
                .description("Agent requests and messages refused").register(registry)).increment();
    }

    public void publishFailed() {
        publishFailures.increment();
    }
}
