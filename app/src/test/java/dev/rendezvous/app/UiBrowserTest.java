package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rendezvous.service.auth.TokenStore;
import dev.rendezvous.ui.UiBundle;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The web UI Rendezvous serves at {@code /} (upstream's Assisted Installer UI library in our shell, the rendezvous-ui
 * jar), driven in real headless Chromium (Debian's) by puppeteer-core as a person would ({@code src/test/uilib/
 * browser.js}): the token page, a single-node and a 3 + 2 cluster through the wizard, the discovery ISO URL read off
 * the page (fetched here: a real ISO), hosts this test boots as dry-run agents into the infra-env the page made,
 * a hostname and roles set in the page, Install, the installed page, the kubeconfig downloaded there. Then checked
 * here through the API: what the page did is what the service holds, the downloaded kubeconfig is the API's, and no
 * request of the page was answered 404 or 5xx. Screenshots of every step in target/ui-screens.
 */
@ExtendWith(NetnsExclusive.Shared.class)
class UiBrowserTest {
  static final Path SCREENS = Path.of("target", "ui-screens").toAbsolutePath();

  @Test
  void aPersonInstallsTwoClustersInTheWebUi() throws Exception {
    for (String tool : List.of("node", "chromium")) {
      if (!NodeFlow.onPath(tool)) {
        fail(tool + " is not installed: run scripts/install-test-tools (Debian packages nodejs, npm, chromium)");
      }
    }
    String missing = UiBundle.load().missingReason();
    if (missing != null) {
      fail("the web UI is not in this build (ui/build-web): " + missing);
    }
    Rendezvous system = TestSystem.shared();
    int port = system.config().apiPort();
    // a tenant of its own: the page starts from an empty cluster list
    String token = new TokenStore(system.pool()).create("ui-browser", "ui browser test", false)
        .await(10, TimeUnit.SECONDS);
    Api api = new Api(port, token);
    deleteRecursively(SCREENS);
    Files.createDirectories(SCREENS);
    List<String> isoUrls = new CopyOnWriteArrayList<>();
    Map<String, Path> kubeconfigs = new ConcurrentHashMap<>();
    AtomicReference<Object> badSoFar = new AtomicReference<>();
    Path out = SCREENS.resolve("browser-stdout.jsonl");
    NodeFlow.Result run = NodeFlow.run(system, "browser.js", List.of("--url=http://127.0.0.1:" + port,
        "--token=" + token, "--work=" + SCREENS, "--timeout-seconds=360"), out, Duration.ofSeconds(400), m -> {
          if (m.containsKey("agents")) {
            // the hosts boot the discovery image the page offered (NodeFlow boots them)
            isoUrls.add(m.getJsonObject("agents").getString("isoUrl"));
          } else if (m.containsKey("kubeconfig")) {
            JsonObject k = m.getJsonObject("kubeconfig");
            kubeconfigs.put(k.getString("cluster"), Path.of(k.getString("file")));
          } else if (m.containsKey("fatal")) {
            badSoFar.set(m.getValue("bad"));
          }
        });
    if (run.timedOut()) {
      fail("the browser flow did not end within 400 s; its steps: " + out);
    }
    String where = " (steps: " + out + ", screenshots and failure-tabN.png/.txt: " + SCREENS + ", stderr: "
        + SCREENS.resolve("node-stderr.log") + ")";
    if (run.fatal() != null) {
      fail("the browser flow stopped: " + run.fatal() + " (requests answered 4xx/5xx so far: " + badSoFar.get() + ")"
          + where);
    }
    JsonObject s = run.summary();
    assertTrue(s != null, "the browser flow ended (exit " + run.exit() + ") without a summary" + where);
    assertEquals(0, run.exit(), s.encodePrettily() + where);

    // every request the page made: only the two 401s the flow provokes (a wrong token typed into the token page,
    // a revoked one in the session at the end, which brought the token page back); no 404, no 5xx, no other 4xx
    JsonArray bad = s.getJsonArray("bad");
    List<Object> unexpected = bad.stream().filter(b -> ((JsonObject) b).getInteger("status") != 401).toList();
    assertEquals(List.of(), unexpected, "requests of the page answered 4xx/5xx or failed" + where);
    assertTrue(bad.size() >= 2, "the wrong and the revoked token were refused: " + bad);
    assertTrue(s.getInteger("requests") > 100, "the page talked to the API: " + s.getInteger("requests"));

    JsonObject clusters = s.getJsonObject("clusters");
    String sno = clusters.getString("sno");
    String ha = clusters.getString("ha");
    // what the page did is what the service holds
    JsonObject snoCluster = api.get("/clusters/" + sno).json();
    assertEquals("installed", snoCluster.getString("status"), snoCluster.encode());
    assertEquals(1, snoCluster.getInteger("control_plane_count"));
    assertEquals("sno-master-0", snoCluster.getJsonArray("hosts").getJsonObject(0).getString("requested_hostname"));
    JsonObject haCluster = api.get("/clusters/" + ha).json();
    assertEquals("installed", haCluster.getString("status"), haCluster.encode());
    assertEquals("10.211.255.1", haCluster.getJsonArray("api_vips").getJsonObject(0).getString("ip"));
    assertEquals("10.211.255.2", haCluster.getJsonArray("ingress_vips").getJsonObject(0).getString("ip"));
    Map<String, Long> roles = haCluster.getJsonArray("hosts").stream().map(h -> ((JsonObject) h).getString("role"))
        .collect(java.util.stream.Collectors.groupingBy(r -> r, java.util.stream.Collectors.counting()));
    assertEquals(Map.of("master", 3L, "worker", 2L), roles, haCluster.getJsonArray("hosts").encode());

    // the kubeconfig the page downloaded is the API's
    for (String id : List.of(sno, ha)) {
      Path file = kubeconfigs.get(id);
      assertTrue(file != null && Files.exists(file), "the page downloaded the kubeconfig of " + id + where);
      assertArrayEquals(api.bytes("/clusters/" + id + "/downloads/credentials?file_name=kubeconfig"),
          Files.readAllBytes(file), "the downloaded kubeconfig of " + id);
    }
    // the ISO URL the page showed serves an ISO 9660 image
    assertEquals(2, isoUrls.size(), isoUrls.toString());
    for (String url : isoUrls) {
      HttpResponse<InputStream> iso = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
          HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = iso.body()) {
        assertEquals(200, iso.statusCode(), url);
        byte[] head = in.readNBytes(0x8006);
        assertEquals("CD001", new String(head, 0x8001, 5, StandardCharsets.US_ASCII), "an ISO 9660 image at " + url);
      }
    }
    JsonObject t = s.getJsonObject("timings");
    System.out.printf("UiBrowserTest: first load of / cold %d ms, warm %d ms; %d requests; %d screenshots in %s%n",
        t.getInteger("first_load_cold_ms"), t.getInteger("first_load_warm_ms"), s.getInteger("requests"),
        s.getInteger("screenshots"), SCREENS);
  }

  private static void deleteRecursively(Path dir) throws java.io.IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
