package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.gateway.AgentInput.InvalidInput;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocketFrame;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent websocket, confined to its event loop (only {@link #push} and {@link #replaced} come from elsewhere,
 * and they hop onto the loop).
 *
 * <p>Inbound: messages are assembled from frames here, never beyond {@code max_frame_bytes}: a bigger message is
 * skipped to its last frame and answered {@code frame-too-large}; the connection stays open.
 *
 * <p>Outbound back-pressure: a message is written at once while the socket's write queue has room. Once it is
 * full, messages wait in this connection's own queue (flushed by the drain handler), heartbeats are skipped;
 * when that queue already holds {@code max_queued_messages}, the agent is too slow: the connection is closed with
 * 1013 (try again later). The agent reconnects, its {@code connected} event re-plans its steps, so nothing is lost
 * and no other connection waits for this one.
 *
 * <p>Liveness: a heartbeat goes out every {@code heartbeat_seconds}; silence (no message at all) for two
 * heartbeats closes the connection (1001), checked every half heartbeat.
 */
final class AgentSocketSession implements HostMailbox.AgentSocket {

    private static final Logger LOG = LoggerFactory.getLogger(AgentSocketSession.class);

    private final ServerWebSocket ws;
    private final Context context;
    private final AgentClaims claims;
    private final HostKey key;
    private final GatewayConfig config;
    private final AgentDirectory directory;
    private final GatewayEvents events;
    private final GatewayMetrics metrics;
    private final RejectionLog rejections;
    private final long silenceNanos;

    private HostMailbox mailbox;
    private boolean welcomed;
    private boolean closing;
    private long lastReceivedNanos;
    private long heartbeatSeq;
    private long ticks;
    private long timer;
    private Buffer assembling;
    private int assembledBytes;
    private boolean assemblingBinary;
    /** The protocol version agreed at hello (0 before). */
    private int version;
    private boolean oversized;
    private ArrayDeque<Outbound> backlog;

    private record Outbound(String text, BusEvent source) {
    }

    private final Pacing pacing;
    private final ReplyAdmission admission;

    AgentSocketSession(ServerWebSocket ws, Context context, AgentClaims claims, HostKey key, GatewayConfig config,
                       AgentDirectory directory, GatewayEvents events, GatewayMetrics metrics, RejectionLog rejections,
                       Pacing pacing, ReplyAdmission admission) {
        this.pacing = pacing;
        this.admission = admission;
        this.ws = ws;
        this.context = context;
        this.claims = claims;
        this.key = key;
        this.config = config;
        this.directory = directory;
        this.events = events;
        this.metrics = metrics;
        this.rejections = rejections;
        this.silenceNanos = config.heartbeat().toNanos() * 2;
    }

    void start() {
        lastReceivedNanos = System.nanoTime();
        ws.frameHandler(this::onFrame);
        ws.drainHandler(v -> flush());
        ws.closeHandler(v -> onClosed());
        ws.exceptionHandler(e -> LOG.debug("websocket of host {}: {}", key.hostId(), e.toString()));
        timer = context.owner().setPeriodic(Math.max(1, config.heartbeat().toMillis() / 2), id -> tick());
    }

    @Override
    public void push(BusEvent stepsEvent) {
        context.runOnContext(v -> send(AgentWire.write(new SocketMessages.StepsMessage(
                pacing.paced(AgentWire.Steps.of((StepsToDeliver) stepsEvent.payload())))), stepsEvent));
    }

    @Override
    public void replaced() {
        context.runOnContext(v -> close(SocketMessages.CLOSE_REPLACED, "replaced by a newer connection of this host"));
    }

    @Override
    public void hostUnknown() {
        context.runOnContext(v -> {
            mailbox = null; // evicted: nothing to detach
            sendError(SocketMessages.HOST_UNKNOWN, "host " + key.hostId() + " not found", false, null);
            close(SocketMessages.CLOSE_HOST_UNKNOWN, "host not found");
        });
    }

    private void onFrame(WebSocketFrame frame) {
        if (frame.isText() || frame.isBinary()) {
            assembling = Buffer.buffer();
            assembledBytes = 0;
            oversized = false;
            assemblingBinary = frame.isBinary();
        } else if (!frame.isContinuation() || assembling == null && !oversized) {
            if (frame.isPing()) {
                lastReceivedNanos = System.nanoTime();
            }
            return;
        }
        lastReceivedNanos = System.nanoTime();
        Buffer data = frame.binaryData();
        assembledBytes += data.length();
        if (assembledBytes > config.maxBodyBytes()) {
            oversized = true;
            assembling = null;
        } else if (!oversized) {
            assembling.appendBuffer(data);
        }
        if (!frame.isFinal()) {
            return;
        }
        Buffer message = assembling;
        assembling = null;
        if (oversized) {
            oversized = false;
            metrics.rejected(GatewayMetrics.REASON_TOO_LARGE);
            rejections.record(claims, key.hostId(), GatewayMetrics.REASON_TOO_LARGE,
                    "websocket message over " + config.maxBodyBytes() + " bytes");
            sendError(SocketMessages.FRAME_TOO_LARGE, "message larger than max_frame_bytes (" + config.maxBodyBytes()
                    + ")", false, null);
        } else if (assemblingBinary) {
            if (welcomed && version >= SocketMessages.BINARY_REPLIES_FROM) {
                onBinaryMessage(message.getBytes());
            } else {
                reject(GatewayMetrics.REASON_MALFORMED, SocketMessages.MALFORMED,
                        "binary frames are not accepted before protocol version " + SocketMessages.BINARY_REPLIES_FROM
                                + ", send JSON text");
            }
        } else {
            onMessage(message.getBytes());
        }
    }

    private void onMessage(byte[] utf8) {
        if (mailbox != null) {
            directory.contact(mailbox, AgentPresence.WEBSOCKET);
        }
        JsonNode message;
        try {
            message = AgentInput.parseMessage(utf8);
        } catch (InvalidInput e) {
            reject(GatewayMetrics.REASON_MALFORMED, SocketMessages.MALFORMED, e.getMessage());
            return;
        }
        JsonNode type = message.get("type");
        if (type == null || !type.isTextual()) {
            reject(GatewayMetrics.REASON_MALFORMED, SocketMessages.MALFORMED, "type: is required (string)");
            return;
        }
        if (!welcomed) {
            if ("hello".equals(type.textValue())) {
                hello(message);
            } else {
                reject(GatewayMetrics.REASON_MALFORMED, SocketMessages.HELLO_REQUIRED, "the first message must be hello");
            }
            return;
        }
        switch (type.textValue()) {
            case "heartbeat" -> { }
            case "step_reply" -> stepReply(message);
            case "error" -> LOG.debug("agent of host {} reported error {}", key.hostId(), message.path("code").asText());
            case "hello" -> sendError(SocketMessages.ALREADY_WELCOMED, "hello was already answered", false, null);
            default -> reject(GatewayMetrics.REASON_UNKNOWN_TYPE, SocketMessages.UNKNOWN_TYPE,
                    "unknown message type '" + abbreviate(type.textValue()) + "'");
        }
    }

    private void hello(JsonNode message) {
        JsonNode versions = message.get("versions");
        if (versions == null || !versions.isArray()) {
            reject(GatewayMetrics.REASON_MALFORMED, SocketMessages.MALFORMED, "versions: is required (array of integers)");
            return;
        }
        int common = 0;
        for (JsonNode v : versions) {
            if (v.isInt() && SocketMessages.SUPPORTED_VERSIONS.contains(v.intValue())) {
                common = Math.max(common, v.intValue());
            }
        }
        if (common == 0) {
            metrics.rejected(GatewayMetrics.REASON_UNSUPPORTED_VERSION);
            send(AgentWire.write(new SocketMessages.Error("error", SocketMessages.UNSUPPORTED_VERSION,
                    "no common protocol version; this gateway speaks " + SocketMessages.SUPPORTED_VERSIONS, false, null,
                    SocketMessages.SUPPORTED_VERSIONS)), null);
            close(SocketMessages.CLOSE_PROTOCOL_ERROR, "unsupported protocol version");
            return;
        }
        welcomed = true;
        version = common;
        JsonNode agentVersion = message.get("agent_version");
        String agent = agentVersion != null && agentVersion.isTextual() ? AgentInput.agentVersion(agentVersion.textValue()) : null;
        int heartbeatSeconds = (int) Math.max(1, (config.heartbeat().toMillis() + 999) / 1000);
        send(AgentWire.write(new SocketMessages.Welcome(version, heartbeatSeconds,
                config.maxBodyBytes())), null);
        directory.attachSocket(claims, key, agent, this).onComplete(attached -> {
            if (attached.succeeded()) {
                mailbox = attached.result();
                if (closing) {
                    directory.detachSocket(mailbox, this);
                }
                return;
            }
            if (attached.cause() instanceof AgentDirectory.HostUnknown unknown) {
                sendError(SocketMessages.HOST_UNKNOWN, unknown.getMessage(), false, null);
                close(SocketMessages.CLOSE_HOST_UNKNOWN, "host not found");
                return;
            }
            metrics.rejected(GatewayMetrics.REASON_BUS_UNAVAILABLE);
            sendError(SocketMessages.BUS_UNAVAILABLE, "the event bus is unavailable, reconnect later", true, null);
            close(SocketMessages.CLOSE_TRY_AGAIN_LATER, "event bus unavailable");
        });
    }

    private void stepReply(JsonNode message) {
        StepReplyReceived reply;
        try {
            reply = AgentInput.stepReply(message.get("reply"));
        } catch (InvalidInput e) {
            invalidReply(message, e);
            return;
        }
        publishReply(reply);
    }

    /**
     * A binary message (protocol version 2): a 4-byte big-endian length, that many bytes of a {@code step_reply}
     * message's JSON without the reply's {@code output}, then the output itself as UTF-8. A big output (a 1,000-host
     * cluster's connectivity report is ~300 KB) is then neither escaped by the agent nor unescaped here.
     */
    private void onBinaryMessage(byte[] bytes) {
        if (mailbox != null) {
            directory.contact(mailbox, AgentPresence.WEBSOCKET);
        }
        int length = bytes.length >= 4 ? java.nio.ByteBuffer.wrap(bytes, 0, 4).getInt() : -1;
        if (length < 2 || length > bytes.length - 4) {
            reject(GatewayMetrics.REASON_MALFORMED, SocketMessages.MALFORMED, "binary message: its header length ("
                    + length + ") does not fit in its " + bytes.length + " bytes");
            return;
        }
        JsonNode message;
        String output;
        try {
            message = AgentInput.parseMessage(bytes, 4, length);
            output = AgentInput.utf8(bytes, 4 + length, bytes.length - 4 - length);
        } catch (InvalidInput e) {
            reject(GatewayMetrics.REASON_MALFORMED, SocketMessages.MALFORMED, e.getMessage());
            return;
        }
        if (!"step_reply".equals(message.path("type").asText(null))) {
            reject(GatewayMetrics.REASON_MALFORMED, SocketMessages.MALFORMED,
                    "type: a binary message carries a step_reply only");
            return;
        }
        StepReplyReceived reply;
        try {
            if (message.path("reply").has("output")) {
                throw new InvalidInput("output: follows the header of a binary message, not inside it");
            }
            reply = AgentInput.stepReply(message.get("reply"));
        } catch (InvalidInput e) {
            invalidReply(message, e);
            return;
        }
        publishReply(new StepReplyReceived(reply.stepType(), reply.stepId(), reply.exitCode(), output, reply.error()));
    }

    private void invalidReply(JsonNode message, InvalidInput e) {
        JsonNode stepId = message.path("reply").get("step_id");
        metrics.rejected(GatewayMetrics.REASON_MALFORMED);
        rejections.record(claims, key.hostId(), GatewayMetrics.REASON_MALFORMED, e.getMessage());
        sendError(SocketMessages.INVALID_REPLY, e.getMessage(), false,
                stepId != null && stepId.isTextual() ? abbreviate(stepId.textValue()) : null);
    }

    private void publishReply(StepReplyReceived reply) {
        // as over HTTP: a host refused here before has its replies held until the service says it has the host
        directory.mayReply(key).onComplete(allowed -> {
            if (allowed.succeeded() && !allowed.result()) {
                sendError(SocketMessages.HOST_UNKNOWN, "host " + key.hostId() + " not found", false, reply.stepId());
                return;
            }
            admission.admit().compose(v -> {
                if (closing) { // gone while held: never acknowledged, so not taken (it would overtake newer replies)
                    metrics.rejected(GatewayMetrics.REASON_GONE_WHILE_HELD);
                    return Future.failedFuture(new IllegalStateException("closed"));
                }
                return events.reply(claims, key.hostId(), reply);
            }).onComplete(published -> {
                if (published.succeeded()) {
                    metrics.replyReceived(reply.stepType());
                    send(AgentWire.write(new SocketMessages.Ack(reply.stepId())), null);
                } else if (!closing) {
                    metrics.rejected(GatewayMetrics.REASON_BUS_UNAVAILABLE);
                    sendError(SocketMessages.BUS_UNAVAILABLE, "the event bus did not take the reply, resend it later",
                            true, reply.stepId());
                }
            });
        });
    }

    private void tick() {
        if (gone()) {
            return;
        }
        if (System.nanoTime() - lastReceivedNanos > silenceNanos) {
            LOG.debug("host {} silent for two heartbeats, closing its websocket", key.hostId());
            close(SocketMessages.CLOSE_GOING_AWAY, "heartbeat timeout");
            return;
        }
        if (welcomed && ++ticks % 2 == 0 && !ws.writeQueueFull() && (backlog == null || backlog.isEmpty())) {
            write(new Outbound("{\"type\":\"heartbeat\",\"seq\":" + ++heartbeatSeq + "}", null));
        }
    }

    private void reject(String reason, String code, String message) {
        metrics.rejected(reason);
        sendError(code, message, false, null);
    }

    private void sendError(String code, String reason, boolean retryable, String stepId) {
        send(AgentWire.write(new SocketMessages.Error(code, reason, retryable, stepId)), null);
    }

    private void send(String text, BusEvent source) {
        if (gone()) {
            return;
        }
        boolean queued = backlog != null && !backlog.isEmpty();
        if (!queued && !ws.writeQueueFull()) {
            write(new Outbound(text, source));
            return;
        }
        if (backlog == null) {
            backlog = new ArrayDeque<>();
        }
        if (backlog.size() >= config.maxQueuedMessages()) {
            metrics.rejected(GatewayMetrics.REASON_SLOW_CONSUMER);
            LOG.info("host {} reads too slowly ({} messages queued), closing its websocket", key.hostId(), backlog.size());
            close(SocketMessages.CLOSE_TRY_AGAIN_LATER, "outbound queue full");
            return;
        }
        backlog.addLast(new Outbound(text, source));
    }

    private void flush() {
        while (backlog != null && !backlog.isEmpty() && !gone() && !ws.writeQueueFull()) {
            write(backlog.pollFirst());
        }
    }

    private void write(Outbound message) {
        ws.writeTextMessage(message.text()).onSuccess(v -> {
            if (message.source() != null) {
                metrics.delivered(AgentPresence.WEBSOCKET,
                        ((StepsToDeliver) message.source().payload()).instructions().size(),
                        Duration.between(message.source().occurredAt(), Instant.now()));
            }
        });
    }

    /**
     * Closing, or closed by the agent's side before our close handler ran: the socket refuses every write then
     * (writeQueueFull throws "WebSocket is closed"; at 10,000 agents going away, 97 such ERROR lines from the timer).
     */
    private boolean gone() {
        return closing || ws.isClosed();
    }

    private void close(short code, String reason) {
        if (closing) {
            return;
        }
        closing = true;
        backlog = null;
        ws.close(code, reason);
    }

    private void onClosed() {
        closing = true;
        backlog = null;
        context.owner().cancelTimer(timer);
        if (mailbox != null) {
            directory.detachSocket(mailbox, this);
        }
    }

    private static String abbreviate(String value) {
        return value.length() > 64 ? value.substring(0, 64) + "..." : value;
    }
}
