package dev.rendezvous.service.repo;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** A cluster's generated installation files (and the kubeconfig made from them), by download name. */
public final class ClusterFileRepository {
  private ClusterFileRepository() {}

  /** A stored file with the preparation that made it. */
  public record StoredFile(String name, byte[] content, OffsetDateTime preparation, String generator) {}

  /**
   * Sends (without waiting) the statements that replace every generated file of the cluster with {@code files}, tagged
   * with the preparation: for one transaction ({@link dev.rendezvous.service.db.PipelinedTransaction}).
   */
  public static List<Future<?>> replaceGenerated(SqlClient tx, UUID clusterId, OffsetDateTime preparation,
      String generator, Map<String, byte[]> files) {
    List<Tuple> rows = new ArrayList<>(files.size());
    files.forEach((name, content) -> rows.add(Tuple.of(clusterId, name, Buffer.buffer(content), preparation, generator)));
    List<Future<?>> sent = new ArrayList<>();
    sent.add(tx.preparedQuery("DELETE FROM cluster_files WHERE cluster_id = $1").execute(Tuple.of(clusterId)));
    if (!rows.isEmpty()) {
      sent.add(tx.preparedQuery("INSERT INTO cluster_files (cluster_id, file_name, content, preparation, generator)"
          + " VALUES ($1, $2, $3, $4, $5)").executeBatch(rows));
    }
    return sent;
  }

  /** Stores (or replaces) one file of the current preparation, e.g. the kubeconfig with the ingress CA merged. */
  public static Future<Void> put(SqlClient db, UUID clusterId, String name, byte[] content) {
    return db.preparedQuery("INSERT INTO cluster_files (cluster_id, file_name, content, preparation, generator)"
            + " SELECT $1, $2, $3, max(preparation), max(generator) FROM cluster_files WHERE cluster_id = $1"
            + " ON CONFLICT (cluster_id, file_name) DO UPDATE SET content = EXCLUDED.content, created_at = now()")
        .execute(Tuple.of(clusterId, name, Buffer.buffer(content)))
        .mapEmpty();
  }

  public static Future<Optional<StoredFile>> get(SqlClient db, UUID clusterId, String name) {
    return db.preparedQuery("SELECT file_name, content, preparation, generator FROM cluster_files"
            + " WHERE cluster_id = $1 AND file_name = $2")
        .execute(Tuple.of(clusterId, name))
        .map(rs -> rs.size() == 0 ? Optional.empty() : Optional.of(rs.iterator().next()).map(r -> new StoredFile(
            r.getString(0), r.getBuffer(1).getBytes(), r.getOffsetDateTime(2), r.getString(3))));
  }

  /** The names of the cluster's stored files that start with {@code prefix}, sorted. */
  public static Future<List<String>> names(SqlClient db, UUID clusterId, String prefix) {
    return db.preparedQuery("SELECT file_name FROM cluster_files WHERE cluster_id = $1 AND starts_with(file_name, $2)"
            + " ORDER BY file_name")
        .execute(Tuple.of(clusterId, prefix))
        .map(rs -> {
          List<String> out = new ArrayList<>(rs.size());
          rs.forEach(r -> out.add(r.getString(0)));
          return out;
        });
  }

  /** The preparation the cluster's files belong to, if any were generated. */
  public static Future<Optional<OffsetDateTime>> preparation(SqlClient db, UUID clusterId) {
    return db.preparedQuery("SELECT max(preparation) FROM cluster_files WHERE cluster_id = $1")
        .execute(Tuple.of(clusterId))
        .map(rs -> Optional.ofNullable(rs.iterator().next().getOffsetDateTime(0)));
  }
}
