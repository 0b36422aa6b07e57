package dev.rendezvous.bus;

import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.BusPayload;
import dev.rendezvous.bus.event.ClusterActionRequested;
import dev.rendezvous.bus.event.ClusterPreparationFinished;
import dev.rendezvous.bus.event.DomainEventRecorded;
import dev.rendezvous.bus.event.FinalizingStageReported;
import dev.rendezvous.bus.event.HostProgressReported;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.InstallationCompletionReported;
import dev.rendezvous.bus.event.KubeconfigStored;
import dev.rendezvous.bus.event.LogsReported;
import dev.rendezvous.bus.event.OperatorStatusReported;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.bus.event.StepsToDeliver;
import java.util.List;
import java.util.Map;

/**
 * Every topic name of the project, and which payload travels on which topic.
 *
 * <p>All topics are keyed by {@link BusEvent#partitionKey()} (cluster id, else infra-env id), so every event
 * of one cluster lands on one partition of each topic and is handled in order by one consumer.
 *
 * <table>
 *   <caption>topic → payload → writer → readers</caption>
 *   <tr><td>{@value #HOST_REGISTRATIONS}</td><td>none any more (registrations travel with the step replies, below); still
 *       read, for what an older version wrote</td><td>–</td><td>service (state machine)</td></tr>
 *   <tr><td>{@value #AGENT_PRESENCE}</td><td>{@link AgentPresence}</td><td>gateway</td><td>service (checked-in, disconnected, re-plan on connect)</td></tr>
 *   <tr><td>{@value #STEP_REPLIES}</td><td>{@link HostRegistered}, {@link StepReplyReceived}</td><td>gateway</td>
 *       <td>service (validator, state machine). One topic, so a host's registration is always handled before the
 *       replies it was answered for: across two topics a restarted consumer with a backlog could read the replies
 *       first, and a reply for a host not yet registered has nothing to apply to</td></tr>
 *   <tr><td>{@value #STEPS}</td><td>{@link StepsToDeliver}</td><td>service (planner)</td><td>every gateway instance, no group (fan-out)</td></tr>
 *   <tr><td>{@value #INSTALL_PROGRESS}</td><td>{@link HostProgressReported}, {@link FinalizingStageReported},
 *       {@link OperatorStatusReported}, {@link KubeconfigStored}, {@link LogsReported},
 *       {@link InstallationCompletionReported}</td><td>REST API (installer, controller)</td><td>service (state machine)</td></tr>
 *   <tr><td>{@value #CLUSTER_ACTIONS}</td><td>{@link ClusterActionRequested}, {@link ClusterPreparationFinished}</td>
 *       <td>REST API, preparation</td><td>service (install orchestration)</td></tr>
 *   <tr><td>{@value #EVENTS}</td><td>{@link DomainEventRecorded}</td><td>service</td><td>observability (event feed, metrics)</td></tr>
 * </table>
 */
public final class Topics {
    public static final String HOST_REGISTRATIONS = "rdv.host-registrations";
    public static final String AGENT_PRESENCE = "rdv.agent-presence";
    public static final String STEP_REPLIES = "rdv.step-replies";
    public static final String STEPS = "rdv.steps";
    public static final String INSTALL_PROGRESS = "rdv.install-progress";
    public static final String CLUSTER_ACTIONS = "rdv.cluster-actions";
    public static final String EVENTS = "rdv.events";

    private static final List<String> ALL = List.of(
            HOST_REGISTRATIONS, AGENT_PRESENCE, STEP_REPLIES, STEPS, INSTALL_PROGRESS, CLUSTER_ACTIONS, EVENTS);

    private static final Map<Class<? extends BusPayload>, String> TOPIC_OF_PAYLOAD = Map.ofEntries(
            Map.entry(HostRegistered.class, STEP_REPLIES),
            Map.entry(AgentPresence.class, AGENT_PRESENCE),
            Map.entry(StepReplyReceived.class, STEP_REPLIES),
            Map.entry(StepsToDeliver.class, STEPS),
            Map.entry(HostProgressReported.class, INSTALL_PROGRESS),
            Map.entry(FinalizingStageReported.class, INSTALL_PROGRESS),
            Map.entry(OperatorStatusReported.class, INSTALL_PROGRESS),
            Map.entry(KubeconfigStored.class, INSTALL_PROGRESS),
            Map.entry(LogsReported.class, INSTALL_PROGRESS),
            Map.entry(InstallationCompletionReported.class, INSTALL_PROGRESS),
            Map.entry(ClusterActionRequested.class, CLUSTER_ACTIONS),
            Map.entry(ClusterPreparationFinished.class, CLUSTER_ACTIONS),
            Map.entry(DomainEventRecorded.class, EVENTS));

    private Topics() {
    }

    /** Every project topic, in a stable order. */
    public static List<String> all() {
        return ALL;
    }

    /** The topic a payload type is published on; IllegalArgumentException for a type without one. */
    public static String topicFor(Class<? extends BusPayload> payloadType) {
        String topic = TOPIC_OF_PAYLOAD.get(payloadType);
        if (topic == null) {
            throw new IllegalArgumentException("no topic for payload type " + payloadType.getName());
        }
        return topic;
    }

    /**
     * The partition Kafka's default partitioner puts a record with this key on (murmur2 of the UTF-8 key,
     * made positive, modulo the partition count), so a consumer can tell which keys its partitions hold.
     */
    public static int partitionFor(String key, int partitions) {
        byte[] bytes = key.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(bytes)) % partitions;
    }

    /** The topic an event is published on, from its payload's type. */
    public static String topicFor(BusEvent event) {
        return topicFor(event.payload().getClass());
    }
}
