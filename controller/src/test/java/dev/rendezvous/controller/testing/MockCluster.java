package dev.rendezvous.controller.testing;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
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
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/**
 * The new cluster's API for the controller tests: fabric8's mock server in CRUD mode with the config.openshift.io
 * CRDs (ClusterOperator, ClusterVersion, written here as generic resources as fabric8 has no models of them), OLM's (Subscription, ClusterServiceVersion, InstallPlan) and LVMCluster
 * registered (status subresource), plus the kubelet's and the operators' side of things, played by the test: CSRs
 * (real PKCS#10 requests), nodes, operator conditions, OLM's subscriptions and CSVs, the ingress CA.
 */
public final class MockCluster implements AutoCloseable {
  public static final String BOOTSTRAPPER = "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper";
  public static final String CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";

  private final KubernetesMockServer server;
  public final NamespacedKubernetesClient client;
  private final Path kubeconfig;

  public MockCluster(Path dir) {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new ApplyingDispatcher(), false);
    server.init();
    client = server.createClient();
    for (String[] crd : new String[][] {{"clusteroperators", "ClusterOperator"}, {"clusterversions", "ClusterVersion"}}) {
      client.apiextensions().v1().customResourceDefinitions().resource(crd("config.openshift.io", "v1", "Cluster",
          crd[0], crd[1])).create();
    }
    // OLM's kinds, and the LVM operator's cluster resource, namespaced
    for (String[] crd : new String[][] {{"operators.coreos.com", "v1alpha1", "subscriptions", "Subscription"},
        {"operators.coreos.com", "v1alpha1", "clusterserviceversions", "ClusterServiceVersion"},
        {"operators.coreos.com", "v1alpha1", "installplans", "InstallPlan"},
        {"lvm.topolvm.io", "v1alpha1", "lvmclusters", "LVMCluster"}}) {
      client.apiextensions().v1().customResourceDefinitions().resource(crd(crd[0], crd[1], "Namespaced", crd[2], crd[3]))
          .create();
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

  /** The CRUD dispatcher, with server-side apply creating what does not exist yet, as an API server does. */
  static final class ApplyingDispatcher extends KubernetesCrudDispatcher {
    @Override
    public MockResponse handlePatch(RecordedRequest request) {
      byte[] body = request.getBody().getBytes(); // a copy: the patch handler reads the body away
      MockResponse r = super.handlePatch(request);
      String type = request.getHeader("Content-Type");
      if (r.code() == 404 && type != null && type.startsWith("application/apply-patch")) {
        return handleCreate(new RecordedRequest(request.getHttpVersion(), request.method(), request.getPath(),
            request.getHeaders(), new Buffer(body)));
      }
      return r;
    }
  }

  private static CustomResourceDefinition crd(String group, String version, String scope, String plural, String kind) {
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata().withName(plural + "." + group).endMetadata()
        .withNewSpec().withGroup(group).withScope(scope)
        .withNewNames().withKind(kind).withPlural(plural).withSingular(kind.toLowerCase()).withListKind(kind + "List")
        .endNames()
        .addNewVersion().withName(version).withServed(true).withStorage(true)
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

  // ---- OLM ------------------------------------------------------------------------------------------------

  public static final String OLM_API = "operators.coreos.com/v1alpha1";

  /** OLM resolved the Subscription: its status names the CSV it installs. */
  public void setSubscriptionCsv(String ns, String subscription, String csv) {
    setStatus(OLM_API, "Subscription", ns, subscription, Map.of("currentCSV", csv));
  }

  /** The CSV's phase (Pending, Installing, Succeeded, Failed...), as OLM writes it. */
  public void setCsv(String ns, String name, String phase, String message, String version) {
    setStatus(OLM_API, "ClusterServiceVersion", ns, name, Map.of("phase", phase, "message", message));
    var csvs = client.genericKubernetesResources(OLM_API, "ClusterServiceVersion").inNamespace(ns);
    GenericKubernetesResource csv = csvs.withName(name).get();
    csv.setAdditionalProperty("spec", Map.of("version", version));
    csvs.resource(csv).update();
  }

  private void setStatus(String apiVersion, String kind, String ns, String name, Map<String, Object> status) {
    var all = client.genericKubernetesResources(apiVersion, kind).inNamespace(ns);
    GenericKubernetesResource r = all.withName(name).get();
    if (r == null) {
      r = all.resource(new GenericKubernetesResourceBuilder().withApiVersion(apiVersion).withKind(kind)
          .withNewMetadata().withName(name).withNamespace(ns).endMetadata().build()).create();
    }
    r.setAdditionalProperty("status", status);
    all.resource(r).updateStatus();
  }

  /** A namespaced resource of any kind, or null. */
  public GenericKubernetesResource resource(String apiVersion, String kind, String ns, String name) {
    return client.genericKubernetesResources(apiVersion, kind).inNamespace(ns).withName(name).get();
  }

  // ---- operators ------------------------------------------------------------------------------------------

  public static final String CONFIG_API = "config.openshift.io/v1";

  /** A status condition of a ClusterOperator or the ClusterVersion, as their operators write it. */
  public record Condition(String type, String status, String message) {
    Map<String, Object> toJson() {
      return Map.of("type", type, "status", status, "message", message);
    }
  }

  public static Condition condition(String type, String status, String message) {
    return new Condition(type, status, message);
  }

  private static List<Map<String, Object>> toJson(Condition... conditions) {
    return Arrays.stream(conditions).map(Condition::toJson).toList();
  }

  /** Creates or updates a ClusterOperator's status (through /status, as its operator would). */
  public void setOperator(String name, String version, Condition... conditions) {
    var ops = client.genericKubernetesResources(CONFIG_API, "ClusterOperator");
    GenericKubernetesResource co = ops.withName(name).get();
    if (co == null) {
      co = ops.resource(new GenericKubernetesResourceBuilder().withApiVersion(CONFIG_API).withKind("ClusterOperator")
          .withNewMetadata().withName(name).endMetadata().build()).create();
    }
    co.setAdditionalProperty("status", Map.of("conditions", toJson(conditions),
        "versions", List.of(Map.of("name", "operator", "version", version))));
    ops.resource(co).updateStatus();
  }

  public void setClusterVersion(String version, Condition... conditions) {
    var cvs = client.genericKubernetesResources(CONFIG_API, "ClusterVersion");
    GenericKubernetesResource cv = cvs.withName("version").get();
    if (cv == null) {
      cv = cvs.resource(new GenericKubernetesResourceBuilder().withApiVersion(CONFIG_API).withKind("ClusterVersion")
          .withNewMetadata().withName("version").endMetadata()
          .addToAdditionalProperties("spec", Map.of("clusterID", "00000000-0000-0000-0000-000000000001"))
          .build()).create();
    }
    cv.setAdditionalProperty("status", Map.of("conditions", toJson(conditions), "desired", Map.of("version", version)));
    cvs.resource(cv).updateStatus();
  }

  /**
   * The cluster-wide proxy {@code proxies.config.openshift.io/cluster} with this status; its CRD is registered on
   * first use (until then the cluster serves no proxies, like the mock clusters of the other tests).
   */
  public void setProxy(String httpProxy, String httpsProxy, String noProxy) {
    if (client.apiextensions().v1().customResourceDefinitions().withName("proxies.config.openshift.io").get() == null) {
      client.apiextensions().v1().customResourceDefinitions()
          .resource(crd("config.openshift.io", "v1", "Cluster", "proxies", "Proxy")).create();
    }
    var proxies = client.genericKubernetesResources(CONFIG_API, "Proxy");
    GenericKubernetesResource p = proxies.withName("cluster").get();
    if (p == null) {
      p = proxies.resource(new GenericKubernetesResourceBuilder().withApiVersion(CONFIG_API).withKind("Proxy")
          .withNewMetadata().withName("cluster").endMetadata().build()).create();
    }
    p.setAdditionalProperty("status", Map.of("httpProxy", httpProxy, "httpsProxy", httpsProxy, "noProxy", noProxy));
    proxies.resource(p).updateStatus();
  }

  public void createIngressCa(String pem) {
    client.configMaps().inNamespace("openshift-config-managed").resource(new ConfigMapBuilder()
        .withNewMetadata().withName("default-ingress-cert").withNamespace("openshift-config-managed").endMetadata()
        .addToData("ca-bundle.crt", pem).build()).create();
  }
}
