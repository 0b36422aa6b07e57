package dev.rendezvous.service.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The built-in generator's files: valid Ignition (ignition-validate), a kubeconfig whose CA signed its client. */
class BuiltInArtifactsGeneratorTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static ClusterArtifacts generate(InstallConfigInput in) throws Exception {
    GenerationRequest r = new GenerationRequest(UUID.randomUUID(), "4.18", "quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64",
        in, InstallConfigRenderer.render(in), List.of(new GenerationRequest.Manifest("openshift", "50-extra.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n")));
    return new BuiltInArtifactsGenerator().generate(r);
  }

  static String text(ClusterArtifacts a, String name) {
    byte[] b = a.files().get(name);
    assertNotNull(b, name + " generated");
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void pointerConfigsMergeTheMachineConfigServerWithTheClusterCa() throws Exception {
    ClusterArtifacts a = generate(InstallConfigRendererTest.ha(null));
    assertEquals(false, a.realPayload());
    for (String role : List.of("master", "worker")) {
      String ign = text(a, role + ".ign");
      validate(ign);
      JsonNode n = JSON.readTree(ign);
      assertEquals("3.2.0", n.path("ignition").path("version").asText());
      assertEquals("https://api-int.edge1.example.com:22623/config/" + role,
          n.path("ignition").path("config").path("merge").get(0).path("source").asText());
      String ca = decode(n.path("ignition").path("security").path("tls").path("certificateAuthorities").get(0)
          .path("source").asText());
      assertTrue(ca.startsWith("-----BEGIN CERTIFICATE-----"), ca);
    }
  }

  @Test
  void theKubeconfigsClientCertificateIsSignedByTheClusterCa() throws Exception {
    ClusterArtifacts a = generate(InstallConfigRendererTest.ha(null));
    JsonNode k = YAML.readTree(text(a, ClusterArtifacts.KUBECONFIG_NOINGRESS));
    JsonNode cluster = k.path("clusters").get(0).path("cluster");
    assertEquals("https://api.edge1.example.com:6443", cluster.path("server").asText());
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    X509Certificate ca = (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(
        Base64.getDecoder().decode(cluster.path("certificate-authority-data").asText())));
    X509Certificate client = (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(
        Base64.getDecoder().decode(k.path("users").get(0).path("user").path("client-certificate-data").asText())));
    client.verify(ca.getPublicKey());
    assertTrue(client.getSubjectX500Principal().getName().contains("CN=system:admin"));
    assertTrue(client.getSubjectX500Principal().getName().contains("O=system:masters"));
    String keyPem = new String(Base64.getDecoder().decode(k.path("users").get(0).path("user").path("client-key-data")
        .asText()), StandardCharsets.UTF_8);
    assertTrue(keyPem.startsWith("-----BEGIN PRIVATE KEY-----"), keyPem);
    // the key is the certificate's, as PKCS#8 that Java's own provider reads (the keys are made by Bouncy Castle's)
    java.security.PrivateKey key = java.security.KeyFactory.getInstance("EC").generatePrivate(
        new java.security.spec.PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(keyPem
            .replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", "").strip())));
    java.security.Signature signer = java.security.Signature.getInstance("SHA256withECDSA");
    signer.initSign(key);
    signer.update("proof".getBytes(StandardCharsets.UTF_8));
    byte[] proof = signer.sign();
    java.security.Signature verifier = java.security.Signature.getInstance("SHA256withECDSA");
    verifier.initVerify(client.getPublicKey());
    verifier.update("proof".getBytes(StandardCharsets.UTF_8));
    assertTrue(verifier.verify(proof), "the client key signs what the client certificate verifies");
    assertTrue(text(a, ClusterArtifacts.KUBEADMIN_PASSWORD).matches("[A-Za-z0-9]{5}(-[A-Za-z0-9]{5}){3}"));
    JsonNode meta = JSON.readTree(text(a, ClusterArtifacts.METADATA));
    assertEquals("edge1", meta.path("clusterName").asText());
    assertTrue(meta.path("infraID").asText().startsWith("edge1-"));
  }

  @Test
  void theBootstrapConfigCarriesWhatTheInstallerNeedsAndSaysWhatItIs() throws Exception {
    ClusterArtifacts ha = generate(InstallConfigRendererTest.ha(null));
    String bootstrap = text(ha, ClusterArtifacts.BOOTSTRAP);
    validate(bootstrap);
    JsonNode b = JSON.readTree(bootstrap);
    assertEquals(text(ha, ClusterArtifacts.KUBECONFIG_NOINGRESS), decode(file(b, "/opt/openshift/auth/kubeconfig")));
    assertEquals(InstallConfigRendererTest.PULL_SECRET, decode(file(b, "/root/.docker/config.json")));
    assertTrue(decode(file(b, BuiltInArtifactsGenerator.MARKER_PATH)).contains("no OpenShift release payload"));
    assertTrue(decode(file(b, "/opt/openshift/openshift/50-extra.yaml")).contains("name: extra"));
    assertEquals("ssh-ed25519 AAAAC3 me@example", b.path("passwd").path("users").get(0).path("sshAuthorizedKeys").get(0).asText());
    assertEquals(null, file(b, "/opt/openshift/master.ign"), "only a single node gets master.ign up front");
    assertTrue(b.path("systemd").path("units").isMissingNode(), "no bootkube: no temporary control plane");

    ClusterArtifacts sno = generate(InstallConfigRendererTest.sno());
    JsonNode s = JSON.readTree(text(sno, ClusterArtifacts.BOOTSTRAP));
    assertEquals(text(sno, ClusterArtifacts.MASTER), decode(file(s, "/opt/openshift/master.ign")));
  }

  @Test
  void hostIgnitionAddsTheHostNameAndTheUsersOverrides() throws Exception {
    ClusterArtifacts a = generate(InstallConfigRendererTest.ha(null));
    String overrides = "{\"ignition\":{\"version\":\"3.2.0\"},\"storage\":{\"files\":[{\"path\":\"/etc/motd\",\"mode\":420,"
        + "\"contents\":{\"source\":\"data:,hello\"}}]}}";
    byte[] host = HostIgnition.forHost(a.files().get("worker.ign"), "worker-7", overrides);
    String text = new String(host, StandardCharsets.UTF_8);
    validate(text);
    JsonNode n = JSON.readTree(text);
    assertEquals("worker-7\n", decode(file(n, "/etc/hostname")));
    assertEquals("data:,hello", file(n, "/etc/motd").asText());
    assertEquals("https://api-int.edge1.example.com:22623/config/worker",
        n.path("ignition").path("config").path("merge").get(0).path("source").asText(), "the pointer stays");
    assertEquals("master.ign", HostIgnition.roleFile("master", true), "a bootstrap installs as a master");
    assertEquals("worker.ign", HostIgnition.roleFile("worker", false));
    assertEquals(null, HostIgnition.overridesProblem(overrides));
    assertTrue(HostIgnition.overridesProblem("{\"ignition\":{\"version\":\"2.2.0\"}}").contains("3.x"));
  }

  /** The data URL's content of the file at {@code path} (null: no such file). */
  static JsonNode file(JsonNode config, String path) {
    for (JsonNode f : config.path("storage").path("files")) {
      if (f.path("path").asText().equals(path)) {
        return f.path("contents").path("source");
      }
    }
    return null;
  }

  static String decode(JsonNode source) {
    return decode(source.asText());
  }

  static String decode(String dataUrl) {
    int comma = dataUrl.indexOf(',');
    String data = dataUrl.substring(comma + 1);
    return dataUrl.substring(0, comma).endsWith(";base64")
        ? new String(Base64.getDecoder().decode(data), StandardCharsets.UTF_8) : data;
  }

  /** Runs ignition-validate (Debian package "ignition"); any output fails. */
  static void validate(String config) throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder("ignition-validate", "-").redirectErrorStream(true).start();
    } catch (IOException e) {
      fail("ignition-validate not found: install the Debian package 'ignition' (scripts/install-test-tools)");
      return;
    }
    try (OutputStream o = p.getOutputStream()) {
      o.write(config.getBytes(StandardCharsets.UTF_8));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    String text = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), "ignition-validate: " + text);
    assertEquals("", text.strip(), "ignition-validate reported: " + text);
  }
}
