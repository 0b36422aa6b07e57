package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.image.IsoLayout;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.cpio.CpioArchiveEntry;
import org.apache.commons.compress.archivers.cpio.CpioArchiveInputStream;
import org.junit.jupiter.api.Test;

/**
 * An infra-env's discovery Ignition from the REST API is what the image service patches into its
 * ISO, behind the infra-env's signed download URL.
 */
class DiscoveryImageTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  private static HttpResponse<byte[]> get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void theIsoCarriesTheInfraEnvsIgnitionBehindItsSignedUrl() throws Exception {
    String clusterId = api.post("/clusters", Api.cluster("iso-owner")).json().getString("id");
    JsonObject ie = api.post("/infra-envs", Api.infraEnv("iso-ie", clusterId).put("ssh_authorized_key", Api.SSH_KEY)).json();
    String id = ie.getString("id");

    Api.Reply ign = api.get("/infra-envs/" + id + "/downloads/files?file_name=discovery.ign");
    assertEquals(200, ign.status(), ign.body());
    JsonObject config = new JsonObject(ign.body());
    assertEquals("3.1.0", config.getJsonObject("ignition").getString("version"));
    String agentEnv = fileContents(config, "/etc/rendezvous/agent.env");
    String token = agentEnv.lines().filter(l -> l.startsWith("RDV_AGENT_TOKEN=")).findFirst().orElseThrow()
        .substring("RDV_AGENT_TOKEN=".length());
    var claims = dev.rendezvous.bus.auth.AgentTokens.verify(
        Rendezvous.agentTokenSecret(system.config()).getBytes(java.nio.charset.StandardCharsets.UTF_8), token);
    assertTrue(claims.isPresent() && claims.get().infraEnvId().equals(id) && clusterId.equals(claims.get().clusterId()),
        "the infra-env's agent token is in the Ignition: " + agentEnv);
    assertEquals(config, new JsonObject(api.get("/infra-envs/" + id + "/downloads/files?file_name=discovery.ign").body()),
        "the same Ignition on every download");

    String url = ie.getString("download_url");
    assertTrue(url.contains("api_key="), url);
    HttpResponse<byte[]> iso = get(url);
    assertEquals(200, iso.statusCode(), new String(iso.body()));
    byte[] base = Files.readAllBytes(TestSystem.baseIso());
    assertEquals(base.length, iso.body().length, "the ISO keeps its size");

    IsoLayout.EmbedArea area = IsoLayout.read(TestSystem.baseIso()).ignitionArea().orElseThrow();
    int start = (int) area.offset();
    int end = (int) area.end();
    assertArrayEquals(Arrays.copyOfRange(base, 0, start), Arrays.copyOfRange(iso.body(), 0, start));
    assertArrayEquals(Arrays.copyOfRange(base, end, base.length), Arrays.copyOfRange(iso.body(), end, base.length));
    byte[] embedded = null;
    try (CpioArchiveInputStream cpio = new CpioArchiveInputStream(
        new GZIPInputStream(new ByteArrayInputStream(iso.body(), start, end - start)))) {
      for (CpioArchiveEntry e = cpio.getNextCPIOEntry(); e != null; e = cpio.getNextCPIOEntry()) {
        if (e.getName().equals("config.ign")) {
          embedded = cpio.readAllBytes();
        }
      }
    }
    assertTrue(embedded != null, "config.ign is in the embed area");
    assertEquals(ign.body(), new String(embedded, java.nio.charset.StandardCharsets.UTF_8));

    String other = api.post("/infra-envs", Api.infraEnv("other-iso", null)).json().getString("id");
    assertEquals(403, get(url.replace("/images/" + id, "/images/" + other)).statusCode(), "a token is for one infra-env");
    assertEquals(401, get(url.replaceAll("api_key=[^&]+", "api_key=rdv1.forged")).statusCode());
    assertEquals(401, get(url.replaceAll("api_key=[^&]+&", "")).statusCode());

    Api.Reply ipxe = api.get("/infra-envs/" + id + "/downloads/files?file_name=ipxe-script");
    assertEquals(200, ipxe.status());
    assertTrue(ipxe.body().startsWith("#!ipxe"), ipxe.body());
    assertEquals(400, api.get("/infra-envs/" + id + "/downloads/files?file_name=passwd").status());
  }

  @Test
  void theIpxeScriptCarriesTheInfraEnvsAppendedKernelArguments() {
    JsonObject ie = api.post("/infra-envs", Api.infraEnv("ipxe-kargs", null).put("kernel_arguments", new io.vertx.core.json.JsonArray()
        .add(new JsonObject().put("operation", "append").put("value", "rd.net.timeout.carrier=60"))
        .add(new JsonObject().put("operation", "append").put("value", "ip=dhcp"))
        .add(new JsonObject().put("operation", "delete").put("value", "quiet")))).json();
    String id = ie.getString("id");
    Api.Reply ipxe = api.get("/infra-envs/" + id + "/downloads/files?file_name=ipxe-script");
    assertEquals(200, ipxe.status(), ipxe.body());
    String kernel = ipxe.body().lines().filter(l -> l.startsWith("kernel ")).findFirst().orElseThrow();
    assertTrue(kernel.endsWith(" rd.net.timeout.carrier=60 ip=dhcp"), "appended in order at the end: " + kernel);
    assertTrue(!kernel.contains("quiet"), "only append operations are carried: " + kernel);

    Api.Reply patched = api.patch("/infra-envs/" + id, new JsonObject().put("kernel_arguments", new io.vertx.core.json.JsonArray()
        .add(new JsonObject().put("operation", "append").put("value", "nomodeset"))));
    assertEquals(201, patched.status(), patched.body());
    String after = api.get("/infra-envs/" + id + "/downloads/files?file_name=ipxe-script").body();
    assertTrue(after.contains(" nomodeset\n"), after);
    assertTrue(!after.contains("rd.net.timeout.carrier"), "a PATCH replaces the list: " + after);
  }

  /** Decodes an Ignition file's data: URL (plain, percent-encoded or base64). */
  static String fileContents(JsonObject config, String path) {
    for (Object o : config.getJsonObject("storage").getJsonArray("files")) {
      JsonObject f = (JsonObject) o;
      if (path.equals(f.getString("path"))) {
        String source = f.getJsonObject("contents").getString("source");
        String data = source.substring(source.indexOf(',') + 1);
        return source.substring(0, source.indexOf(',')).endsWith(";base64")
            ? new String(java.util.Base64.getDecoder().decode(data), java.nio.charset.StandardCharsets.UTF_8)
            : java.net.URLDecoder.decode(data, java.nio.charset.StandardCharsets.UTF_8);
      }
    }
    throw new AssertionError(path + " is not in the Ignition");
  }

  @Test
  void anInfraEnvWhoseIgnitionCannotBeBuiltIsRefusedAtCreation() {
    Api.Reply r = api.post("/infra-envs", Api.infraEnv("bad-override", null)
        .put("ignition_config_override", "{\"ignition\":{\"version\":\"3.1.0\"},\"storage\":{\"files\":[{\"path\":\"relative\"}]}}"));
    assertEquals(400, r.status(), r.body());
    assertEquals("ignition_config_override", r.json().getString("field"));
  }
}
