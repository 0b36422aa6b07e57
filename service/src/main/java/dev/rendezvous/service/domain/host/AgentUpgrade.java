package dev.rendezvous.service.domain.host;

import static dev.rendezvous.service.domain.host.HostStatus.DISCOVERING;
import static dev.rendezvous.service.domain.host.HostStatus.DISCOVERING_UNBOUND;
import static dev.rendezvous.service.domain.host.HostStatus.INSUFFICIENT;
import static dev.rendezvous.service.domain.host.HostStatus.INSUFFICIENT_UNBOUND;
import static dev.rendezvous.service.domain.host.HostStatus.KNOWN;
import static dev.rendezvous.service.domain.host.HostStatus.KNOWN_UNBOUND;
import static dev.rendezvous.service.domain.host.HostStatus.PENDING_FOR_INPUT;

import dev.rendezvous.service.domain.DomainConfig;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Upstream's agent upgrade: a host whose agent is not the service's gets one {@code upgrade-agent} step instead of its
 * others while nothing is being installed, and {@code compatible-agent} fails meanwhile. Upstream compares container
 * images; the service's agent here is the jar it serves, and its agents report that jar's version. An agent that
 * reports a container image is upstream's own: it speaks the same API, and this service has no image to give it, so
 * it is left as it is. An upgrade that failed is not asked again until the agent registers again.
 */
public final class AgentUpgrade {
  /** upstream's isAgentUpgradeAllowed, binding aside (a binding host's agent exits anyway). */
  static final Set<HostStatus> ALLOWED = EnumSet.of(DISCOVERING, DISCOVERING_UNBOUND, INSUFFICIENT, INSUFFICIENT_UNBOUND,
      KNOWN, KNOWN_UNBOUND, PENDING_FOR_INPUT);
  /** A bare version, as this service's agent reports: no registry path, no tag separator. */
  private static final Pattern OURS = Pattern.compile("[0-9][0-9A-Za-z.+_-]*");

  private AgentUpgrade() {}

  /** Whether an agent of this version is one this service can upgrade. */
  public static boolean ours(String agentVersion) {
    return agentVersion != null && OURS.matcher(agentVersion).matches();
  }

  /** Whether the host's agent is the one the service expects (or one it does not manage). */
  public static boolean compatible(DomainConfig cfg, HostSnapshot h) {
    return !cfg.enableUpgradeAgent() || !ours(h.discoveryAgentVersion())
        || cfg.agentImage().equals(h.discoveryAgentVersion());
  }

  /** Whether the host's next steps are one upgrade-agent step. */
  public static boolean due(DomainConfig cfg, HostSnapshot h) {
    return h.status() != null && ALLOWED.contains(h.status()) && !compatible(cfg, h)
        && !cfg.agentImage().equals(h.agentUpgradeFailed());
  }
}
