package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disconnected site (upstream's MIRROR_REGISTRY): the service started with a registries.conf and the mirror's CA
 * writes both into every discovery Ignition, and the cluster's install-config pulls the release from the mirrors
 * (imageDigestSources) and trusts their CA.
 */
class DisconnectedSiteTest {
  static final String CA = "-----BEGIN CERTIFICATE-----\nMIIBmirrorCA\n-----END CERTIFICATE-----\n";

  @Test
  void mirrorsReachTheDiscoveryIgnitionAndTheInstallConfig(@TempDir Path dir) throws Exception {
    Path conf = dir.resolve("registries.conf");
    Files.writeString(conf, "[[registry]]\nlocation = \"quay.io/openshift-release-dev/ocp-release\"\n"
        + "mirror-by-digest-only = true\n[[registry.mirror]]\nlocation = \"mirror.edge.example:5000/ocp/release\"\n");
    Path ca = dir.resolve("mirror-ca.pem");
    Files.writeString(ca, CA);
    try (Rendezvous system = TestSystem.start(dir.resolve("data"), Map.of("registries-conf", conf.toString(),
        "mirror-registry-ca", ca.toString()))) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      String cluster = api.post("/clusters", Api.cluster("disconnected")).json().getString("id");
      String ie = api.post("/infra-envs", Api.infraEnv("disconnected-ie", cluster)).json().getString("id");
      JsonObject ign = new JsonObject(api.get("/infra-envs/" + ie + "/downloads/files?file_name=discovery.ign").body());
      String registries = file(ign, "/etc/containers/registries.conf");
      assertTrue(registries.contains("location = \"quay.io/openshift-release-dev/ocp-release\"")
          && registries.contains("mirror.edge.example:5000/ocp/release"), registries);
      boolean caWritten = ign.getJsonObject("storage").getJsonArray("files").stream()
          .map(JsonObject.class::cast).anyMatch(f -> decode(f).contains("MIIBmirrorCA"));
      assertTrue(caWritten, "the mirror's CA is on the discovery host");

      Api.Reply installConfig = api.get("/clusters/" + cluster + "/install-config");
      assertEquals(200, installConfig.status(), installConfig.toString());
      String text = (String) io.vertx.core.json.Json.decodeValue(installConfig.body()); // upstream: the YAML as a JSON string
      assertTrue(text.contains("imageDigestSources") && text.contains("mirror.edge.example:5000/ocp/release")
          && text.contains("MIIBmirrorCA"), text);
    }
  }

  private static String file(JsonObject ign, String path) {
    return ign.getJsonObject("storage").getJsonArray("files").stream().map(JsonObject.class::cast)
        .filter(f -> path.equals(f.getString("path"))).map(DisconnectedSiteTest::decode).findFirst()
        .orElseThrow(() -> new AssertionError(path + " is not in the discovery Ignition"));
  }

  private static String decode(JsonObject f) {
    String source = f.getJsonObject("contents").getString("source");
    return new String(Base64.getDecoder().decode(source.substring(source.indexOf(',') + 1)), StandardCharsets.UTF_8);
  }
}
