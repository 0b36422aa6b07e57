package dev.rendezvous.controller.testing;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequest;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.openshift.api.model.config.v1.ClusterOperator;
import io.fabric8.openshift.api.model.config.v1.ClusterOperatorBuilder;
import io.fabric8.openshift.api.model.config.v1.ClusterOperatorStatusCondition;
import io.fabric8.openshift.api.model.config.v1.ClusterOperatorStatusConditionBuilder;
import io.fabric8.openshift.api.model.config.v1.ClusterVersion;
import io.fabric8.openshift.api.model.config.v1.ClusterVersionBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import okhttp3.mockwebserver.MockWebServer;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/**
 * The new cluster's API for the controller tests: fabric8's mock server in CRUD mode with the config.openshift.io
 * CRDs (ClusterOperator, ClusterVersion, status subresource) registered, plus the kubelet's and the operators' side
 * of things, played by the test: CSRs (real PKCS#10 requests), nodes, operator conditions, the ingress CA.
 */
public final class MockCluster implements AutoCloseable {
  public static final String BOOTSTRAPPER = "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper";
  public static final String CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";

  private final KubernetesMockServer server;
  public final NamespacedKubernetesClient client;
  private final Path kubeconfig;

  public MockCluster(Path dir) {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(), false);
    server.init();
    client = server.createClient();
    for (String[] crd : new String[][] {{"clusteroperators", "ClusterOperator"}, {"clusterversions", "ClusterVersion"}}) {
      client.apiextensions().v1().customResourceDefinitions().resource(openshiftCrd(crd[0], crd[1])).create();
    }
    kubeconfig = dir.resolve("kubeconfig");
    String url = client.getConfiguration().getMasterUrl();
    try {
      Files.writeString(kubeconfig, """
          apiVersion: v1
          kind: Config
          clusters:
          - name: mock
            cluster:
              server: %s
          contexts:
          - name: mock
            context:
              cluster: mock
              user: mock
              namespace: default
          current-context: mock
          users:
          - name: mock
            user:
              token: mock-token
          """.formatted(url), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static CustomResourceDefinition openshiftCrd(String plural, String kind) {
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata().withName(plural + ".config.openshift.io").endMetadata()
        .withNewSpec().withGroup("config.openshift.io").withScope("Cluster")
        .withNewNames().withKind(kind).withPlural(plural).withSingular(kind.toLowerCase()).withListKind(kind + "List")
        .endNames()
        .addNewVersion().withName("v1").withServed(true).withStorage(true)
        .withNewSubresources().withNewStatus().endStatus().endSubresources().endVersion()
        .endSpec().build();
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }

  // ---- kubelets ------------------------------------------------------------------------------------------------

  /** A CSR whose PKCS#10 subject is CN={@code cn}, O=system:nodes, requested by {@code username}. */
  public void createCsr(String name, String cn, String username, String signer) {
    CertificateSigningRequest csr = new CertificateSigningRequestBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withRequest(Base64.getEncoder().encodeToString(pkcs10(cn).getBytes(StandardCharsets.US_ASCII)))
        .withSignerName(signer).withUsername(username).withGroups("system:authenticated")
        .withUsages("digital signature", "client auth").endSpec()
        .build();
    client.certificates().v1().certificateSigningRequests().resource(csr).create();
  }

  /** A kubelet's first client CSR, as the node-bootstrapper files it. */
  public void createKubeletCsr(String name, String node) {
    createCsr(name, "system:node:" + node, BOOTSTRAPPER, CLIENT_SIGNER);
  }

  public static String pkcs10(String cn) {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(256);
      KeyPair kp = g.generateKeyPair();
      var subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "system:nodes").addRDN(BCStyle.CN, cn)
          .build();
      PKCS10CertificationRequest req = new JcaPKCS10CertificationRequestBuilder(subject, kp.getPublic())
          .build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate()));
      return "-----BEGIN CERTIFICATE REQUEST-----\n"
          + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(req.getEncoded())
          + "\n-----END CERTIFICATE REQUEST-----\n";
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public CertificateSigningRequest csr(String name) {
    return client.certificates().v1().certificateSigningRequests().withName(name).get();
  }

  public boolean approved(String name) {
    CertificateSigningRequest c = csr(name);
    return c != null && c.getStatus() != null
        && c.getStatus().getConditions().stream().anyMatch(x -> "Approved".equals(x.getType()));
  }

  public void createNode(String name, String ip, boolean ready) {
    createNode(name, ip, ready, "master");
  }

  /** A node as its kubelet registers it, labelled with its role ({@code node-role.kubernetes.io/<role>}). */
  public void createNode(String name, String ip, boolean ready, String role) {
    Node n = new NodeBuilder().withNewMetadata().withName(name)
        .addToLabels("node-role.kubernetes.io/" + role, "").endMetadata()
        .withNewStatus().addNewAddress().withType("InternalIP").withAddress(ip).endAddress()
        .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition()
        .withNewNodeInfo().withSystemUUID("uuid-" + name).endNodeInfo()
        .endStatus().build();
    client.nodes().resource(n).create();
  }

  public void setNodeReady(String name) {
    Node n = client.nodes().withName(name).get();
    n.getStatus().getConditions().forEach(c -> {
      if ("Ready".equals(c.getType())) {
        c.setStatus("True");
      }
    });
    client.nodes().resource(n).updateStatus();
  }

  public Node node(String name) {
    return client.nodes().withName(name).get();
  }

  // ---- operators ------------------------------------------------------------------------------------------

  public static ClusterOperatorStatusCondition condition(String type, String status, String message) {
    return new ClusterOperatorStatusConditionBuilder().withType(type).withStatus(status).withMessage(message).build();
  }

  /** Creates or updates a ClusterOperator's status (through /status, as its operator would). */
  public void setOperator(String name, String version, ClusterOperatorStatusCondition... conditions) {
    var ops = client.resources(ClusterOperator.class);
    ClusterOperator co = ops.withName(name).get();
    if (co == null) {
      co = ops.resource(new ClusterOperatorBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
    }
    co.setStatus(new io.fabric8.openshift.api.model.config.v1.ClusterOperatorStatusBuilder()
        .withConditions(List.of(conditions))
        .addNewVersion().withName("operator").withVersion(version).endVersion().build());
    ops.resource(co).updateStatus();
  }

  public void setClusterVersion(String version, ClusterOperatorStatusCondition... conditions) {
    var cvs = client.resources(ClusterVersion.class);
    ClusterVersion cv = cvs.withName("version").get();
    if (cv == null) {
      cv = cvs.resource(new ClusterVersionBuilder().withNewMetadata().withName("version").endMetadata()
          .withNewSpec().withClusterID("00000000-0000-0000-0000-000000000001").endSpec().build()).create();
    }
    cv.setStatus(new io.fabric8.openshift.api.model.config.v1.ClusterVersionStatusBuilder()
        .withConditions(new ArrayList<>(List.of(conditions)))
        .withNewDesired().withVersion(version).endDesired()
        .withAvailableUpdates().build());
    cvs.resource(cv).updateStatus();
  }

  public void createIngressCa(String pem) {
    client.configMaps().inNamespace("openshift-config-managed").resource(new ConfigMapBuilder()
        .withNewMetadata().withName("default-ingress-cert").withNamespace("openshift-config-managed").endMetadata()
        .addToData("ca-bundle.crt", pem).build()).create();
  }
}
