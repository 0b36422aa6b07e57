package dev.rendezvous.service.brain;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The columns of a cluster row the brain reads and writes; JSON documents as their text (null for SQL NULL). {@code spec}
 * is read (the context takes its settings from it) and never written: null in a row the brain writes.
 */
public record StoredCluster(
    UUID id,
    String tenant,
    String name,
    String openshiftVersion,
    String status,
    String statusInfo,
    OffsetDateTime statusUpdatedAt,
    String spec,
    String validationsInfo,
    String progress,
    OffsetDateTime installStartedAt,
    OffsetDateTime installCompletedAt,
    String state,
    long rowVersion,
    boolean customManifests) {

  /** As read: {@code customManifests} is whether the cluster has a user manifest (read, never written). */
  public StoredCluster(UUID id, String tenant, String name, String openshiftVersion, String status, String statusInfo,
      OffsetDateTime statusUpdatedAt, String spec, String validationsInfo, String progress,
      OffsetDateTime installStartedAt, OffsetDateTime installCompletedAt, String state, long rowVersion) {
    this(id, tenant, name, openshiftVersion, status, statusInfo, statusUpdatedAt, spec, validationsInfo, progress,
        installStartedAt, installCompletedAt, state, rowVersion, false);
  }
}
