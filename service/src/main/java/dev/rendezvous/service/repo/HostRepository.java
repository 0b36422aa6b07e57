package dev.rendezvous.service.repo;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Host rows; tenant scoping goes through the owning infra-env. */
public final class HostRepository {
  // The JSON documents upstream carries as strings are read as text: decoding a big cluster's connectivity reports
  // (each host's view of every peer, ~300 KB at 1,000 hosts) into maps only to encode them again cost gigabytes.
  private static final String HEAD =
      "h.id, h.infra_env_id, h.cluster_id, h.status, h.status_info, h.status_updated_at, h.role, h.suggested_role,"
          + " h.bootstrap, h.requested_hostname, h.installation_disk_id, h.installation_disk_path,"
          + " h.discovery_agent_version, ";
  private static final String TAIL = ", h.validations_info::text AS validations_info, h.progress, h.spec,"
      + " h.checked_in_at, h.registered_at, h.row_version, h.created_at, h.updated_at, h.state";
  static final String COLUMNS = HEAD + "h.inventory::text AS inventory, h.connectivity::text AS connectivity" + TAIL;

  /** Which of the two large per-host documents a read carries (a list asks for what it shows). */
  public enum Documents {
    ALL("h.inventory::text AS inventory, h.connectivity::text AS connectivity"),
    INVENTORY("h.inventory::text AS inventory, NULL::text AS connectivity"),
    CONNECTIVITY("NULL::text AS inventory, h.connectivity::text AS connectivity"),
    NONE("NULL::text AS inventory, NULL::text AS connectivity");

    private final String columns;

    Documents(String select) {
      this.columns = HEAD + select + TAIL;
    }

    public static Documents of(boolean inventory, boolean connectivity) {
      return inventory ? (connectivity ? ALL : INVENTORY) : (connectivity ? CONNECTIVITY : NONE);
    }
  }
  private static final String FROM = " FROM hosts h JOIN infra_envs ie ON ie.id = h.infra_env_id";

  public record HostRow(
      UUID id, UUID infraEnvId, UUID clusterId, String status, String statusInfo, OffsetDateTime statusUpdatedAt,
      String role, String suggestedRole, boolean bootstrap, String requestedHostname, String installationDiskId,
      String installationDiskPath, String discoveryAgentVersion, String inventory, String connectivity,
      String validationsInfo, JsonObject progress, JsonObject spec, OffsetDateTime checkedInAt,
      OffsetDateTime registeredAt, long rowVersion, OffsetDateTime createdAt, OffsetDateTime updatedAt,
      JsonObject state) {

    static HostRow of(Row r) {
      return new HostRow(r.getUUID("id"), r.getUUID("infra_env_id"), r.getUUID("cluster_id"), r.getString("status"),
          r.getString("status_info"), r.getOffsetDateTime("status_updated_at"), r.getString("role"),
          r.getString("suggested_role"), r.getBoolean("bootstrap"), r.getString("requested_hostname"),
          r.getString("installation_disk_id"), r.getString("installation_disk_path"),
          r.getString("discovery_agent_version"), r.getString("inventory"), r.getString("connectivity"),
          r.getString("validations_info"), r.getJsonObject("progress"), r.getJsonObject("spec"),
          r.getOffsetDateTime("checked_in_at"), r.getOffsetDateTime("registered_at"), r.getLong("row_version"),
          r.getOffsetDateTime("created_at"), r.getOffsetDateTime("updated_at"), r.getJsonObject("state"));
    }
  }

  private HostRepository() {}

  public static Future<Optional<HostRow>> get(SqlClient db, String tenant, UUID infraEnvId, UUID id) {
    return get(db, tenant, infraEnvId, id, Documents.ALL);
  }

  /** One host with only the documents asked for (an installer's report needs neither of its large ones). */
  public static Future<Optional<HostRow>> get(SqlClient db, String tenant, UUID infraEnvId, UUID id, Documents docs) {
    return db.preparedQuery("SELECT " + docs.columns + FROM + " WHERE h.id = $1 AND h.infra_env_id = $2 AND ie.tenant = $3")
        .execute(Tuple.of(id, infraEnvId, tenant))
        .map(rs -> rs.size() == 0 ? Optional.empty() : Optional.of(HostRow.of(rs.iterator().next())));
  }

  public static Future<List<HostRow>> listByInfraEnv(SqlClient db, String tenant, UUID infraEnvId) {
    return dev.rendezvous.service.db.PagedRead.rows(db, "SELECT " + COLUMNS + FROM
        + INFRA_ENV_HOSTS + LIST_ORDER, Tuple.of(infraEnvId, tenant))
        .map(HostRepository::all);
  }

  public static Future<List<HostRow>> listByCluster(SqlClient db, String tenant, UUID clusterId) {
    return listByCluster(db, tenant, clusterId, Documents.ALL);
  }

  public static Future<List<HostRow>> listByCluster(SqlClient db, String tenant, UUID clusterId, Documents docs) {
    return listByCluster(db, tenant, clusterId, docs, List.of(), null);
  }

  /**
   * The cluster's hosts whose effective role (the suggested one while auto-assigned) is one of {@code roles} (any when
   * empty) and whose status is {@code status} (any when null), filtered in the query: every installer of a 1,000-host
   * cluster polls for its 3 masters, and reading the 1,000 rows for each poll once exhausted the pool.
   */
  public static Future<List<HostRow>> listByCluster(SqlClient db, String tenant, UUID clusterId, Documents docs,
      List<String> roles, String status) {
    String sql = "SELECT " + docs.columns + FROM + CLUSTER_HOSTS + LIST_ORDER;
    Tuple args = Tuple.of(clusterId, tenant, roles.toArray(String[]::new), status);
    if (docs == Documents.ALL || docs == Documents.CONNECTIVITY) {
      // the connectivity reports grow with the square of the cluster: read them a page at a time
      return dev.rendezvous.service.db.PagedRead.rows(db, sql, args).map(HostRepository::all);
    }
    return db.preparedQuery(sql).execute(args).map(HostRepository::all);
  }

  /** A cluster's hosts ($1) of a tenant ($2) whose effective role is one of $3 (any: empty), status $4 (any: null). */
  private static final String CLUSTER_HOSTS = " WHERE h.cluster_id = $1 AND ie.tenant = $2"
      + " AND (cardinality($3::text[]) = 0 OR (CASE WHEN h.role = 'auto-assign' AND h.suggested_role IS NOT NULL"
      + " THEN h.suggested_role ELSE h.role END) = ANY($3::text[])) AND ($4::text IS NULL OR h.status = $4)";
  /** The order of every host list: registration, then id. */
  private static final String LIST_ORDER = " ORDER BY h.registered_at, h.id";

  /** An infra-env's hosts ($1) of a tenant ($2). */
  private static final String INFRA_ENV_HOSTS = " WHERE h.infra_env_id = $1 AND ie.tenant = $2";

  /**
   * The ids of the hosts {@link #listByCluster} reads, in its order, without their rows: a view streamed to a client
   * reads the rows a page at a time ({@link #clusterHostsByIds}).
   */
  public static Future<List<UUID>> idsByCluster(SqlClient db, String tenant, UUID clusterId, List<String> roles,
      String status) {
    return db.preparedQuery("SELECT h.id" + FROM + CLUSTER_HOSTS + LIST_ORDER)
        .execute(Tuple.of(clusterId, tenant, roles.toArray(String[]::new), status)).map(HostRepository::ids);
  }

  /** Of {@code ids}, the rows {@link #listByCluster} would still read, in the order of {@code ids}. */
  public static Future<List<HostRow>> clusterHostsByIds(SqlClient db, String tenant, UUID clusterId, List<String> roles,
      String status, List<UUID> ids, Documents docs) {
    return db.preparedQuery("SELECT " + docs.columns + FROM + CLUSTER_HOSTS + " AND h.id = ANY($5::uuid[])")
        .execute(Tuple.of(clusterId, tenant, roles.toArray(String[]::new), status, ids.toArray(UUID[]::new)))
        .map(rs -> inOrder(rs, ids));
  }

  /** The ids of the hosts {@link #listByInfraEnv} reads, in its order, without their rows. */
  public static Future<List<UUID>> idsByInfraEnv(SqlClient db, String tenant, UUID infraEnvId) {
    return db.preparedQuery("SELECT h.id" + FROM + INFRA_ENV_HOSTS + LIST_ORDER)
        .execute(Tuple.of(infraEnvId, tenant)).map(HostRepository::ids);
  }

  /** Of {@code ids}, the rows {@link #listByInfraEnv} would still read, in the order of {@code ids}. */
  public static Future<List<HostRow>> infraEnvHostsByIds(SqlClient db, String tenant, UUID infraEnvId, List<UUID> ids) {
    return db.preparedQuery("SELECT " + COLUMNS + FROM + INFRA_ENV_HOSTS + " AND h.id = ANY($3::uuid[])")
        .execute(Tuple.of(infraEnvId, tenant, ids.toArray(UUID[]::new))).map(rs -> inOrder(rs, ids));
  }

  private static List<HostRow> inOrder(Iterable<Row> rs, List<UUID> ids) {
    java.util.Map<UUID, HostRow> found = new java.util.HashMap<>();
    rs.forEach(r -> {
      HostRow h = HostRow.of(r);
      found.put(h.id(), h);
    });
    List<HostRow> out = new ArrayList<>(found.size());
    ids.forEach(id -> {
      HostRow h = found.get(id);
      if (h != null) {
        out.add(h);
      }
    });
    return out;
  }

  private static List<UUID> ids(Iterable<Row> rs) {
    List<UUID> out = new ArrayList<>();
    rs.forEach(r -> out.add(r.getUUID(0)));
    return out;
  }

  /**
   * The ids of several clusters' hosts (a list of clusters with their hosts), each cluster's in the order of its host
   * list, without their rows: the list is streamed, its rows read a page at a time ({@link #tenantHostsByIds}).
   */
  public static Future<java.util.Map<UUID, List<UUID>>> idsByClusters(SqlClient db, String tenant,
      List<UUID> clusterIds) {
    return db.preparedQuery("SELECT h.cluster_id, h.id" + FROM + " WHERE h.cluster_id = ANY($1) AND ie.tenant = $2"
            + LIST_ORDER)
        .execute(Tuple.of(clusterIds.toArray(new UUID[0]), tenant))
        .map(rs -> {
          java.util.Map<UUID, List<UUID>> out = new java.util.HashMap<>();
          rs.forEach(r -> out.computeIfAbsent(r.getUUID(0), k -> new ArrayList<>()).add(r.getUUID(1)));
          return out;
        });
  }

  /** Of {@code ids}, the rows of a tenant's hosts still there, in the order of {@code ids}, with both documents. */
  public static Future<List<HostRow>> tenantHostsByIds(SqlClient db, String tenant, List<UUID> ids) {
    return db.preparedQuery("SELECT " + COLUMNS + FROM + " WHERE h.id = ANY($1::uuid[]) AND ie.tenant = $2")
        .execute(Tuple.of(ids.toArray(UUID[]::new), tenant)).map(rs -> inOrder(rs, ids));
  }

  /** How many hosts a cluster has, and how many are known (its view's total and ready host counts). */
  public record HostCounts(long total, long known) {
    public static final HostCounts NONE = new HostCounts(0, 0);
  }

  /** The counts of each cluster's hosts, without reading the hosts (a list without hosts needs no more). */
  public static Future<java.util.Map<UUID, HostCounts>> countsByClusters(SqlClient db, String tenant, List<UUID> clusterIds) {
    return db.preparedQuery("SELECT h.cluster_id, count(*), count(*) FILTER (WHERE h.status = 'known')" + FROM
            + " WHERE h.cluster_id = ANY($1) AND ie.tenant = $2 GROUP BY h.cluster_id")
        .execute(Tuple.of(clusterIds.toArray(new UUID[0]), tenant))
        .map(rs -> {
          java.util.Map<UUID, HostCounts> out = new java.util.HashMap<>();
          rs.forEach(r -> out.put(r.getUUID(0), new HostCounts(r.getLong(1), r.getLong(2))));
          return out;
        });
  }

  /** A host of an infra-env. */
  public record HostRef(UUID infraEnvId, UUID hostId) {}

  /** Which of {@code hosts} are registered: one query (on the primary key) for a gateway's batch of attached hosts. */
  public static Future<java.util.Set<HostRef>> registered(SqlClient db, List<HostRef> hosts) {
    if (hosts.isEmpty()) {
      return Future.succeededFuture(java.util.Set.of());
    }
    UUID[] ids = new UUID[hosts.size()];
    UUID[] infraEnvs = new UUID[hosts.size()];
    for (int i = 0; i < hosts.size(); i++) {
      ids[i] = hosts.get(i).hostId();
      infraEnvs[i] = hosts.get(i).infraEnvId();
    }
    return db.preparedQuery("SELECT h.infra_env_id, h.id FROM unnest($1::uuid[], $2::uuid[]) AS k(id, infra_env_id)"
            + " JOIN hosts h ON h.id = k.id AND h.infra_env_id = k.infra_env_id")
        .execute(Tuple.tuple().addArrayOfUUID(ids).addArrayOfUUID(infraEnvs))
        .map(rs -> {
          java.util.Set<HostRef> found = new java.util.HashSet<>();
          rs.forEach(r -> found.add(new HostRef(r.getUUID(0), r.getUUID(1))));
          return found;
        });
  }

  public static Future<Boolean> delete(SqlClient db, UUID infraEnvId, UUID id) {
    return db.preparedQuery("DELETE FROM hosts WHERE id = $1 AND infra_env_id = $2")
        .execute(Tuple.of(id, infraEnvId))
        .map(rs -> rs.rowCount() == 1);
  }

  public static Future<Long> countByInfraEnv(SqlClient db, UUID infraEnvId) {
    return db.preparedQuery("SELECT count(*) FROM hosts WHERE infra_env_id = $1")
        .execute(Tuple.of(infraEnvId))
        .map(rs -> rs.iterator().next().getLong(0));
  }

  public static Future<Void> deleteByCluster(SqlClient db, UUID clusterId) {
    return db.preparedQuery("DELETE FROM hosts WHERE cluster_id = $1").execute(Tuple.of(clusterId)).mapEmpty();
  }

  static List<HostRow> all(Iterable<Row> rs) {
    List<HostRow> out = new ArrayList<>();
    for (Row r : rs) {
      out.add(HostRow.of(r));
    }
    return out;
  }
}
