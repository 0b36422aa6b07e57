package dev.rendezvous.service.install;

import java.util.Map;
import java.util.TreeMap;

/**
 * The files of a cluster's installation, by upstream's download names: {@code bootstrap.ign}, {@code master.ign},
 * {@code worker.ign}, {@code metadata.json}, {@code install-config.yaml}, {@code kubeconfig-noingress},
 * {@code kubeadmin-password}.
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

  public ClusterArtifacts {
    files = new TreeMap<>(files);
  }
}
