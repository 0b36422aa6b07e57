package dev.rendezvous.service.api;

import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.HostRepository.Documents;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.sqlclient.SqlClient;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Views holding hosts (a cluster's with its hosts, a host list, a list of clusters with their hosts) written to the
 * client as they are read: the ids first, then the rows a page at a time, each page encoded and written, and the next
 * page read only once the client has taken the one before. A 1,000-host cluster's view is ~430 MB (each host's
 * connectivity report names every peer): built whole, one GET took over a GB of heap (a service on {@code -Xmx1g} died
 * of it) and left the client nothing to read until all was built. Streamed, an answer in flight holds two pages (a
 * few MB; the first, 16 rows, up to ~7 MB), whatever the cluster's size. The rows are read in short queries, with no
 * transaction held open while a slow client reads: a host that leaves a view meanwhile is left out, and each view's
 * counts (written after its hosts) are those of the hosts written.
 */
final class HostViewStream implements RestApi.Streamed {
  /** The text a page of rows is sized for: a 1,000-host cluster's rows (~430 KB) come 4 to a page, small ones 256. */
  static final long PAGE_BYTES = 2L << 20;
  static final int FIRST_PAGE_ROWS = 16;
  static final int MAX_PAGE_ROWS = 256;
  /** A page with more text than this is encoded on a worker thread: an event loop never spends long on one. */
  static final long WORKER_BYTES = 256L << 10;
  /** Once every host is written, the views left (a fleet's hostless clusters) are written this many at a time. */
  static final int VIEWS_PER_WRITE = 256;
  /** The text a view's own head and tail are taken for when choosing where to encode. */
  private static final long VIEW_BYTES = 4L << 10;

  /** Reads the rows of some ids, in their order, leaving out those gone. */
  interface Rows {
    Future<List<HostRow>> read(List<UUID> ids);
  }

  /** What a view's hosts written add up to: its counts and its host networks. */
  private static final class Totals {
    long total;
    long known;
    final HostNetworks networks = new HostNetworks();
  }

  /**
   * One view of the answer (a cluster, or a host list), holding the hosts of the answer's ids from the end of the
   * view before up to {@code to}. Its head is made when it is written (a list of 10,000 clusters holds no 10,000
   * heads). With a cluster id, a row of another cluster (its host moved after the ids were read) is left out of it.
   */
  private record Part(Supplier<Buffer> head, Function<Totals, Buffer> tail, int to, UUID clusterId, Totals totals) {
    Part(Supplier<Buffer> head, Function<Totals, Buffer> tail, int to, UUID clusterId) {
      this(head, tail, to, clusterId, new Totals());
    }
  }

  private final Buffer open;
  private final List<Part> parts;
  private final Buffer close;
  private final List<UUID> ids;
  private final Rows rows;
  /** The view being written: its head is out, its tail not yet (all are written once it reaches the end). */
  private int part;

  private HostViewStream(Buffer open, List<Part> parts, Buffer close, List<UUID> ids, Rows rows) {
    this.open = open;
    this.parts = parts;
    this.close = close;
    this.ids = ids;
    this.rows = rows;
  }

  /** The cluster as upstream's GET (without {@code exclude-hosts}) answers it: its hosts, their networks and counts. */
  static Future<HostViewStream> cluster(SqlClient db, String tenant, ClusterRow c, ReleaseCatalog catalog) {
    return HostRepository.idsByCluster(db, tenant, c.id(), List.of(), null).map(ids -> cluster(c, catalog, ids,
        page -> HostRepository.clusterHostsByIds(db, tenant, c.id(), List.of(), null, page, Documents.ALL)));
  }

  static HostViewStream cluster(ClusterRow c, ReleaseCatalog catalog, List<UUID> ids, Rows rows) {
    return new HostViewStream(Buffer.buffer(), List.of(clusterPart("", c, catalog, ids.size())), Buffer.buffer(), ids,
        rows);
  }

  /** A cluster's view; the counts are those of the hosts written, so they come after the hosts. */
  private static Part clusterPart(String before, ClusterRow c, ReleaseCatalog catalog, int to) {
    return new Part(() -> Buffer.buffer(before).appendBuffer(ApiViews.clusterHead(c, catalog)),
        t -> ApiViews.clusterTail(t.networks, new HostRepository.HostCounts(t.total, t.known)), to, c.id());
  }

  /**
   * The clusters as upstream's list {@code with_hosts} answers them, each with its hosts, in the clusters' order. The
   * pages run across clusters, so a fleet of small clusters is read a few hundred hosts to a query.
   */
  static Future<HostViewStream> clusters(SqlClient db, String tenant, List<ClusterRow> clusters,
      ReleaseCatalog catalog) {
    if (clusters.isEmpty()) {
      return Future.succeededFuture(clusters(clusters, catalog, java.util.Map.of(), page -> null));
    }
    return HostRepository.idsByClusters(db, tenant, clusters.stream().map(ClusterRow::id).toList())
        .map(byCluster -> clusters(clusters, catalog, byCluster,
            page -> HostRepository.tenantHostsByIds(db, tenant, page)));
  }

  static HostViewStream clusters(List<ClusterRow> clusters, ReleaseCatalog catalog,
      java.util.Map<UUID, List<UUID>> idsByCluster, Rows rows) {
    List<UUID> ids = new java.util.ArrayList<>();
    List<Part> parts = new java.util.ArrayList<>(clusters.size());
    for (ClusterRow c : clusters) {
      ids.addAll(idsByCluster.getOrDefault(c.id(), List.of()));
      parts.add(clusterPart(parts.isEmpty() ? "" : ",", c, catalog, ids.size()));
    }
    return new HostViewStream(Buffer.buffer("["), parts, Buffer.buffer("]"), ids, rows);
  }

  /** An infra-env's hosts as upstream's list answers them. */
  static Future<HostViewStream> infraEnvHosts(SqlClient db, String tenant, UUID infraEnvId) {
    return HostRepository.idsByInfraEnv(db, tenant, infraEnvId)
        .map(ids -> list(ids, page -> HostRepository.infraEnvHostsByIds(db, tenant, infraEnvId, page)));
  }

  /** A cluster's hosts filtered as {@link HostRepository#listByCluster} filters them, with the documents asked for. */
  static Future<HostViewStream> clusterHosts(SqlClient db, String tenant, UUID clusterId, Documents docs,
      List<String> roles, String status) {
    return HostRepository.idsByCluster(db, tenant, clusterId, roles, status).map(ids -> list(ids,
        page -> HostRepository.clusterHostsByIds(db, tenant, clusterId, roles, status, page, docs)));
  }

  static HostViewStream list(List<UUID> ids, Rows rows) {
    return new HostViewStream(Buffer.buffer(), List.of(new Part(() -> Buffer.buffer("["), t -> Buffer.buffer("]"),
        ids.size(), null)), Buffer.buffer(), ids, rows);
  }

  /**
   * Writes the answer. The first page is read before anything is written, so a failure there is still an error
   * answer; a failure later fails the returned future with the head written (the caller resets the connection: half
   * a view must not read as a whole one).
   */
  @Override
  public Future<Void> writeTo(HttpServerResponse response, Vertx vertx) {
    Promise<Void> done = Promise.promise();
    response.closeHandler(v -> done.tryFail("the client closed the connection"));
    Buffer start = open.copy();
    if (!parts.isEmpty()) {
      start.appendBuffer(parts.get(0).head().get());
    }
    page(response, vertx, start, 0, FIRST_PAGE_ROWS, Future.succeededFuture(), done);
    return done.future();
  }

  /**
   * Reads and encodes the page at {@code from} (after {@code before}, the text not written yet) while the one before
   * is being sent ({@code sent}), and writes it once that one is on the socket: an answer in flight holds two pages at
   * most. (The response's own queue would not bound it: it counts writes, not bytes, and took 16 pages of a big
   * cluster before it said it was full.)
   */
  private void page(HttpServerResponse response, Vertx vertx, Buffer before, int from, int size, Future<Void> sent,
      Promise<Void> done) {
    if (done.future().isComplete()) {
      return;
    }
    if (from >= ids.size()) {
      if (parts.size() - part > VIEWS_PER_WRITE) { // many views without hosts left: a batch at a time, on a worker
        int until = part + VIEWS_PER_WRITE;
        vertx.executeBlocking(() -> closeViews(ids.size(), until, before), false).compose(views -> sent.map(views))
            .onFailure(done::tryFail)
            .onSuccess(views -> write(response, views, done, w -> page(response, vertx, Buffer.buffer(), from, size,
                w, done)));
        return;
      }
      Buffer end = closeViews(ids.size(), parts.size(), before);
      end.appendBuffer(close);
      (response.headWritten() ? sent.compose(v -> response.end(end))
          : response.putHeader("Content-Type", "application/json").end(end))
          .onComplete(ar -> { // the client may have closed the connection first: done has failed then
            if (ar.succeeded()) {
              done.tryComplete();
            } else {
              done.tryFail(ar.cause());
            }
          });
      return;
    }
    List<UUID> batch = ids.subList(from, Math.min(ids.size(), from + size));
    rows.read(batch).compose(found -> {
      long text = found.stream().mapToLong(HostViewStream::textOf).sum()
          + VIEW_BYTES * viewsUpTo(from + batch.size() - 1);
      return text > WORKER_BYTES ? vertx.executeBlocking(() -> encode(before, from, batch, found), false)
          : Future.succeededFuture(encode(before, from, batch, found));
    }).compose(page -> sent.map(page)).onFailure(done::tryFail).onSuccess(page -> {
      // the next page sized by this one's rows (a few MB of text); by the last size when all of it had gone
      int nextSize = page.rows() == 0 ? size
          : (int) Math.max(1, Math.min(MAX_PAGE_ROWS, PAGE_BYTES * page.rows() / page.text()));
      write(response, page.bytes(), done, w -> page(response, vertx, Buffer.buffer(), from + batch.size(), nextSize,
          w, done));
    });
  }

  /** Writes a piece of the answer (its head first, with the first piece), then goes on with the write's future. */
  private static void write(HttpServerResponse response, Buffer bytes, Promise<Void> done,
      java.util.function.Consumer<Future<Void>> next) {
    if (done.future().isComplete()) {
      return;
    }
    try {
      if (!response.headWritten()) {
        response.setChunked(true).putHeader("Content-Type", "application/json");
      }
      next.accept(response.write(bytes));
    } catch (RuntimeException e) {
      done.tryFail(e); // the connection went meanwhile, or a bug: the answer must end either way
    }
  }

  /**
   * Ends the views whose hosts all come before {@code position} (up to the view {@code until}, not included), and
   * begins the next ones; returns {@code out}.
   */
  private Buffer closeViews(int position, int until, Buffer out) {
    while (part < Math.min(until, parts.size()) && position >= parts.get(part).to()) {
      out.appendBuffer(parts.get(part).tail().apply(parts.get(part).totals()));
      part++;
      if (part < parts.size()) {
        out.appendBuffer(parts.get(part).head().get());
      }
    }
    return out;
  }

  /** How many views from the one being written end at or before {@code position}: those a page up to it crosses. */
  private int viewsUpTo(int position) {
    int lo = part;
    int hi = parts.size();
    while (lo < hi) { // the first view that holds a host past position
      int mid = (lo + hi) >>> 1;
      if (parts.get(mid).to() > position) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo - part;
  }

  private record Page(Buffer bytes, int rows, long text) {}

  /**
   * A page's hosts as JSON after {@code before}, each in its view after a comma but the view's first, the views
   * between them begun and ended; each view's counts and networks added up.
   */
  private Page encode(Buffer before, int from, List<UUID> batch, List<HostRow> found) {
    java.util.Map<UUID, HostRow> byId = new java.util.HashMap<>();
    found.forEach(h -> byId.put(h.id(), h));
    Buffer out = before;
    int written = 0;
    long text = 0;
    for (int i = 0; i < batch.size(); i++) {
      closeViews(from + i, parts.size(), out);
      HostRow h = byId.get(batch.get(i));
      Part view = parts.get(part);
      if (h == null || view.clusterId() != null && !view.clusterId().equals(h.clusterId())) {
        continue; // gone, or moved to another cluster, since the ids were read
      }
      Totals totals = view.totals();
      if (totals.total > 0) {
        out.appendByte((byte) ',');
      }
      out.appendBuffer(ApiViews.host(h).toBuffer());
      totals.total++;
      if ("known".equals(h.status())) {
        totals.known++;
      }
      totals.networks.add(h);
      written++;
      text += textOf(h);
    }
    return new Page(out, written, text);
  }

  /** The host's large texts: what its view's size is made of. */
  private static long textOf(HostRow h) {
    return 1024 + length(h.inventory()) + length(h.connectivity()) + length(h.validationsInfo());
  }

  private static int length(String s) {
    return s == null ? 0 : s.length();
  }
}
