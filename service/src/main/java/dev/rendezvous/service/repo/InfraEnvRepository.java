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

/** Infra-env rows, scoped by tenant. */
public final class InfraEnvRepository {
  static final String COLUMNS = "id, tenant, cluster_id, name, spec, row_version, created_at, updated_at,"
      + " signing_key_generation";

  public record InfraEnvRow(
      UUID id, String tenant, UUID clusterId, String name, JsonObject spec, long rowVersion,
      OffsetDateTime createdAt, OffsetDateTime updatedAt, int signingKeyGeneration) {

    /** A row under the first signing key. */
    public InfraEnvRow(UUID id, String tenant, UUID clusterId, String name, JsonObject spec, long rowVersion,
        OffsetDateTime createdAt, OffsetDateTime updatedAt) {
      this(id, tenant, clusterId, name, spec, rowVersion, createdAt, updatedAt, 0);
    }

    static InfraEnvRow of(Row r) {
      return new InfraEnvRow(r.getUUID("id"), r.getString("tenant"), r.getUUID("cluster_id"), r.getString("name"),
          r.getJsonObject("spec"), r.getLong("row_version"), r.getOffsetDateTime("created_at"),
          r.getOffsetDateTime("updated_at"), r.getInteger("signing_key_generation"));
    }
  }

  /** Regenerates the infra-env's signing key: tokens and URLs of older generations stop working. */
  public static Future<Boolean> regenerateSigningKey(SqlClient db, String tenant, UUID id) {
    return db.preparedQuery("UPDATE infra_envs SET signing_key_generation = signing_key_generation + 1,"
            + " updated_at = now() WHERE id = $1 AND tenant = $2")
        .execute(Tuple.of(id, tenant)).map(r -> r.rowCount() > 0);
  }

  private InfraEnvRepository() {}

  public static Future<Void> insert(SqlClient db, InfraEnvRow e, String pullSecret) {
    return db.preparedQuery("INSERT INTO infra_envs (id, tenant, cluster_id, name, spec, pull_secret, row_version,"
            + " created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8)")
        .execute(Tuple.from(Arrays.asList(e.id(), e.tenant(), e.clusterId(), e.name(), e.spec(), pullSecret,
            e.createdAt(), e.updatedAt())))
        .mapEmpty();
  }

  public static Future<Optional<InfraEnvRow>> get(SqlClient db, String tenant, UUID id) {
    return db.preparedQuery("SELECT " + COLUMNS + " FROM infra_envs WHERE id = $1 AND tenant = $2")
        .execute(Tuple.of(id, tenant))
        .map(InfraEnvRepository::first);
  }

  /** Lookup without a tenant, for agent- and image-facing paths authenticated by infra-env token. */
  public static Future<Optional<InfraEnvRow>> getAnyTenant(SqlClient db, UUID id) {
    return db.preparedQuery("SELECT " + COLUMNS + " FROM infra_envs WHERE id = $1")
        .execute(Tuple.of(id))
        .map(InfraEnvRepository::first);
  }

  public static Future<Optional<String>> pullSecret(SqlClient db, UUID id) {
    return db.preparedQuery("SELECT pull_secret FROM infra_envs WHERE id = $1")
        .execute(Tuple.of(id))
        .map(rs -> rs.size() == 0 ? Optional.empty() : Optional.of(rs.iterator().next().getString(0)));
  }

  public static Future<List<InfraEnvRow>> list(SqlClient db, String tenant, UUID clusterIdOrNull) {
    String sql = "SELECT " + COLUMNS + " FROM infra_envs WHERE tenant = $1"
        + (clusterIdOrNull == null ? "" : " AND cluster_id = $2") + " ORDER BY created_at, id";
    Tuple args = clusterIdOrNull == null ? Tuple.of(tenant) : Tuple.of(tenant, clusterIdOrNull);
    return db.preparedQuery(sql).execute(args).map(rs -> {
      List<InfraEnvRow> out = new ArrayList<>(rs.size());
      for (Row r : rs) {
        out.add(InfraEnvRow.of(r));
      }
      return out;
    });
  }

  public static Future<Boolean> updateSpec(SqlClient db, InfraEnvRow e, long expectedVersion, String pullSecretOrNull) {
    return db.preparedQuery("UPDATE infra_envs SET spec = $1, pull_secret = COALESCE($2, pull_secret), updated_at = $3,"
            + " row_version = row_version + 1 WHERE id = $4 AND tenant = $5 AND row_version = $6")
        .execute(Tuple.from(Arrays.asList(e.spec(), pullSecretOrNull, Times.now(), e.id(), e.tenant(), expectedVersion)))
        .map(rs -> rs.rowCount() == 1);
  }

  public static Future<Boolean> delete(SqlClient db, String tenant, UUID id) {
    return db.preparedQuery("DELETE FROM infra_envs WHERE id = $1 AND tenant = $2")
        .execute(Tuple.of(id, tenant))
        .map(rs -> rs.rowCount() == 1);
  }

  static Optional<InfraEnvRow> first(RowSet<Row> rs) {
    return rs.size() == 0 ? Optional.empty() : Optional.of(InfraEnvRow.of(rs.iterator().next()));
  }
}
