package dev.rendezvous.app;

import dev.rendezvous.gateway.InfraEnvCheck;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gateway's {@link InfraEnvCheck} answered from the infra_envs table. One that exists is remembered (a deleted one
 * is refused before this check, by its tombstone), so a fleet's registrations ask once per infra-env and instance.
 */
final class KnownInfraEnvs implements InfraEnvCheck {
    private static final int MAX_REMEMBERED = 100_000;
    private final SqlClient db;
    private final Set<String> known = ConcurrentHashMap.newKeySet();

    KnownInfraEnvs(SqlClient db) {
        this.db = db;
    }

    @Override
    public Future<Boolean> exists(String infraEnvId) {
        if (known.contains(infraEnvId)) {
            return Future.succeededFuture(true);
        }
        UUID id;
        try {
            id = UUID.fromString(infraEnvId);
        } catch (IllegalArgumentException e) {
            return Future.succeededFuture(false);
        }
        return db.preparedQuery("SELECT 1 FROM infra_envs WHERE id = $1").execute(Tuple.of(id)).map(rows -> {
            if (rows.size() > 0) {
                if (known.size() >= MAX_REMEMBERED) {
                    known.clear();
                }
                known.add(infraEnvId);
                return true;
            }
            return false;
        });
    }
}
