package dev.rendezvous.agent.installer;

import dev.rendezvous.controller.Controller;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Starts the in-cluster controller. On real hardware the bootstrap installer renders it as a Job into the new
 * cluster's manifests (upstream's PrepareController); no OpenShift cluster exists here, so in dry-run the bootstrap
 * (or single-node) installer runs it in this process against its simulated cluster. A seam for tests.
 */
public interface ControllerLauncher {
  /** A running controller: {@link #ready()} once it is up, {@link #finished()} when it ends. */
  interface Running {
    CompletableFuture<?> ready();

    CompletableFuture<?> finished();

    void close();
  }

  Running launch(InstallRequest request, String serviceUrl, String token) throws Exception;

  /** The real controller module in dry-run mode (simulated nodes and operators), in this process. */
  static ControllerLauncher inProcessDryRun(double timeScale) {
    return (r, url, token) -> {
      Map<String, String> env = new HashMap<>();
      env.put("CLUSTER_ID", r.clusterId());
      env.put("INVENTORY_URL", url);
      env.put("PULL_SECRET_TOKEN", token);
      env.put("OPENSHIFT_VERSION", r.openshiftVersion() == null ? "" : r.openshiftVersion());
      env.put("CONTROL_PLANE_COUNT", Integer.toString(r.controlPlaneCount() == null ? 3 : r.controlPlaneCount()));
      env.put("CHECK_CLUSTER_VERSION", Boolean.toString(Boolean.TRUE.equals(r.checkCvo())));
      env.put("DRY_ENABLE", "true");
      env.put("DRY_TIME_SCALE", Double.toString(timeScale));
      Controller c = Controller.start(env, new String[0]);
      return new Running() {
        @Override
        public CompletableFuture<?> ready() {
          return c.ready();
        }

        @Override
        public CompletableFuture<?> finished() {
          return c.finished();
        }

        @Override
        public void close() {
          c.close();
        }
      };
    };
  }
}
