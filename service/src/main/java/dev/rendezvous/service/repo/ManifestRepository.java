package dev.rendezvous.service.repo;

import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** A cluster's custom manifests (upstream's /v2/clusters/{id}/manifests). */
public final class ManifestRepository {
  private ManifestRepository() {}

  public record Manifest(String folder, String fileName, String content, OffsetDateTime createdAt, OffsetDateTime updatedAt) {}

  public static Future<List<Manifest>> list(SqlClient db, UUID clusterId) {
    return db.preparedQuery("SELECT folder, file_name, content, created_at, updated_at FROM cluster_manifests"
            + " WHERE cluster_id = $1 ORDER BY folder, file_name")
        .execute(Tuple.of(clusterId))
        .map(rs -> {
          List<Manifest> out = new ArrayList<>(rs.size());
          rs.forEach(r -> out.add(of(r)));
          return out;
        });
  }

  public static Future<Optional<Manifest>> get(SqlClient db, UUID clusterId, String folder, String fileName) {
    return db.preparedQuery("SELECT folder, file_name, content, created_at, updated_at FROM cluster_manifests"
            + " WHERE cluster_id = $1 AND folder = $2 AND file_name = $3")
        .execute(Tuple.of(clusterId, folder, fileName))
        .map(rs -> rs.size() == 0 ? Optional.empty() : Optional.of(of(rs.iterator().next())));
  }

  /** Creates or replaces; true when it was created. */
  public static Future<Boolean> put(SqlClient db, UUID clusterId, String folder, String fileName, String content) {
    OffsetDateTime now = Times.now();
    return db.preparedQuery("INSERT INTO cluster_manifests (cluster_id, folder, file_name, content, created_at, updated_at)"
            + " VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (cluster_id, folder, file_name) DO UPDATE"
            + " SET content = EXCLUDED.content, updated_at = EXCLUDED.updated_at RETURNING (xmax = 0)")
        .execute(Tuple.of(clusterId, folder, fileName, content, now))
        .map(rs -> rs.iterator().next().getBoolean(0));
  }

  public static Future<Boolean> delete(SqlClient db, UUID clusterId, String folder, String fileName) {
    return db.preparedQuery("DELETE FROM cluster_manifests WHERE cluster_id = $1 AND folder = $2 AND file_name = $3")
        .execute(Tuple.of(clusterId, folder, fileName))
        .map(rs -> rs.rowCount() > 0);
  }

  private static Manifest of(Row r) {
    return new Manifest(r.getString(0), r.getString(1), r.getString(2), r.getOffsetDateTime(3), r.getOffsetDateTime(4));
  }
}
