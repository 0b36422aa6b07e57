package dev.rendezvous.service.api.params;

import static dev.rendezvous.service.api.params.Rules.*;

import dev.rendezvous.service.validation.Names;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Set;

/** host-update-params. */
public final class HostParams {
  private static final Schema UPDATE = new Schema(Map.of(
      "host_role", oneOf("auto-assign", "master", "arbiter", "worker"),
      "host_name", string(63, Names::hostnameProblem),
      "disks_selected_config", arrayOf(object(Map.of(
          "id", string(1, 1024),
          "role", oneOf("none", "install")), Set.of("id", "role")), 64),
      "disks_skip_formatting", arrayOf(object(Map.of(
          "disk_id", string(1, 1024),
          "skip_formatting", bool()), Set.of("disk_id", "skip_formatting")), 64),
      "machine_config_pool_name", string(1, 253),
      "node_labels", arrayOf(object(Map.of(
          "key", string(1, 317),
          "value", string(0, 63)), Set.of("key", "value")), 64)),
      Set.of());

  private HostParams() {}

  public static JsonObject forUpdate(JsonObject body) {
    return UPDATE.validate(body, true);
  }
}
