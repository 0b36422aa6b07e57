package dev.rendezvous.image;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.PoolOptions;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Streams a 1 GiB CoreOS-like ISO over loopback: the patched discovery ISO (Ignition overlay,
 * kargs) against plain {@code sendFile} of the same file by the same Vert.x instance, then 100
 * concurrent patched downloads, sampling heap and direct memory.
 *
 * <p>Run: {@code mvn -B -o -q -pl image -am install -DskipTests && mvn -B -o -q -pl image -Pbench test-compile exec:java}
 * (system properties: {@code -Dbench.sizeMiB=1024 -Dbench.concurrent=100 -Dbench.rounds=3}).
 */
public final class IsoStreamingBenchmark {

  static final String ID = "3f4a1c2e-8b9d-4e5f-a6b7-c8d9e0f1a2b3";

  public static void main(String[] args) throws Exception {
    int sizeMiB = Integer.getInteger("bench.sizeMiB", 1024);
    int concurrent = Integer.getInteger("bench.concurrent", 100);
    int rounds = Integer.getInteger("bench.rounds", 3);
    Path dir = Files.createTempDirectory("rdv-iso-bench");
    Vertx vertx = Vertx.vertx();
    Vertx clientVertx = Vertx.vertx();
    try {
      long t0 = System.nanoTime();
      // proportions of a real RHCOS live ISO: the rootfs ~90 %, kernel and initrd most of the rest
      int initrd = sizeMiB * 1024 * 1024 / 10;
      Path iso = TestIsos.buildCoreosLike(dir, new TestIsos.Spec("rhcos-9.6.20250523-0",
          sizeMiB * 1024 * 1024 - initrd - 2 * 1024 * 1024, true, true, false, "ignition.img", initrd));
      deleteTree(dir.resolve("tree-rhcos-9.6.20250523-0"));
      long size = Files.size(iso);
      System.out.printf("base ISO: %,d bytes, built in %.1f s%n", size, (System.nanoTime() - t0) / 1e9);

      BaseImageFile file = BaseImageFile.open(iso);
      t0 = System.nanoTime();
      Path minimalIso = dir.resolve("minimal.iso");
      MinimalIsoBuilder.build(iso, minimalIso, "http://127.0.0.1/boot-artifacts/rootfs?arch=x86_64&version=416.94.1");
      long minimalSize = Files.size(minimalIso);
      System.out.printf("minimal ISO template (Java ISO writer): %,d bytes, written in %.2f s%n", minimalSize,
          (System.nanoTime() - t0) / 1e9);
      BaseImageCatalog catalog = new BaseImageCatalog(List.of(new BaseImage(
          new OsImage("4.16", "x86_64", iso.toString(), "416.94.1", null), file,
          Optional.of(BaseImageFile.open(minimalIso)))));
      byte[] ignition = ("{\"ignition\":{\"version\":\"3.1.0\"},\"storage\":{\"files\":[{\"path\":\"/etc/x\","
          + "\"contents\":{\"source\":\"data:,"
          + "x".repeat(20_000) + "\"}}]}}").getBytes(StandardCharsets.UTF_8);
      InfraEnvImage img = new InfraEnvImage(ID, ignition, "4.16", "x86_64", ImageType.FULL_ISO,
          List.of("rd.debug", "foo=bar"), Instant.now(), null);
      ImageServer server = new ImageServer(new ImageConfig("127.0.0.1", 0, dir, List.of(), "http://127.0.0.1"),
          (id, cred, type) -> Future.succeededFuture(Optional.of(img)), catalog);
      vertx.deployVerticle(server).await(30, TimeUnit.SECONDS);
      HttpServer plain = vertx.createHttpServer()
          .requestHandler(req -> req.response().sendFile(iso.toString()))
          .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
      String patchedPath = "/images/" + ID + "?type=full-iso&version=4.16&arch=x86_64";
      HttpClient client = clientVertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1")
          .setReceiveBufferSize(1 << 20), new PoolOptions().setHttp1MaxSize(concurrent + 10));

      // warm-up
      download(client, server.actualPort(), patchedPath, size);
      download(client, plain.actualPort(), "/", size);

      double bestPatched = 0;
      double bestPlain = 0;
      for (int r = 0; r < rounds; r++) {
        double p = gibPerSec(size, download(client, server.actualPort(), patchedPath, size));
        double b = gibPerSec(size, download(client, plain.actualPort(), "/", size));
        System.out.printf("round %d: patched %.2f GiB/s, plain sendFile %.2f GiB/s%n", r + 1, p, b);
        bestPatched = Math.max(bestPatched, p);
        bestPlain = Math.max(bestPlain, b);
      }
      System.out.printf("single download, best of %d: patched %.2f GiB/s, plain %.2f GiB/s, ratio %.3f%n",
          rounds, bestPatched, bestPlain, bestPatched / bestPlain);

      // the minimal ISO: the same streaming, a smaller template (ten downloads one after the other per round)
      String minimalPath = "/images/" + ID + "?type=minimal-iso&version=4.16&arch=x86_64";
      HttpServer plainMinimal = vertx.createHttpServer()
          .requestHandler(req -> req.response().sendFile(minimalIso.toString()))
          .listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
      download(client, server.actualPort(), minimalPath, minimalSize);
      double bestMinimal = 0;
      double bestMinimalPlain = 0;
      for (int r = 0; r < rounds; r++) {
        long p = 0;
        long b = 0;
        for (int i = 0; i < 10; i++) {
          p += download(client, server.actualPort(), minimalPath, minimalSize);
          b += download(client, plainMinimal.actualPort(), "/", minimalSize);
        }
        System.out.printf("round %d: minimal patched %.2f GiB/s, plain sendFile %.2f GiB/s%n", r + 1,
            gibPerSec(10 * minimalSize, p), gibPerSec(10 * minimalSize, b));
        bestMinimal = Math.max(bestMinimal, gibPerSec(10 * minimalSize, p));
        bestMinimalPlain = Math.max(bestMinimalPlain, gibPerSec(10 * minimalSize, b));
      }
      System.out.printf("minimal ISO, best of %d: patched %.2f GiB/s, plain %.2f GiB/s, ratio %.3f;"
          + " against the full ISO's patched stream %.3f%n", rounds, bestMinimal, bestMinimalPlain,
          bestMinimal / bestMinimalPlain, bestMinimal / bestPatched);

      for (String[] kind : new String[][] {{"patched", patchedPath, Integer.toString(server.actualPort())},
          {"plain", "/", Integer.toString(plain.actualPort())}}) {
        System.gc();
        long heapBefore = usedHeap();
        MemorySampler sampler = new MemorySampler();
        sampler.start();
        long start = System.nanoTime();
        List<Future<Long>> all = new ArrayList<>();
        for (int i = 0; i < concurrent; i++) {
          all.add(downloadAsync(client, Integer.parseInt(kind[2]), kind[1], size));
        }
        Future.all(all).await(30, TimeUnit.MINUTES);
        double secs = (System.nanoTime() - start) / 1e9;
        sampler.stop = true;
        sampler.join();
        System.out.printf("%d concurrent %s downloads: %.1f GiB in %.1f s = %.2f GiB/s aggregate; heap before %d MiB,"
            + " peak used %d MiB, peak live after GC %d MiB, peak direct %d MiB%n", concurrent, kind[0],
            concurrent * size / GIB, secs, concurrent * size / GIB / secs, heapBefore >> 20, sampler.peakHeap >> 20,
            sampler.peakLive >> 20, sampler.peakDirect >> 20);
      }
      System.out.println("note: client and server share this JVM and the machine's cores; heap figures include both");
    } finally {
      clientVertx.close().await(30, TimeUnit.SECONDS);
      vertx.close().await(30, TimeUnit.SECONDS);
      deleteTree(dir);
    }
  }

  static final double GIB = 1024.0 * 1024 * 1024;

  static double gibPerSec(long bytes, long nanos) {
    return bytes / GIB / (nanos / 1e9);
  }

  static long download(HttpClient client, int port, String path, long expected) throws Exception {
    long start = System.nanoTime();
    downloadAsync(client, port, path, expected).await(10, TimeUnit.MINUTES);
    return System.nanoTime() - start;
  }

  static Future<Long> downloadAsync(HttpClient client, int port, String path, long expected) {
    AtomicLong n = new AtomicLong();
    return client.request(HttpMethod.GET, port, "127.0.0.1", path)
        .compose(req -> req.send())
        .compose(resp -> {
          resp.handler(b -> n.addAndGet(b.length()));
          return resp.end();
        })
        .map(v -> {
          if (n.get() != expected) {
            throw new IllegalStateException("got " + n.get() + " bytes, expected " + expected);
          }
          return n.get();
        });
  }

  static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  static final class MemorySampler extends Thread {
    volatile boolean stop;
    long peakHeap;
    long peakLive;
    long peakDirect;

    MemorySampler() {
      setDaemon(true);
    }

    @Override
    public void run() {
      BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
          .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
      while (!stop) {
        peakHeap = Math.max(peakHeap, usedHeap());
        // live data: what the heap pools held right after their last collection
        long live = 0;
        for (var pool : ManagementFactory.getMemoryPoolMXBeans()) {
          if (pool.getType() == java.lang.management.MemoryType.HEAP && pool.getCollectionUsage() != null) {
            live += pool.getCollectionUsage().getUsed();
          }
        }
        peakLive = Math.max(peakLive, live);
        peakDirect = Math.max(peakDirect, direct.getMemoryUsed() + io.netty.util.internal.PlatformDependent.usedDirectMemory());
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  static void deleteTree(Path p) throws java.io.IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (var s = Files.walk(p)) {
      for (Path x : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(x);
      }
    }
  }
}
