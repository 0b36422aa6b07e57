package dev.rendezvous.service.domain.host;

import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A host's log collection (upstream v2UpdateHostLogsProgress and the host logs upload): logs_info moves through
 * requested → collecting → completed (or timeout); an uploaded bundle sets logs_collected_at and tells the user.
 */
public final class HostLogs {
  private static final Set<String> STATES = Set.of("requested", "collecting", "completed", "timeout");

  private HostLogs() {}

  /** The host after the report, and the events to record; {@code null} host when the state is unknown. */
  public record Outcome(HostSnapshot host, List<DomainEvent> events, String error) {}

  public static Outcome report(HostSnapshot h, String state, Instant now) {
    if ("uploaded".equals(state)) {
      String name = h.nameForMessages();
      return new Outcome(h.toBuilder().logsCollectedAt(now).build(), List.of(DomainEvent.host("host_logs_uploaded",
          EventSeverity.INFO, "Uploaded logs for host " + name + " cluster " + h.clusterId(), h,
          Map.of("host_name", name))), null);
    }
    if (!STATES.contains(state)) {
      return new Outcome(null, List.of(), "logs_state: '" + state + "' is not one of " + STATES);
    }
    HostSnapshot.Builder b = h.toBuilder().logsInfo(state);
    if ("requested".equals(state)) {
      b.logsStartedAt(now);
    }
    return new Outcome(b.build(), List.of(), null);
  }
}
