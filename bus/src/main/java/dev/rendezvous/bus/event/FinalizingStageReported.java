package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/** The controller reached a finalizing stage ({@code v2UpdateClusterFinalizingProgress}; upstream's stage strings). */
public record FinalizingStageReported(@JsonProperty("finalizing_stage") String finalizingStage) implements BusPayload {

    public static final String TYPE = "finalizing_stage_reported";

    public FinalizingStageReported {
        Objects.requireNonNull(finalizingStage, "finalizing_stage");
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }
}
