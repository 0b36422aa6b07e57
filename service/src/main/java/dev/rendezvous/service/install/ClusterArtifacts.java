package dev.rendezvous.service.install;

import java.util.Map;
import java.util.TreeMap;

/**
 * The files of a cluster's installation, by upstream's download names: {@code bootstrap.ign}, {@code master.ign},
 * {@code worker.ign}, {@code metadata.json}, {@code install-config.yaml}, {@code kubeconfig-noingress},
 * {@code kubeadmin-password}; the preparation stores the system's manifests and the controller's
 * {@code custom_manifests.json} with them.
 */
public record ClusterArtifacts(Map<String, byte[]> files, String generator, boolean realPayload) {
  public static final String BOOTSTRAP = "bootstrap.ign";
  public static final String MASTER = "master.ign";
  public static final String WORKER = "worker.ign";
  public static final String METADATA = "metadata.json";
  public static final String INSTALL_CONFIG = "install-config.yaml";
  public static final String KUBECONFIG_NOINGRESS = "kubeconfig-noingress";
  public static final String KUBECONFIG = "kubeconfig";
  public static final String KUBEADMIN_PASSWORD = "kubeadmin-password";
  /** The controller's post-install resources of the OLM operators (upstream's custom_manifests.json). */
  public static final String CONTROLLER_MANIFESTS = "custom_manifests.json";
  /** Stored beside the generated files: the manifests the system added, as {@code manifests/<folder>/<name>}. */
  public static final String SYSTEM_MANIFEST_PREFIX = "manifests/";

  public static String systemManifest(String folder, String fileName) {
    return SYSTEM_MANIFEST_PREFIX + folder + "/" + fileName;
  }

  public ClusterArtifacts {
    files = new TreeMap<>(files);
  }
}
