package dev.rendezvous.service.repo;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/** Writes events (inside the caller's transaction) and answers the upstream event filters. */
public final class EventRepository {
  private EventRepository() {}

  public static Future<Void> record(SqlClient db, EventRecord e) {
    return db.preparedQuery(
            "INSERT INTO events (tenant, name, cluster_id, host_id, infra_env_id, severity, category, message,"
                + " event_time, request_id, props) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)")
        .execute(Tuple.from(Arrays.asList(
            e.tenant(), e.name(), e.clusterId(), e.hostId(), e.infraEnvId(),
            e.severity(), e.category(), e.message(), e.eventTime(), e.requestId(), e.props())))
        .mapEmpty();
  }

  /** Upstream's query: filters, severity counts (before the severity filter), total after it. */
  public record Query(
      String tenant,
      UUID clusterId,
      List<UUID> hostIds,
      UUID infraEnvId,
      boolean clusterLevel,
      boolean deletedHosts,
      List<String> severities,
      List<String> categories,
      String message,
      long limit,
      long offset,
      boolean descending) {}

  public record Page(JsonArray events, long total, JsonObject severityCounts) {}

  public static Future<Page> list(SqlClient db, Query q) {
    List<Object> args = new ArrayList<>();
    StringBuilder where = new StringBuilder(" WHERE tenant = $1");
    args.add(q.tenant());
    if (q.clusterId() != null) {
      args.add(q.clusterId());
      where.append(" AND cluster_id = $").append(args.size());
      List<String> ors = new ArrayList<>();
      if (!q.hostIds().isEmpty()) {
        args.add(q.hostIds().toArray(new UUID[0]));
        ors.add("host_id = ANY($" + args.size() + ")");
      }
      if (q.clusterLevel()) {
        ors.add("host_id IS NULL");
      }
      if (q.deletedHosts()) {
        ors.add("(host_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM hosts h WHERE h.id = events.host_id))");
      }
      if (!ors.isEmpty()) {
        where.append(" AND (").append(String.join(" OR ", ors)).append(")");
      }
    } else if (!q.hostIds().isEmpty()) {
      args.add(q.hostIds().toArray(new UUID[0]));
      where.append(" AND host_id = ANY($").append(args.size()).append(")");
    } else if (q.infraEnvId() != null) {
      args.add(q.infraEnvId());
      where.append(" AND infra_env_id = $").append(args.size());
    }
    args.add(q.categories().toArray(new String[0]));
    where.append(" AND category = ANY($").append(args.size()).append(")");
    if (q.message() != null && !q.message().isEmpty()) {
      args.add("%" + q.message().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
      where.append(" AND message ILIKE $").append(args.size());
    }
    String countsSql = "SELECT severity, count(*) FROM events" + where + " GROUP BY severity";
    List<Object> countArgs = List.copyOf(args);
    if (!q.severities().isEmpty()) {
      args.add(q.severities().toArray(new String[0]));
      where.append(" AND severity = ANY($").append(args.size()).append(")");
    }
    String totalSql = "SELECT count(*) FROM events" + where;
    List<Object> totalArgs = List.copyOf(args);
    StringBuilder pageSql = new StringBuilder("SELECT name, cluster_id, host_id, infra_env_id, severity, category,"
        + " message, event_time, request_id, props FROM events").append(where)
        .append(" ORDER BY event_time ").append(q.descending() ? "DESC" : "ASC").append(", seq ").append(q.descending() ? "DESC" : "ASC");
    if (q.limit() >= 0) {
      pageSql.append(" LIMIT ").append(q.limit());
    }
    pageSql.append(" OFFSET ").append(q.offset());
    return db.preparedQuery(countsSql).execute(Tuple.from(countArgs)).compose(counts -> {
      JsonObject sc = new JsonObject().put("info", 0L).put("warning", 0L).put("error", 0L).put("critical", 0L);
      for (Row r : counts) {
        sc.put(r.getString(0), r.getLong(1));
      }
      return db.preparedQuery(totalSql).execute(Tuple.from(totalArgs)).compose(total -> {
        long n = total.iterator().next().getLong(0);
        if (q.limit() == 0) {
          return Future.succeededFuture(new Page(new JsonArray(), n, sc));
        }
        return db.preparedQuery(pageSql.toString()).execute(Tuple.from(totalArgs)).map(rows -> {
          JsonArray out = new JsonArray();
          for (Row r : rows) {
            out.add(toJson(r));
          }
          return new Page(out, n, sc);
        });
      });
    });
  }

  public static JsonObject toJson(Row r) {
    JsonObject o = new JsonObject()
        .put("name", r.getString("name"))
        .put("severity", r.getString("severity"))
        .put("category", r.getString("category"))
        .put("message", r.getString("message"))
        .put("event_time", Times.format(r.getOffsetDateTime("event_time")));
    putUuid(o, "cluster_id", r.getUUID("cluster_id"));
    putUuid(o, "host_id", r.getUUID("host_id"));
    putUuid(o, "infra_env_id", r.getUUID("infra_env_id"));
    if (r.getString("request_id") != null) {
      o.put("request_id", r.getString("request_id"));
    }
    Object props = r.getValue("props");
    if (props != null) {
      o.put("props", props.toString());
    }
    return o;
  }

  private static void putUuid(JsonObject o, String k, UUID v) {
    if (v != null) {
      o.put(k, v.toString());
    }
  }
}
