package dev.rendezvous.service.install;

import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.operators.OperatorManifests;
import dev.rendezvous.service.domain.planning.StepOutputs;
import dev.rendezvous.service.domain.validation.OperatorRequirements;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** Reads what the operators' manifests depend on off the stored cluster and its hosts. */
final class OperatorTargets {
  private OperatorTargets() {}

  static OperatorManifests.Target of(ClusterRow c, List<HostRow> hosts) {
    List<String> operators = new ArrayList<>();
    for (Object o : c.spec().getJsonArray("olm_operators", new JsonArray())) {
      if (o instanceof JsonObject j && j.getString("name") != null) {
        operators.add(j.getString("name"));
      }
    }
    List<OperatorManifests.Host> out = new ArrayList<>();
    if (!operators.isEmpty()) {
      for (HostRow h : hosts) {
        out.add(host(h));
      }
    }
    return new OperatorManifests.Target(c.openshiftVersion(), operators, out);
  }

  private static OperatorManifests.Host host(HostRow h) {
    HostRole role = HostRole.parse(h.role()).orElse(HostRole.AUTO_ASSIGN);
    if (role == HostRole.AUTO_ASSIGN) {
      role = HostRole.parse(h.suggestedRole()).orElse(HostRole.AUTO_ASSIGN);
    }
    Inventory inv = null;
    try {
      inv = h.inventory() == null ? null : StepOutputs.inventory(h.inventory().toString());
    } catch (RuntimeException e) {
      // a host without a readable inventory offers ODF no disk (the ODF check would have stopped the installation)
    }
    HostSnapshot s = HostSnapshot.builder(h.id(), h.infraEnvId()).role(role).inventory(inv)
        .installationDiskId(h.installationDiskId()).installationDiskPath(h.installationDiskPath()).build();
    return new OperatorManifests.Host(role, OperatorRequirements.odfDisks(s));
  }
}
