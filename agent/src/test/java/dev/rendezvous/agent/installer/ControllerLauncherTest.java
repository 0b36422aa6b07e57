package dev.rendezvous.agent.installer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bootstrap's rendering of the controller's Job into the new cluster's manifests (upstream's PrepareController). */
class ControllerLauncherTest {
  @TempDir Path root;
  private dev.rendezvous.controller.service.HttpClients.Tls tls =
      new dev.rendezvous.controller.service.HttpClients.Tls(false, java.util.Optional.empty());

  private String render(Boolean checkCvo, Integer controlPlaneCount) throws Exception {
    return render(checkCvo, controlPlaneCount, null, "http://10.0.0.1:8090");
  }

  private String render(Boolean checkCvo, Integer controlPlaneCount, Boolean handOver, String url) throws Exception {
    InstallRequest r = new InstallRequest("c-1", "ie-1", "h-1", "bootstrap", "/dev/loop3", null, controlPlaneCount, checkCvo,
        "4.18", List.of(), List.of(), null, null, null, handOver);
    ControllerLauncher.manifests(root, "rendezvous-controller:latest", tls).launch(r, url, "tok-1");
    return Files.readString(root.resolve("opt/openshift/manifests/assisted-installer-controller.yaml"));
  }

  @Test
  void anAgentBasedBootstrapHandsTheHostsOverToTheControllerWithoutTheirSecrets() throws Exception {
    // the service's host list, as GET /v2/clusters/{id}/hosts?with-inventory=true answers it (here from a plain HTTP
    // server: the service itself is the app's tests' to start)
    String hosts = "[{\"id\":\"h-1\",\"cluster_id\":\"c-1\",\"role\":\"master\",\"status\":\"installing\","
        + "\"requested_hostname\":\"m1\",\"bootstrap\":true,\"installer_args\":\"[\\\"--secret\\\"]\","
        + "\"ignition_config_overrides\":\"{\\\"password\\\":1}\","
        + "\"inventory\":\"{\\\"hostname\\\":\\\"m1\\\",\\\"bmc_address\\\":\\\"10.9.9.9\\\","
        + "\\\"interfaces\\\":[{\\\"name\\\":\\\"eno1\\\",\\\"mac_address\\\":\\\"02:00:00:00:00:01\\\","
        + "\\\"ipv4_addresses\\\":[\\\"10.0.0.5/24\\\"],\\\"speed_mbps\\\":1000}]}\"}]";
    com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress("127.0.0.1", 0), 0);
    java.util.List<String> asked = new java.util.ArrayList<>();
    server.createContext("/", ex -> {
      asked.add(ex.getRequestURI() + " " + ex.getRequestHeaders().getFirst("X-Secret-Key"));
      byte[] b = hosts.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    server.start();
    try {
      String yaml = render(true, 1, true, "http://127.0.0.1:" + server.getAddress().getPort());
      assertTrue(asked.equals(List.of("/api/assisted-install/v2/clusters/c-1/hosts?with-inventory=true tok-1")),
          asked.toString());
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("- \\{name: RDV_HANDOVER_HOSTS, value: \"([^\"]+)\"}")
          .matcher(yaml);
      assertTrue(m.find(), yaml);
      String handed = new String(java.util.Base64.getDecoder().decode(m.group(1)), java.nio.charset.StandardCharsets.UTF_8);
      for (String kept : List.of("\"id\":\"h-1\"", "\"requested_hostname\":\"m1\"", "\"bootstrap\":true", "02:00:00:00:00:01",
          "10.0.0.5/24")) {
        assertTrue(handed.contains(kept), kept + " in " + handed);
      }
      for (String dropped : List.of("installer_args", "ignition_config_overrides", "bmc_address", "speed_mbps")) {
        assertTrue(!handed.contains(dropped), dropped + " left out of " + handed);
      }
    } finally {
      server.stop(0);
    }
    assertTrue(!render(true, 3).contains("RDV_HANDOVER_HOSTS"), "a hub's installation hands nothing over");
  }

  @Test
  void theJobCarriesTheServicesSettingsAndTakesTheTokenFromItsSecret() throws Exception {
    String yaml = render(true, 3);
    for (String line : List.of("- {name: CLUSTER_ID, value: \"c-1\"}", "- {name: INVENTORY_URL, value: \"http://10.0.0.1:8090\"}",
        "- {name: OPENSHIFT_VERSION, value: \"4.18\"}", "- {name: CONTROL_PLANE_COUNT, value: \"3\"}",
        "- {name: CHECK_CLUSTER_VERSION, value: \"true\"}", "pull-secret-token: \"tok-1\"", "kind: Job", "kind: Secret",
        "key: pull-secret-token")) {
      assertTrue(yaml.contains(line), line + " in\n" + yaml);
    }
  }

  @Test
  void theServicesCaGoesWithTheJobWhereTheControllerReadsIt() throws Exception {
    String ca = "-----BEGIN CERTIFICATE-----\nMIIBdummy\nAAAA\n-----END CERTIFICATE-----\n";
    Path caFile = Files.writeString(root.resolve("service-ca.pem"), ca);
    tls = new dev.rendezvous.controller.service.HttpClients.Tls(false, java.util.Optional.of(caFile));
    String yaml = render(true, 3, null, "https://hub.example.test:8090");
    var docs = new com.fasterxml.jackson.dataformat.yaml.YAMLMapper().readerFor(com.fasterxml.jackson.databind.JsonNode.class)
        .<com.fasterxml.jackson.databind.JsonNode>readValues(yaml).readAll();
    var configMap = docs.stream().filter(d -> d.path("kind").asText().equals("ConfigMap")).findFirst().orElseThrow();
    assertTrue(configMap.path("data").path("service-ca-cert.crt").asText().equals(ca), yaml);
    var job = docs.stream().filter(d -> d.path("kind").asText().equals("Job")).findFirst().orElseThrow();
    var pod = job.path("spec").path("template").path("spec");
    var env = pod.path("containers").get(0).path("env");
    boolean caPath = false;
    for (var e : env) {
      caPath |= e.path("name").asText().equals("CA_CERT_PATH")
          && e.path("value").asText().equals("/etc/assisted-service/service-ca-cert.crt");
    }
    assertTrue(caPath, yaml);
    assertTrue(pod.path("containers").get(0).path("volumeMounts").get(0).path("mountPath").asText()
        .equals("/etc/assisted-service"), yaml);
    assertTrue(pod.path("volumes").get(0).path("configMap").path("name").asText()
        .equals(configMap.path("metadata").path("name").asText()), yaml);
    assertTrue(!yaml.contains("SKIP_CERT_VERIFICATION"), "verified by default: " + yaml);

    tls = new dev.rendezvous.controller.service.HttpClients.Tls(true, java.util.Optional.empty());
    assertTrue(render(true, 3).contains("- {name: SKIP_CERT_VERIFICATION, value: \"true\"}"));
  }

  @Test
  void withoutCheckCvoTheControllerDoesNotWaitForTheClusterVersion() throws Exception {
    String yaml = render(null, 1);
    assertTrue(yaml.contains("- {name: CHECK_CLUSTER_VERSION, value: \"false\"}"), yaml);
    assertTrue(yaml.contains("- {name: CONTROL_PLANE_COUNT, value: \"1\"}"), yaml);
  }

  @Test
  void theJobNamesTheControllerImageTheServiceSentAndOursWhenItSentNone() throws Exception {
    String digest = "rendezvous-controller@sha256:" + "ab".repeat(32);
    InstallRequest sent = InstallRequest.parse("{\"cluster_id\":\"c-1\",\"infra_env_id\":\"ie-1\",\"host_id\":\"h-1\","
        + "\"role\":\"bootstrap\",\"controller_image\":\"" + digest + "\"}");
    // AgentRuntime's real installer renders the Job with this image
    String image = sent.controllerImageOr("rendezvous-controller:latest");
    assertTrue(image.equals(digest), image);
    ControllerLauncher.manifests(root, image, tls).launch(sent, "http://10.0.0.1:8090", "tok-1");
    String yaml = Files.readString(root.resolve("opt/openshift/manifests/assisted-installer-controller.yaml"));
    assertTrue(yaml.contains("        image: " + digest + "\n"), yaml);
    InstallRequest none = InstallRequest.parse("{\"cluster_id\":\"c-1\",\"infra_env_id\":\"ie-1\",\"host_id\":\"h-1\","
        + "\"role\":\"bootstrap\",\"controller_image\":\" \"}");
    assertTrue(none.controllerImageOr("rendezvous-controller:latest").equals("rendezvous-controller:latest"));
  }
}
