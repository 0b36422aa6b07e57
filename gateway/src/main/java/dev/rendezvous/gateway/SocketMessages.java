package dev.rendezvous.gateway;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/** The gateway → agent websocket messages (docs/agent-protocol.md). */
final class SocketMessages {

    /** The highest version spoken: 2 adds step replies as binary messages (their output not escaped as a JSON string). */
    static final int PROTOCOL_VERSION = 2;
    static final List<Integer> SUPPORTED_VERSIONS = List.of(1, PROTOCOL_VERSION);
    /** From this version on, a step reply may come as a binary message. */
    static final int BINARY_REPLIES_FROM = 2;

    /** Error codes. */
    static final String UNSUPPORTED_VERSION = "unsupported-version";
    static final String HELLO_REQUIRED = "hello-required";
    static final String MALFORMED = "malformed";
    static final String UNKNOWN_TYPE = "unknown-type";
    static final String INVALID_REPLY = "invalid-reply";
    static final String FRAME_TOO_LARGE = "frame-too-large";
    static final String BUS_UNAVAILABLE = "bus-unavailable";
    static final String ALREADY_WELCOMED = "already-welcomed";
    static final String HOST_UNKNOWN = "host-unknown";

    /** Close codes. */
    static final short CLOSE_PROTOCOL_ERROR = 1002;
    static final short CLOSE_GOING_AWAY = 1001;
    static final short CLOSE_TRY_AGAIN_LATER = 1013;
    static final short CLOSE_REPLACED = 4000;
    /** The service does not have the host (deleted, or never registered): upstream's 404. */
    static final short CLOSE_HOST_UNKNOWN = 4404;

    private SocketMessages() {
    }

    @JsonPropertyOrder({"type", "version", "heartbeat_seconds", "max_frame_bytes"})
    record Welcome(@JsonProperty("type") String type, @JsonProperty("version") int version,
                   @JsonProperty("heartbeat_seconds") int heartbeatSeconds,
                   @JsonProperty("max_frame_bytes") int maxFrameBytes) {
        Welcome(int version, int heartbeatSeconds, int maxFrameBytes) {
            this("welcome", version, heartbeatSeconds, maxFrameBytes);
        }
    }

    @JsonPropertyOrder({"type", "steps"})
    record StepsMessage(@JsonProperty("type") String type, @JsonProperty("steps") AgentWire.Steps steps) {
        StepsMessage(AgentWire.Steps steps) {
            this("steps", steps);
        }
    }

    record Ack(@JsonProperty("type") String type, @JsonProperty("step_id") String stepId) {
        Ack(String stepId) {
            this("ack", stepId);
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"type", "code", "reason", "retryable", "step_id", "supported"})
    record Error(@JsonProperty("type") String type, @JsonProperty("code") String code,
                 @JsonProperty("reason") String reason, @JsonProperty("retryable") boolean retryable,
                 @JsonProperty("step_id") String stepId, @JsonProperty("supported") List<Integer> supported) {
        Error(String code, String reason, boolean retryable, String stepId) {
            this("error", code, reason, retryable, stepId, null);
        }
    }
}
