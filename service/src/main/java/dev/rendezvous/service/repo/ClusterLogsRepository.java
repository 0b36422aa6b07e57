package dev.rendezvous.service.repo;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Uploaded log bundles: one per (cluster, type, host); a new upload replaces the last. */
public final class ClusterLogsRepository {
  /** The host id stored for bundles that belong to no host (the controller's). */
  public static final UUID NO_HOST = new UUID(0, 0);

  private ClusterLogsRepository() {}

  public record LogBundle(String logsType, UUID hostId, String fileName, byte[] content, OffsetDateTime uploadedAt) {}

  public static Future<Void> put(SqlClient db, UUID clusterId, String logsType, UUID hostId, String fileName, byte[] content) {
    return db.preparedQuery("INSERT INTO cluster_logs (cluster_id, logs_type, host_id, file_name, content, uploaded_at)"
            + " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (cluster_id, logs_type, host_id) DO UPDATE"
            + " SET file_name = EXCLUDED.file_name, content = EXCLUDED.content, uploaded_at = EXCLUDED.uploaded_at")
        .execute(Tuple.of(clusterId, logsType, hostId == null ? NO_HOST : hostId, fileName, Buffer.buffer(content),
            Times.now()))
        .mapEmpty();
  }

  /** Bundles of a cluster, filtered by type (null: all) and host (null: any). */
  public static Future<List<LogBundle>> list(SqlClient db, UUID clusterId, String logsType, UUID hostId) {
    return db.preparedQuery("SELECT logs_type, host_id, file_name, content, uploaded_at FROM cluster_logs"
            + " WHERE cluster_id = $1 AND ($2::text IS NULL OR logs_type = $2) AND ($3::uuid IS NULL OR host_id = $3)"
            + " ORDER BY logs_type, host_id")
        .execute(Tuple.of(clusterId, logsType, hostId))
        .map(rs -> {
          List<LogBundle> out = new ArrayList<>(rs.size());
          rs.forEach(r -> out.add(new LogBundle(r.getString(0), r.getUUID(1), r.getString(2), r.getBuffer(3).getBytes(),
              r.getOffsetDateTime(4))));
          return out;
        });
  }
}
