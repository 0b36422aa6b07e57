package dev.rendezvous.gateway;

import io.vertx.core.Future;
import java.util.Optional;

/**
 * Asked before installer progress is published, so a stage the service would refuse (backwards, not in the host's
 * role, host not installing) gets upstream's answer at once instead of a 200 the service then drops. The service
 * plugs its state machine in; a gateway without one publishes everything.
 */
@FunctionalInterface
public interface ProgressCheck {
    /** Progress the service would refuse now: the HTTP status and reason. */
    record Refusal(int status, String reason) {
    }

    ProgressCheck NONE = (infraEnvId, hostId, stage, info) -> Future.succeededFuture(Optional.empty());

    Future<Optional<Refusal>> check(String infraEnvId, String hostId, String stage, String progressInfo);
}
