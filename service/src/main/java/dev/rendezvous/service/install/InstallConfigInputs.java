package dev.rendezvous.service.install;

import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** Reads an {@link InstallConfigInput} off the stored cluster, its hosts and its pull secret. */
public final class InstallConfigInputs {
  private InstallConfigInputs() {}

  public static InstallConfigInput of(ClusterRow c, List<HostRow> hosts, String pullSecret) {
    JsonObject spec = c.spec();
    int controlPlane = spec.getInteger("control_plane_count", 3);
    int workers = 0;
    String snoDisk = null;
    for (HostRow h : hosts) {
      String role = "auto-assign".equals(h.role()) && h.suggestedRole() != null ? h.suggestedRole() : h.role();
      if ("worker".equals(role)) {
        workers++;
      }
      if (controlPlane == 1 && ("master".equals(role) || h.bootstrap())) {
        snoDisk = h.installationDiskId() != null ? h.installationDiskId() : h.installationDiskPath();
      }
    }
    List<InstallConfigInput.ClusterNetwork> clusterNets = new ArrayList<>();
    for (Object o : spec.getJsonArray("cluster_networks", new JsonArray())) {
      JsonObject n = (JsonObject) o;
      clusterNets.add(new InstallConfigInput.ClusterNetwork(n.getString("cidr"), n.getInteger("host_prefix", 23)));
    }
    List<String> machine = cidrs(spec.getJsonArray("machine_networks"), "cidr");
    if (machine.isEmpty() && c.state() != null && c.state().getJsonArray("derived_machine_networks") != null) {
      machine = strings(c.state().getJsonArray("derived_machine_networks"));
    }
    JsonObject platform = spec.getJsonObject("platform", new JsonObject());
    return new InstallConfigInput(c.name(), spec.getString("base_dns_domain", ""), spec.getString("cpu_architecture", "x86_64"),
        controlPlane, workers, spec.getString("network_type", "OVNKubernetes"), clusterNets,
        cidrs(spec.getJsonArray("service_networks"), "cidr"), machine, cidrs(c.vips("api_vips"), "ip"),
        cidrs(c.vips("ingress_vips"), "ip"), platform.getString("type", "baremetal"),
        spec.getString("hyperthreading", "all"), pullSecret, spec.getString("ssh_public_key"),
        spec.getString("http_proxy"), spec.getString("https_proxy"), spec.getString("no_proxy"),
        spec.getString("additional_trust_bundle"), snoDisk, spec.getString("install_config_overrides"), null);
  }

  private static List<String> cidrs(JsonArray a, String field) {
    List<String> out = new ArrayList<>();
    if (a != null) {
      for (Object o : a) {
        if (o instanceof JsonObject j && j.getString(field) != null) {
          out.add(j.getString(field));
        }
      }
    }
    return out;
  }

  private static List<String> strings(JsonArray a) {
    List<String> out = new ArrayList<>();
    a.forEach(o -> out.add(String.valueOf(o)));
    return out;
  }
}
