package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.rendezvous.bus.event.HostProgressReported;
import dev.rendezvous.bus.event.StepReplyReceived;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Validation of what agents send, shared by both transports: a clear reason naming the field, or the value. */
final class AgentInput {

    private static final Pattern STEP_TYPE = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    private static final int MAX_STEP_ID = 128;
    private static final int MAX_VERSION = 256;

    private AgentInput() {
    }

    /** Bad agent input; the message names the field and the reason. */
    static final class InvalidInput extends Exception {
        InvalidInput(String message) {
            super(message, null, false, false);
        }
    }

    static StepReplyReceived stepReply(JsonNode node) throws InvalidInput {
        if (node == null || !node.isObject()) {
            throw new InvalidInput("reply: must be a JSON object");
        }
        AgentWire.StepReply reply = read(node, AgentWire.StepReply.class);
        if (reply.stepId() == null || reply.stepId().isBlank()) {
            throw new InvalidInput("step_id: is required");
        }
        if (reply.stepId().length() > MAX_STEP_ID) {
            throw new InvalidInput("step_id: longer than " + MAX_STEP_ID + " characters");
        }
        if (reply.stepType() == null || reply.stepType().isBlank()) {
            throw new InvalidInput("step_type: is required");
        }
        if (!STEP_TYPE.matcher(reply.stepType()).matches()) {
            throw new InvalidInput("step_type: must be lowercase letters, digits and dashes (upstream step type)");
        }
        return new StepReplyReceived(reply.stepType(), reply.stepId(), reply.exitCode() == null ? 0 : reply.exitCode(),
                reply.output() == null ? "" : reply.output(), reply.error() == null ? "" : reply.error());
    }

    /** Upstream's host stages (host-progress current_stage enum). */
    static final java.util.Set<String> STAGES = java.util.Set.of("Starting installation", "Waiting for control plane",
            "Waiting for bootkube", "Waiting for controller", "Installing", "Writing image to disk",
            "Copying registry data to disk", "Rebooting", "Waiting for ignition", "Configuring", "Joined", "Done", "Failed");
    static final int MAX_PROGRESS_INFO = 2048;

    /** PUT .../progress body {@code {"current_stage", "progress_info"}}. */
    static HostProgressReported progress(JsonNode node) throws InvalidInput {
        if (node == null || !node.isObject()) {
            throw new InvalidInput("body: must be a JSON object");
        }
        JsonNode stage = node.get("current_stage");
        if (stage == null || !stage.isTextual()) {
            throw new InvalidInput("current_stage: is required (a string)");
        }
        if (!STAGES.contains(stage.asText())) {
            throw new InvalidInput("current_stage: '" + stage.asText() + "' is not one of " + new java.util.TreeSet<>(STAGES));
        }
        JsonNode info = node.get("progress_info");
        if (info != null && !info.isNull() && !info.isTextual()) {
            throw new InvalidInput("progress_info: must be a string");
        }
        String text = info == null || info.isNull() ? "" : info.asText();
        if (text.length() > MAX_PROGRESS_INFO) {
            throw new InvalidInput("progress_info: longer than " + MAX_PROGRESS_INFO + " characters");
        }
        return new HostProgressReported(stage.asText(), text);
    }

    static AgentWire.HostCreateParams hostCreateParams(JsonNode node) throws InvalidInput {
        if (node == null || !node.isObject()) {
            throw new InvalidInput("body: must be a JSON object (host-create-params)");
        }
        AgentWire.HostCreateParams params = read(node, AgentWire.HostCreateParams.class);
        if (params.hostId() == null) {
            throw new InvalidInput("host_id: is required");
        }
        if (!AgentTokens.isUuid(params.hostId())) {
            throw new InvalidInput("host_id: must be a UUID");
        }
        if (params.discoveryAgentVersion() != null && params.discoveryAgentVersion().length() > MAX_VERSION) {
            throw new InvalidInput("discovery_agent_version: longer than " + MAX_VERSION + " characters");
        }
        return params;
    }

    static String hostId(String pathValue) throws InvalidInput {
        if (!AgentTokens.isUuid(pathValue)) {
            throw new InvalidInput("host_id: must be a UUID");
        }
        return pathValue.toLowerCase(java.util.Locale.ROOT);
    }

    static String agentVersion(String header) {
        return header == null || header.length() > MAX_VERSION ? null : header;
    }

    static JsonNode parse(byte[] body) throws InvalidInput {
        if (body == null || body.length == 0) {
            throw new InvalidInput("body: is required");
        }
        try {
            return AgentWire.JSON.readTree(body);
        } catch (java.io.IOException e) {
            throw new InvalidInput("body: malformed JSON (" + shortMessage(e) + ")");
        }
    }

    /** A websocket message as it came, UTF-8: parsed from its bytes, without a String of it first (replies are up to MBs). */
    static JsonNode parseMessage(byte[] utf8) throws InvalidInput {
        return message(() -> AgentWire.JSON.readTree(utf8));
    }

    /** Part of a binary message, UTF-8: a JSON object. */
    static JsonNode parseMessage(byte[] utf8, int offset, int length) throws InvalidInput {
        return message(() -> AgentWire.JSON.readTree(AgentWire.JSON.createParser(utf8, offset, length)));
    }

    /** Part of a binary message as text; malformed UTF-8 is refused, as in a JSON text message. */
    static String utf8(byte[] bytes, int offset, int length) throws InvalidInput {
        try {
            return java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes, offset, length)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new InvalidInput("output: not UTF-8 (" + e.getMessage() + ")");
        }
    }

    private interface TreeRead {
        JsonNode read() throws java.io.IOException;
    }

    private static JsonNode message(TreeRead read) throws InvalidInput {
        try {
            JsonNode node = read.read();
            if (node == null || !node.isObject()) {
                throw new InvalidInput("message: must be a JSON object");
            }
            return node;
        } catch (java.io.IOException e) {
            throw new InvalidInput("message: malformed JSON (" + shortMessage(e) + ")");
        }
    }

    private static <T> T read(JsonNode node, Class<T> type) throws InvalidInput {
        try {
            return AgentWire.JSON.treeToValue(node, type);
        } catch (MismatchedInputException e) {
            String field = e.getPath().stream().map(r -> r.getFieldName() == null ? "[" + r.getIndex() + "]" : r.getFieldName())
                    .collect(Collectors.joining("."));
            throw new InvalidInput((field.isEmpty() ? "body" : field) + ": wrong type (" + shortMessage(e) + ")");
        } catch (JsonProcessingException e) {
            throw new InvalidInput("body: " + shortMessage(e));
        }
    }

    private static String shortMessage(Exception e) {
        String message = e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
        if (message == null) {
            return e.getClass().getSimpleName();
        }
        return message.length() > 200 ? message.substring(0, 200) + "..." : message;
    }
}
