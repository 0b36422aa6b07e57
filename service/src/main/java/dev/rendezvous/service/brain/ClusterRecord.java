package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.cluster.ClusterContext;
import java.time.Instant;

/**
 * A cluster as the brain keeps it: the domain context (its {@code hosts} list is empty here; the unit of
 * work holds the hosts) plus the row's own bookkeeping. {@code spec} is kept as read (the REST API owns it).
 */
public record ClusterRecord(
    ClusterContext context,
    long rowVersion,
    String tenant,
    String spec,
    Instant installCompletedAt,
    String progress) {

  public ClusterRecord withContext(ClusterContext c) {
    return new ClusterRecord(c, rowVersion, tenant, spec, installCompletedAt, progress);
  }

  public boolean sameContent(ClusterRecord o) {
    return context.equals(o.context) && java.util.Objects.equals(installCompletedAt, o.installCompletedAt)
        && java.util.Objects.equals(progress, o.progress);
  }
}
