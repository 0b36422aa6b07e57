package dev.rendezvous.app;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Debian's Chromium, headless, driven over the DevTools protocol (the JDK's own websocket client): open a page,
 * evaluate script in it, take a screenshot. Started with the flags this machine needs (no sandbox as root, no
 * background networking: the network is closed).
 */
final class HeadlessChromium implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private final Process process;
  private final WebSocket ws;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonObject>> pending = new ConcurrentHashMap<>();

  HeadlessChromium(String url, Path profile) throws Exception {
    int port = TestSystem.freePort();
    process = new ProcessBuilder("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=" + port,
        "--window-size=1280,1600", url)
        .redirectErrorStream(true).redirectOutput(profile.resolveSibling("chromium.log").toFile()).start();
    String wsUrl = Await.until("chromium's DevTools endpoint", Duration.ofSeconds(30), () -> {
      try {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        for (Object o : new JsonArray(r.body())) {
          JsonObject t = (JsonObject) o;
          if ("page".equals(t.getString("type"))) {
            return t.getString("webSocketDebuggerUrl");
          }
        }
      } catch (Exception notYet) {
        // not listening yet
      }
      return null;
    });
    ws = HTTP.newWebSocketBuilder().buildAsync(URI.create(wsUrl), new WebSocket.Listener() {
      private final StringBuilder text = new StringBuilder();

      @Override
      public java.util.concurrent.CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
        text.append(data);
        if (last) {
          JsonObject m = new JsonObject(text.toString());
          text.setLength(0);
          CompletableFuture<JsonObject> f = m.containsKey("id") ? pending.remove(m.getInteger("id")) : null;
          if (f != null) {
            f.complete(m);
          }
        }
        socket.request(1);
        return null;
      }
    }).get(10, TimeUnit.SECONDS);
  }

  JsonObject call(String method, JsonObject params) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonObject> f = new CompletableFuture<>();
    pending.put(id, f);
    ws.sendText(new JsonObject().put("id", id).put("method", method).put("params", params).encode(), true)
        .get(10, TimeUnit.SECONDS);
    JsonObject reply = f.get(30, TimeUnit.SECONDS);
    if (reply.containsKey("error")) {
      throw new IllegalStateException(method + ": " + reply.getJsonObject("error"));
    }
    return reply.getJsonObject("result");
  }

  /** A script's value (JSON-serialisable) in the page. */
  Object eval(String expression) throws Exception {
    JsonObject r = call("Runtime.evaluate", new JsonObject().put("expression", expression).put("returnByValue", true));
    return r.getJsonObject("result").getValue("value");
  }

  void screenshot(Path file) throws Exception {
    JsonObject r = call("Page.captureScreenshot", new JsonObject().put("format", "png"));
    Files.write(file, Base64.getDecoder().decode(r.getString("data")));
  }

  @Override
  public void close() {
    try {
      ws.abort();
    } finally {
      process.destroy();
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
