package dev.rendezvous.controller;

import static dev.rendezvous.controller.testing.MockCluster.condition;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.controller.loops.PostInstallConfigs;
import dev.rendezvous.controller.loops.StageOrder;
import dev.rendezvous.controller.service.HostStage;
import dev.rendezvous.controller.testing.Eventually;
import dev.rendezvous.controller.testing.MockCluster;
import dev.rendezvous.controller.testing.ServiceDouble;
import dev.rendezvous.controller.testing.ServiceDouble.HostState;
import dev.rendezvous.controller.testing.TarGzReader;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.certificates.v1.CertificateSigningRequestCondition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller against fabric8's CRUD mock server (the new cluster's API, the test playing kubelets and
 * operators) and a protocol double of the service. Upstream's flow end to end: ready event, CSRs, Joined/Done,
 * finalizing stages, operators, ingress CA, complete-installation, final logs.
 */
class ControllerOnMockClusterTest {
  static final String CA_PEM = "-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n";

  @TempDir
  Path dir;
  ServiceDouble service;
  MockCluster kube;
  final List<Controller> controllers = new ArrayList<>();

  HostState m0;
  HostState m1;
  HostState m2;
  HostState w0;

  @BeforeEach
  void setUp() throws Exception {
    service = new ServiceDouble();
    kube = new MockCluster(dir);
    service.addBuiltinOperators();
  }

  @AfterEach
  void tearDown() {
    controllers.forEach(Controller::close);
    kube.close();
    service.close();
  }

  /** Three masters (the bootstrap still waiting for the controller) and a worker waiting for the control plane. */
  void installingCluster() {
    m0 = service.addHost("master-0", "192.168.111.10", "master", true, HostStage.WAITING_FOR_CONTROLLER);
    m1 = service.addHost("master-1", "192.168.111.11", "master", false, HostStage.REBOOTING);
    m2 = service.addHost("master-2", "192.168.111.12", "master", false, HostStage.REBOOTING);
    w0 = service.addHost("worker-0", "192.168.111.20", "worker", false, HostStage.WAITING_FOR_CONTROL_PLANE);
    kube.setClusterVersion("4.18.3", condition("Progressing", "True", "Working towards 4.18.3"));
  }

  Controller start(String... extra) {
    List<String> args = new ArrayList<>(List.of(
        "--kubeconfig=" + kube.kubeconfig(),
        "--check-interval-seconds=0.2", "--operator-poll-seconds=0.2", "--router-ca-interval-seconds=0.1",
        "--fetch-retry-interval-seconds=0.1", "--installation-poll-seconds=0.2", "--ready-poll-seconds=0.1",
        "--reaction-delay-seconds=0.05", "--summary-logs-period-seconds=0.2", "--logs-upload-period-seconds=600",
        "--retry-base-delay-ms=5", "--retry-max-delay-ms=20", "--request-timeout-seconds=10"));
    args.addAll(List.of(extra));
    Controller c = Controller.start(Map.of(
        "CLUSTER_ID", service.clusterId,
        "INVENTORY_URL", service.url().toString(),
        "PULL_SECRET_TOKEN", service.token,
        "OPENSHIFT_VERSION", "4.18",
        "CHECK_CLUSTER_VERSION", "true"), args.toArray(String[]::new));
    controllers.add(c);
    return c;
  }

  void awaitStage(HostState h, HostStage stage) {
    Eventually.until(h.hostname + " at " + stage, () -> h.stage == stage);
  }

  /** The kubelet of a host: CSR, approval awaited, node registered. */
  void kubeletJoins(HostState h, boolean ready) {
    kube.createKubeletCsr("csr-" + h.hostname, h.hostname);
    Eventually.until("CSR of " + h.hostname + " approved", () -> kube.approved("csr-" + h.hostname));
    kube.createNode(h.hostname, h.ip, ready);
  }

  @Test
  void threeMastersAndAWorkerComeUpAndTheInstallationCompletes() throws Exception {
    installingCluster();
    Controller controller = start();
    controller.ready().get(30, TimeUnit.SECONDS);

    Event ready = kube.client.v1().events().inNamespace("assisted-installer").withName("AssistedControllerIsReady").get();
    assertNotNull(ready, "ready event in the controller's namespace");
    assertEquals("AssistedControllerIsReady", ready.getReason());
    assertEquals("assisted-installer-controller", ready.getInvolvedObject().getName());
    assertEquals("Normal", ready.getType());

    // intruders: another node's name, a CN spoofed by another node, a non-kubelet signer
    kube.createKubeletCsr("csr-foreign", "intruder");
    kube.createCsr("csr-spoofed", "system:node:master-1", "system:node:master-2", "kubernetes.io/kubelet-serving");
    kube.createCsr("csr-other-signer", "system:node:master-1", MockCluster.BOOTSTRAPPER,
        "kubernetes.io/kube-apiserver-client");

    kubeletJoins(m1, false);
    kubeletJoins(m2, false);
    awaitStage(m1, HostStage.JOINED);
    awaitStage(m2, HostStage.JOINED);
    kube.setNodeReady("master-1");
    kube.setNodeReady("master-2");
    awaitStage(m1, HostStage.DONE);
    awaitStage(m2, HostStage.DONE);

    service.installerReports(m0, HostStage.REBOOTING); // the bootstrap saw the ready event and pivots
    kubeletJoins(m0, false);
    awaitStage(m0, HostStage.JOINED);
    kube.setNodeReady("master-0");
    awaitStage(m0, HostStage.DONE);
    Eventually.until("cluster finalizing", () -> service.status().equals("finalizing"));

    service.installerReports(w0, HostStage.REBOOTING);
    kubeletJoins(w0, true);
    awaitStage(w0, HostStage.DONE);

    Eventually.until("waiting for cluster operators",
        () -> "Waiting for cluster operators".equals(service.finalizingStage()));
    kube.setOperator("console", "4.18.3", condition("Progressing", "True", "SyncLoopRefreshProgressing"),
        condition("Available", "False", "DeploymentAvailable"));
    Eventually.until("console progressing reported",
        () -> service.operator("console").path("status").asText().equals("progressing"));
    kube.setOperator("console", "4.18.3", condition("Available", "True", "All is well"));
    kube.setClusterVersion("4.18.3", condition("Available", "True", "Done applying 4.18.3"));
    Eventually.until("operators available", () -> service.operator("console").path("status").asText().equals("available")
        && service.operator("cvo").path("status").asText().equals("available"));
    kube.createIngressCa(CA_PEM);

    assertEquals(Controller.Outcome.COMPLETED, controller.finished().get(30, TimeUnit.SECONDS));
    assertEquals("installed", service.status());

    for (HostState h : List.of(m0, m1, m2, w0)) {
      assertEquals(List.of("Joined", "Done"), service.stageReports(h), h.hostname);
    }
    for (String name : List.of("csr-master-0", "csr-master-1", "csr-master-2", "csr-worker-0")) {
      CertificateSigningRequestCondition c = kube.csr(name).getStatus().getConditions().get(0);
      assertEquals("Approved", c.getType());
      assertEquals("NodeCSRApprove", c.getReason());
      assertEquals("This CSR was approved by the assisted-installer-controller", c.getMessage());
    }
    for (String name : List.of("csr-foreign", "csr-spoofed", "csr-other-signer")) {
      assertFalse(kube.approved(name), name + " stays pending");
      assertTrue(kube.csr(name).getStatus() == null || kube.csr(name).getStatus().getConditions().isEmpty(), name);
    }

    assertFinalizingStagesOnce(service);
    List<String> operatorReports = service.calls("PUT", "/monitored-operators$").stream()
        .map(c -> c.json().path("name").asText() + "=" + c.json().path("status").asText()).toList();
    assertTrue(operatorReports.containsAll(List.of("console=progressing", "console=available", "cvo=available")),
        operatorReports.toString());
    assertEquals(operatorReports.size(), new HashSet<>(service.calls("PUT", "/monitored-operators$").stream()
        .map(ServiceDouble.Call::text).toList()).size(), "no report repeated: " + operatorReports);
    JsonNode console = service.calls("PUT", "/monitored-operators$").stream().map(ServiceDouble.Call::json)
        .filter(j -> j.path("status").asText().equals("available") && j.path("name").asText().equals("console"))
        .findFirst().orElseThrow();
    assertEquals("All is well", console.path("status_info").asText());
    assertEquals("4.18.3", console.path("version").asText());

    ServiceDouble.Call cert = service.calls("POST", "/uploads/ingress-cert$").get(0);
    assertTrue(cert.json().isTextual(), "ingress-cert body is a JSON string");
    assertEquals(CA_PEM, service.ingressCert());

    List<ServiceDouble.Call> completions = service.calls("POST", "/actions/complete-installation$");
    // sent once, with success, unless the service had declared the cluster installed first (as upstream's may)
    assertTrue(completions.size() <= 1, "complete-installation once: " + completions.size());
    completions.forEach(c -> {
      assertTrue(c.json().path("is_success").asBoolean());
      assertEquals("", c.json().path("error_info").asText());
    });

    assertEquals(List.of("requested", "completed"), service.calls("PUT", "/logs-progress$").stream()
        .map(c -> c.json().path("logs_state").asText()).toList());
    Map<String, byte[]> bundle = TarGzReader.read(service.logUploads().get(service.logUploads().size() - 1));
    String log = new String(bundle.get("assisted-installer-controller.logs"), StandardCharsets.UTF_8);
    assertTrue(log.contains("cluster_id=" + service.clusterId), "own log carries cluster_id");
    assertTrue(log.contains("Approving CSR csr-master-1"), log);
    String events = new String(bundle.get("must-gather/namespaces/assisted-installer/events.txt"), StandardCharsets.UTF_8);
    assertTrue(events.contains("AssistedControllerIsReady"), events);

    Set<String> requestIds = new HashSet<>();
    for (ServiceDouble.Call c : service.calls()) {
      assertEquals(service.token, c.header("X-Secret-Key"));
      assertNotNull(c.header("X-Request-ID"));
      assertTrue(requestIds.add(c.header("X-Request-ID")), "fresh X-Request-ID per call");
    }
  }

  @Test
  void anOperatorThatNeverBecomesAvailableEndsInUpstreamsTimeoutError() throws Exception {
    m0 = service.addHost("master-0", "192.168.111.10", "master", true, HostStage.DONE);
    m1 = service.addHost("master-1", "192.168.111.11", "master", false, HostStage.DONE);
    m2 = service.addHost("master-2", "192.168.111.12", "master", false, HostStage.DONE);
    for (HostState h : List.of(m0, m1, m2)) {
      h.status = "installed";
      kube.createNode(h.hostname, h.ip, true);
    }
    service.setStatus("finalizing");
    kube.setClusterVersion("4.18.3", condition("Available", "True", "Done applying 4.18.3"));
    kube.setOperator("console", "", condition("Progressing", "True", "OAuthServerRouteEndpointAccessibleControllerAvailable"));
    kube.setOperator("authentication", "4.18.3", condition("Degraded", "True", "OAuth server unreachable"));

    Controller controller = start("--operators-timeout-seconds=1");
    assertEquals(Controller.Outcome.FAILED, controller.finished().get(30, TimeUnit.SECONDS));

    List<ServiceDouble.Call> completions = service.calls("POST", "/actions/complete-installation$");
    assertEquals(1, completions.size());
    JsonNode body = completions.get(0).json();
    assertFalse(body.path("is_success").asBoolean());
    assertEquals(PostInstallConfigs.OPERATORS_TIMEOUT_ERROR, body.path("error_info").asText());
    assertEquals("Stopped waiting for cluster operators to be available: context deadline exceeded",
        body.path("error_info").asText());
    JsonNode report = body.path("data").path("CLUSTER_OPERATORS_REPORT");
    assertEquals(2, report.size(), report.toString());
    assertEquals("authentication", report.get(0).path("name").asText());
    assertEquals("failed", report.get(0).path("status").asText());
    assertEquals("OAuth server unreachable", report.get(0).path("status_info").asText());
    assertEquals("console", report.get(1).path("name").asText());
    assertEquals("progressing", report.get(1).path("status").asText());
    assertEquals("error", service.status());

    assertTrue(service.calls("PUT", "/progress$").stream().noneMatch(c -> c.path().contains("/hosts/")),
        "no host stage reported: all were done");
    assertTrue(service.calls("POST", "/uploads/ingress-cert$").isEmpty());
    assertEquals(List.of("Waiting for cluster operators"), service.calls("PUT", "/clusters/[^/]+/progress$").stream()
        .map(c -> c.json().path("finalizing_stage").asText()).toList());
    Map<String, byte[]> bundle = TarGzReader.read(service.logUploads().get(service.logUploads().size() - 1));
    assertTrue(new String(bundle.get("controller-status.txt"), StandardCharsets.UTF_8).contains("error=true"));
  }

  @Test
  void anOlmOperatorIsReportedFromItsCsvAndItsResourceAppliedOnceTheCsvExists() throws Exception {
    for (HostState h : List.of(m0 = service.addHost("master-0", "192.168.111.10", "master", true, HostStage.DONE),
        m1 = service.addHost("master-1", "192.168.111.11", "master", false, HostStage.DONE),
        m2 = service.addHost("master-2", "192.168.111.12", "master", false, HostStage.DONE))) {
      h.status = "installed";
      kube.createNode(h.hostname, h.ip, true);
    }
    service.setStatus("finalizing");
    service.addOperator("lvm", "olm", "openshift-storage", "lvms-operator");
    // what the service renders for lvm: the LVMCluster, applied with the kubeconfig it hands out
    String lvmCluster = "apiVersion: lvm.topolvm.io/v1alpha1\nkind: LVMCluster\nmetadata:\n  name: lvmcluster-sample\n"
        + "  namespace: openshift-storage\nspec:\n  storage:\n    deviceClasses:\n    - name: vg1\n";
    service.setClusterFile("custom_manifests.json", ServiceDouble.JSON.writeValueAsBytes(List.of(Map.of("Name", "lvm",
        "Content", java.util.Base64.getEncoder().encodeToString(lvmCluster.getBytes(StandardCharsets.UTF_8))))));
    service.setKubeconfig(java.nio.file.Files.readAllBytes(kube.kubeconfig()));
    kube.setClusterVersion("4.18.3", condition("Available", "True", "Done applying 4.18.3"));
    kube.setOperator("console", "4.18.3", condition("Available", "True", "All is well"));
    kube.createIngressCa(CA_PEM);

    Controller controller = start();
    Eventually.until("waiting for lvm's CSV", () -> "Waiting for olm operators csv initialization".equals(service.finalizingStage()));
    assertEquals(null, kube.resource("lvm.topolvm.io/v1alpha1", "LVMCluster", "openshift-storage", "lvmcluster-sample"),
        "nothing applied before the operator's CSV exists");
    kube.setSubscriptionCsv("openshift-storage", "lvms-operator", "lvms-operator.v4.18.3");
    kube.setCsv("openshift-storage", "lvms-operator.v4.18.3", "Installing", "waiting for install components", "4.18.3");
    Eventually.until("LVMCluster applied", () -> kube.resource("lvm.topolvm.io/v1alpha1", "LVMCluster", "openshift-storage",
        "lvmcluster-sample") != null);
    assertEquals(Map.of("name", "vg1"), ((Map<?, ?>) ((List<?>) ((Map<?, ?>) ((Map<?, ?>) kube.resource("lvm.topolvm.io/v1alpha1",
        "LVMCluster", "openshift-storage", "lvmcluster-sample").getAdditionalProperties().get("spec")).get("storage"))
        .get("deviceClasses")).get(0)));
    Eventually.until("lvm progressing", () -> service.operator("lvm").path("status").asText().equals("progressing"));
    assertEquals("waiting for install components", service.operator("lvm").path("status_info").asText());
    kube.setCsv("openshift-storage", "lvms-operator.v4.18.3", "Succeeded", "install strategy completed", "4.18.3");

    assertEquals(Controller.Outcome.COMPLETED, controller.finished().get(30, TimeUnit.SECONDS));
    assertEquals("available", service.operator("lvm").path("status").asText());
    assertEquals("4.18.3", service.operator("lvm").path("version").asText());
    assertEquals("installed", service.status());
    List<String> stages = service.calls("PUT", "/clusters/[^/]+/progress$").stream()
        .map(c -> c.json().path("finalizing_stage").asText()).toList();
    assertTrue(stages.containsAll(List.of("Waiting for olm operators csv initialization", "Applying olm manifests",
        "Waiting for olm operators csv")), stages.toString());
  }

  @Test
  void aControllerRestartedMidwayEndsTheSameWithoutRepeatingOrReversingAStage() throws Exception {
    installingCluster();
    Controller first = start();
    first.ready().get(30, TimeUnit.SECONDS);
    kubeletJoins(m1, true);
    kubeletJoins(m2, false);
    awaitStage(m1, HostStage.DONE);
    awaitStage(m2, HostStage.JOINED);
    first.close(); // killed in the middle of the nodes phase
    assertEquals(Controller.Outcome.STOPPED, first.finished().get(10, TimeUnit.SECONDS));

    kube.setNodeReady("master-2");
    service.installerReports(m0, HostStage.REBOOTING);
    Controller second = start();
    second.ready().get(30, TimeUnit.SECONDS); // the ready event already exists: fine
    awaitStage(m2, HostStage.DONE);
    kubeletJoins(m0, true);
    awaitStage(m0, HostStage.DONE);
    service.installerReports(w0, HostStage.REBOOTING);
    kubeletJoins(w0, true);
    awaitStage(w0, HostStage.DONE);
    kube.setOperator("console", "4.18.3", condition("Progressing", "True", "rolling out"));
    Eventually.until("console progressing reported",
        () -> service.operator("console").path("status").asText().equals("progressing"));
    second.close(); // killed again, in the finalizing phase
    assertEquals(Controller.Outcome.STOPPED, second.finished().get(10, TimeUnit.SECONDS));

    Controller third = start();
    kube.setOperator("console", "4.18.3", condition("Available", "True", "All is well"));
    kube.setClusterVersion("4.18.3", condition("Available", "True", "Done applying 4.18.3"));
    kube.createIngressCa(CA_PEM);
    assertEquals(Controller.Outcome.COMPLETED, third.finished().get(30, TimeUnit.SECONDS));
    assertEquals("installed", service.status());

    for (HostState h : List.of(m0, m1, m2, w0)) {
      List<String> reports = service.stageReports(h);
      assertEquals(reports.size(), new HashSet<>(reports).size(), h.hostname + " reported a stage twice: " + reports);
      List<HostStage> order = StageOrder.of(new dev.rendezvous.controller.service.Host(h.id, h.infraEnvId, null,
          null, h.role, h.role, h.bootstrap, h.hostname, null, null, null, null), false);
      int last = order.indexOf(HostStage.REBOOTING);
      for (String r : reports) {
        HostStage s = HostStage.fromWire(r);
        assertNotNull(s, h.hostname + " report refused or unknown: " + reports);
        assertTrue(order.indexOf(s) > last, h.hostname + " went backwards: " + reports);
        last = order.indexOf(s);
      }
      assertEquals("Done", reports.get(reports.size() - 1), h.hostname);
    }
    assertEquals(List.of("Joined", "Done"), service.stageReports(m2), "m2's Joined came from the first run only");
    assertFinalizingStagesOnce(service);
    // the operator object and its status are two writes of the mock cluster, so "rolling out" may or may not have
    // been seen before the second stop; what matters is that no controller sends it twice
    assertTrue(service.calls("PUT", "/monitored-operators$").stream()
        .filter(c -> c.text().contains("\"console\"") && c.text().contains("rolling out")).count() <= 1,
        "the restarted controller does not repeat what the service already has");
  }

  /**
   * Each finalizing stage once, in order. The service (like upstream's) declares the cluster installed on its own
   * once operators and the ingress CA are in, so the controller's closing "Done" may find it installed already.
   */
  static void assertFinalizingStagesOnce(ServiceDouble service) {
    List<String> stages = service.calls("PUT", "/clusters/[^/]+/progress$").stream()
        .map(c -> c.json().path("finalizing_stage").asText()).toList();
    List<String> expected = List.of("Waiting for cluster operators", "Adding router ca", "Done");
    assertTrue(stages.equals(expected) || stages.equals(expected.subList(0, 2)), "finalizing stages once each: " + stages);
  }
}
