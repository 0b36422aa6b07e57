package dev.rendezvous.app;

import dev.rendezvous.gateway.HostCheck;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.HostRepository.HostRef;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/** The gateway's {@link HostCheck} answered from the hosts table (one query per batch of attached hosts). */
final class RegisteredHosts implements HostCheck {

    private final SqlClient db;

    RegisteredHosts(SqlClient db) {
        this.db = db;
    }

    @Override
    public Future<Set<Host>> registered(Collection<Host> hosts) {
        List<HostRef> refs = new ArrayList<>(hosts.size());
        List<Host> asked = new ArrayList<>(hosts.size());
        for (Host h : hosts) {
            UUID infraEnv = uuid(h.infraEnvId());
            UUID host = uuid(h.hostId());
            if (infraEnv != null && host != null) { // anything else cannot be registered
                refs.add(new HostRef(infraEnv, host));
                asked.add(h);
            }
        }
        return HostRepository.registered(db, refs).map(found -> {
            Set<Host> out = new HashSet<>();
            for (int i = 0; i < refs.size(); i++) {
                if (found.contains(refs.get(i))) {
                    out.add(asked.get(i));
                }
            }
            return out;
        });
    }

    private static UUID uuid(String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
