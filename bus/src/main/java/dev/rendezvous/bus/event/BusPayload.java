package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * The typed body of a {@link dev.rendezvous.bus.BusEvent}. On the wire it is a JSON object whose {@code type}
 * property names the record (see {@link #typeName()}); the envelope carries the payload's schema version.
 *
 * <p>A payload whose {@code type} this build does not know decodes as {@link UnknownPayload} instead of failing,
 * so an older consumer refuses newer event types loudly rather than crashing (see {@code BusConsumer}: in a group it
 * waits at such a record for an instance that reads it).
 *
 * <p>Schema evolution rule: adding a nullable field keeps the version; renaming, removing or changing the meaning
 * of a field bumps {@link #schemaVersion()} of that record.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type",
        visible = true, defaultImpl = UnknownPayload.class)
@JsonSubTypes({
        @JsonSubTypes.Type(value = HostRegistered.class, name = HostRegistered.TYPE),
        @JsonSubTypes.Type(value = StepReplyReceived.class, name = StepReplyReceived.TYPE),
        @JsonSubTypes.Type(value = AgentPresence.class, name = AgentPresence.TYPE),
        @JsonSubTypes.Type(value = StepsToDeliver.class, name = StepsToDeliver.TYPE),
        @JsonSubTypes.Type(value = HostProgressReported.class, name = HostProgressReported.TYPE),
        @JsonSubTypes.Type(value = ClusterActionRequested.class, name = ClusterActionRequested.TYPE),
        @JsonSubTypes.Type(value = DomainEventRecorded.class, name = DomainEventRecorded.TYPE),
        @JsonSubTypes.Type(value = ClusterPreparationFinished.class, name = ClusterPreparationFinished.TYPE),
        @JsonSubTypes.Type(value = FinalizingStageReported.class, name = FinalizingStageReported.TYPE),
        @JsonSubTypes.Type(value = OperatorStatusReported.class, name = OperatorStatusReported.TYPE),
        @JsonSubTypes.Type(value = KubeconfigStored.class, name = KubeconfigStored.TYPE),
        @JsonSubTypes.Type(value = LogsReported.class, name = LogsReported.TYPE),
        @JsonSubTypes.Type(value = InstallationCompletionReported.class, name = InstallationCompletionReported.TYPE),
})
public sealed interface BusPayload permits HostRegistered, StepReplyReceived, AgentPresence, StepsToDeliver,
        HostProgressReported, ClusterActionRequested, DomainEventRecorded, ClusterPreparationFinished,
        FinalizingStageReported, OperatorStatusReported, KubeconfigStored, LogsReported, InstallationCompletionReported,
        UnknownPayload {

    /** The wire {@code type} name of this payload. */
    @JsonIgnore
    String typeName();

    /** The schema version this build writes for this payload type (bumped per record when its meaning changes). */
    @JsonIgnore
    default int schemaVersion() {
        return 1;
    }
}
