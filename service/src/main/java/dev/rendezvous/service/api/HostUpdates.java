package dev.rendezvous.service.api;

import dev.rendezvous.service.repo.HostRepository.HostRow;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Applies validated host-update-params to a host row (pure). */
final class HostUpdates {
  private HostUpdates() {}

  static HostRow apply(HostRow h, JsonObject p) {
    String role = p.getString("host_role", h.role());
    String hostname = p.getString("host_name", h.requestedHostname());
    String diskId = h.installationDiskId();
    String diskPath = h.installationDiskPath();
    JsonArray disks = p.getJsonArray("disks_selected_config");
    if (disks != null) {
      for (int i = 0; i < disks.size(); i++) {
        JsonObject d = disks.getJsonObject(i);
        if ("install".equals(d.getString("role"))) {
          String id = d.getString("id");
          String path = diskPathInInventory(h, id);
          if (path == null) {
            throw new InvalidInputException("disks_selected_config[" + i + "].id",
                "disk '" + id + "' is not in the host's inventory");
          }
          diskId = id;
          diskPath = path;
        }
      }
    }
    JsonObject spec = h.spec().copy();
    for (String k : new String[] {"machine_config_pool_name", "node_labels", "disks_skip_formatting"}) {
      if (p.containsKey(k)) {
        spec.put(k, p.getValue(k));
      }
    }
    return new HostRow(h.id(), h.infraEnvId(), h.clusterId(), h.status(), h.statusInfo(), h.statusUpdatedAt(), role,
        h.suggestedRole(), h.bootstrap(), hostname, diskId, diskPath, h.discoveryAgentVersion(), h.inventory(),
        h.connectivity(), h.validationsInfo(), h.progress(), spec, h.checkedInAt(), h.registeredAt(),
        h.rowVersion() + 1, h.createdAt(), h.updatedAt());
  }

  /** Returns the disk's path when the inventory lists a disk with that id (or path), else null. */
  static String diskPathInInventory(HostRow h, String id) {
    if (h.inventory() == null) {
      return null;
    }
    JsonObject inv = h.inventory() instanceof JsonObject o ? o : new JsonObject(h.inventory().toString());
    JsonArray disks = inv.getJsonArray("disks", new JsonArray());
    for (Object o : disks) {
      JsonObject d = (JsonObject) o;
      if (id.equals(d.getString("id")) || id.equals(d.getString("path")) || id.equals(d.getString("by_id"))) {
        return d.getString("path", "/dev/" + d.getString("name"));
      }
    }
    return null;
  }
}
