package dev.rendezvous.agent.transport;

import dev.rendezvous.agent.AgentVersion;
import dev.rendezvous.agent.wire.StepReply;
import dev.rendezvous.agent.wire.Steps;
import dev.rendezvous.agent.wire.WireJson;
import dev.rendezvous.agent.wire.WsMessage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One websocket connection to the gateway (docs/agent-protocol.md "Websocket"): hello → welcome, then
 * steps / step_reply / ack / heartbeat / error. Sends a heartbeat every {@code heartbeat_seconds} and
 * closes when nothing arrived for two of them; answers an unknown {@code type} with an {@code error}
 * and stays open. Runs on the agent's context; {@link #ended()} tells why it closed.
 */
final class WebSocketSession {
  private static final Logger LOG = LoggerFactory.getLogger(WebSocketSession.class);
  static final long WELCOME_TIMEOUT_MS = 10_000;

  /** How a session ended; {@code HOST_UNKNOWN}: the service does not have the host (error or close code 4404). */
  enum End { CLOSED, EXIT, UNSUPPORTED_VERSION, HOST_UNKNOWN }

  /** The gateway's close code for a host the service does not have (upstream's 404). */
  static final int CLOSE_HOST_UNKNOWN = 4404;

  enum Send { SENT, TOO_LARGE, NOT_OPEN }

  interface Listener {
    void established(WebSocketSession session, WsMessage.Welcome welcome);

    void steps(WebSocketSession session, Steps steps);

    void ack(String stepId);

    void error(WebSocketSession session, WsMessage.Error error);
  }

  private final Vertx vertx;
  private final WebSocket ws;
  private final String agentVersion;
  private final Listener listener;
  private final AgentStats stats;
  private final Promise<End> end = Promise.promise();
  private End endReason = End.CLOSED;
  /** From this protocol version on, step replies go as binary messages. */
  static final int BINARY_REPLIES_FROM = 2;

  private boolean welcomed;
  /** The version the gateway welcomed (0 before). */
  private int version;
  private boolean closed;
  private long maxFrameBytes = Long.MAX_VALUE;
  private long heartbeatMs;
  private long lastReceived = System.nanoTime();
  private long seq;
  private long timer = -1;

  WebSocketSession(Vertx vertx, WebSocket ws, String agentVersion, Listener listener, AgentStats stats) {
    this.vertx = vertx;
    this.ws = ws;
    this.agentVersion = agentVersion;
    this.listener = listener;
    this.stats = stats;
  }

  Future<End> start() {
    ws.textMessageHandler(this::onText);
    ws.exceptionHandler(t -> LOG.debug("websocket error: {}", t.toString()));
    ws.closeHandler(v -> onClosed());
    write(new WsMessage.Hello(AgentVersion.PROTOCOL_VERSIONS, agentVersion));
    timer = vertx.setTimer(WELCOME_TIMEOUT_MS, t -> {
      if (!welcomed) {
        LOG.warn("no welcome within {} ms; closing", WELCOME_TIMEOUT_MS);
        close((short) 1002, "no welcome");
      }
    });
    return end.future();
  }

  Future<End> ended() {
    return end.future();
  }

  boolean isOpen() {
    return welcomed && !closed;
  }

  Send send(StepReply reply) {
    if (!isOpen()) {
      return Send.NOT_OPEN;
    }
    if (version >= BINARY_REPLIES_FROM) {
      // the output follows a small header as its own bytes: a 300 KB report is not escaped into a JSON string
      com.fasterxml.jackson.databind.node.ObjectNode head = WireJson.MAPPER.createObjectNode().put("type", "step_reply");
      head.putObject("reply").put("step_type", reply.stepType()).put("step_id", reply.stepId())
          .put("exit_code", reply.exitCode()).put("error", reply.error());
      byte[] header = head.toString().getBytes(StandardCharsets.UTF_8);
      byte[] output = reply.output().getBytes(StandardCharsets.UTF_8);
      if (4L + header.length + output.length > maxFrameBytes) {
        return Send.TOO_LARGE;
      }
      ws.writeBinaryMessage(io.vertx.core.buffer.Buffer.buffer(java.nio.ByteBuffer.allocate(4 + header.length
          + output.length).putInt(header.length).put(header).put(output).array()));
      return Send.SENT;
    }
    String text = WireJson.writeWs(new WsMessage.StepReplyMessage(reply));
    if (text.getBytes(StandardCharsets.UTF_8).length > maxFrameBytes) {
      return Send.TOO_LARGE;
    }
    ws.writeTextMessage(text);
    return Send.SENT;
  }

  /** Closes after the {@code post_step_action: exit}: the agent is done, not disconnected. */
  void closeForExit() {
    endReason = End.EXIT;
    close((short) 1000, "agent exiting");
  }

  void close(short code, String reason) {
    if (!closed) {
      ws.close(code, reason);
    }
  }

  private void onText(String text) {
    lastReceived = System.nanoTime();
    WsMessage msg;
    try {
      msg = WireJson.MAPPER.readValue(text, WsMessage.class);
    } catch (Exception e) {
      write(new WsMessage.Error("invalid-message", "not a protocol message: " + e.getMessage(), false, null, null));
      return;
    }
    if (msg instanceof WsMessage.Welcome w) {
      onWelcome(w);
    } else if (msg instanceof WsMessage.StepsMessage s) {
      if (s.steps() != null && welcomed) {
        listener.steps(this, s.steps());
      }
    } else if (msg instanceof WsMessage.Ack a) {
      listener.ack(a.stepId());
    } else if (msg instanceof WsMessage.Heartbeat) {
      stats.heartbeatsReceived.increment();
    } else if (msg instanceof WsMessage.Error e) {
      stats.errorsReceived.increment();
      if ("unsupported-version".equals(e.code())) {
        endReason = End.UNSUPPORTED_VERSION;
      } else if ("host-unknown".equals(e.code())) {
        endReason = End.HOST_UNKNOWN;
      }
      listener.error(this, e);
    } else if (msg instanceof WsMessage.Unknown u) {
      write(new WsMessage.Error("unknown-type", "unknown message type '" + u.type() + "'", false, null, null));
    } else {
      write(new WsMessage.Error("unexpected-type",
          "message type not expected from a gateway: " + text.substring(0, Math.min(80, text.length())), false,
          null, null));
    }
  }

  private void onWelcome(WsMessage.Welcome w) {
    if (welcomed) {
      return;
    }
    welcomed = true;
    version = w.version();
    vertx.cancelTimer(timer);
    heartbeatMs = (w.heartbeatSeconds() > 0 ? w.heartbeatSeconds() : 15) * 1000L;
    if (w.maxFrameBytes() > 0) {
      maxFrameBytes = w.maxFrameBytes();
    }
    timer = vertx.setPeriodic(heartbeatMs, t -> {
      if ((System.nanoTime() - lastReceived) / 1_000_000 > 2 * heartbeatMs) {
        LOG.info("nothing from the gateway for 2 heartbeats; closing");
        close((short) 1001, "heartbeat timeout");
        return;
      }
      write(new WsMessage.Heartbeat(++seq));
    });
    listener.established(this, w);
  }

  private void onClosed() {
    closed = true;
    Short code = ws.closeStatusCode();
    if (code != null && code == CLOSE_HOST_UNKNOWN) {
      endReason = End.HOST_UNKNOWN;
    }
    vertx.cancelTimer(timer);
    end.tryComplete(endReason);
  }

  private void write(WsMessage m) {
    if (!closed) {
      ws.writeTextMessage(WireJson.writeWs(m));
    }
  }
}
