package dev.rendezvous.service.repo;

import dev.rendezvous.service.domain.cluster.DhcpVips;
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

/** Cluster rows. Every query is scoped by tenant; updates check the row version. */
public final class ClusterRepository {
  public static final String COLUMNS =
      "id, tenant, name, openshift_version, status, status_info, status_updated_at, spec, validations_info,"
          + " progress, install_started_at, install_completed_at, row_version, created_at, updated_at, state";

  /** A cluster row as stored. */
  public record ClusterRow(
      UUID id,
      String tenant,
      String name,
      String openshiftVersion,
      String status,
      String statusInfo,
      OffsetDateTime statusUpdatedAt,
      JsonObject spec,
      Object validationsInfo,
      JsonObject progress,
      OffsetDateTime installStartedAt,
      OffsetDateTime installCompletedAt,
      long rowVersion,
      OffsetDateTime createdAt,
      OffsetDateTime updatedAt,
      JsonObject state) {

    /** A new cluster (no state yet). */
    public ClusterRow(UUID id, String tenant, String name, String openshiftVersion, String status, String statusInfo,
        OffsetDateTime statusUpdatedAt, JsonObject spec, Object validationsInfo, JsonObject progress,
        OffsetDateTime installStartedAt, OffsetDateTime installCompletedAt, long rowVersion, OffsetDateTime createdAt,
        OffsetDateTime updatedAt) {
      this(id, tenant, name, openshiftVersion, status, statusInfo, statusUpdatedAt, spec, validationsInfo, progress,
          installStartedAt, installCompletedAt, rowVersion, createdAt, updatedAt, new JsonObject());
    }

    /**
     * The cluster's VIPs of one kind ("api_vips" or "ingress_vips") as upstream shows them ([{"cluster_id", "ip"}]):
     * in vip_dhcp_allocation mode the ones a DHCP server leased (kept by the brain in the state; none before), else the
     * user's.
     */
    public io.vertx.core.json.JsonArray vips(String field) {
      if (!spec.getBoolean("vip_dhcp_allocation", false)) {
        return spec.getJsonArray(field, new io.vertx.core.json.JsonArray());
      }
      DhcpVips leased = leasedVips();
      io.vertx.core.json.JsonArray out = new io.vertx.core.json.JsonArray();
      if (leased != null) {
        out.add(new JsonObject().put("cluster_id", id.toString())
            .put("ip", field.equals("api_vips") ? leased.apiVip() : leased.ingressVip()));
      }
      return out;
    }

    /** In vip_dhcp_allocation mode, the VIPs and leases a DHCP server granted (the brain's {@code state}); else null. */
    public DhcpVips leasedVips() {
      JsonObject d = state == null || !spec.getBoolean("vip_dhcp_allocation", false) ? null
          : state.getJsonObject("dhcp_vips");
      if (d == null || d.getString("api_vip") == null || d.getString("ingress_vip") == null) {
        return null;
      }
      return new DhcpVips(d.getString("api_vip"), d.getString("ingress_vip"), d.getString("api_vip_lease", ""),
          d.getString("ingress_vip_lease", ""));
    }

    static ClusterRow of(Row r) {
      return of(r, false);
    }

    /** {@code docsAsText}: the JSON documents were selected as their text ({@code ::text}) and are parsed here. */
    static ClusterRow of(Row r, boolean docsAsText) {
      return new ClusterRow(r.getUUID("id"), r.getString("tenant"), r.getString("name"),
          r.getString("openshift_version"), r.getString("status"), r.getString("status_info"),
          r.getOffsetDateTime("status_updated_at"), object(r, "spec", docsAsText),
          docsAsText ? value(r.getString("validations_info")) : r.getValue("validations_info"),
          object(r, "progress", docsAsText), r.getOffsetDateTime("install_started_at"),
          r.getOffsetDateTime("install_completed_at"), r.getLong("row_version"),
          r.getOffsetDateTime("created_at"), r.getOffsetDateTime("updated_at"), object(r, "state", docsAsText));
    }

    private static JsonObject object(Row r, String column, boolean asText) {
      if (!asText) {
        return r.getJsonObject(column);
      }
      String text = r.getString(column);
      return text == null ? null : new JsonObject(text);
    }

    // as the client decodes a jsonb column (an object, an array, a string, a number...)
    private static Object value(String text) {
      return text == null ? null : io.vertx.core.json.Json.decodeValue(text);
    }
  }

  private ClusterRepository() {}

  public static Future<Void> insert(SqlClient db, ClusterRow c, String pullSecret) {
    return db.preparedQuery("INSERT INTO clusters (id, tenant, name, openshift_version, status, status_info,"
            + " status_updated_at, spec, pull_secret, row_version, created_at, updated_at)"
            + " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $11)")
        .execute(Tuple.from(Arrays.asList(c.id(), c.tenant(), c.name(), c.openshiftVersion(), c.status(),
            c.statusInfo(), c.statusUpdatedAt(), c.spec(), pullSecret, c.createdAt(), c.updatedAt())))
        .mapEmpty();
  }

  public static Future<Optional<ClusterRow>> get(SqlClient db, String tenant, UUID id) {
    return db.preparedQuery("SELECT " + COLUMNS + " FROM clusters WHERE id = $1 AND tenant = $2")
        .execute(Tuple.of(id, tenant))
        .map(ClusterRepository::first);
  }

  /**
   * As {@link #get}, the row locked until the transaction ends: a user's read-modify-write of the cluster then waits for
   * a brain commit in flight (and the brain's next commit finds the new version and reads again) instead of answering
   * 409 because the brain wrote the row between the read and the write (seen right after a cluster was created, when
   * the brain settles it for the first time).
   */
  public static Future<Optional<ClusterRow>> getForUpdate(SqlClient db, String tenant, UUID id) {
    return db.preparedQuery("SELECT " + COLUMNS + " FROM clusters WHERE id = $1 AND tenant = $2 FOR UPDATE")
        .execute(Tuple.of(id, tenant))
        .map(ClusterRepository::first);
  }

  /** The stored pull secret, for Ignition and install-config generation; never returned by the API. */
  public static Future<Optional<String>> pullSecret(SqlClient db, String tenant, UUID id) {
    return db.preparedQuery("SELECT pull_secret FROM clusters WHERE id = $1 AND tenant = $2")
        .execute(Tuple.of(id, tenant))
        .map(rs -> rs.size() == 0 ? Optional.empty() : Optional.of(rs.iterator().next().getString(0)));
  }

  /**
   * The tenant's clusters, oldest first, unparsed: their documents come as text and each row is parsed when its view
   * is made (on a worker where a page of views is big), not all of them as they arrive on the event loop (~7 KB a
   * cluster, ~70 MB for 10,000).
   */
  public static Future<List<UnparsedRow>> list(SqlClient db, String tenant) {
    return db.preparedQuery("SELECT " + COLUMNS_JSON_AS_TEXT + " FROM clusters WHERE tenant = $1"
            + " ORDER BY created_at, id")
        .execute(Tuple.of(tenant))
        .map(ClusterRepository::unparsed);
  }

  /** What a row is now, without its contents: every write to a cluster row bumps its version. */
  public record RowVersion(UUID id, long rowVersion) {}

  /** The tenant's clusters in {@link #list}'s order, each with its row version only (a few bytes a row, not ~7 KB). */
  public static Future<List<RowVersion>> versions(SqlClient db, String tenant) {
    return db.preparedQuery("SELECT id, row_version FROM clusters WHERE tenant = $1 ORDER BY created_at, id")
        .execute(Tuple.of(tenant))
        .map(rs -> {
          List<RowVersion> out = new ArrayList<>(rs.size());
          rs.forEach(r -> out.add(new RowVersion(r.getUUID(0), r.getLong(1))));
          return out;
        });
  }

  /** A cluster's row version and its hosts' counts. */
  public record VersionAndCounts(long rowVersion, HostRepository.HostCounts counts) {}

  /**
   * The cluster's row version and its hosts' counts in one statement, a few bytes instead of the row (empty: no such
   * cluster of the tenant). Its hosts are counted as {@link HostRepository#countsByClusters} counts them.
   */
  public static Future<Optional<VersionAndCounts>> versionAndCounts(SqlClient db, String tenant, UUID id) {
    return db.preparedQuery("SELECT c.row_version, count(h.id), count(h.id) FILTER (WHERE h.status = 'known')"
            + " FROM clusters c LEFT JOIN (hosts h JOIN infra_envs ie ON ie.id = h.infra_env_id AND ie.tenant = $2)"
            + " ON h.cluster_id = c.id WHERE c.id = $1 AND c.tenant = $2 GROUP BY c.row_version")
        .execute(Tuple.of(id, tenant))
        .map(rs -> {
          if (rs.size() == 0) {
            return Optional.empty();
          }
          Row r = rs.iterator().next();
          return Optional.of(new VersionAndCounts(r.getLong(0), new HostRepository.HostCounts(r.getLong(1), r.getLong(2))));
        });
  }

  /** {@link #COLUMNS} with the JSON documents as their text, which the client then does not parse. */
  private static final String COLUMNS_JSON_AS_TEXT =
      "id, tenant, name, openshift_version, status, status_info, status_updated_at, spec::text AS spec,"
          + " validations_info::text AS validations_info, progress::text AS progress, install_started_at,"
          + " install_completed_at, row_version, created_at, updated_at, state::text AS state";

  /** A cluster row whose JSON documents are still text: {@link #parse()} makes the row (on a worker, when many). */
  public record UnparsedRow(Row row) {
    public UUID id() {
      return row.getUUID("id");
    }

    public ClusterRow parse() {
      return ClusterRow.of(row, true);
    }
  }

  /**
   * The tenant's clusters among {@code ids}, in no particular order (a deleted one is left out), unparsed: the
   * cluster list reads thousands at once, and their documents parsed as they arrive were event-loop work in
   * proportion (an event loop was seen blocked 2.8 s while a list of 3,800 clusters was read).
   */
  public static Future<List<UnparsedRow>> byIds(SqlClient db, String tenant, List<UUID> ids) {
    if (ids.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    return db.preparedQuery("SELECT " + COLUMNS_JSON_AS_TEXT + " FROM clusters WHERE id = ANY($1) AND tenant = $2")
        .execute(Tuple.of(ids.toArray(new UUID[0]), tenant))
        .map(ClusterRepository::unparsed);
  }

  private static List<UnparsedRow> unparsed(RowSet<Row> rs) {
    List<UnparsedRow> out = new ArrayList<>(rs.size());
    rs.forEach(r -> out.add(new UnparsedRow(r)));
    return out;
  }

  /** Returns false when the row changed since {@code expectedVersion} was read (or is gone). */
  public static Future<Boolean> updateSpec(SqlClient db, ClusterRow c, long expectedVersion, String pullSecretOrNull) {
    return db.preparedQuery("UPDATE clusters SET name = $1, spec = $2, pull_secret = COALESCE($3, pull_secret),"
            + " updated_at = $4, row_version = row_version + 1 WHERE id = $5 AND tenant = $6 AND row_version = $7")
        .execute(Tuple.from(Arrays.asList(c.name(), c.spec(), pullSecretOrNull, Times.now(), c.id(), c.tenant(), expectedVersion)))
        .map(rs -> rs.rowCount() == 1);
  }

  public static Future<Boolean> delete(SqlClient db, String tenant, UUID id) {
    return db.preparedQuery("DELETE FROM clusters WHERE id = $1 AND tenant = $2")
        .execute(Tuple.of(id, tenant))
        .map(rs -> rs.rowCount() == 1);
  }

  static Optional<ClusterRow> first(RowSet<Row> rs) {
    return rs.size() == 0 ? Optional.empty() : Optional.of(ClusterRow.of(rs.iterator().next()));
  }
}
