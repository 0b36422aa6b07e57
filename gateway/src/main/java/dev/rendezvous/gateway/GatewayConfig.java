package dev.rendezvous.gateway;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;

/**
 * Everything the gateway can be told, read from {@code --flag=value} arguments and {@code RDV_*} environment
 * variables (a flag wins over the variable); local defaults for everything except the token secret.
 *
 * @param agentTokenSecret       HMAC key of the agent tokens ({@code RDV_AGENT_TOKEN_SECRET}, at least 16 bytes)
 * @param gatewayId              this instance's name in presence events ({@code RDV_GATEWAY_ID}, default random)
 * @param host                   listen address of the standalone verticle ({@code RDV_GATEWAY_HOST})
 * @param port                   listen port of the standalone verticle ({@code RDV_GATEWAY_PORT}, 0 = any free port)
 * @param maxBodyBytes           largest HTTP body and websocket message accepted ({@code RDV_GATEWAY_MAX_BODY_BYTES})
 * @param heartbeat              websocket heartbeat period ({@code RDV_GATEWAY_HEARTBEAT_SECONDS}); silence for two
 *                               periods closes the connection
 * @param longPollDefault        hold time of a GET instructions without {@code wait_seconds}
 * @param longPollMax            largest {@code wait_seconds} accepted
 * @param idleNextInstructionSeconds {@code next_instruction_seconds} of an empty Steps answer (0: poll again at once)
 * @param httpPresenceGrace      an HTTP agent counts as attached to this gateway until
 *                               last contact + its {@code next_instruction_seconds} + this grace
 * @param checkInInterval        at most one {@code checked-in} presence event per host per interval
 * @param maxQueuedMessages      websocket messages kept per connection while its socket's write queue is full;
 *                               one more closes the connection (code 1013)
 * @param retryAfterSeconds      {@code Retry-After} of a 503 when the bus refused a write
 * @param registrationRetrySeconds {@code next_step_runner_command.retry_seconds} given at registration
 * @param agentImage             {@code agent_version} put into {@code next_step_cmd_request}; empty = the
 *                               registering agent's own version
 * @param kafkaBootstrap         Kafka bootstrap servers for the standalone verticle ({@code RDV_KAFKA_BOOTSTRAP})
 * @param hostRecheck            how often an attached host is confirmed registered with the service
 *                               ({@code RDV_GATEWAY_HOST_RECHECK_SECONDS}), and how long it must have been missing,
 *                               while the service keeps up, before it is answered 404
 */
public record GatewayConfig(
        byte[] agentTokenSecret,
        String gatewayId,
        String host,
        int port,
        int maxBodyBytes,
        Duration heartbeat,
        Duration longPollDefault,
        Duration longPollMax,
        int idleNextInstructionSeconds,
        Duration httpPresenceGrace,
        Duration checkInInterval,
        int maxQueuedMessages,
        int retryAfterSeconds,
        int registrationRetrySeconds,
        String agentImage,
        String kafkaBootstrap,
        Duration hostRecheck) {

    public static final int DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
    public static final int MIN_SECRET_BYTES = 16;

    public GatewayConfig {
        Objects.requireNonNull(agentTokenSecret, "agent token secret");
        if (agentTokenSecret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("RDV_AGENT_TOKEN_SECRET must be at least " + MIN_SECRET_BYTES + " bytes");
        }
        agentTokenSecret = agentTokenSecret.clone();
        requirePositive(maxBodyBytes, "max body bytes");
        requirePositive(heartbeat.toMillis(), "heartbeat");
        requirePositive(maxQueuedMessages, "max queued messages");
        requirePositive(hostRecheck.toMillis(), "host recheck");
        if (longPollDefault.compareTo(longPollMax) > 0) {
            throw new IllegalArgumentException("long poll default hold exceeds the maximum");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        gatewayId = gatewayId == null || gatewayId.isBlank() ? "gateway-" + UUID.randomUUID().toString().substring(0, 8) : gatewayId;
        agentImage = agentImage == null ? "" : agentImage;
    }

    /** Defaults for everything, with the given token secret. */
    public static GatewayConfig withSecret(String secret) {
        return fromSources(Map.of("RDV_AGENT_TOKEN_SECRET", secret), new String[0]);
    }

    /** From the process's environment and command-line flags. */
    public static GatewayConfig fromEnvironment(String[] args) {
        return fromSources(System.getenv(), args);
    }

    /**
     * From an environment map and flags; flag {@code --gateway-port=1} overrides {@code RDV_GATEWAY_PORT}
     * (flag name = variable without {@code RDV_}, lower case, dashes).
     */
    public static GatewayConfig fromSources(Map<String, String> env, String[] args) {
        Map<String, String> values = new HashMap<>(env);
        for (String arg : args) {
            if (arg.startsWith("--") && arg.contains("=")) {
                String name = arg.substring(2, arg.indexOf('='));
                values.put("RDV_" + name.toUpperCase(Locale.ROOT).replace('-', '_'), arg.substring(arg.indexOf('=') + 1));
            }
        }
        Function<String, String> get = values::get;
        String secret = get.apply("RDV_AGENT_TOKEN_SECRET");
        if (secret == null || secret.isBlank()) {
            throw new IllegalArgumentException("RDV_AGENT_TOKEN_SECRET is required (the HMAC key of agent tokens, >= "
                    + MIN_SECRET_BYTES + " bytes)");
        }
        return new GatewayConfig(
                secret.getBytes(StandardCharsets.UTF_8),
                get.apply("RDV_GATEWAY_ID"),
                or(get.apply("RDV_GATEWAY_HOST"), "0.0.0.0"),
                intOf(values, "RDV_GATEWAY_PORT", 8091),
                intOf(values, "RDV_GATEWAY_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES),
                Duration.ofSeconds(intOf(values, "RDV_GATEWAY_HEARTBEAT_SECONDS", 15)),
                Duration.ofSeconds(intOf(values, "RDV_GATEWAY_LONG_POLL_SECONDS", 25)),
                Duration.ofSeconds(intOf(values, "RDV_GATEWAY_LONG_POLL_MAX_SECONDS", 60)),
                intOf(values, "RDV_GATEWAY_IDLE_NEXT_INSTRUCTION_SECONDS", 0),
                Duration.ofSeconds(intOf(values, "RDV_GATEWAY_HTTP_PRESENCE_GRACE_SECONDS", 90)),
                Duration.ofSeconds(intOf(values, "RDV_GATEWAY_CHECK_IN_INTERVAL_SECONDS", 60)),
                intOf(values, "RDV_GATEWAY_MAX_QUEUED_MESSAGES", 64),
                intOf(values, "RDV_GATEWAY_RETRY_AFTER_SECONDS", 5),
                intOf(values, "RDV_GATEWAY_REGISTRATION_RETRY_SECONDS", 60),
                get.apply("RDV_AGENT_IMAGE"),
                or(get.apply("RDV_KAFKA_BOOTSTRAP"), "127.0.0.1:9092"),
                Duration.ofSeconds(intOf(values, "RDV_GATEWAY_HOST_RECHECK_SECONDS", 30)));
    }

    public GatewayConfig withPort(int newPort) {
        return new GatewayConfig(agentTokenSecret, gatewayId, host, newPort, maxBodyBytes, heartbeat, longPollDefault,
                longPollMax, idleNextInstructionSeconds, httpPresenceGrace, checkInInterval,
                maxQueuedMessages, retryAfterSeconds, registrationRetrySeconds, agentImage, kafkaBootstrap, hostRecheck);
    }

    public GatewayConfig withKafkaBootstrap(String bootstrap) {
        return new GatewayConfig(agentTokenSecret, gatewayId, host, port, maxBodyBytes, heartbeat, longPollDefault,
                longPollMax, idleNextInstructionSeconds, httpPresenceGrace, checkInInterval,
                maxQueuedMessages, retryAfterSeconds, registrationRetrySeconds, agentImage, bootstrap, hostRecheck);
    }

    public GatewayConfig withHeartbeat(Duration newHeartbeat) {
        return new GatewayConfig(agentTokenSecret, gatewayId, host, port, maxBodyBytes, newHeartbeat, longPollDefault,
                longPollMax, idleNextInstructionSeconds, httpPresenceGrace, checkInInterval,
                maxQueuedMessages, retryAfterSeconds, registrationRetrySeconds, agentImage, kafkaBootstrap, hostRecheck);
    }

    public GatewayConfig withMaxBodyBytes(int newMax) {
        return new GatewayConfig(agentTokenSecret, gatewayId, host, port, newMax, heartbeat, longPollDefault,
                longPollMax, idleNextInstructionSeconds, httpPresenceGrace, checkInInterval,
                maxQueuedMessages, retryAfterSeconds, registrationRetrySeconds, agentImage, kafkaBootstrap, hostRecheck);
    }

    public GatewayConfig withHostRecheck(Duration recheck) {
        return new GatewayConfig(agentTokenSecret, gatewayId, host, port, maxBodyBytes, heartbeat, longPollDefault,
                longPollMax, idleNextInstructionSeconds, httpPresenceGrace, checkInInterval,
                maxQueuedMessages, retryAfterSeconds, registrationRetrySeconds, agentImage, kafkaBootstrap, recheck);
    }

    /** The secret is a key: a copy, so nobody mutates ours. */
    @Override
    public byte[] agentTokenSecret() {
        return agentTokenSecret.clone();
    }

    /** Keeps the secret out of logs. */
    @Override
    public String toString() {
        return "GatewayConfig[gatewayId=" + gatewayId + ", host=" + host + ", port=" + port + ", maxBodyBytes="
                + maxBodyBytes + ", heartbeat=" + heartbeat + ", longPollDefault=" + longPollDefault + ", longPollMax="
                + longPollMax + ", idleNextInstructionSeconds=" + idleNextInstructionSeconds + ", httpPresenceGrace="
                + httpPresenceGrace + ", checkInInterval=" + checkInInterval + ", maxQueuedMessages=" + maxQueuedMessages + ", retryAfterSeconds=" + retryAfterSeconds
                + ", registrationRetrySeconds=" + registrationRetrySeconds + ", agentImage=" + agentImage
                + ", kafkaBootstrap=" + kafkaBootstrap + ", hostRecheck=" + hostRecheck + ", agentTokenSecret=<hidden>]";
    }

    private static String or(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value;
    }

    private static int intOf(Map<String, String> values, String name, int fallback) {
        String raw = values.get(name);
        if (raw == null || raw.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(raw.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, got '" + raw + "'");
        }
    }

    private static void requirePositive(long value, String what) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive");
        }
    }
}
