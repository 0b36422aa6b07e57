package dev.rendezvous.service.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a valid agent token's signature cannot tell, kept in memory so the agent edge asks no database per request:
 * infra-envs whose signing key was regenerated (tokens of older generations are refused, 401) and infra-envs the user
 * deleted (their agents are answered 404, as upstream's, at registration already). This process learns of its own
 * changes at once and of other instances' through {@link #follow}.
 */
public final class InfraEnvTokenStates {
  private static final Logger LOG = LoggerFactory.getLogger(InfraEnvTokenStates.class);
  /** How long a deleted infra-env is remembered; an agent booting from its ISO later is refused by the host check. */
  static final Duration DELETED_KEPT = Duration.ofDays(30);
  /** Reads look this far behind the newest deletion seen: a deleting transaction may commit after a later one. */
  private static final Duration OVERLAP = Duration.ofMinutes(5);

  /** The current signing-key generation per infra-env, as far as this process has seen it change. */
  private static final Map<UUID, Integer> GENERATIONS = new ConcurrentHashMap<>();
  /** Deleted infra-envs and when they were deleted. */
  private static final Map<UUID, Instant> DELETED = new ConcurrentHashMap<>();

  private InfraEnvTokenStates() {}

  /** An infra-env's signing key was regenerated: tokens of older generations are refused from now on. */
  public static void regenerated(UUID infraEnvId, int generation) {
    GENERATIONS.merge(infraEnvId, generation, Math::max);
  }

  /** An infra-env was deleted: its agents are refused from now on. */
  public static void deleted(UUID infraEnvId, Instant when) {
    DELETED.merge(infraEnvId, when, (a, b) -> a.isBefore(b) ? a : b);
  }

  /** False for a token issued under an older signing key than this process knows of. */
  public static boolean isCurrent(String infraEnvId, int generation) {
    UUID id = parse(infraEnvId);
    Integer known = id == null ? null : GENERATIONS.get(id);
    return known == null || generation >= known;
  }

  /** True once this process knows the infra-env was deleted. */
  public static boolean isDeleted(String infraEnvId) {
    UUID id = parse(infraEnvId);
    return id != null && DELETED.containsKey(id);
  }

  /**
   * Keeps this process up to date with other instances' changes every {@code periodMillis}: the infra-envs whose key
   * was ever regenerated (few) and the deletions since the newest one read before (with an overlap). Deletions past
   * {@link #DELETED_KEPT} are forgotten here and dropped from the table. Completes with the timer's id once the first
   * read is done (failed if it failed: an instance must not answer agents knowing none of the deletions).
   */
  public static Future<Long> follow(Vertx vertx, Pool pool, long periodMillis) {
    Follower follower = new Follower(pool);
    return follower.read().map(v -> vertx.setPeriodic(periodMillis, id -> {
      if (follower.idle.compareAndSet(true, false)) {
        follower.read().onComplete(ar -> {
          follower.idle.set(true);
          if (ar.failed()) {
            LOG.warn("infra-env token states not read: {}", ar.cause().toString());
          }
        });
      }
    }));
  }

  private static final class Follower {
    private final Pool pool;
    /** No read is in flight (a slow database gets one at a time, not a pile of them). */
    private final AtomicBoolean idle = new AtomicBoolean(true);
    /** The newest deletion read; written only by the one read in flight. */
    private volatile OffsetDateTime newest = OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
    private volatile Instant pruned = Instant.EPOCH;

    Follower(Pool pool) {
      this.pool = pool;
    }

    Future<Void> read() {
      Instant now = Instant.now();
      Instant cutoff = now.minus(DELETED_KEPT);
      Future<Void> generations = pool.query(
              "SELECT id, signing_key_generation FROM infra_envs WHERE signing_key_generation > 0").execute()
          .map(rows -> {
            rows.forEach(r -> regenerated(r.getUUID(0), r.getInteger(1)));
            return null;
          });
      OffsetDateTime since = newest.minus(OVERLAP);
      OffsetDateTime floor = cutoff.atOffset(ZoneOffset.UTC);
      Future<Void> deletions = pool.preparedQuery("SELECT id, deleted_at FROM deleted_infra_envs WHERE deleted_at > $1")
          .execute(Tuple.of(since.isAfter(floor) ? since : floor))
          .map(rows -> {
            OffsetDateTime seen = newest;
            for (Row r : rows) {
              OffsetDateTime at = r.getOffsetDateTime(1);
              deleted(r.getUUID(0), at.toInstant());
              if (at.isAfter(seen)) {
                seen = at;
              }
            }
            newest = seen;
            return null;
          });
      Future<Void> prune = Future.succeededFuture();
      if (Duration.between(pruned, now).toHours() >= 1) {
        pruned = now;
        DELETED.values().removeIf(at -> at.isBefore(cutoff));
        prune = pool.preparedQuery("DELETE FROM deleted_infra_envs WHERE deleted_at < $1").execute(Tuple.of(floor))
            .mapEmpty();
      }
      return Future.all(generations, deletions, prune).mapEmpty();
    }
  }

  private static UUID parse(String s) {
    try {
      return s == null ? null : UUID.fromString(s);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
