package dev.rendezvous.bus;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;

/** JSON encoding of {@link BusEvent}s: one shared, configured-once, thread-safe mapper. */
public final class BusCodec {

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

    /** A record value that is not a bus event, or an event that cannot be written. */
    public static final class BusCodecException extends RuntimeException {
        public BusCodecException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
