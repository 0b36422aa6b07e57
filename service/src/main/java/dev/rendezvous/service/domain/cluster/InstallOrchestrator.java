package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostTransition.Rejection;
import dev.rendezvous.service.domain.validation.ClusterValidator;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The install action (POST .../actions/install, §7): precondition (cluster ready), role assignment from
 * the suggestions, bootstrap election and the cluster's move to preparing-for-installation. The caller
 * refreshes hosts and cluster first, then applies the whole decision in one transaction.
 */
public final class InstallOrchestrator {
  private final ClusterStateMachine clusterMachine;
  private final ClusterValidator validator;
  private final DomainConfig config;

  public InstallOrchestrator(DomainConfig config) {
    this.config = config;
    this.clusterMachine = new ClusterStateMachine(config);
    this.validator = new ClusterValidator(config);
  }

  /**
   * @param roles role to store per host (auto-assign hosts take their suggested role)
   * @param bootstrapHost the host to mark bootstrap (null: one already is, or none qualifies)
   * @param validationsInfo the cluster validations when refused, for the 409 body
   */
  public record InstallDecision(
      ClusterTransition cluster,
      Map<UUID, HostRole> roles,
      UUID bootstrapHost,
      List<DomainEvent> events,
      ValidationsInfo validationsInfo,
      Rejection rejection) {
    public InstallDecision {
      roles = Map.copyOf(roles);
      events = List.copyOf(events);
    }

    public boolean rejected() {
      return rejection != null;
    }
  }

  public InstallDecision install(ClusterContext c, Instant now) {
    if (c.status() != ClusterStatus.READY) {
      ValidationsInfo info = validator.validate(c).info();
      return new InstallDecision(null, Map.of(), null, List.of(), info, new Rejection(409,
          String.format("Cluster %s is in %s state, cluster can be installed only in ready state", c.id(), c.status())));
    }
    Map<UUID, HostRole> roles = new LinkedHashMap<>();
    List<HostSnapshot> hosts = new ArrayList<>();
    Map<UUID, HostRole> fresh = freshSuggestions(c);
    for (HostSnapshot h : c.hosts()) {
      HostRole suggested = fresh.getOrDefault(h.id(), h.suggestedRole());
      if (h.role() == HostRole.AUTO_ASSIGN && suggested != null && suggested != HostRole.AUTO_ASSIGN) {
        roles.put(h.id(), suggested);
        hosts.add(h.toBuilder().role(suggested).build());
      } else {
        hosts.add(h);
      }
    }
    ClusterContext assigned = c.toBuilder().hosts(hosts).build();
    List<DomainEvent> events = new ArrayList<>();
    UUID bootstrap = null;
    if (assigned.hosts().stream().noneMatch(HostSnapshot::bootstrap)) {
      bootstrap = RoleAssigner.electBootstrap(assigned, config).orElse(null);
      if (bootstrap != null) {
        HostSnapshot b = assigned.host(bootstrap).orElseThrow();
        events.add(DomainEvent.host("host_bootstrap_set", EventSeverity.INFO,
            "Host " + b.nameForMessages() + ": set as bootstrap", b, Map.of("host_name", b.nameForMessages())));
      }
    }
    ClusterTransition t = clusterMachine.apply(assigned, new ClusterEvent.PrepareForInstallation(), now);
    events.addAll(t.events());
    return new InstallDecision(t, roles, bootstrap, events, null, t.rejection());
  }

  /**
   * The auto-assign hosts' roles worked out afresh at install, as upstream does (its AutoAssignRole forces a refresh):
   * a suggestion made before the user set other hosts' roles may be stale (three suggested masters, one of them then
   * made a worker by hand, leaves two). Empty when the roles cannot be computed yet (a host without inventory).
   */
  private Map<UUID, HostRole> freshSuggestions(ClusterContext c) {
    List<HostSnapshot> cleared = new ArrayList<>();
    for (HostSnapshot h : c.hosts()) {
      cleared.add(h.role() == HostRole.AUTO_ASSIGN ? h.toBuilder().suggestedRole(null).build() : h);
    }
    return new RoleAssigner(config).suggest(c.toBuilder().hosts(cleared).build()).suggestedRoles();
  }
}
