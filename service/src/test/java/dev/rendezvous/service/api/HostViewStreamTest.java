package dev.rendezvous.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.ClusterRepository.UnparsedRow;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.HostRepository.Documents;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Views holding hosts streamed a page at a time (a cluster's GET with its hosts, a host list), on PostgreSQL and a real
 * HTTP connection: what they answer is the view built whole, and a client that stops reading stops the reading of rows.
 */
class HostViewStreamTest {
  @TempDir Path dir;
  private Vertx vertx;
  private EmbeddedPostgresServer pg;
  private Pool pool;
  private HttpServer server;
  private HttpClient client;
  private final ReleaseCatalog catalog = ReleaseCatalog.builtIn();
  private final UUID clusterId = UUID.randomUUID();
  private final UUID infraEnv = UUID.randomUUID();
  /** The hosts whose rows the streamed views read. */
  private final AtomicInteger rowsRead = new AtomicInteger();
  /** How the cluster's view reads a page of rows (a test may fail it, or delete hosts first). */
  private java.util.function.Function<List<UUID>, Future<List<HostRow>>> pages = this::counted;
  /** How the list of clusters reads a page of rows. */
  private java.util.function.Function<List<UUID>, Future<List<HostRow>>> clusterListPages =
      page -> HostRepository.tenantHostsByIds(pool, "t", page);

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false);
    pool = Database.pool(vertx, pg.connectionUri(), 4);
    await(Migrations.apply(pool));
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    await(ClusterRepository.insert(pool, new ClusterRow(clusterId, "t", "big", "4.18", "insufficient", "", now,
        new JsonObject().put("base_dns_domain", "example.com"), null, null, null, null, 1, now, now, new JsonObject()),
        "secret"));
    await(pool.preparedQuery("INSERT INTO infra_envs (id, tenant, cluster_id, name, spec, pull_secret, created_at,"
        + " updated_at) VALUES ($1, 't', $2, 'ie', '{}', 'secret', now(), now())")
        .execute(Tuple.of(infraEnv, clusterId)));
    Router router = Router.router(vertx);
    router.get("/cluster").handler(ctx -> RestApi.handle(ctx, 200, () -> ClusterRepository.get(pool, "t", clusterId)
        .compose(c -> HostRepository.idsByCluster(pool, "t", clusterId, List.of(), null)
            .map(ids -> HostViewStream.cluster(c.orElseThrow(), catalog, ids, page -> pages.apply(page))))));
    router.get("/clusters").handler(ctx -> RestApi.handle(ctx, 200, () -> ClusterRepository.list(pool, "t")
        .compose(cs -> HostRepository.idsByClusters(pool, "t", cs.stream().map(UnparsedRow::id).toList())
            .map(ids -> HostViewStream.clusters(cs, catalog, ids, page -> clusterListPages.apply(page))))));
    router.get("/hosts").handler(ctx -> RestApi.handle(ctx, 200,
        () -> HostViewStream.infraEnvHosts(pool, "t", infraEnv)));
    // small socket buffers: what the client has not read stays with the server
    server = await(vertx.createHttpServer(new HttpServerOptions().setSendBufferSize(16 * 1024)).requestHandler(router)
        .listen(0, "127.0.0.1"));
    client = vertx.createHttpClient();
  }

  private static List<ClusterRow> parsed(Future<List<UnparsedRow>> rows) throws Exception {
    return await(rows).stream().map(UnparsedRow::parse).toList();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    pg.close();
  }

  @Test
  void aStreamedListOfClustersIsEachClustersViewBuiltWholeWithPagesAcrossClusters() throws Exception {
    // in this order: the first cluster (40 hosts), more hostless ones than a page may cross, a small one (2 hosts), a
    // big one (300 hosts), two small ones; another tenant's alongside
    List<UUID> hostless = new java.util.ArrayList<>();
    for (int i = 0; i < HostViewStream.VIEWS_PER_WRITE + 44; i++) {
      hostless.add(UUID.randomUUID());
      addCluster(hostless.get(i), "t");
    }
    UUID small0 = UUID.randomUUID();
    UUID big = UUID.randomUUID();
    UUID small1 = UUID.randomUUID();
    UUID small2 = UUID.randomUUID();
    UUID otherTenants = UUID.randomUUID();
    addCluster(small0, "t");
    addCluster(big, "t");
    addCluster(small1, "t");
    addCluster(small2, "t");
    addCluster(otherTenants, "u");
    for (int i = 0; i < 40; i++) {
      addHost(clusterId, i % 3 == 0 ? "known" : "insufficient", inventory("10.0.0." + (i + 10) + "/24", null), "{}");
    }
    for (int i = 0; i < 300; i++) {
      addHost(big, i % 2 == 0 ? "known" : "insufficient", inventory("10.1." + (i / 200) + "." + (i % 200 + 10) + "/16",
          null), "{\"remote_hosts\":[]}");
    }
    for (UUID small : List.of(small0, small1, small2)) {
      addHost(small, "known", inventory("10.2.0.1/24", null), "{}");
      addHost(small, "known", inventory("10.2.0.2/24", null), "{}");
    }
    UUID otherInfraEnv = UUID.randomUUID();
    UUID otherHost = UUID.randomUUID();
    await(pool.preparedQuery("INSERT INTO infra_envs (id, tenant, cluster_id, name, spec, pull_secret, created_at,"
        + " updated_at) VALUES ($1, 'u', $2, 'ie', '{}', 'secret', now(), now())")
        .execute(Tuple.of(otherInfraEnv, otherTenants)));
    await(pool.preparedQuery("INSERT INTO hosts (id, infra_env_id, cluster_id, status, status_info, status_updated_at,"
        + " registered_at, created_at, updated_at) VALUES ($1, $2, $3, 'known', '', now(), now(), now(), now())")
        .execute(Tuple.of(otherHost, otherInfraEnv, otherTenants)));
    assertEquals(List.of(), await(HostRepository.tenantHostsByIds(pool, "t", List.of(otherHost))));
    assertEquals(1, await(HostRepository.tenantHostsByIds(pool, "u", List.of(otherHost))).size());
    JsonArray whole = new JsonArray();
    for (ClusterRow c : parsed(ClusterRepository.list(pool, "t"))) {
      whole.add(ApiViews.cluster(c, catalog, await(HostRepository.listByCluster(pool, "t", c.id())), true));
    }
    List<String> order = whole.stream().map(c -> ((JsonObject) c).getString("id")).toList();
    assertEquals(List.of(clusterId.toString(), hostless.get(0).toString()), order.subList(0, 2));
    assertEquals(List.of(small0.toString(), big.toString(), small1.toString(), small2.toString()),
        order.subList(order.size() - 4, order.size()));
    List<Integer> pageSizes = new java.util.ArrayList<>();
    clusterListPages = page -> {
      pageSizes.add(page.size());
      return HostRepository.tenantHostsByIds(pool, "t", page);
    };

    Got listed = get("/clusters");
    assertEquals(200, listed.status());
    assertEquals("chunked", listed.transferEncoding());
    assertEquals(whole, new JsonArray(listed.body()));
    // a big view's pages stay in it, its first 16 rows; the hostless views between are written 256 at a time; a page
    // of small views ends where a big one begins (sized by small rows, it would take 256 of the big one's); the two
    // last small clusters share a page
    assertEquals(List.of(HostViewStream.FIRST_PAGE_ROWS, 24, 2, HostViewStream.FIRST_PAGE_ROWS, 256, 28, 4),
        pageSizes);

    // a host moved to the big cluster after the ids were read is in neither cluster's view (nor counted)
    List<UUID> ids = await(HostRepository.idsByCluster(pool, "t", clusterId, List.of(), null));
    UUID moved = ids.get(30);
    clusterListPages = page -> page.contains(moved) ? pool.preparedQuery(
        "UPDATE hosts SET cluster_id = $1 WHERE id = $2").execute(Tuple.of(big, moved))
        .compose(v -> HostRepository.tenantHostsByIds(pool, "t", page))
        : HostRepository.tenantHostsByIds(pool, "t", page);
    JsonArray after = new JsonArray(get("/clusters").body());
    List<Integer> counts = after.stream().map(c -> ((JsonObject) c).getInteger("total_host_count")).toList();
    assertEquals(List.of(39, 0), counts.subList(0, 2));
    assertEquals(List.of(2, 300, 2, 2), counts.subList(counts.size() - 4, counts.size()));
    assertTrue(!after.encode().contains(moved.toString()), "the moved host is listed");

    // more hostless clusters after the last host than are written at a time: all there, as built whole
    for (int i = 0; i < HostViewStream.VIEWS_PER_WRITE + 44; i++) {
      addCluster(UUID.randomUUID(), "t");
    }
    clusterListPages = page -> HostRepository.tenantHostsByIds(pool, "t", page);
    JsonArray wholeAgain = new JsonArray();
    for (ClusterRow c : parsed(ClusterRepository.list(pool, "t"))) {
      wholeAgain.add(ApiViews.cluster(c, catalog, await(HostRepository.listByCluster(pool, "t", c.id())), true));
    }
    assertEquals(5 + 2 * (HostViewStream.VIEWS_PER_WRITE + 44), wholeAgain.size());
    assertEquals(wholeAgain, new JsonArray(get("/clusters").body()));

    // no host at all: the views alone, a batch at a time
    await(pool.query("DELETE FROM hosts").execute());
    JsonArray viewsAlone = new JsonArray();
    for (ClusterRow c : parsed(ClusterRepository.list(pool, "t"))) {
      viewsAlone.add(ApiViews.cluster(c, catalog, List.of(), true));
    }
    assertEquals(viewsAlone, new JsonArray(get("/clusters").body()));
    await(pool.query("DELETE FROM infra_envs").execute());
    await(pool.query("DELETE FROM clusters").execute());
    assertEquals(new JsonArray(), new JsonArray(get("/clusters").body()));
  }

  @Test
  void aStreamedClusterAndHostListAreTheViewsBuiltWholeWithTheirCountsAndNetworks() throws Exception {
    // more hosts than a first page, in two networks (all share 10.0.0.0/24), some known, one in another cluster
    for (int i = 0; i < 40; i++) {
      addHost(clusterId, i % 3 == 0 ? "known" : "insufficient", inventory("10.0.0." + (i + 10) + "/24",
          i % 2 == 0 ? "192.168.7." + (i + 10) + "/24" : null), "{\"remote_hosts\":[]}");
    }
    addHost(null, "known", inventory("10.9.0.1/24", null), null);
    List<HostRow> rows = await(HostRepository.listByCluster(pool, "t", clusterId));
    ClusterRow c = await(ClusterRepository.get(pool, "t", clusterId)).orElseThrow();
    JsonObject whole = ApiViews.cluster(c, catalog, rows, true);

    Got cluster = get("/cluster");
    assertEquals(200, cluster.status());
    assertEquals(whole, new JsonObject(cluster.body()));
    assertEquals(40, whole.getJsonArray("hosts").size());
    assertEquals(14, whole.getInteger("ready_host_count"));
    assertEquals(new JsonArray().add("10.0.0.0/24"), new JsonArray(whole.getJsonArray("host_networks").stream()
        .map(n -> ((JsonObject) n).getString("cidr")).toList()));
    assertEquals("chunked", cluster.transferEncoding());

    Got hosts = get("/hosts");
    JsonArray listed = new JsonArray(hosts.body());
    assertEquals(41, listed.size());
    JsonArray wholeList = new JsonArray();
    await(HostRepository.listByInfraEnv(pool, "t", infraEnv)).forEach(h -> wholeList.add(ApiViews.host(h)));
    assertEquals(wholeList, listed);
  }

  @Test
  void hostsGoneBeforeTheirPageIsReadAreLeftOutAndNotCounted() throws Exception {
    for (int i = 0; i < 40; i++) {
      addHost(clusterId, "known", inventory("10.0.0." + (i + 10) + "/24", null), "{}");
    }
    List<UUID> ids = await(HostRepository.idsByCluster(pool, "t", clusterId, List.of(), null));
    UUID moved = ids.get(20);
    UUID deleted = ids.get(30);
    pages = page -> { // both leave once the first page was read
      Future<List<HostRow>> read = counted(page);
      return rowsRead.get() > HostViewStream.FIRST_PAGE_ROWS ? read : read.compose(rows -> pool.preparedQuery(
          "UPDATE hosts SET cluster_id = NULL WHERE id = $1").execute(Tuple.of(moved))
          .compose(v -> pool.preparedQuery("DELETE FROM hosts WHERE id = $1").execute(Tuple.of(deleted))).map(rows));
    };
    JsonObject o = new JsonObject(get("/cluster").body());
    List<String> listed = o.getJsonArray("hosts").stream().map(h -> ((JsonObject) h).getString("id")).toList();
    assertEquals(38, listed.size());
    assertTrue(!listed.contains(moved.toString()) && !listed.contains(deleted.toString()), listed.toString());
    assertEquals(38, o.getInteger("total_host_count"));
    assertEquals(38, o.getJsonArray("host_networks").getJsonObject(0).getJsonArray("host_ids").size());
  }

  @Test
  void aFailureBeforeTheFirstByteIsAnErrorAnswerAndOneAfterItEndsTheConnection() throws Exception {
    for (int i = 0; i < 40; i++) {
      addHost(clusterId, "known", null, "{}");
    }
    pages = page -> Future.failedFuture("the database went away");
    assertEquals(500, get("/cluster").status());
    pages = page -> rowsRead.get() == 0 ? counted(page) : Future.failedFuture("the database went away");
    // the head and the first page went out: a client must not take the rest for a whole view
    java.util.concurrent.ExecutionException cut = org.junit.jupiter.api.Assertions.assertThrows(
        java.util.concurrent.ExecutionException.class, () -> get("/cluster"));
    assertTrue(cut.getCause() instanceof io.vertx.core.VertxException, cut.getCause().toString()); // closed
  }

  @Test
  void aHostlessClusterIsOneAnswerWithZeroCounts() throws Exception {
    Got cluster = get("/cluster");
    JsonObject o = new JsonObject(cluster.body());
    assertEquals(new JsonArray(), o.getJsonArray("hosts"));
    assertEquals(0, o.getInteger("total_host_count"));
    assertEquals(new JsonArray(), o.getJsonArray("host_networks"));
    assertEquals(0, rowsRead.get());
  }

  @Test
  void aClientThatStopsReadingStopsTheReadingOfRowsAndGetsTheRestWhenItReadsAgain() throws Exception {
    // 48 hosts of ~1 MB each (a big cluster's connectivity reports): ~55 MB of view
    String report = report(1 << 20);
    for (int i = 0; i < 48; i++) {
      addHost(clusterId, "known", inventory("10.0.0." + (i + 10) + "/24", null), report);
    }
    // a plain socket with a small receive buffer (no autotuning): what it does not read stays with the server
    try (java.net.Socket s = new java.net.Socket()) {
      s.setReceiveBufferSize(16 * 1024);
      s.connect(new java.net.InetSocketAddress("127.0.0.1", server.actualPort()), 10_000);
      s.setSoTimeout(60_000);
      s.getOutputStream().write("GET /cluster HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      java.io.DataInputStream in = new java.io.DataInputStream(new java.io.BufferedInputStream(s.getInputStream()));
      String head = line(in);
      assertEquals("HTTP/1.1 200 OK", head);
      boolean chunked = false;
      for (String h = line(in); !h.isEmpty(); h = line(in)) {
        chunked |= h.equalsIgnoreCase("transfer-encoding: chunked");
      }
      assertTrue(chunked);
      Thread.sleep(3000); // reads nothing
      int whilePaused = rowsRead.get();
      java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
      for (int size = Integer.parseInt(line(in), 16); size > 0; size = Integer.parseInt(line(in), 16)) {
        byte[] chunk = new byte[size];
        in.readFully(chunk);
        body.write(chunk);
        line(in);
      }
      JsonObject o = new JsonObject(Buffer.buffer(body.toByteArray()));
      assertEquals(48, o.getJsonArray("hosts").size());
      assertEquals(48, o.getInteger("total_host_count"));
      assertEquals(report, o.getJsonArray("hosts").getJsonObject(47).getString("connectivity"));
      assertEquals(48, rowsRead.get());
      // the first page (16 rows) and a few more in the socket buffers and the connection's queue; not the rest
      assertTrue(whilePaused <= HostViewStream.FIRST_PAGE_ROWS + 4,
          "rows read while the client read nothing: " + whilePaused + " of 48");
    }
  }

  /** A line of an HTTP/1.1 head or chunk header, without its CRLF. */
  private static String line(java.io.DataInputStream in) throws java.io.IOException {
    StringBuilder b = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new java.io.EOFException("the answer ended part way");
      }
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }

  private record Got(int status, String transferEncoding, Buffer body) {}

  private Got get(String path) throws Exception {
    CompletableFuture<Got> out = new CompletableFuture<>();
    client.request(HttpMethod.GET, server.actualPort(), "127.0.0.1", path).compose(r -> r.send()).onComplete(ar -> {
      if (ar.failed()) {
        out.completeExceptionally(ar.cause());
        return;
      }
      HttpClientResponse r = ar.result();
      Buffer body = Buffer.buffer();
      r.handler(body::appendBuffer).exceptionHandler(out::completeExceptionally).endHandler(v -> out.complete(
          new Got(r.statusCode(), r.getHeader("Transfer-Encoding"), body)));
    });
    return out.get(120, TimeUnit.SECONDS);
  }

  private Future<List<HostRow>> counted(List<UUID> page) {
    rowsRead.addAndGet(page.size());
    return HostRepository.clusterHostsByIds(pool, "t", clusterId, List.of(), null, page, Documents.ALL);
  }

  private static String inventory(String v4, String secondV4) {
    JsonArray addresses = new JsonArray().add(v4);
    JsonArray nics = new JsonArray().add(new JsonObject().put("name", "ens3").put("ipv4_addresses", addresses));
    if (secondV4 != null) {
      nics.add(new JsonObject().put("name", "ens4").put("ipv4_addresses", new JsonArray().add(secondV4)));
    }
    return new JsonObject().put("interfaces", nics).encode();
  }

  /** A connectivity report of about {@code bytes}, one remote host after another. */
  private static String report(int bytes) {
    JsonArray remotes = new JsonArray();
    int size = 0;
    for (int i = 0; size < bytes; i++) {
      JsonObject r = new JsonObject().put("host_id", new UUID(7, i).toString()).put("l3_connectivity",
          new JsonArray().add(new JsonObject().put("remote_ip_address", "10.0." + (i / 250) + "." + (i % 250))
              .put("successful", true)));
      remotes.add(r);
      size += r.encode().length() + 1;
    }
    return new JsonObject().put("remote_hosts", remotes).encode();
  }

  private void addCluster(UUID id, String tenant) throws Exception {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    await(ClusterRepository.insert(pool, new ClusterRow(id, tenant, "c-" + id, "4.18", "insufficient", "", now,
        new JsonObject().put("base_dns_domain", "example.com"), null, null, null, null, 1, now, now, new JsonObject()),
        "secret"));
  }

  private void addHost(UUID cluster, String status, String inventory, String connectivity) throws Exception {
    await(pool.preparedQuery("INSERT INTO hosts (id, infra_env_id, cluster_id, status, status_info, status_updated_at,"
        + " inventory, connectivity, registered_at, created_at, updated_at)"
        + " VALUES ($1, $2, $3, $4, '', now(), $5, $6, clock_timestamp(), now(), now())")
        .execute(Tuple.of(UUID.randomUUID(), infraEnv, cluster, status, inventory, connectivity)));
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
