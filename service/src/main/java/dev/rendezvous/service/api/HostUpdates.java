package dev.rendezvous.service.api;

import dev.rendezvous.service.domain.host.HostRole;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Validated host-update-params split into what the domain decides on and the spec extras (pure). */
record HostUpdates(HostRole role, String hostname, String diskId, String diskField, JsonObject specChanges) {

  static HostUpdates of(JsonObject p) {
    String role = p.getString("host_role");
    String diskId = null;
    String diskField = null;
    JsonArray disks = p.getJsonArray("disks_selected_config");
    if (disks != null) {
      for (int i = 0; i < disks.size(); i++) {
        JsonObject d = disks.getJsonObject(i);
        if ("install".equals(d.getString("role"))) {
          diskId = d.getString("id");
          diskField = "disks_selected_config[" + i + "].id";
        }
      }
    }
    JsonObject spec = new JsonObject();
    for (String k : new String[] {"machine_config_pool_name", "node_labels", "disks_skip_formatting"}) {
      if (p.containsKey(k)) {
        spec.put(k, p.getValue(k));
      }
    }
    return new HostUpdates(role == null ? null : HostRole.fromWire(role), p.getString("host_name"), diskId, diskField,
        spec);
  }
}
