package dev.rendezvous.bus;

import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.BusPayload;
import dev.rendezvous.bus.event.ClusterActionRequested;
import dev.rendezvous.bus.event.ClusterPreparationFinished;
import dev.rendezvous.bus.event.FinalizingStageReported;
import dev.rendezvous.bus.event.InstallationCompletionReported;
import dev.rendezvous.bus.event.KubeconfigStored;
import dev.rendezvous.bus.event.LogsReported;
import dev.rendezvous.bus.event.OperatorStatusReported;
import dev.rendezvous.bus.event.DomainEventRecorded;
import dev.rendezvous.bus.event.HostProgressReported;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.bus.event.StepsToDeliver;
import java.time.Instant;
import java.util.List;

/** One realistic instance of every publishable payload type. */
final class SamplePayloads {
    static final String CLUSTER = "5a2f2c1e-0d7b-4a57-9a3c-1f0e8f3b2a11";
    static final String INFRA_ENV = "8c1d6e7a-3b2f-4c5d-9e8f-0a1b2c3d4e5f";
    static final String HOST = "f0e1d2c3-b4a5-4968-8776-655443322110";

    private SamplePayloads() {
    }

    static List<BusPayload> all() {
        return List.of(
                new HostRegistered(HOST, INFRA_ENV, CLUSTER, "v1.0.0", AgentPresence.WEBSOCKET),
                new StepReplyReceived("inventory", "inventory-0a1b2c3d", 0,
                        "{\"hostname\":\"master-0\",\"cpu\":{\"count\":8}}", ""),
                new AgentPresence(AgentPresence.CONNECTED, AgentPresence.LONG_POLL, "gw-1", "v1.0.0"),
                new StepsToDeliver(30, StepsToDeliver.CONTINUE, List.of(
                        new StepsToDeliver.Step("inventory", "inventory-0a1b2c3d", List.of(HOST)),
                        new StepsToDeliver.Step("ntp-synchronizer", "ntp-synchronizer-deadbeef",
                                List.of("{\"ntp_source\":\"a,b\"}")))),
                new HostProgressReported("Writing image to disk", "47%"),
                new ClusterActionRequested(ClusterActionRequested.INSTALL, "alice"),
                new ClusterPreparationFinished("2025-01-02T03:04:05.123456Z", false, "openshift-install exited 3", "built-in"),
                new FinalizingStageReported("Waiting for cluster operators"),
                new OperatorStatusReported("console", "progressing", "Rolling out", "4.18.1"),
                new KubeconfigStored(),
                new LogsReported("controller", LogsReported.UPLOADED),
                new InstallationCompletionReported(false, "Stopped waiting for cluster operators to be available",
                        "[{\"name\":\"console\",\"status\":\"progressing\"}]"),
                new DomainEventRecorded("host_registration_succeeded", "info", "user",
                        "Host master-0: Successfully registered", Instant.parse("2025-01-02T03:04:05.123456Z"),
                        "{\"host_id\":\"" + HOST + "\"}"));
    }

    static BusEvent eventFor(BusPayload payload) {
        return BusEvent.of(CLUSTER, INFRA_ENV, HOST, payload);
    }
}
