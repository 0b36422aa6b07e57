package dev.rendezvous.bus;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.rendezvous.bus.event.StepReplyReceived;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * JSON encoding of {@link BusEvent}s: one shared, configured-once, thread-safe mapper.
 *
 * <p>A step reply's output is itself JSON (an inventory is ~6 KB, a 1,000-host cluster's connectivity report
 * ~300 KB): inside the envelope it would be a JSON string, every quote escaped on the way in and unescaped on the way
 * out. An output of {@value #ATTACH_FROM} characters or more therefore travels after the envelope, as its UTF-8
 * bytes: {@code 0x00}, the envelope's length (4 bytes, big-endian), the envelope (its output null), the output.
 * Envelopes start with '{', so the two forms never mix up; records of either form decode. Internal topics only (the
 * public {@code rdv.events} carries no step replies).
 */
public final class BusCodec {

    /** Outputs shorter than this stay inside the envelope (one JSON document, readable with any tool). */
    static final int ATTACH_FROM = 1024;
    private static final byte ATTACHED = 0;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
            .build();

    private BusCodec() {
    }

    /** The mapper used for bus records (read-only use; do not reconfigure). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static byte[] encode(BusEvent event) {
        try {
            if (event.payload() instanceof StepReplyReceived r && r.output() != null && r.output().length() >= ATTACH_FROM) {
                byte[] envelope = MAPPER.writeValueAsBytes(new BusEvent(event.eventId(), event.occurredAt(),
                        event.clusterId(), event.infraEnvId(), event.hostId(), event.payloadVersion(),
                        new StepReplyReceived(r.stepType(), r.stepId(), r.exitCode(), null, r.error())));
                byte[] output = r.output().getBytes(StandardCharsets.UTF_8);
                return ByteBuffer.allocate(5 + envelope.length + output.length).put(ATTACHED).putInt(envelope.length)
                        .put(envelope).put(output).array();
            }
            return MAPPER.writeValueAsBytes(event);
        } catch (JsonProcessingException e) {
            throw new BusCodecException("cannot encode bus event " + event.eventId() + ": " + e.getOriginalMessage(), e);
        }
    }

    /**
     * Decodes one record value. A payload of an unknown {@code type} decodes as
     * {@link dev.rendezvous.bus.event.UnknownPayload}; anything that is not a valid envelope throws
     * {@link BusCodecException} saying why.
     */
    public static BusEvent decode(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            throw new BusCodecException("empty record value is not a bus event", null);
        }
        try {
            if (bytes[0] == ATTACHED) {
                return withAttachedOutput(bytes);
            }
            BusEvent event = MAPPER.readValue(bytes, BusEvent.class);
            if (event == null) {
                throw new BusCodecException("record value 'null' is not a bus event", null);
            }
            return event;
        } catch (IOException e) {
            Throwable cause = e.getCause() != null && e.getCause() != e ? e.getCause() : e;
            String why = e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
            if (cause instanceof IllegalArgumentException || cause instanceof NullPointerException) {
                why = cause.getMessage();
            }
            throw new BusCodecException("not a bus event (" + bytes.length + " bytes): " + why, e);
        }
    }

    private static BusEvent withAttachedOutput(byte[] bytes) throws IOException {
        int length = bytes.length >= 5 ? ByteBuffer.wrap(bytes, 1, 4).getInt() : -1;
        if (length < 2 || length > bytes.length - 5) {
            throw new BusCodecException("not a bus event (" + bytes.length + " bytes): an attached output's envelope length "
                    + length + " does not fit", null);
        }
        BusEvent e = MAPPER.readValue(bytes, 5, length, BusEvent.class);
        if (!(e != null && e.payload() instanceof StepReplyReceived r) || r.output() != null) {
            throw new BusCodecException("not a bus event (" + bytes.length + " bytes): an attached output must follow a"
                    + " step reply without one", null);
        }
        String output = new String(bytes, 5 + length, bytes.length - 5 - length, StandardCharsets.UTF_8);
        return new BusEvent(e.eventId(), e.occurredAt(), e.clusterId(), e.infraEnvId(), e.hostId(), e.payloadVersion(),
                new StepReplyReceived(r.stepType(), r.stepId(), r.exitCode(), output, r.error()));
    }

    /** A record value that is not a bus event, or an event that cannot be written. */
    public static final class BusCodecException extends RuntimeException {
        public BusCodecException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
