package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.host.HostSnapshot;
import java.util.UUID;

/**
 * A host record as upstream keys it: one machine (its host id) booted from two infra-envs' images is two hosts, one in
 * each, and each agent's events act on its own record.
 */
record HostKey(UUID infraEnvId, UUID hostId) {
  static HostKey of(HostSnapshot h) {
    return new HostKey(h.infraEnvId(), h.id());
  }
}
