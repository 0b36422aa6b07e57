package dev.rendezvous.agent.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.WireJson;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The steps that ask a server something: a real Tang server (Debian's tangd), the machine-config server's stand-in. */
class ServerProbeExecutorsTest {
  static final Path TANGD = Path.of("/usr/libexec/tangd");
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path dir;

  static Step step(String type, String arg) {
    return new Step(type, type + "-1", List.of(arg));
  }

  /**
   * Debian's tangd as systemd runs it (one process per connection, the socket its stdin and stdout), on a port of
   * this test's own; its keys made by tangd-keygen.
   */
  private ServerSocket tang(Path keys) throws Exception {
    Process keygen = new ProcessBuilder("/usr/libexec/tangd-keygen", keys.toString()).redirectErrorStream(true).start();
    assertEquals(0, keygen.waitFor(), new String(keygen.getInputStream().readAllBytes()));
    ServerSocket server = new ServerSocket(0, 16, java.net.InetAddress.getLoopbackAddress());
    Thread accept = new Thread(() -> {
      while (!server.isClosed()) {
        try (Socket s = server.accept()) {
          Process tangd = new ProcessBuilder(TANGD.toString(), keys.toString())
              .redirectError(ProcessBuilder.Redirect.DISCARD).start();
          // tangd answers one request and exits; an HTTP client keeps its side open, so the request is handed over
          // up to its blank line
          InputStream in = s.getInputStream();
          OutputStream toTangd = tangd.getOutputStream();
          int last4 = 0;
          for (int x; (x = in.read()) >= 0; ) {
            toTangd.write(x);
            last4 = (last4 << 8) | x;
            if (last4 == 0x0d0a0d0a) { // CR LF CR LF: the end of the request's head (a GET has no body)
              break;
            }
          }
          toTangd.close();
          s.getOutputStream().write(tangd.getInputStream().readAllBytes());
          tangd.waitFor();
        } catch (Exception e) {
          // closed, or a client that went away
        }
      }
    }, "tang-test-server");
    accept.setDaemon(true);
    accept.start();
    return server;
  }

  @Test
  void aRealTangServersAdvertisementIsReturnedAndOneDownFailsTheCheck() throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(TANGD), "Debian's tang is not installed (scripts/install-test-tools)");
    Path keys = Files.createDirectories(dir.resolve("tang"));
    try (ServerSocket server = tang(keys)) {
      // a key file is named by its thumbprint; the signing key's is the one clevis (and the agent) asks about
      String thumbprint;
      try (var files = Files.list(keys)) {
        thumbprint = files.filter(f -> {
          try {
            return Files.readString(f).contains("\"sign\"");
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }).findFirst().orElseThrow().getFileName().toString().replace(".jwk", "");
      }
      String url = "http://127.0.0.1:" + server.getLocalPort();
      TangConnectivityExecutor tang = new TangConnectivityExecutor(http, Duration.ofSeconds(5));
      String servers = WireJson.write(List.of(Map.of("url", url, "thumbprint", thumbprint)));
      StepOutcome ok = tang.execute(step("tang-connectivity-check", WireJson.write(Map.of("tang_servers", servers))));
      assertEquals(0, ok.exitCode(), ok.error());
      JsonNode r = WireJson.read(ok.output(), JsonNode.class);
      assertTrue(r.path("is_success").asBoolean(), ok.output());
      JsonNode adv = r.path("tang_server_response").path(0);
      assertEquals(url + "/adv/" + thumbprint, adv.path("tang_url").asText());
      String payload = new String(java.util.Base64.getUrlDecoder().decode(adv.path("payload").asText()), StandardCharsets.UTF_8);
      assertTrue(payload.contains("\"keys\""), "the advertisement's payload is the server's key set: " + payload);
      assertTrue(adv.path("signatures").path(0).path("signature").isTextual(), adv.toString());

      // a wrong thumbprint (tangd: 404), a server that is not there, no thumbprint: the check fails, saying why
      int closed;
      try (ServerSocket s = new ServerSocket(0)) {
        closed = s.getLocalPort();
      }
      String three = WireJson.write(List.of(Map.of("url", url, "thumbprint", "not" + thumbprint),
          Map.of("url", "http://127.0.0.1:" + closed, "thumbprint", thumbprint), Map.of("url", url)));
      StepOutcome down = tang.execute(step("tang-connectivity-check", WireJson.write(Map.of("tang_servers", three))));
      assertEquals("{\"is_success\":false}", down.output());
      assertEquals(-1, down.exitCode());
      assertTrue(down.error().contains("Status Code: 404"), down.error());
      assertTrue(down.error().contains("127.0.0.1:" + closed), down.error());
      assertTrue(down.error().contains("Tang thumbprint isn't set for server: " + url), down.error());
    }
  }

  @Test
  void theWorkerIgnitionIsFetchedAsANodeWouldAndAFailureSaysWhy() throws Exception {
    Map<String, String> seen = new ConcurrentHashMap<>();
    HttpServer mcs = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4);
    mcs.createContext("/config/worker", ex -> {
      seen.put("accept", String.valueOf(ex.getRequestHeaders().getFirst("Accept")));
      seen.put("authorization", String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
      seen.put("x-extra", String.valueOf(ex.getRequestHeaders().getFirst("X-Extra")));
      byte[] body = "{\"ignition\":{\"version\":\"3.2.0\"}}".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    mcs.createContext("/config/nothing", ex -> {
      byte[] body = "<html>hello</html>".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    mcs.start();
    try {
      String base = "http://127.0.0.1:" + mcs.getAddress().getPort();
      ApiVipConnectivityExecutor check = new ApiVipConnectivityExecutor(http, Duration.ofSeconds(5));
      StepOutcome ok = check.execute(step("api-vip-connectivity-check", WireJson.write(Map.of("url", base + "/config/worker",
          "ignition_endpoint_token", "secret-token", "request_headers", List.of(Map.of("key", "X-Extra", "value", "1"))))));
      JsonNode r = WireJson.read(ok.output(), JsonNode.class);
      assertTrue(r.path("is_success").asBoolean(), ok.output());
      assertTrue(r.path("ignition").asText().contains("3.2.0"), ok.output());
      assertTrue(seen.get("accept").startsWith("application/vnd.coreos.ignition+json"), seen.toString());
      assertEquals("Bearer secret-token", seen.get("authorization"));
      assertEquals("1", seen.get("x-extra"));
      for (String path : List.of("/config/nothing", "/config/master")) {
        JsonNode bad = WireJson.read(check.execute(step("api-vip-connectivity-check",
            WireJson.write(Map.of("url", base + path)))).output(), JsonNode.class);
        assertFalse(bad.path("is_success").asBoolean(), bad.toString());
        assertTrue(bad.path("download_error").asText().contains(path), bad.toString());
      }
    } finally {
      mcs.stop(0);
    }
  }
}
