package dev.rendezvous.service.install;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The generator used when no {@code openshift-install} is configured: it makes the files an installation needs
 * in their real shapes, but **not a real OpenShift payload** (there is no release to render here):
 * <ul>
 *   <li>master.ign and worker.ign: Ignition 3.2.0 pointer configs merging
 *       {@code https://api-int.<cluster>.<domain>:22623/config/<role>} with the cluster CA, as openshift-install's;</li>
 *   <li>bootstrap.ign: what the installer and controller need on the bootstrap host: the admin kubeconfig under
 *       {@code /opt/openshift/auth}, the pull secret as {@code /root/.docker/config.json}, the install-config, the
 *       custom manifests, the SSH key of user core, a marker file saying what it is; no bootkube unit (no
 *       temporary control plane is started from it); for a single node also {@code /opt/openshift/master.ign},
 *       standing in for what bootkube would render;</li>
 *   <li>a kubeconfig signed by a generated cluster CA, a kubeadmin password, metadata.json.</li>
 * </ul>
 */
public final class BuiltInArtifactsGenerator implements ClusterArtifactsGenerator {
  public static final String NAME = "built-in";
  static final String MARKER_PATH = "/opt/openshift/rendezvous-payload";
  static final String MARKER_TEXT = "This bootstrap Ignition was made by Rendezvous' built-in generator: it carries the"
      + " cluster's kubeconfig, pull secret, install-config and manifests, but no OpenShift release payload (no"
      + " bootkube). Configure openshift-install (--installer-binary) for real OpenShift clusters.\n";
  private static final String IGNITION_VERSION = "3.2.0";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  private final java.nio.file.Path credentialsDir;

  public BuiltInArtifactsGenerator() {
    this(null);
  }

  /**
   * @param credentialsDir where the cluster's credentials were made beforehand ({@link ClusterCredentials}, the
   *     agent-based installer's), used for every cluster instead of new ones; null: new ones per cluster
   */
  public BuiltInArtifactsGenerator(java.nio.file.Path credentialsDir) {
    this.credentialsDir = credentialsDir;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean realPayload() {
    return false;
  }

  @Override
  public ClusterArtifacts generate(GenerationRequest r) throws GenerationException {
    InstallConfigInput c = r.config();
    String domain = c.clusterName() + "." + c.baseDomain();
    try {
      ClusterCredentials creds = credentialsDir != null ? ClusterCredentials.read(credentialsDir)
          : ClusterCredentials.generate(c.clusterName());
      String kubeconfig = creds.kubeconfig(c.clusterName(), "https://api." + domain + ":6443");
      String master = pointer(domain, "master", creds.caCertificate());
      String worker = pointer(domain, "worker", creds.caCertificate());
      Map<String, byte[]> files = new LinkedHashMap<>();
      files.put(ClusterArtifacts.MASTER, utf8(master));
      files.put(ClusterArtifacts.WORKER, utf8(worker));
      files.put(ClusterArtifacts.BOOTSTRAP, utf8(bootstrap(r, kubeconfig, master)));
      files.put(ClusterArtifacts.INSTALL_CONFIG, utf8(r.installConfigYaml()));
      files.put(ClusterArtifacts.KUBECONFIG_NOINGRESS, utf8(kubeconfig));
      files.put(ClusterArtifacts.KUBEADMIN_PASSWORD, utf8(creds.kubeadminPassword()));
      files.put(ClusterArtifacts.METADATA, utf8(metadata(c.clusterName())));
      return new ClusterArtifacts(files, NAME, false);
    } catch (IllegalStateException | JsonProcessingException e) {
      throw new GenerationException("the built-in generator could not make the cluster's certificates: " + e.getMessage(), e);
    } catch (java.io.IOException e) {
      throw new GenerationException("the cluster's credentials made beforehand cannot be read: " + e.getMessage(), e);
    }
  }

  /** An Ignition pointer config: merge the machine-config server's config for the role, trust the cluster CA. */
  static String pointer(String clusterDomain, String role, String caPem) throws JsonProcessingException {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode ign = root.putObject("ignition");
    ign.putObject("config").putArray("merge").addObject()
        .put("source", "https://api-int." + clusterDomain + ":22623/config/" + role);
    ign.putObject("security").putObject("tls").putArray("certificateAuthorities").addObject()
        .put("source", dataUrl(caPem));
    ign.put("version", IGNITION_VERSION);
    return JSON.writeValueAsString(root);
  }

  private String bootstrap(GenerationRequest r, String kubeconfig, String masterIgnition) throws JsonProcessingException {
    InstallConfigInput c = r.config();
    ObjectNode root = JSON.createObjectNode();
    root.putObject("ignition").put("version", IGNITION_VERSION);
    if (c.sshKey() != null && !c.sshKey().isBlank()) {
      ArrayNode keys = root.putObject("passwd").putArray("users").addObject().put("name", "core")
          .putArray("sshAuthorizedKeys");
      c.sshKey().lines().map(String::strip).filter(l -> !l.isEmpty()).forEach(keys::add);
    }
    ArrayNode files = root.putObject("storage").putArray("files");
    file(files, "/opt/openshift/auth/kubeconfig", 0600, kubeconfig);
    file(files, "/root/.docker/config.json", 0600, c.pullSecret());
    file(files, "/opt/openshift/install-config.yaml", 0600, r.installConfigYaml());
    file(files, MARKER_PATH, 0644, MARKER_TEXT);
    if (c.singleNode()) {
      file(files, "/opt/openshift/master.ign", 0600, masterIgnition);
    }
    for (GenerationRequest.Manifest m : r.manifests()) {
      file(files, "/opt/openshift/" + m.folder() + "/" + m.fileName(), 0644, m.content());
    }
    return JSON.writeValueAsString(root);
  }

  private static void file(ArrayNode files, String path, int mode, String content) {
    files.addObject().put("path", path).put("mode", mode).put("overwrite", true)
        .putObject("contents").put("source", dataUrl(content));
  }

  static String kubeconfig(String cluster, String server, String caPem, String adminCert, String adminKey)
      throws JsonProcessingException {
    ObjectNode k = JSON.createObjectNode();
    k.put("apiVersion", "v1");
    k.put("kind", "Config");
    k.putArray("clusters").addObject().put("name", cluster).putObject("cluster")
        .put("certificate-authority-data", b64(caPem)).put("server", server);
    k.putArray("contexts").addObject().put("name", "admin").putObject("context").put("cluster", cluster)
        .put("user", "admin");
    k.put("current-context", "admin");
    k.putObject("preferences");
    k.putArray("users").addObject().put("name", "admin").putObject("user")
        .put("client-certificate-data", b64(adminCert)).put("client-key-data", b64(adminKey));
    return YAML.writeValueAsString(k);
  }

  /** openshift-install's format: four groups of five letters and digits. */
  static String kubeadminPassword() {
    StringBuilder b = new StringBuilder(23);
    for (int i = 0; i < 20; i++) {
      if (i > 0 && i % 5 == 0) {
        b.append('-');
      }
      b.append(ALNUM.charAt(RANDOM.nextInt(ALNUM.length())));
    }
    return b.toString();
  }

  private static String metadata(String cluster) throws JsonProcessingException {
    StringBuilder infra = new StringBuilder(cluster.length() + 6).append(cluster).append('-');
    for (int i = 0; i < 5; i++) {
      infra.append(ALNUM.charAt(RANDOM.nextInt(26)));
    }
    ObjectNode m = JSON.createObjectNode().put("clusterName", cluster).put("clusterID", UUID.randomUUID().toString())
        .put("infraID", infra.toString());
    return JSON.writeValueAsString(m);
  }

  static String dataUrl(String content) {
    return "data:text/plain;charset=utf-8;base64," + b64(content);
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
