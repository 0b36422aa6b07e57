package dev.rendezvous.app.bench;

import dev.rendezvous.app.AppConfig;
import dev.rendezvous.app.Rendezvous;
import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.brain.WorkKey;
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
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fleet as a user drives it: the whole system ({@code ./rendezvous run}'s code, embedded PostgreSQL and Kafka)
 * in this JVM, clients on upstream's agent API over HTTP. Hosts register, then each posts a realistic inventory
 * reply (a captured ~6 KB inventory with its own name and address); the bench measures what the agent is told (the
 * 204) and what the user gets: the time from each host's 204 to the brain's commit of that host's new state, and
 * the rate at which replies become state. Baseline in the same run: the same clients on {@code GET /health}.
 *
 * <p>{@code mvn -q -B -pl app -Pbench test-compile exec:java -Dexec.args="clusters=10 hosts=100 clients=16"}
 * <p>{@code rounds=N}: N closed-loop rounds of new inventories (the sustained rate), then, below saturation, an open
 * loop at half that rate ({@code paced=auto}, at most 1,000/s; {@code paced=R} replies per second, {@code paced=0}
 * none) for {@code paced_seconds=10}. {@code warmup=N}: N closed-loop rounds before the sustained ones, not counted:
 * a fresh JVM spends its first minutes compiling (the C2 threads took a third of the CPU in the first registration
 * runs), which the short phases otherwise measure.
 * <p>{@code http=2} (the default, as the figures so far): Java's client upgrades plain HTTP to HTTP/2 and sends every
 * request over one connection, at most ~100 at once (the server's stream limit: more clients fail); {@code http=1.1}: a
 * connection per client thread, as a fleet's agents each hold their own.
 */
public final class FleetBench {
  private static HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  /** The first failed request's cause, printed once: a failure count alone does not say what went wrong. */
  private static final java.util.concurrent.atomic.AtomicBoolean FAILURE_SHOWN = new java.util.concurrent.atomic.AtomicBoolean();

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>(Map.of("clusters", "10", "hosts", "100", "clients", "16", "rounds", "0",
        "paced", "auto", "paced_seconds", "10", "warmup", "0", "http", "2"));
    for (String s : argv) {
      for (String kv : s.split("\\s+")) {
        if (kv.contains("=")) {
          a.put(kv.substring(0, kv.indexOf('=')).replaceFirst("^--", ""), kv.substring(kv.indexOf('=') + 1));
        }
      }
    }
    int clusters = Integer.parseInt(a.get("clusters"));
    int perCluster = Integer.parseInt(a.get("hosts"));
    int clients = Integer.parseInt(a.get("clients"));
    int rounds = Integer.parseInt(a.get("rounds"));
    int pacedSeconds = Integer.parseInt(a.get("paced_seconds"));
    int warmup = rounds <= 0 ? 0 : Math.max(0, Integer.parseInt(a.get("warmup")));
    if (a.get("http").equals("1.1")) {
      HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    } else if (!a.get("http").equals("2")) {
      throw new IllegalArgumentException("http: 1.1 or 2, not " + a.get("http"));
    }
    Path dir = Files.createTempDirectory("rdv-fleet-bench");
    int[] ports = dev.rendezvous.bus.LocalPorts.free(2); // API and images: two ports, never handed out twice here
    int port = ports[0];
    List<String> flags = new ArrayList<>(List.of("--data-dir=" + dir, "--api-port=" + port, "--image-port=" + ports[1],
        "--auth=none"));
    a.forEach((k, v) -> {
      if (!List.of("clusters", "hosts", "clients", "rounds", "paced", "paced_seconds", "warmup", "http").contains(k)) {
        flags.add("--" + k + "=" + v);
      }
    });
    System.out.printf("fleet bench: %d clusters x %d hosts, %d HTTP/%s clients, %d cores, flags %s%n", clusters,
        perCluster, clients, a.get("http"), Runtime.getRuntime().availableProcessors(), flags.subList(4, flags.size()));
    try (Rendezvous system = Rendezvous.start(AppConfig.from(flags, Map.of()))) {
      String base = "http://127.0.0.1:" + port + "/api/assisted-install/v2";
      List<Host> hosts = new ArrayList<>();
      for (int c = 0; c < clusters; c++) {
        JsonObject cluster = json(send(post(base + "/clusters", null, new JsonObject().put("name", "bench" + c)
            .put("openshift_version", "4.18").put("base_dns_domain", "example.com")
            .put("pull_secret", "{\"auths\":{\"quay.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}").encode())), 201);
        String cid = cluster.getString("id");
        json(send(patch(base + "/clusters/" + cid, new JsonObject()
            .put("machine_networks", new JsonArray().add(new JsonObject().put("cidr", "10." + c + ".0.0/16")))
            .put("api_vips", new JsonArray().add(new JsonObject().put("ip", "10." + c + ".255.250")))
            .put("ingress_vips", new JsonArray().add(new JsonObject().put("ip", "10." + c + ".255.251"))).encode())), 201);
        String ie = json(send(post(base + "/infra-envs", null, new JsonObject().put("name", "bench-ie" + c)
            .put("cluster_id", cid).put("pull_secret", "{\"auths\":{\"quay.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}").encode())), 201)
            .getString("id");
        String token = system.agentToken(ie, cid);
        for (int i = 0; i < perCluster; i++) {
          hosts.add(new Host(cid, ie, UUID.randomUUID().toString(), c, i, token));
        }
      }
      long heapBefore = heapAfterGc();
      Brain brain = system.brain();
      Written written = new Written();
      brain.listener(written);
      double health = phase("baseline: GET /health", hosts, clients, h -> HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + port + "/health")).GET().build(), null).accepted;
      Result reg = phase("registrations (POST .../hosts)", hosts, clients, h -> post(base + "/infra-envs/" + h.infraEnv + "/hosts",
          h.token, new JsonObject().put("host_id", h.id).put("discovery_agent_version", "fleet-bench").encode()), written);
      // every reply body made before the phases (per host and round), so the load generator's JSON work does not
      // share the cores with the system under test while it is measured
      String template = template();
      Map<String, List<String>> bodies = new HashMap<>();
      // the paced phase's replies: at most the sustained rate for paced_seconds, spread over every host
      int pacedRounds = a.get("paced").equals("0") || (a.get("paced").equals("auto") && rounds <= 0) ? 0
          : (int) Math.ceil(pacedCeiling(a.get("paced")) * pacedSeconds / (double) hosts.size()) + 1;
      for (Host h : hosts) {
        List<String> perRound = new ArrayList<>();
        for (int r = 0; r <= warmup + Math.max(0, rounds) + pacedRounds; r++) {
          h.round.set(r);
          perRound.add(new JsonObject().put("step_id", "inventory-" + h.n).put("step_type", "inventory").put("exit_code", 0)
              .put("output", inventory(template, h)).put("error", "").encode());
        }
        h.round.set(0);
        bodies.put(h.id, perRound);
      }
      double evaluations0 = brain.hostEvaluations();
      Result inv = phase("inventory replies (POST .../instructions)", hosts, clients, h -> post(base + "/infra-envs/"
          + h.infraEnv + "/hosts/" + h.id + "/instructions", h.token, bodies.get(h.id).get(0)), written);
      Thread.sleep(3000); // the debounced passes the burst asked for
      double evaluations1 = brain.hostEvaluations();
      // round r's reply reports a little less usable memory than round r-1's: each is new state for its host
      if (warmup > 0) {
        sustained("warm-up, not counted", hosts, clients, warmup, written, h -> post(base + "/infra-envs/" + h.infraEnv
            + "/hosts/" + h.id + "/instructions", h.token, bodies.get(h.id).get((int) h.round.get() + 1)));
      }
      Result sustained = rounds <= 0 ? null : sustained("sustained inventories", hosts, clients, rounds, written,
          h -> post(base + "/infra-envs/" + h.infraEnv + "/hosts/" + h.id + "/instructions", h.token,
              bodies.get(h.id).get(warmup + (int) h.round.get() + 1)));
      Thread.sleep(3000); // the debounced full refreshes and the monitor settle
      double evaluations2 = brain.hostEvaluations();
      // below saturation: an open loop at half the sustained rate (or the rate asked for), each reply new state
      double pacedRate = pacedRounds == 0 ? 0 : a.get("paced").equals("auto")
          ? Math.min(sustained.processed / 2, PACED_AUTO_MAX) : Double.parseDouble(a.get("paced"));
      Result paced = pacedRate <= 0 ? null : paced(hosts, clients, pacedRate, pacedSeconds, written, h -> post(base
          + "/infra-envs/" + h.infraEnv + "/hosts/" + h.id + "/instructions", h.token,
          bodies.get(h.id).get(warmup + Math.max(0, rounds) + 1 + (int) h.round.getAndIncrement() % pacedRounds)));
      Thread.sleep(3000);
      long heapAfter = heapAfterGc();
      System.out.printf("%nheap after GC: %,d KiB before the hosts, %,d KiB with them: %,.1f KiB per host (all of the"
          + " process: brain cache, gateway mailboxes, push marks)%n", heapBefore / 1024, heapAfter / 1024,
          (heapAfter - heapBefore) / 1024.0 / hosts.size());
      System.out.printf("%nsummary (%d hosts in clusters of %d):%n", hosts.size(), perCluster);
      System.out.printf("  registrations: %,.0f/s answered, %,.0f/s became rows; p50 %s p99 %s to the row%n", reg.accepted,
          reg.processed, ms(reg.p50), ms(reg.p99));
      System.out.printf("  inventories:   %,.0f/s answered 204, %,.0f/s became state; p50 %s p99 %s from 204 to state%n",
          inv.accepted, inv.processed, ms(inv.p50), ms(inv.p99));
      System.out.printf("  ratios: processed/answered %.2f; answered/health %.2f; processed/health %.2f%n",
          inv.processed / inv.accepted, inv.accepted / health, inv.processed / health);
      System.out.printf("  host evaluations (validations + state machine) per inventory: %.1f first inventories%s%n",
          (evaluations1 - evaluations0) / hosts.size(), rounds <= 0 ? "" : String.format(", %.1f sustained (with the"
              + " monitor's passes)", (evaluations2 - evaluations1) / ((double) hosts.size() * (warmup + rounds))));
      if (sustained != null) {
        System.out.printf("  sustained:     %,.0f/s became state (%d rounds after %d of warm-up, each host's next inventory"
            + " once its last was state); p50 %s p99 %s from 204 to state; processed/health %.2f%n", sustained.processed,
            rounds, warmup,
            ms(sustained.p50), ms(sustained.p99), sustained.processed / health);
      }
      if (paced != null) {
        System.out.printf("  paced:         %,.0f/s asked (%.0f%% of the sustained rate), %,.0f/s answered, %,.0f/s became"
            + " state; p50 %s p99 %s from 204 to state%n", pacedRate, sustained == null ? 0 : 100 * pacedRate
            / sustained.processed, paced.accepted, paced.processed, ms(paced.p50), ms(paced.p99));
      }
    }
  }

  /** The auto pace's ceiling (bodies are made for it before the sustained rate is known). */
  private static final double PACED_AUTO_MAX = 1000;

  private static double pacedCeiling(String paced) {
    return paced.equals("auto") ? PACED_AUTO_MAX : Double.parseDouble(paced);
  }

  record Host(String cluster, String infraEnv, String id, int c, int n, String token, AtomicLong round) {
    Host(String cluster, String infraEnv, String id, int c, int n, String token) {
      this(cluster, infraEnv, id, c, n, token, new AtomicLong());
    }
  }

  record Result(double accepted, double processed, long p50, long p99) {}

  /**
   * When the brain first wrote each expected host's row in a phase (nanoTime). The write may come before the client
   * has read its answer: latencies are from the answer, and an earlier write counts as zero.
   */
  static final class Written implements Brain.Listener {
    final Map<String, Long> expected = new ConcurrentHashMap<>();
    final Map<String, Long> answeredAt = new ConcurrentHashMap<>();
    final Map<String, Long> writtenAt = new ConcurrentHashMap<>();
    volatile Brain.Listener delegate;

    void expect(List<Host> hosts) {
      answeredAt.clear();
      writtenAt.clear();
      hosts.forEach(h -> expected.put(h.id, 0L));
    }

    @Override
    public void committed(WorkKey key, String eventId, int hostsWritten, int stepsPushed) {
    }

    @Override
    public void hostsWritten(WorkKey key, Collection<UUID> hosts) {
      Brain.Listener d = delegate;
      if (d != null) {
        d.hostsWritten(key, hosts);
        return;
      }
      long now = System.nanoTime();
      for (UUID h : hosts) {
        if (expected.remove(h.toString()) != null) {
          writtenAt.put(h.toString(), now);
        }
      }
    }
  }

  interface Request {
    HttpRequest of(Host h);
  }

  static Result phase(String name, List<Host> hosts, int clients, Request request, Written written) throws Exception {
    ConcurrentLinkedQueue<Host> todo = new ConcurrentLinkedQueue<>(hosts);
    AtomicLong failed = new AtomicLong();
    if (written != null) {
      written.expect(hosts);
    }
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long t0 = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      pool.submit(() -> {
        Host h;
        while ((h = todo.poll()) != null) {
          try {
            HttpResponse<String> r = HTTP.send(request.of(h), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
              failed.incrementAndGet();
              System.err.println(name + ": " + r.statusCode() + " " + r.body());
            } else if (written != null) {
              written.answeredAt.put(h.id, System.nanoTime());
            }
          } catch (Exception e) {
            failed.incrementAndGet();
            showFailure(name, e);
          }
        }
        return null;
      });
    }
    pool.shutdown();
    pool.awaitTermination(30, TimeUnit.MINUTES);
    long answered = System.nanoTime();
    double accepted = hosts.size() / ((answered - t0) / 1e9);
    if (written == null) {
      System.out.printf("%n%s: %,d requests in %.2f s = %,.0f/s (%d failed)%n", name, hosts.size(), (answered - t0) / 1e9,
          accepted, failed.get());
      return new Result(accepted, 0, 0, 0);
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(15);
    long slow = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    boolean told = false;
    while (written.writtenAt.size() < hosts.size() - failed.get() && System.nanoTime() < deadline) {
      Thread.sleep(20);
      if (!told && System.nanoTime() > slow) {
        told = true;
        System.out.printf("  after 10 s, %d of %d still not state; e.g. %s%n", hosts.size() - written.writtenAt.size(),
            hosts.size(), written.expected.keySet().stream().limit(3).toList());
      }
    }
    long[] lat = written.writtenAt.entrySet().stream().filter(e -> written.answeredAt.containsKey(e.getKey()))
        .mapToLong(e -> Math.max(0, e.getValue() - written.answeredAt.get(e.getKey()))).sorted().toArray();
    long last = written.writtenAt.values().stream().mapToLong(x -> x).max().orElse(answered);
    double processed = written.writtenAt.size() / ((last - t0) / 1e9);
    long p50 = lat.length == 0 ? 0 : lat[lat.length / 2];
    long p99 = lat.length == 0 ? 0 : lat[Math.min(lat.length - 1, (int) (lat.length * 0.99))];
    System.out.printf("%n%s: %,d answered in %.2f s = %,.0f/s (%d failed); %,d became state by %.2f s = %,.0f/s;"
        + " from answer to state p50 %s p99 %s max %s%n", name, hosts.size(), (answered - t0) / 1e9, accepted, failed.get(),
        written.writtenAt.size(), (last - t0) / 1e9, processed, ms(p50), ms(p99), ms(lat.length == 0 ? 0 : lat[lat.length - 1]));
    return new Result(accepted, processed, p50, p99);
  }

  /**
   * Closed loop, like agents: each host posts its next inventory once the brain wrote its last one as state, for
   * {@code rounds} rounds; the clients always have hosts to serve, so this is the brain's sustained rate.
   */
  static Result sustained(String label, List<Host> hosts, int clients, int rounds, Written written, Request request)
      throws Exception {
    java.util.concurrent.LinkedBlockingQueue<Host> ready = new java.util.concurrent.LinkedBlockingQueue<>(hosts);
    Map<String, Host> byId = new HashMap<>();
    hosts.forEach(h -> byId.put(h.id, h));
    long total = (long) hosts.size() * rounds;
    Latencies lat = new Latencies(id -> {
      Host h = byId.get(id);
      if (h.round.incrementAndGet() < rounds) {
        ready.add(h);
      }
    });
    written.delegate = lat;
    hosts.forEach(h -> h.round.set(0));
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long t0 = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      pool.submit(() -> {
        while (lat.done.get() + lat.failed.get() < total) {
          Host h = ready.poll(100, TimeUnit.MILLISECONDS);
          if (h != null) {
            lat.send(h, request);
          }
        }
        return null;
      });
    }
    pool.shutdown();
    pool.awaitTermination(30, TimeUnit.MINUTES);
    written.delegate = null;
    double secs = (System.nanoTime() - t0) / 1e9;
    long[] q = lat.quantiles();
    System.out.printf("%n%s (%d rounds): %,d became state in %.2f s = %,.0f/s (%d failed); from answer"
        + " to state p50 %s p99 %s max %s%n", label, rounds, lat.done.get(), secs, lat.done.get() / secs, lat.failed.get(),
        ms(q[0]), ms(q[1]), ms(q[2]));
    return new Result(lat.done.get() / secs, lat.done.get() / secs, q[0], q[1]);
  }

  /**
   * From each reply's answer to the brain's next write of its host: the listener of the sustained and paced phases.
   * A write may come before the answer; it then counts as zero.
   */
  static final class Latencies implements Brain.Listener {
    final Map<String, Long> answered = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
    final AtomicLong done = new AtomicLong();
    final AtomicLong answers = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    private final java.util.function.Consumer<String> onState;

    Latencies(java.util.function.Consumer<String> onState) {
      this.onState = onState;
    }

    @Override
    public void committed(WorkKey key, String eventId, int hostsWritten, int stepsPushed) {
    }

    @Override
    public void hostsWritten(WorkKey key, Collection<UUID> ids) {
      long now = System.nanoTime();
      for (UUID id : ids) {
        Long t = answered.remove(id.toString());
        if (t != null) {
          lat.add(Math.max(0, now - t));
          done.incrementAndGet();
          onState.accept(id.toString());
        }
      }
    }

    /** Sends the host's next reply, marked before the answer (the write may come first), then again at the answer. */
    void send(Host h, Request request) {
      try {
        answered.put(h.id, System.nanoTime());
        HttpResponse<String> r = HTTP.send(request.of(h), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
          answered.remove(h.id);
          failed.incrementAndGet();
        } else {
          answered.computeIfPresent(h.id, (k, v) -> System.nanoTime());
          answers.incrementAndGet();
        }
      } catch (Exception e) {
        answered.remove(h.id);
        failed.incrementAndGet();
        showFailure("reply", e);
      }
    }

    /** p50, p99 and max. */
    long[] quantiles() {
      long[] l = lat.stream().mapToLong(x -> x).sorted().toArray();
      if (l.length == 0) {
        return new long[3];
      }
      return new long[] {l[l.length / 2], l[Math.min(l.length - 1, (int) (l.length * 0.99))], l[l.length - 1]};
    }
  }

  /**
   * Open loop below saturation: replies go out at {@code rate} per second for {@code seconds}, host after host, whatever
   * the brain's progress (as a fleet's agents do), each new state for its host; latency from each 204 to the brain's
   * next write of that host. The target: p99 ≤ 200 ms below saturation.
   */
  static Result paced(List<Host> hosts, int clients, double rate, int seconds, Written written, Request request)
      throws Exception {
    Latencies lat = new Latencies(id -> {});
    written.delegate = lat;
    hosts.forEach(h -> h.round.set(0));
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long total = Math.round(rate * seconds);
    long t0 = System.nanoTime();
    for (long i = 0; i < total; i++) {
      long wait = t0 + (long) (i * 1e9 / rate) - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      Host h = hosts.get((int) (i % hosts.size()));
      pool.submit(() -> lat.send(h, request));
    }
    pool.shutdown();
    pool.awaitTermination(30, TimeUnit.MINUTES);
    double sent = (System.nanoTime() - t0) / 1e9;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!lat.answered.isEmpty() && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    written.delegate = null;
    double secs = (System.nanoTime() - t0) / 1e9;
    long[] q = lat.quantiles();
    System.out.printf("%npaced inventories (%,.0f/s for %d s): %,d answered in %.2f s (%d failed), %,d became state in"
        + " %.2f s; from answer to state p50 %s p99 %s max %s%n", rate, seconds, lat.answers.get(), sent, lat.failed.get(),
        lat.done.get(), secs, ms(q[0]), ms(q[1]), ms(q[2]));
    return new Result(lat.answers.get() / sent, lat.done.get() / secs, q[0], q[1]);
  }

  static void showFailure(String what, Exception e) {
    if (FAILURE_SHOWN.compareAndSet(false, true)) {
      System.err.println(what + ": first failed request: " + e);
    }
  }

  static long heapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  static String template() throws Exception {
    try (InputStream in = FleetBench.class.getResourceAsStream("/agent/inventory-master-0.json")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The captured inventory with the host's own name, MAC and address (10.c.x.y/16). */
  static String inventory(String template, Host h) {
    JsonObject inv = new JsonObject(template);
    inv.put("hostname", "c" + h.c + "-h" + h.n);
    // each round reports a little less usable memory, so each round's reply is new state
    JsonObject memory = inv.getJsonObject("memory");
    memory.put("usable_bytes", memory.getLong("usable_bytes") - h.round.get() * 4096);
    JsonArray nics = inv.getJsonArray("interfaces");
    String ip = "10." + h.c + "." + (h.n / 250) + "." + (h.n % 250 + 2);
    nics.getJsonObject(0).put("ipv4_addresses", new JsonArray().add(ip + "/16")).put("ipv6_addresses", new JsonArray())
        .put("mac_address", String.format("02:%02x:%02x:%02x:%02x:%02x", h.c & 0xff, (h.n >> 8) & 0xff, h.n & 0xff, 1, 2));
    if (nics.size() > 1) {
      nics.remove(1);
    }
    return inv.encode();
  }

  static HttpRequest post(String url, String token, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("X-Secret-Key", token);
    }
    return b.build();
  }

  static HttpRequest patch(String url, String body) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString(body)).build();
  }

  static HttpResponse<String> send(HttpRequest r) throws Exception {
    return HTTP.send(r, HttpResponse.BodyHandlers.ofString());
  }

  static JsonObject json(HttpResponse<String> r, int expected) {
    if (r.statusCode() != expected) {
      throw new IllegalStateException(r.uri() + " answered " + r.statusCode() + ": " + r.body());
    }
    return new JsonObject(r.body());
  }

  static String ms(long nanos) {
    return String.format("%,.0f ms", nanos / 1e6);
  }
}
