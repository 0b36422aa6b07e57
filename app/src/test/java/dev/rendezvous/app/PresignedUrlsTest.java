package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.auth.TokenStore;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Presigned download URLs (api_key), the minimal initrd and regenerate-signing-key: a URL works without any other
 * credential, only for what it was signed for, and stops working once the infra-env's key is regenerated.
 */
class PresignedUrlsTest {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  private Api otherTenant(String name) throws Exception {
    return new Api(system.config().apiPort(),
        new TokenStore(system.pool()).create(name, "test", false).await(10, TimeUnit.SECONDS));
  }

  /** A GET with no credential but what the URL carries. */
  private static HttpResponse<String> fetch(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void infraEnvFileUrlsWorkAloneUntilTheSigningKeyIsRegenerated() throws Exception {
    JsonObject ie = api.post("/infra-envs", Api.infraEnv("presigned-ie", null)).json();
    String id = ie.getString("id");
    JsonObject signed = api.get("/infra-envs/" + id + "/downloads/files-presigned?file_name=discovery.ign").json();
    assertTrue(signed.containsKey("expires_at"), signed.encode());
    HttpResponse<String> ignition = fetch(signed.getString("url"));
    assertEquals(200, ignition.statusCode(), ignition.body());
    assertTrue(new JsonObject(ignition.body()).containsKey("ignition"), "a discovery Ignition");
    JsonObject ipxe = api.get("/infra-envs/" + id + "/downloads/files-presigned?file_name=ipxe-script").json();
    HttpResponse<String> script = fetch(ipxe.getString("url"));
    assertEquals(200, script.statusCode());
    assertTrue(script.body().startsWith("#!ipxe"), script.body());

    Api.Reply badName = api.get("/infra-envs/" + id + "/downloads/files-presigned?file_name=passwd");
    assertEquals(400, badName.status());
    assertEquals("file_name", badName.json().getString("field"));
    assertEquals(404, api.get("/infra-envs/" + UUID.randomUUID() + "/downloads/files-presigned?file_name=discovery.ign")
        .status());
    Api other = otherTenant("presigned-other");
    assertEquals(404, other.get("/infra-envs/" + id + "/downloads/files-presigned?file_name=discovery.ign").status());
    assertEquals(404, other.post("/infra-envs/" + id + "/regenerate-signing-key", null).status());
    // another infra-env's URL token opens nothing here
    String otherIe = api.post("/infra-envs", Api.infraEnv("presigned-ie-2", null)).json().getString("id");
    String foreign = api.get("/infra-envs/" + otherIe + "/downloads/files-presigned?file_name=discovery.ign").json()
        .getString("url");
    assertEquals(403, fetch(signed.getString("url").replaceAll("api_key=[^&]+", foreign.replaceAll(".*api_key=", "api_key=")))
        .statusCode());

    String oldIso = ie.getString("download_url");
    String oldToken = signed.getString("url").replaceAll(".*api_key=", "");
    assertEquals(200, Api.agent(system.config().apiPort(), java.net.URLDecoder.decode(oldToken, "UTF-8"))
        .get("/infra-envs/" + id + "/downloads/files?file_name=discovery.ign").status(), "the agent token works too");

    // the agent edge has seen (and remembered) the token before the key changes
    Api.Reply before = Api.agent(system.config().apiPort(), java.net.URLDecoder.decode(oldToken, "UTF-8")).post(
        "/infra-envs/" + id + "/hosts",
        new JsonObject().put("host_id", java.util.UUID.randomUUID().toString()).put("discovery_agent_version", "t"));
    assertEquals(201, before.status(), before.toString());
    assertEquals(204, api.post("/infra-envs/" + id + "/regenerate-signing-key", null).status());
    assertEquals(401, fetch(signed.getString("url")).statusCode(), "the old URL stops working");
    assertEquals(401, Api.agent(system.config().apiPort(), java.net.URLDecoder.decode(oldToken, "UTF-8"))
        .get("/infra-envs/" + id + "/downloads/files?file_name=discovery.ign").status(), "so does the old agent token");
    HttpResponse<String> oldImage = HTTP.send(HttpRequest.newBuilder(URI.create(oldIso)).timeout(Duration.ofSeconds(30))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(401, oldImage.statusCode(), "and the old ISO URL");
    // and at the agent edge: the old token registers no host; a token of the new key does
    String oldAgentToken = java.net.URLDecoder.decode(oldToken, "UTF-8");
    Api.Reply refused = Api.agent(system.config().apiPort(), oldAgentToken).post("/infra-envs/" + id + "/hosts",
        new JsonObject().put("host_id", java.util.UUID.randomUUID().toString()).put("discovery_agent_version", "t"));
    assertEquals(401, refused.status(), refused.toString());
    String newIso = api.get("/infra-envs/" + id).json().getString("download_url");
    assertNotEquals(oldIso, newIso);
    String imageUrl = api.get("/infra-envs/" + id + "/downloads/image-url").json().getString("url");
    assertEquals(newIso.substring(0, newIso.indexOf('?')), imageUrl.substring(0, imageUrl.indexOf('?')));
    assertEquals(200, head(imageUrl).statusCode(), "the fresh image URL works");
    JsonObject fresh = api.get("/infra-envs/" + id + "/downloads/files-presigned?file_name=discovery.ign").json();
    assertEquals(200, fetch(fresh.getString("url")).statusCode(), "a new URL works");
    String newAgentToken = java.net.URLDecoder.decode(fresh.getString("url").replaceAll(".*api_key=", "").replaceAll("&.*", ""), "UTF-8");
    Api.Reply registered = Api.agent(system.config().apiPort(), newAgentToken).post("/infra-envs/" + id + "/hosts",
        new JsonObject().put("host_id", java.util.UUID.randomUUID().toString()).put("discovery_agent_version", "t"));
    assertEquals(201, registered.status(), registered.toString());
    assertEquals(404, api.post("/infra-envs/" + UUID.randomUUID() + "/regenerate-signing-key", null).status());
  }

  private static HttpResponse<String> head(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void isoUrlsExpireFourHoursAfterTheyAreMadeByDefault() throws Exception {
    JsonObject ie = api.post("/infra-envs", Api.infraEnv("expiring-ie", null)).json();
    Instant expires = Instant.parse(ie.getString("expires_at"));
    Duration left = Duration.between(Instant.now(), expires);
    assertTrue(left.compareTo(Duration.ofMinutes(239)) > 0 && left.compareTo(Duration.ofMinutes(241)) < 0,
        "expires_at " + expires + " is 4 h away");
    JsonObject presigned = api.get("/infra-envs/" + ie.getString("id") + "/downloads/image-url").json();
    assertTrue(Instant.parse(presigned.getString("expires_at")).isAfter(Instant.now().plus(Duration.ofMinutes(239))));
    assertEquals(200, head(presigned.getString("url")).statusCode());
    // a URL's credential opens only that infra-env's image
    String other = api.post("/infra-envs", Api.infraEnv("expiring-ie-2", null)).json().getString("id");
    String foreign = presigned.getString("url").replace(ie.getString("id"), other);
    assertEquals(403, head(foreign).statusCode());
  }

  @Test
  void anExpiredIsoUrlIsRefusedAndANewOneWorks(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    try (Rendezvous shortLived = TestSystem.start(dir, java.util.Map.of("image-url-lifetime-seconds", "3",
        "os-images", TestSystem.osImages()))) {
      Api admin = new Api(shortLived.config().apiPort(),
          java.nio.file.Files.readString(shortLived.adminTokenFile()).strip());
      JsonObject ie = admin.post("/infra-envs", Api.infraEnv("short-ie", null)).json();
      String token = java.nio.file.Files.readString(shortLived.adminTokenFile()).strip();
      String plain = ie.getString("download_url").replaceAll("api_key=[^&]+&", "");
      // the first download fetches the base ISO into the image cache (503 meanwhile): warm it with the user's token
      Await.until("the base ISO cached", Duration.ofSeconds(60), () -> {
        try {
          return HTTP.send(HttpRequest.newBuilder(URI.create(plain)).header("Authorization", "Bearer " + token)
              .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString())
              .statusCode() == 200;
        } catch (Exception e) {
          return false;
        }
      });
      JsonObject presigned = admin.get("/infra-envs/" + ie.getString("id") + "/downloads/image-url").json();
      String url = presigned.getString("url");
      assertTrue(Instant.parse(presigned.getString("expires_at")).isBefore(Instant.now().plusSeconds(5)),
          presigned.getString("expires_at"));
      assertEquals(200, head(url).statusCode(), "valid until it expires");
      HttpResponse<String> expired = Await.until("the URL expired", Duration.ofSeconds(15), () -> {
        try {
          HttpResponse<String> r = fetch(url);
          return r.statusCode() == 401 ? r : null;
        } catch (Exception e) {
          return null;
        }
      });
      JsonObject error = new JsonObject(expired.body());
      assertTrue(error.getString("reason").contains("has expired"), error.encode());
      String fresh = admin.get("/infra-envs/" + ie.getString("id") + "/downloads/image-url").json().getString("url");
      assertEquals(200, head(fresh).statusCode(), "a new URL works");
    }
  }

  @Test
  void clusterUrlsOpenOneFileOfOneClusterForTenMinutes() throws Exception {
    String fresh = api.post("/clusters", Api.cluster("presigned-new")).json().getString("id");
    Api.Reply early = api.get("/clusters/" + fresh + "/downloads/credentials-presigned?file_name=kubeconfig");
    assertEquals(409, early.status(), "nothing to download before the installation: " + early.body());
    String id = api.post("/clusters/import", new JsonObject().put("name", "presigned")
        .put("api_vip_dnsname", "api.presigned.example.com").put("openshift_cluster_id", UUID.randomUUID().toString()))
        .json().getString("id");
    JsonObject signed = api.get("/clusters/" + id + "/downloads/credentials-presigned?file_name=kubeconfig").json();
    Instant expires = Instant.parse(signed.getString("expires_at"));
    assertTrue(expires.isAfter(Instant.now().plusSeconds(500)) && expires.isBefore(Instant.now().plusSeconds(700)),
        signed.encode());
    HttpResponse<String> answer = fetch(signed.getString("url"));
    assertTrue(answer.statusCode() != 401 && answer.statusCode() != 403, "the URL authenticates: " + answer.statusCode()
        + " " + answer.body());
    // signed for kubeconfig only; tampered or for another cluster: refused
    assertEquals(403, fetch(signed.getString("url").replace("file_name=kubeconfig", "file_name=kubeadmin-password"))
        .statusCode());
    assertEquals(403, fetch(signed.getString("url").replace(id, fresh)).statusCode());
    assertEquals(401, fetch(signed.getString("url").replaceAll("api_key=rdvp1\\.", "api_key=rdvp1.x")).statusCode());
    JsonObject files = api.get("/clusters/" + id + "/downloads/files-presigned?file_name=install-config.yaml").json();
    assertTrue(files.getString("url").contains("/downloads/files?file_name=install-config.yaml&api_key="), files.encode());

    Api.Reply badName = api.get("/clusters/" + id + "/downloads/files-presigned?file_name=kubeconfig");
    assertEquals(400, badName.status(), "credentials have their own path");
    assertEquals("file_name", badName.json().getString("field"));
    assertEquals(404, api.get("/clusters/" + UUID.randomUUID() + "/downloads/files-presigned?file_name=worker.ign")
        .status());
    assertEquals(404, otherTenant("presigned-cluster-other")
        .get("/clusters/" + id + "/downloads/credentials-presigned?file_name=kubeconfig").status());
  }

  /** What upstream's UI asks for in OCM to download a cluster's logs: a URL good for those logs and nothing else. */
  @Test
  void clusterLogsArePresignedForTheirDownloadOnly() throws Exception {
    String id = api.post("/clusters/import", new JsonObject().put("name", "presigned-logs")
        .put("api_vip_dnsname", "api.presigned-logs.example.com").put("openshift_cluster_id", UUID.randomUUID().toString()))
        .json().getString("id");
    String presign = "/clusters/" + id + "/downloads/files-presigned?file_name=logs";
    assertEquals(404, api.get(presign + "&logs_type=all").status(), "no logs uploaded yet");
    byte[] bundle = "controller logs".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(204, api.upload("/clusters/" + id + "/logs?logs_type=controller", "upfile", "controller_logs.tar.gz",
        bundle).status());
    JsonObject signed = api.get(presign + "&logs_type=all").json();
    String url = signed.getString("url");
    assertTrue(url.contains("/clusters/" + id + "/logs?logs_type=all&file_name=logs&api_key=rdvp1."), signed.encode());
    HttpResponse<String> logs = fetch(url);
    assertEquals(200, logs.statusCode(), logs.body());
    assertEquals("controller logs", logs.body());
    assertEquals(400, api.get(presign + "&logs_type=everything").status());
    // the logs' URL opens no other file, and another file's URL does not open the logs
    assertEquals(400, fetch(url.replace("/logs?logs_type=all&file_name=logs", "/downloads/credentials?file_name=logs"))
        .statusCode(), "logs are no credentials file");
    String kubeconfig = api.get("/clusters/" + id + "/downloads/credentials-presigned?file_name=kubeconfig").json()
        .getString("url");
    String kubeconfigKey = kubeconfig.replaceAll(".*api_key=", "");
    assertEquals(403, fetch(url.replaceAll("api_key=.*", "api_key=" + kubeconfigKey)).statusCode());
    assertEquals(403, fetch(url.replace("file_name=logs", "file_name=kubeconfig").replaceAll("api_key=.*",
        "api_key=" + kubeconfigKey)).statusCode());
    assertEquals(401, fetch(url.replaceAll("api_key=.*", "")).statusCode(), "no credential, no logs");
  }

  @Test
  void thereIsNoMinimalInitrd() throws Exception {
    String id = api.post("/infra-envs", Api.infraEnv("initrd", null).put("image_type", "minimal-iso")).json()
        .getString("id");
    Api.Reply r = api.get("/infra-envs/" + id + "/downloads/minimal-initrd");
    assertEquals(204, r.status(), r.body());
    assertEquals(404, api.get("/infra-envs/" + UUID.randomUUID() + "/downloads/minimal-initrd").status());
    assertEquals(404, otherTenant("initrd-other").get("/infra-envs/" + id + "/downloads/minimal-initrd").status());
  }
}
