package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.cluster.ClusterContext;
import java.time.Instant;

/**
 * A cluster as the brain keeps it: the domain context (its {@code hosts} list is empty here; the unit of
 * work holds the hosts) plus the row's own bookkeeping. The user's settings ({@code spec}) are not kept: the
 * context holds what the domain reads of them, the brain never writes them (the REST API owns them), and their text
 * was the largest part of a cached single-node site (issue 13: memory per idle host).
 */
public record ClusterRecord(
    ClusterContext context,
    long rowVersion,
    String tenant,
    Instant installCompletedAt,
    String progress) {

  public ClusterRecord {
    tenant = SnapshotMapper.shared(tenant);
    progress = SnapshotMapper.shared(progress); // the same few documents while a site waits or installs
  }

  public ClusterRecord withContext(ClusterContext c) {
    return new ClusterRecord(c, rowVersion, tenant, installCompletedAt, progress);
  }

  public boolean sameContent(ClusterRecord o) {
    return context.equals(o.context) && java.util.Objects.equals(installCompletedAt, o.installCompletedAt)
        && java.util.Objects.equals(progress, o.progress);
  }
}
