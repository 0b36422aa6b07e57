package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a payload of a type this build does not know decodes to (a newer producer, a retired type).
 * Consumers skip it with a log line; it is never published ({@code BusProducer} refuses it).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record UnknownPayload(@JsonProperty("type") String type) implements BusPayload {
    @Override
    @JsonIgnore
    public String typeName() {
        return type;
    }

    @Override
    @JsonIgnore
    public int schemaVersion() {
        return 0;
    }
}
