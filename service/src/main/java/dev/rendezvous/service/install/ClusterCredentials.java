package dev.rendezvous.service.install;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * A cluster's admin credentials: the cluster CA's certificate, the admin client certificate and key of its kubeconfig,
 * and the kubeadmin password. The agent-based installer makes them before the installation, as openshift-install
 * does, so {@code auth/kubeconfig} is known before the cluster exists; the site's service then uses them instead of
 * making its own (upstream's {@code EPHEMERAL_INSTALLER_CLUSTER_TLS_CERTS_OVERRIDE_DIR}). The CA's private key is
 * never part of it: nothing on a host needs to sign anything with it.
 */
public record ClusterCredentials(String caCertificate, String adminCertificate, String adminKey, String kubeadminPassword) {
  static final String CA = "cluster-ca.crt";
  static final String ADMIN_CERT = "admin.crt";
  static final String ADMIN_KEY = "admin.key";
  static final String PASSWORD = "kubeadmin-password";

  /** New credentials for {@code clusterName}. */
  public static ClusterCredentials generate(String clusterName) {
    try {
      ClusterCertificates.Pem ca = ClusterCertificates.ca("rendezvous-cluster-ca-" + clusterName);
      ClusterCertificates.Pem admin = ClusterCertificates.client(ca, "system:admin", "system:masters");
      return new ClusterCredentials(ca.certificate(), admin.certificate(), admin.privateKey(),
          BuiltInArtifactsGenerator.kubeadminPassword());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot make the cluster's certificates: " + e.getMessage(), e);
    }
  }

  /** The admin kubeconfig of the cluster's API at {@code server} (e.g. {@code https://api.<name>.<domain>:6443}). */
  public String kubeconfig(String clusterName, String server) {
    try {
      return BuiltInArtifactsGenerator.kubeconfig(clusterName, server, caCertificate, adminCertificate, adminKey);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The files as {@link #files()} names them, read from {@code dir}; the error names one missing or not PEM. */
  public static ClusterCredentials read(Path dir) throws IOException {
    String ca = pem(dir.resolve(CA), "CERTIFICATE");
    String cert = pem(dir.resolve(ADMIN_CERT), "CERTIFICATE");
    String key = pem(dir.resolve(ADMIN_KEY), "PRIVATE KEY");
    String password = Files.readString(dir.resolve(PASSWORD), StandardCharsets.UTF_8).strip();
    if (password.isEmpty()) {
      throw new IOException(dir.resolve(PASSWORD) + " is empty");
    }
    return new ClusterCredentials(ca, cert, key, password);
  }

  /** The credentials as files (name → content), as {@link #read(Path)} reads them: the ISO's Ignition writes them. */
  public java.util.Map<String, String> files() {
    return java.util.Map.of(CA, caCertificate, ADMIN_CERT, adminCertificate, ADMIN_KEY, adminKey,
        PASSWORD, kubeadminPassword);
  }

  private static String pem(Path p, String type) throws IOException {
    String s = Files.readString(p, StandardCharsets.UTF_8);
    if (!s.contains("-----BEGIN " + type + "-----")) {
      throw new IOException(p + " holds no PEM " + type);
    }
    return s;
  }
}
