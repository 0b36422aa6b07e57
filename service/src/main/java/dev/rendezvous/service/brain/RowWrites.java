package dev.rendezvous.service.brain;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The row statements of a unit's commit ({@link BrainStore#commit}): a new host inserted whole, a host or cluster
 * updated in only the columns that changed, each update guarded by the row's version.
 */
final class RowWrites {
  private RowWrites() {}

  private static final String INSERT_HOST = "INSERT INTO hosts (id, infra_env_id, cluster_id, status, status_info,"
      + " status_updated_at, role, suggested_role, bootstrap, requested_hostname, installation_disk_id,"
      + " installation_disk_path, discovery_agent_version, inventory, connectivity, validations_info, progress,"
      + " step_results, spec, state, checked_in_at, registered_at, row_version, created_at, updated_at) VALUES"
      + " ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
      + " $16, $17::text::jsonb, $18::text::jsonb, $19::text::jsonb, $20::text::jsonb, $21, $22, 1, $23, $23)";

  static Future<?> insertHost(SqlConnection conn, StoredHost s, OffsetDateTime now) {
    return conn.preparedQuery(INSERT_HOST).execute(Tuple.from(Arrays.asList(s.id(), s.infraEnvId(), s.clusterId(),
        s.status(), s.statusInfo(), SnapshotMapper.offset(s.statusUpdatedAt()), s.role(), s.suggestedRole(), s.bootstrap(),
        s.requestedHostname(), s.installationDiskId(), s.installationDiskPath(), s.discoveryAgentVersion(),
        StoredHost.whole(s.inventory()), StoredHost.whole(s.connectivity()), StoredHost.whole(s.validationsInfo()),
        StoredHost.whole(s.progress()), StoredHost.whole(s.stepResults()), StoredHost.whole(s.spec()),
        StoredHost.whole(s.state()), SnapshotMapper.offset(s.checkedInAt()), SnapshotMapper.offset(s.registeredAt()), now)));
  }

  /** One column of an update: its assignment (with $ for its parameter) and value. */
  record Assign(String sql, Object value) {}

  /**
   * Updates only the columns that differ from {@code was} (all of them when the row as stored is unknown; a large
   * document by its token: one carried over unchanged holds the cached row's, a new text has none),
   * guarded by the row version. checked_in_at and the host clock only move forward: a check-in written
   * meanwhile without a version bump is kept.
   */
  static Future<?> updateHost(SqlConnection conn, StoredHost s, StoredHost was, long version, OffsetDateTime now) {
    return guardedUpdate(conn, "hosts", hostChanges(s, was), Arrays.asList(s.id(), s.infraEnvId(), version, now),
        "updated_at = $4, row_version = row_version + 1 WHERE id = $1 AND infra_env_id = $2 AND row_version = $3");
  }

  /** The columns of host row {@code s} to write, as {@link #updateHost} says; no I/O (UnitBench times it). */
  static List<Assign> hostChanges(StoredHost s, StoredHost was) {
    List<Assign> set = new ArrayList<>();
    col(set, was == null || !Objects.equals(s.clusterId(), was.clusterId()), "cluster_id = $", s.clusterId());
    col(set, was == null || !Objects.equals(s.status(), was.status()), "status = $", s.status());
    col(set, was == null || !Objects.equals(s.statusInfo(), was.statusInfo()), "status_info = $", s.statusInfo());
    col(set, was == null || !Objects.equals(s.statusUpdatedAt(), was.statusUpdatedAt()), "status_updated_at = $",
        SnapshotMapper.offset(s.statusUpdatedAt()));
    col(set, was == null || !Objects.equals(s.role(), was.role()), "role = $", s.role());
    col(set, was == null || !Objects.equals(s.suggestedRole(), was.suggestedRole()), "suggested_role = $", s.suggestedRole());
    col(set, was == null || s.bootstrap() != was.bootstrap(), "bootstrap = $", s.bootstrap());
    col(set, was == null || !Objects.equals(s.requestedHostname(), was.requestedHostname()), "requested_hostname = $",
        s.requestedHostname());
    col(set, was == null || !Objects.equals(s.installationDiskId(), was.installationDiskId()), "installation_disk_id = $",
        s.installationDiskId());
    col(set, was == null || !Objects.equals(s.installationDiskPath(), was.installationDiskPath()),
        "installation_disk_path = $", s.installationDiskPath());
    col(set, was == null || !Objects.equals(s.discoveryAgentVersion(), was.discoveryAgentVersion()),
        "discovery_agent_version = $", s.discoveryAgentVersion());
    doc(set, was == null || !was.sameDocument(StoredHost.INVENTORY, s), "inventory = " + DOC, s.inventory());
    doc(set, was == null || !was.sameDocument(StoredHost.CONNECTIVITY, s), "connectivity = " + DOC,
        s.connectivity());
    doc(set, was == null || !was.sameDocument(StoredHost.VALIDATIONS_INFO, s),
        "validations_info = " + DOC, s.validationsInfo());
    doc(set, was == null || !was.sameDocument(StoredHost.PROGRESS, s), "progress = " + DOC + "::jsonb",
        s.progress());
    doc(set, was == null || !was.sameDocument(StoredHost.STEP_RESULTS, s), "step_results = " + DOC + "::jsonb",
        s.stepResults());
    doc(set, was == null || !was.sameDocument(StoredHost.SPEC, s), "spec = " + DOC + "::jsonb", s.spec());
    doc(set, was == null || !was.sameDocument(StoredHost.STATE, s), "state = " + DOC + "::jsonb"
        + " || jsonb_build_object('timestamp', GREATEST(COALESCE((hosts.state->>'timestamp')::bigint, 0),"
        + " (" + DOC + "::jsonb->>'timestamp')::bigint))", s.state());
    col(set, was == null || !Objects.equals(s.checkedInAt(), was.checkedInAt()), "checked_in_at = GREATEST(hosts.checked_in_at, $)",
        SnapshotMapper.offset(s.checkedInAt()));
    return set;
  }

  /**
   * The cluster's row, guarded by its version. Its validations and progress are written only when they changed: the
   * validations are the row's largest document (~1.6 KB for a single-node site), and most of a site's ~18 cluster
   * writes (status, stage, timestamps) leave them as they were.
   */
  static Future<?> updateCluster(SqlConnection conn, ClusterRecord next, ClusterRecord was, OffsetDateTime now) {
    boolean validations = !Objects.equals(next.context().validationsInfo(), was.context().validationsInfo());
    StoredCluster c = SnapshotMapper.stored(next, validations);
    List<Assign> set = new ArrayList<>();
    col(set, true, "status = $", c.status());
    col(set, true, "status_info = $", c.statusInfo());
    col(set, true, "status_updated_at = $", c.statusUpdatedAt());
    col(set, validations, "validations_info = $::text::jsonb", c.validationsInfo());
    col(set, !Objects.equals(next.progress(), was.progress()), "progress = $::text::jsonb", c.progress());
    col(set, true, "install_started_at = $", c.installStartedAt());
    col(set, true, "install_completed_at = $", c.installCompletedAt());
    col(set, true, "state = $::text::jsonb", c.state());
    return guardedUpdate(conn, "clusters", set, Arrays.asList(c.id(), was.rowVersion(), now),
        "updated_at = $3, row_version = row_version + 1 WHERE id = $1 AND row_version = $2");
  }

  /**
   * {@code UPDATE table SET} the columns of {@code set} (numbered after the {@code fixed} parameters), then {@code rest}
   * (the bookkeeping and the guard, on the fixed ones); a guard that matched no row raises {@link BrainStore#STALE}.
   */
  private static Future<?> guardedUpdate(SqlConnection conn, String table, List<Assign> set, List<Object> fixed,
      String rest) {
    StringBuilder sql = new StringBuilder("WITH u AS (UPDATE " + table + " SET ");
    List<Object> args = new ArrayList<>(fixed);
    for (Assign a : set) {
      args.add(a.value());
      sql.append(a.sql().replace("$", "$" + args.size())).append(", ");
    }
    sql.append(rest).append(" RETURNING 1) SELECT rdv_assert(EXISTS (SELECT 1 FROM u), '" + BrainStore.STALE + "')");
    return conn.preparedQuery(sql.toString()).execute(Tuple.from(args));
  }

  /**
   * A document's text in SQL: its parameter is the text's UTF-8 bytes, read back as text by PostgreSQL. A String
   * parameter is encoded into the wire a character at a time (Netty's UTF-8 writer): with an inventory of ~4.4 KB and
   * its validations in every reply, that was ~8 % of the service's samples in a one-cluster burst (docs/benchmarks.md,
   * session 46); {@code String.getBytes} of such ASCII text is a vectorized check and a copy.
   */
  private static final String DOC = "convert_from($::bytea, 'UTF8')";

  /**
   * A JSON document column, {@link #DOC} in its SQL: checked to be whole text (never a cached token) only when it
   * is written.
   */
  private static void doc(List<Assign> set, boolean changed, String sql, String value) {
    if (changed) {
      String text = StoredHost.whole(value);
      set.add(new Assign(sql, text == null ? null : Buffer.buffer(text.getBytes(StandardCharsets.UTF_8))));
    }
  }

  private static void col(List<Assign> set, boolean changed, String sql, Object value) {
    if (changed) {
      set.add(new Assign(sql, value));
    }
  }
}
