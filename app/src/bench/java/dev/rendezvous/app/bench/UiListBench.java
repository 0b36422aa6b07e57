package dev.rendezvous.app.bench;

import dev.rendezvous.app.AppConfig;
import dev.rendezvous.app.Rendezvous;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * The web UI's clusters list as the service's cluster count grows: the whole program on its durable defaults, a
 * baseline of {@code baseline} clusters, then {@code clusters}; at each, the browser side
 * ({@code src/test/uilib/list-bench.js}, headless Chromium with a warm cache) loads the list, pages and filters it.
 * Prints the medians of {@code rounds} rounds and the ratio of the big list to the baseline, plus the size and time
 * of the API call the list makes.
 *
 * <p>{@code mvn -q -B install -DskipTests && mvn -q -B -pl app -Pbench test-compile exec:java
 * -Dbench.main=dev.rendezvous.app.bench.UiListBench -Dexec.args="clusters=1000 baseline=10 rounds=5"}
 */
public final class UiListBench {
  private static final String PULL_SECRET = "{\"auths\":{\"quay.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}";
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>(Map.of("clusters", "1000", "baseline", "10", "rounds", "5"));
    for (String s : argv) {
      for (String kv : s.split("\\s+")) {
        if (kv.contains("=")) {
          a.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
      }
    }
    int big = Integer.parseInt(a.get("clusters"));
    int baseline = Integer.parseInt(a.get("baseline"));
    Path dir = Files.createTempDirectory("rdv-ui-bench-");
    int[] ports = dev.rendezvous.bus.LocalPorts.free(2); // API and images: two ports, never handed out twice here
    int apiPort = ports[0];
    Rendezvous system = Rendezvous.start(AppConfig.from(List.of("--data-dir=" + dir.resolve("data"),
        "--api-port=" + apiPort, "--image-port=" + ports[1]), Map.of()));
    String base = "http://127.0.0.1:" + apiPort;
    String token = Files.readString(system.adminTokenFile()).strip();
    try {
      create(base, token, 0, baseline);
      Map<String, Double> small = measure(base, token, baseline, a.get("rounds"));
      create(base, token, baseline, big);
      Map<String, Double> large = measure(base, token, big, a.get("rounds"));
      System.out.printf("%nUI clusters list, medians of %s rounds (warm browser cache)%n", a.get("rounds"));
      System.out.printf("%-26s %12s %12s %8s%n", "", baseline + " clusters", big + " clusters", "ratio");
      for (String k : small.keySet()) {
        System.out.printf("%-26s %12.0f %12.0f %8.2f%n", k, small.get(k), large.get(k),
            small.get(k) == 0 ? 0 : large.get(k) / small.get(k));
      }
    } finally {
      system.close();
    }
    System.exit(0);
  }

  private static void create(String base, String token, int from, int to) throws Exception {
    Semaphore inFlight = new Semaphore(16);
    List<CompletableFuture<?>> all = new ArrayList<>();
    for (int i = from; i < to; i++) {
      JsonObject body = new JsonObject().put("name", "bench-" + i).put("openshift_version", "4.22")
          .put("base_dns_domain", "example.com").put("pull_secret", PULL_SECRET);
      inFlight.acquire();
      all.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create(base + "/api/assisted-install/v2/clusters"))
              .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body.encode())).build(), HttpResponse.BodyHandlers.ofString())
          .whenComplete((r, e) -> inFlight.release())
          .thenAccept(r -> {
            if (r.statusCode() != 201) {
              throw new IllegalStateException("cluster registration answered " + r.statusCode() + ": " + r.body());
            }
          }));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
  }

  private static Map<String, Double> measure(String base, String token, int clusters, String rounds) throws Exception {
    long t = System.nanoTime();
    HttpResponse<String> list = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/api/assisted-install/v2/clusters"))
        .header("Authorization", "Bearer " + token).header("Accept-Encoding", "identity").build(),
        HttpResponse.BodyHandlers.ofString());
    double apiMs = (System.nanoTime() - t) / 1e6;
    JsonArray all = new JsonArray(list.body());
    if (all.size() != clusters) {
      throw new IllegalStateException("expected " + clusters + " clusters, the API lists " + all.size());
    }
    String find = all.getJsonObject(all.size() / 2).getString("id");
    Path script = Path.of("src", "test", "uilib", "list-bench.js"); // from app/, or from the checkout with -pl app
    script = Files.exists(script) ? script : Path.of("app").resolve(script);
    Process node = new ProcessBuilder("node", script.toString(),
        "--url=" + base, "--token=" + token, "--find=" + find, "--rounds=" + rounds)
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String line;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
      line = r.readLine();
    }
    node.waitFor();
    JsonObject out = new JsonObject(line == null ? "{\"fatal\":\"no output\"}" : line);
    if (out.containsKey("fatal")) {
      throw new IllegalStateException("list-bench.js: " + out.getString("fatal"));
    }
    Map<String, Double> medians = new java.util.LinkedHashMap<>();
    medians.put("api_list_ms", apiMs);
    medians.put("api_list_kib", list.body().length() / 1024.0);
    for (String k : List.of("load_ms", "longest_task_ms", "filter_ms", "next_page_ms")) {
      List<Integer> v = new ArrayList<>();
      out.getJsonArray("rounds").forEach(o -> v.add(((JsonObject) o).getInteger(k)));
      v.sort(Integer::compare);
      medians.put(k, (double) v.get(v.size() / 2));
    }
    System.out.printf("%d clusters: %s%n", clusters, out.encode());
    return medians;
  }
}
