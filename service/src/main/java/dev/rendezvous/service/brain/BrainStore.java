package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.DomainEvent;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;
import dev.rendezvous.service.db.PipelinedTransaction;
import dev.rendezvous.service.db.PoolGate;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The brain's SQL: loads a cluster (or an infra-env's unbound hosts) with every host, and commits a unit of
 * work in one transaction whose statements are all sent at once (pipelined): the bus event claim, the
 * checks that what was read is still current, the row updates guarded by row_version, and the events.
 * A failed check raises (rdv_assert, SQLSTATE RDV01) and aborts the whole transaction.
 */
final class BrainStore {
  /** How a commit ended. */
  enum Outcome { COMMITTED, REPLAY, STALE }

  /** An infra-env as registration needs it. */
  record InfraEnvInfo(UUID id, String tenant, UUID clusterId, boolean staticNetworking) {}

  static final String STALE = "stale";
  static final String REPLAY = "replay";
  private static final String ASSERT_STATE = "RDV01";

  private static final String HOST_COLUMNS = "h.id, h.infra_env_id, h.cluster_id, h.status, h.status_info,"
      + " h.status_updated_at, h.role, h.suggested_role, h.bootstrap, h.requested_hostname, h.installation_disk_id,"
      + " h.installation_disk_path, h.discovery_agent_version, h.inventory::text AS inventory,"
      + " h.connectivity::text AS connectivity, h.validations_info::text AS validations_info,"
      + " h.progress::text AS progress, h.step_results::text AS step_results, h.spec::text AS spec,"
      + " h.state::text AS state, h.checked_in_at, h.registered_at, h.row_version, " + staticNet("ie.spec") + " AS static_net";
  private static final String HOSTS_FROM = " FROM hosts h JOIN infra_envs ie ON ie.id = h.infra_env_id";
  private static final String CLUSTER_SELECT = "SELECT id, tenant, name, openshift_version, status, status_info,"
      + " status_updated_at, spec::text AS spec, validations_info::text AS validations_info, progress::text AS progress,"
      + " install_started_at, install_completed_at, state::text AS state, row_version,"
      + " EXISTS (SELECT 1 FROM cluster_manifests m WHERE m.cluster_id = clusters.id) AS custom_manifests"
      + " FROM clusters WHERE id = $1";

  private static final String CHECK_CLUSTER = "SELECT rdv_assert(EXISTS (SELECT 1 FROM clusters WHERE id = $1"
      + " AND row_version = $2), '" + STALE + "')";
  /**
   * The key's hosts are the ones the unit started from (none added, deleted or changed by another writer: each such
   * write bumps the key's version, see V9__host_key_versions.sql), and the unit's own host writes bump it once.
   * Check-ins bump nothing: they are written outside the key's lane ({@link CheckIns}). A key without a version row
   * yet is version 0.
   */
  private static final String BRAIN_WRITE = "SELECT set_config('rdv.brain_write', 'on', true)";
  private static final String BUMP_CLUSTER_KEY = bumpKey("cluster_host_versions", "cluster_id");
  private static final String BUMP_UNBOUND_KEY = bumpKey("unbound_host_versions", "infra_env_id");
  private static final String CHECK_CLUSTER_KEY = checkKey("cluster_host_versions", "cluster_id");
  private static final String CHECK_UNBOUND_KEY = checkKey("unbound_host_versions", "infra_env_id");
  private static final String CLUSTER_KEY_VERSION = "SELECT version FROM cluster_host_versions WHERE cluster_id = $1";
  private static final String UNBOUND_KEY_VERSION = "SELECT version FROM unbound_host_versions WHERE infra_env_id = $1";

  private static String bumpKey(String table, String column) {
    return "WITH u AS (INSERT INTO " + table + " AS v (" + column + ", version) VALUES ($1, $2 + 1) ON CONFLICT ("
        + column + ") DO UPDATE SET version = v.version + 1 WHERE v.version = $2 RETURNING 1)"
        + " SELECT rdv_assert(EXISTS (SELECT 1 FROM u), '" + STALE + "')";
  }

  private static String checkKey(String table, String column) {
    return "SELECT rdv_assert(coalesce((SELECT version FROM " + table + " WHERE " + column + " = $1), 0) = $2, '"
        + STALE + "')";
  }

  private static final String CLAIM_MANY = "WITH c AS (INSERT INTO processed_bus_events (event_id)"
      + " SELECT unnest($1::text[]) ON CONFLICT DO NOTHING RETURNING 1)"
      + " SELECT rdv_assert(count(*) = $2, '" + REPLAY + "') FROM c";
  private static final String CLAIM = "WITH c AS (INSERT INTO processed_bus_events (event_id) VALUES ($1)"
      + " ON CONFLICT DO NOTHING RETURNING 1) SELECT rdv_assert(EXISTS (SELECT 1 FROM c), '" + REPLAY + "')";
  /** A unit's events in one statement, in order (one call of the outbox trigger per commit, not per event). */
  private static final String INSERT_EVENTS = "INSERT INTO events (tenant, name, cluster_id, host_id, infra_env_id,"
      + " severity, category, message, event_time, props) SELECT $1, n, c, h, i, s, 'user', m, $2, p::jsonb"
      + " FROM unnest($3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[], $9::text[])"
      + " WITH ORDINALITY AS t(n, c, h, i, s, m, p, k) ORDER BY k";

  private final Pool pool;
  /**
   * Every statement and transaction of the brain passes here: at most {@link #IN_FLIGHT} at the pool, the rest wait
   * in order (a batch's units each load their key: 500 events of 500 single-node clusters overflowed the pool's
   * bounded queue, and the whole batch failed and came back).
   */
  private final PoolGate gate = new PoolGate(IN_FLIGHT);
  static final int IN_FLIGHT = 128;

  BrainStore(Pool pool) {
    this.pool = pool;
  }

  private static String staticNet(String spec) {
    String n = spec + "->'static_network_config'";
    return "COALESCE(CASE WHEN jsonb_typeof(" + n + ") = 'array' THEN jsonb_array_length(" + n + ") > 0"
        + " WHEN jsonb_typeof(" + n + ") = 'string' THEN " + n + " NOT IN ('\"\"', '\"[]\"') END, FALSE)";
  }

  // ------------------------------------------------------------------------------------------------ reads

  /**
   * The key's cluster and hosts; a cluster that is gone loads with a null cluster and its (orphan) hosts none. The
   * key's version is read first: the hosts read after it are at least as new, so a write in between only makes the
   * next commit's version check fail (read again), never pass over a change the cache lacks.
   */
  Future<Loaded> load(WorkKey key) {
    return keyVersion(key).compose(version -> key.isCluster() ? loadCluster(key, version) : loadUnbound(key, version));
  }

  /**
   * {@code cached} with its cluster's row read again (a user changed the cluster's settings through the API): its hosts
   * kept while the key's version says nobody wrote them since, else everything read again ({@link #load}). Reading a
   * 1,000-host cluster again, connectivity reports and all, held its lane for seconds on every settings change.
   */
  Future<Loaded> rereadCluster(Loaded cached) {
    WorkKey key = cached.key();
    return keyVersion(key).compose(version -> {
      if (version != cached.hostsVersion()) {
        return loadCluster(key, version);
      }
      // read after the version: a host written in between makes the next commit's version check fail (read again)
      return clusterRow(key).map(cluster -> cluster == null
          ? new Loaded(key, null, null, Map.of(), Map.of(), Map.of(), version)
          : new Loaded(key, cluster.tenant(), cluster, cached.hosts(), cached.staticNetworking(), cached.stored(),
              version));
    });
  }

  /** The key's version (0 when nothing was written to its hosts yet). */
  private Future<Long> keyVersion(WorkKey key) {
    UUID id = key.isCluster() ? key.clusterId() : key.infraEnvId();
    return gate.run(() -> pool.preparedQuery(key.isCluster() ? CLUSTER_KEY_VERSION : UNBOUND_KEY_VERSION)
        .execute(Tuple.of(id))).map(vr -> vr.size() == 0 ? 0L : vr.iterator().next().getLong(0));
  }

  /** The key's cluster as its row holds it (null: gone). */
  private Future<ClusterRecord> clusterRow(WorkKey key) {
    return gate.run(() -> pool.preparedQuery(CLUSTER_SELECT).execute(Tuple.of(key.clusterId())))
        .map(cr -> cr.size() == 0 ? null : SnapshotMapper.cluster(storedCluster(cr.iterator().next())));
  }

  private Future<Loaded> loadCluster(WorkKey key, long version) {
    Future<ClusterRecord> c = clusterRow(key);
    // paged: a big cluster's rows with their connectivity reports are hundreds of MB (see PagedRead)
    Future<List<Row>> h = gate.run(() -> dev.rendezvous.service.db.PagedRead.rows(pool, "SELECT " + HOST_COLUMNS + HOSTS_FROM
        + " WHERE h.cluster_id = $1 ORDER BY h.registered_at, h.id", Tuple.of(key.clusterId())));
    return Future.all(c, h).map(v -> {
      ClusterRecord cluster = c.result();
      return loaded(key, cluster == null ? null : cluster.tenant(), cluster, h.result(), version);
    });
  }

  private Future<Loaded> loadUnbound(WorkKey key, long version) {
    Future<RowSet<Row>> ie = gate.run(() -> pool.preparedQuery("SELECT tenant FROM infra_envs WHERE id = $1").execute(Tuple.of(key.infraEnvId())));
    Future<RowSet<Row>> h = gate.run(() -> pool.preparedQuery("SELECT " + HOST_COLUMNS + HOSTS_FROM
        + " WHERE h.infra_env_id = $1 AND h.cluster_id IS NULL ORDER BY h.registered_at, h.id").execute(Tuple.of(key.infraEnvId())));
    return Future.all(ie, h).map(v -> {
      String tenant = ie.result().size() == 0 ? null : ie.result().iterator().next().getString(0);
      return loaded(key, tenant, null, h.result(), version);
    });
  }

  private static Loaded loaded(WorkKey key, String tenant, ClusterRecord cluster, Iterable<Row> rows, long version) {
    Map<UUID, HostRecord> hosts = new LinkedHashMap<>();
    Map<UUID, Boolean> staticNet = new LinkedHashMap<>();
    Map<UUID, StoredHost> stored = new LinkedHashMap<>();
    for (Row r : rows) {
      StoredHost s = storedHost(r);
      hosts.put(s.id(), SnapshotMapper.host(s));
      stored.put(s.id(), s);
      staticNet.put(s.infraEnvId(), s.staticNetworking());
    }
    return new Loaded(key, tenant, cluster, hosts, staticNet, stored, version);
  }

  Future<Optional<InfraEnvInfo>> infraEnv(UUID id) {
    return gate.run(() -> pool.preparedQuery("SELECT id, tenant, cluster_id, " + staticNet("spec") + " AS static_net FROM infra_envs WHERE id = $1")
        .execute(Tuple.of(id)))
        .map(rs -> {
          if (rs.size() == 0) {
            return Optional.empty();
          }
          Row r = rs.iterator().next();
          return Optional.of(new InfraEnvInfo(r.getUUID("id"), r.getString("tenant"), r.getUUID("cluster_id"),
              r.getBoolean("static_net")));
        });
  }

  /** The work key of an existing host (its cluster, else its infra-env). */
  Future<Optional<WorkKey>> keyOfHost(UUID hostId, UUID infraEnvId) {
    return gate.run(() -> pool.preparedQuery("SELECT cluster_id FROM hosts WHERE id = $1 AND infra_env_id = $2")
        .execute(Tuple.of(hostId, infraEnvId)))
        .map(rs -> {
          if (rs.size() == 0) {
            return Optional.empty();
          }
          UUID c = rs.iterator().next().getUUID(0);
          return Optional.of(c == null ? WorkKey.unbound(infraEnvId) : WorkKey.cluster(c));
        });
  }

  /** Every key with something to watch: all clusters, and infra-envs with unbound hosts. */
  Future<List<WorkKey>> allKeys() {
    return gate.run(() -> pool.query("SELECT id, TRUE FROM clusters UNION ALL"
            + " SELECT DISTINCT infra_env_id, FALSE FROM hosts WHERE cluster_id IS NULL")
        .execute())
        .map(rs -> {
          List<WorkKey> out = new ArrayList<>(rs.size());
          for (Row r : rs) {
            out.add(r.getBoolean(1) ? WorkKey.cluster(r.getUUID(0)) : WorkKey.unbound(r.getUUID(0)));
          }
          return out;
        });
  }

  /** A key's versions as the database has them now, to tell whether a cached copy is still current. */
  record Versions(Long clusterVersion, long hostsVersion) {
    /** The versions of the rows {@code l} was read from (or written as). */
    static Versions of(Loaded l) {
      return new Versions(l.cluster() == null ? null : l.cluster().rowVersion(), l.hostsVersion());
    }

    /** The same rows' versions as {@code o} (false when {@code o} is null: the key is gone). */
    boolean sameAs(Versions o) {
      return o != null && Objects.equals(clusterVersion, o.clusterVersion) && hostsVersion == o.hostsVersion;
    }

    /** Whether the rows are still what {@code l} holds. */
    boolean matches(Loaded l) {
      return sameAs(of(l));
    }
  }

  /**
   * Every key's versions, in two queries over the clusters and the infra-envs with unbound hosts (the monitor
   * compares them with its cache each tick): no pass over the fleet's host rows.
   */
  Future<Map<WorkKey, Versions>> versions() {
    Future<RowSet<Row>> clusters = gate.run(() -> pool.query("SELECT c.id, c.row_version, coalesce(v.version, 0) FROM clusters c"
        + " LEFT JOIN cluster_host_versions v ON v.cluster_id = c.id").execute());
    Future<RowSet<Row>> unbound = gate.run(() -> pool.query("SELECT u.infra_env_id, coalesce(v.version, 0) FROM"
        + " (SELECT DISTINCT infra_env_id FROM hosts WHERE cluster_id IS NULL) u"
        + " LEFT JOIN unbound_host_versions v ON v.infra_env_id = u.infra_env_id").execute());
    return Future.all(clusters, unbound).map(v -> {
      Map<WorkKey, Versions> out = new java.util.HashMap<>();
      for (Row r : clusters.result()) {
        out.put(WorkKey.cluster(r.getUUID(0)), new Versions(r.getLong(1), r.getLong(2)));
      }
      for (Row r : unbound.result()) {
        out.put(WorkKey.unbound(r.getUUID(0)), new Versions(null, r.getLong(1)));
      }
      return out;
    });
  }

  // ----------------------------------------------------------------------------------------------- writes

  /** Which of these bus events were applied already (a replayed batch is run again without them). */
  Future<java.util.Set<String>> processed(List<String> eventIds) {
    return gate.run(() -> pool.preparedQuery("SELECT event_id FROM processed_bus_events WHERE event_id = ANY($1)")
        .execute(Tuple.of(eventIds.toArray(String[]::new))))
        .map(rs -> {
          java.util.Set<String> out = new java.util.HashSet<>();
          rs.forEach(r -> out.add(r.getString(0)));
          return out;
        });
  }

  /** A host's check-in: when, and its clock then (epoch seconds). */
  record CheckIn(UUID hostId, UUID infraEnvId, Instant at, long hostTimestamp) {}

  // The rows are locked first, in id order, as a unit's commit writes its hosts (HOST_ORDER): two writers that lock
  // the same hosts in different orders deadlock, and PostgreSQL then fails one of them.
  // the host clock it merges into state is the one CheckIns.foldInto gives the cached host: a unit that then writes
  // the host carries state unchanged (its token), and the row already holds that clock
  private static final String TOUCH = "WITH l AS (SELECT id FROM hosts WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE)"
      + " UPDATE hosts h SET checked_in_at = t.at, state = jsonb_set(h.state, '{timestamp}',"
      + " to_jsonb(GREATEST(COALESCE((h.state->>'timestamp')::bigint, 0), t.ts)))"
      + " FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::bigint[]) AS t(id, ie, at, ts), l"
      + " WHERE l.id = t.id AND h.id = t.id AND h.infra_env_id = t.ie"
      + " AND (h.checked_in_at IS NULL OR h.checked_in_at < t.at) RETURNING h.id";

  /** PostgreSQL's order of uuids (bytes unsigned, most significant first), which java.util.UUID's compareTo is not. */
  static final java.util.Comparator<UUID> HOST_ORDER = (a, b) -> {
    int c = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
    return c != 0 ? c : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
  };

  /**
   * Check-ins in one statement: each moves checked_in_at and the host clock forward, with no row_version bump (not a
   * state change). {@code checkIns} holds one per host. Completes with the hosts whose rows moved.
   */
  Future<java.util.Set<UUID>> touch(java.util.Collection<CheckIn> checkIns) {
    if (checkIns.isEmpty()) {
      return Future.succeededFuture(java.util.Set.of());
    }
    int n = checkIns.size();
    UUID[] ids = new UUID[n];
    UUID[] infraEnvs = new UUID[n];
    OffsetDateTime[] at = new OffsetDateTime[n];
    Long[] ts = new Long[n];
    int i = 0;
    for (CheckIn c : checkIns) {
      ids[i] = c.hostId();
      infraEnvs[i] = c.infraEnvId();
      at[i] = SnapshotMapper.offset(c.at());
      ts[i++] = c.hostTimestamp();
    }
    return gate.run(() -> pool.preparedQuery(TOUCH).execute(Tuple.of(ids, infraEnvs, at, ts))).map(rs -> {
      java.util.Set<UUID> moved = new java.util.HashSet<>();
      rs.forEach(r -> moved.add(r.getUUID(0)));
      return moved;
    });
  }

  /** Writes the work in one pipelined transaction; the bus events {@code eventIds} (may be none) are claimed in it. */
  Future<Outcome> commit(Work w, List<String> eventIds) {
    // one round trip (BEGIN, the statements, COMMIT pipelined): none of them reads another's result
    return outcome(gate.run(() -> PipelinedTransaction.run(pool, conn -> statements(conn, w, eventIds))));
  }

  /** Runs {@code use} on a connection of its own (held until its future completes), through the gate. */
  <T> Future<T> withConnection(java.util.function.Function<SqlConnection, Future<T>> use) {
    return gate.run(() -> pool.getConnection().compose(conn -> use.apply(conn).eventually(conn::close)));
  }

  /**
   * A unit committed on {@code conn} right behind the one whose {@code token} is {@code follows} (null: none), which
   * may still be running: it commits only if that one did. Each sets its token for the session as its last statement;
   * PostgreSQL undoes it with the transaction when that fails (a stale guard, a claimed event), and the one behind it
   * then finds another value and is stale itself. Row versions alone do not tell: another writer's bump may make the
   * versions the next unit expects (docs/brain.md, "Pipelined units").
   */
  Future<Outcome> commitAfter(SqlConnection conn, Work w, List<String> eventIds, String follows, String token,
      io.vertx.core.Promise<Void> sent) {
    return outcome(PipelinedTransaction.on(conn, c -> {
      List<Future<?>> all = new ArrayList<>();
      if (follows != null) {
        all.add(c.preparedQuery(FOLLOWS).execute(Tuple.of(follows)));
      }
      all.addAll(statements(c, w, eventIds));
      all.add(c.preparedQuery(UNIT_TOKEN).execute(Tuple.of(token)));
      return all;
    }, sent));
  }

  private static final String FOLLOWS = "SELECT rdv_assert(coalesce(current_setting('rdv.unit', true), '') = $1, '"
      + STALE + "')";
  private static final String UNIT_TOKEN = "SELECT set_config('rdv.unit', $1, false)";

  private Future<Outcome> outcome(Future<Void> transaction) {
    return transaction.map(Outcome.COMMITTED).recover(e -> {
      if (e instanceof PgException pg && ASSERT_STATE.equals(pg.getSqlState())) {
        return Future.succeededFuture(REPLAY.equals(pg.getErrorMessage()) ? Outcome.REPLAY : Outcome.STALE);
      }
      if (e instanceof PgException pg && "23505".equals(pg.getSqlState())) {
        return Future.succeededFuture(Outcome.STALE); // a host row inserted meanwhile by another writer
      }
      if (e instanceof PgException pg && "23503".equals(pg.getSqlState())) {
        return Future.succeededFuture(Outcome.STALE); // the cluster or infra-env deleted meanwhile: read it again
      }
      return Future.failedFuture(e);
    });
  }

  /** A unit's statements (none reads another's result): the claims, the guards, the rows and the events. */
  private List<Future<?>> statements(SqlConnection conn, Work w, List<String> eventIds) {
    List<Future<?>> all = new ArrayList<>();
    all.add(conn.query(BRAIN_WRITE).execute()); // this transaction versions its key itself (no trigger bumps)
    if (eventIds.size() == 1) {
      all.add(conn.preparedQuery(CLAIM).execute(Tuple.of(eventIds.get(0))));
    } else if (!eventIds.isEmpty()) {
      all.add(conn.preparedQuery(CLAIM_MANY).execute(Tuple.of(eventIds.toArray(String[]::new), eventIds.size())));
    }
    Loaded base = w.base;
    if (base.cluster() != null && !w.clusterChanged()) {
      all.add(conn.preparedQuery(CHECK_CLUSTER).execute(Tuple.of(base.key().clusterId(), base.cluster().rowVersion())));
    }
    // before any host write: the triggers of a host moving to another key bump this one too
    UUID id = base.key().isCluster() ? base.key().clusterId() : base.key().infraEnvId();
    boolean writesHosts = !w.writes().isEmpty();
    String keySql = base.key().isCluster() ? (writesHosts ? BUMP_CLUSTER_KEY : CHECK_CLUSTER_KEY)
        : (writesHosts ? BUMP_UNBOUND_KEY : CHECK_UNBOUND_KEY);
    all.add(conn.preparedQuery(keySql).execute(Tuple.of(id, base.hostsVersion())));
    OffsetDateTime now = SnapshotMapper.offset(w.now);
    // in id order, as check-ins lock them (TOUCH)
    List<UUID> written = new ArrayList<>(w.writes().keySet());
    written.sort(HOST_ORDER);
    for (UUID hostId : written) {
      StoredHost s = w.writes().get(hostId);
      all.add(w.isNew(hostId) ? RowWrites.insertHost(conn, s, now)
          : RowWrites.updateHost(conn, s, base.stored().get(hostId), base.hosts().get(hostId).rowVersion(), now));
    }
    if (w.clusterChanged()) {
      all.add(RowWrites.updateCluster(conn, w.clusterRecord(), base.cluster(), now));
    }
    if (!w.events().isEmpty()) {
      int n = w.events().size();
      String[] names = new String[n];
      UUID[] clusters = new UUID[n];
      UUID[] hosts = new UUID[n];
      UUID[] infraEnvs = new UUID[n];
      String[] severities = new String[n];
      String[] messages = new String[n];
      String[] props = new String[n];
      for (int i = 0; i < n; i++) {
        DomainEvent e = w.events().get(i);
        names[i] = e.name();
        clusters[i] = e.clusterId();
        hosts[i] = e.hostId();
        infraEnvs[i] = e.infraEnvId();
        severities[i] = e.severity().wire();
        messages[i] = e.message();
        props[i] = e.props().isEmpty() ? null : new JsonObject(new LinkedHashMap<>(e.props())).encode();
      }
      all.add(conn.preparedQuery(INSERT_EVENTS).execute(Tuple.from(Arrays.asList(w.tenant(), now, names, clusters,
          hosts, infraEnvs, severities, messages, props))));
    }
    return all;
  }

  // ------------------------------------------------------------------------------------------------ rows

  static StoredHost storedHost(Row r) {
    return new StoredHost(r.getUUID("id"), r.getUUID("infra_env_id"), r.getUUID("cluster_id"), r.getString("status"),
        r.getString("status_info"), SnapshotMapper.instant(r.getOffsetDateTime("status_updated_at")), r.getString("role"),
        r.getString("suggested_role"), r.getBoolean("bootstrap"), r.getString("requested_hostname"),
        r.getString("installation_disk_id"), r.getString("installation_disk_path"),
        r.getString("discovery_agent_version"), r.getString("inventory"), r.getString("connectivity"),
        r.getString("validations_info"), r.getString("progress"), r.getString("step_results"), r.getString("spec"),
        r.getString("state"), SnapshotMapper.instant(r.getOffsetDateTime("checked_in_at")),
        SnapshotMapper.instant(r.getOffsetDateTime("registered_at")),
        r.getLong("row_version"), r.getBoolean("static_net"));
  }

  static StoredCluster storedCluster(Row r) {
    return new StoredCluster(r.getUUID("id"), r.getString("tenant"), r.getString("name"),
        r.getString("openshift_version"), r.getString("status"), r.getString("status_info"),
        r.getOffsetDateTime("status_updated_at"), r.getString("spec"), r.getString("validations_info"),
        r.getString("progress"), r.getOffsetDateTime("install_started_at"),
        r.getOffsetDateTime("install_completed_at"), r.getString("state"), r.getLong("row_version"),
        Boolean.TRUE.equals(r.getBoolean("custom_manifests")));
  }
}
