package dev.rendezvous.service.consumers;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.service.bus.ProcessedEvents;
import dev.rendezvous.service.repo.EventRecord;
import dev.rendezvous.service.repo.EventRepository;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.InfraEnvRepository;
import dev.rendezvous.service.repo.Times;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host registered at a gateway: create its row (or reset it on re-registration) and record the
 * event, once per bus event id. Returns the host's identity when something changed, so the caller
 * can plan the host's first steps.
 */
public final class HostRegistrationHandler {
  private static final Logger LOG = LoggerFactory.getLogger(HostRegistrationHandler.class);

  /** The registered host, for planning. */
  public record Registered(UUID hostId, UUID infraEnvId, UUID clusterId, String tenant) {}

  private final Pool pool;

  public HostRegistrationHandler(Pool pool) {
    this.pool = pool;
  }

  public Future<Optional<Registered>> handle(BusEvent event, HostRegistered reg) {
    UUID hostId;
    UUID infraEnvId;
    try {
      hostId = UUID.fromString(reg.hostId());
      infraEnvId = UUID.fromString(reg.infraEnvId());
    } catch (IllegalArgumentException e) {
      LOG.atWarn().addKeyValue("event_id", event.eventId()).log("registration with malformed ids skipped");
      return Future.succeededFuture(Optional.empty());
    }
    return pool.withTransaction(tx -> ProcessedEvents.claim(tx, event.eventId()).compose(first -> {
      if (!first) {
        return Future.succeededFuture(Optional.<Registered>empty());
      }
      return InfraEnvRepository.getAnyTenant(tx, infraEnvId).compose(ie -> {
        if (ie.isEmpty()) {
          LOG.atWarn().addKeyValue("infra_env_id", infraEnvId).addKeyValue("host_id", hostId)
              .log("registration for an unknown infra-env skipped");
          return Future.succeededFuture(Optional.<Registered>empty());
        }
        UUID clusterId = ie.get().clusterId();
        String status = clusterId == null ? "discovering-unbound" : "discovering";
        var now = Times.now();
        return HostRepository.upsertRegistered(tx, hostId, infraEnvId, clusterId, status,
                "Waiting for host to send hardware details", reg.discoveryAgentVersion(), now)
            .compose(v -> EventRepository.record(tx, EventRecord.info(ie.get().tenant(), "host_registration_succeeded",
                "Host " + hostId + ": Successfully registered", clusterId, infraEnvId, hostId)))
            .map(v -> {
              LOG.atInfo().addKeyValue("host_id", hostId).addKeyValue("infra_env_id", infraEnvId)
                  .addKeyValue("cluster_id", clusterId).log("host registered");
              return Optional.of(new Registered(hostId, infraEnvId, clusterId, ie.get().tenant()));
            });
      });
    }));
  }
}
