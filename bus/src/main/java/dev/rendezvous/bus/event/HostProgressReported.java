package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The installer reported an install stage ({@code v2UpdateHostInstallProgress}, body {@code host-progress});
 * {@code current_stage} is the upstream human-readable stage string (e.g. "Writing image to disk").
 */
public record HostProgressReported(
        @JsonProperty("current_stage") String currentStage,
        @JsonProperty("progress_info") String progressInfo) implements BusPayload {

    public static final String TYPE = "host_progress_reported";

    public HostProgressReported {
        Objects.requireNonNull(currentStage, "current_stage");
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }

}
