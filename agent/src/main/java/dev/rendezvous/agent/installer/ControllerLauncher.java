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

  /**
   * The real controller module in dry-run mode (simulated nodes and operators), in this process, trusting the service
   * as the agent does ({@code tls}: its {@code --insecure} and {@code --cacert}).
   */
  static ControllerLauncher inProcessDryRun(double timeScale, dev.rendezvous.controller.service.HttpClients.Tls tls) {
    return (r, url, token) -> {
      Map<String, String> env = new HashMap<>();
      if (tls.skipVerify()) {
        env.put("SKIP_CERT_VERIFICATION", "true");
      }
      tls.extraCa().ifPresent(ca -> env.put("CA_CERT_PATH", ca.toString()));
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

  /**
   * A real bootstrap: as upstream's PrepareController, the controller's Job (with its settings) is rendered into the
   * new cluster's manifests under {@code root}/opt/openshift/manifests, where bootkube applies it; it then runs in
   * the cluster, so there is nothing here to wait for.
   */
  static ControllerLauncher manifests(java.nio.file.Path root, String image,
      dev.rendezvous.controller.service.HttpClients.Tls tls) {
    return (r, url, token) -> {
      java.nio.file.Path dir = root.resolve("opt/openshift/manifests");
      java.nio.file.Files.createDirectories(dir);
      // the service's CA goes with the Job (a ConfigMap mounted where upstream's controller reads it), so the
      // controller in the new cluster verifies the service as the agent did
      String ca = tls.extraCa().isPresent() ? java.nio.file.Files.readString(tls.extraCa().get()) : null;
      String caConfigMap = ca == null ? "" : String.join("\n",
          "apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: assisted-installer-controller-ca",
          "  namespace: assisted-installer", "data:", "  service-ca-cert.crt: |",
          ca.strip().lines().map(l -> "    " + l).collect(java.util.stream.Collectors.joining("\n")), "---", "");
      String yaml = caConfigMap + String.join("\n",
          "apiVersion: v1", "kind: Secret", "metadata:", "  name: assisted-installer-controller-secret",
          "  namespace: assisted-installer", "stringData:", "  pull-secret-token: \"" + token + "\"", "---",
          "apiVersion: batch/v1", "kind: Job", "metadata:", "  name: assisted-installer-controller",
          "  namespace: assisted-installer", "spec:", "  template:", "    spec:", "      restartPolicy: OnFailure",
          "      serviceAccountName: assisted-installer-controller", "      containers:",
          "      - name: assisted-installer-controller", "        image: " + image, "        env:",
          "        - {name: CLUSTER_ID, value: \"" + r.clusterId() + "\"}",
          "        - {name: INVENTORY_URL, value: \"" + url + "\"}",
          "        - {name: OPENSHIFT_VERSION, value: \"" + (r.openshiftVersion() == null ? "" : r.openshiftVersion()) + "\"}",
          "        - {name: CONTROL_PLANE_COUNT, value: \"" + (r.controlPlaneCount() == null ? 3 : r.controlPlaneCount()) + "\"}",
          // the service's check_cvo: the controller then also waits for (and reports) the cluster version operator
          "        - {name: CHECK_CLUSTER_VERSION, value: \"" + Boolean.TRUE.equals(r.checkCvo()) + "\"}",
          // an agent-based site's service runs on this very host, which reboots into the cluster: the controller
          // gets the hosts as they are now, and works from them once the service is gone
          Boolean.TRUE.equals(r.handOverHosts())
              ? "        - {name: RDV_HANDOVER_HOSTS, value: \"" + HostsHandover.fetch(r, url, token,
                  dev.rendezvous.controller.service.HttpClients.sslContext(tls)) + "\"}"
              : "        # no host list handed over: the service outlives this host",
          tls.skipVerify() ? "        - {name: SKIP_CERT_VERIFICATION, value: \"true\"}" : "        # the service's certificate is verified",
          ca != null ? "        - {name: CA_CERT_PATH, value: /etc/assisted-service/service-ca-cert.crt}"
              : "        # no CA of its own: the service's certificate chains to a public root",
          "        - name: PULL_SECRET_TOKEN", "          valueFrom:", "            secretKeyRef:",
          "              name: assisted-installer-controller-secret", "              key: pull-secret-token",
          ca == null ? "" : String.join("\n", "        volumeMounts:", "        - {name: service-ca, mountPath: /etc/assisted-service, readOnly: true}",
              "      volumes:", "      - name: service-ca", "        configMap: {name: assisted-installer-controller-ca}", ""));
      java.nio.file.Files.writeString(dir.resolve("assisted-installer-controller.yaml"), yaml);
      CompletableFuture<Void> started = CompletableFuture.completedFuture(null);
      return new Running() {
        @Override
        public CompletableFuture<?> ready() {
          return started;
        }

        @Override
        public CompletableFuture<?> finished() {
          return new CompletableFuture<>(); // it ends in the cluster, not here
        }

        @Override
        public void close() {
        }
      };
    };
  }
}
