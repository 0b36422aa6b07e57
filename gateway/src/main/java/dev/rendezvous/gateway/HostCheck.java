package dev.rendezvous.gateway;

import io.vertx.core.Future;
import java.util.Collection;
import java.util.Set;

/**
 * Asked which of the hosts attached to a gateway are still registered, so a host the service does not have (deleted,
 * or never registered) gets upstream's 404 instead of empty steps forever. Asked in batches, by the gateway's sweep,
 * and for one host when a host already answered 404 comes back. The service plugs in a database lookup; a gateway
 * without one takes every host as registered.
 */
@FunctionalInterface
public interface HostCheck {
    /** One host of an infra-env. */
    record Host(String infraEnvId, String hostId) {
    }

    HostCheck ALL = hosts -> Future.succeededFuture(Set.copyOf(hosts));

    /** The ones of {@code hosts} that are registered now; a failed future when that cannot be told (no verdict). */
    Future<Set<Host>> registered(Collection<Host> hosts);
}
