package dev.rendezvous.service.api;

import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.ClusterRepository.UnparsedRow;
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
 * few MB; a big view's first, 16 rows, up to ~7 MB), whatever the cluster's size: a page runs across small views (a
 * fleet's sites, a few hundred hosts to a query) but never into a big one, and crosses at most 256 views (hostless
 * clusters). The rows are read in short queries, with no transaction held open while a slow client reads: a host that
 * leaves a view meanwhile is left out, and each view's counts (written after its hosts) are those of the hosts
 * written.
 */
final class HostViewStream implements RestApi.Streamed {
  /** The text a page of rows is sized for: a 1,000-host cluster's rows (~430 KB) come 4 to a page, small ones 256. */
  static final long PAGE_BYTES = 2L << 20;
  /** A big view's first page (its rows' size unknown yet); a view of at most this many hosts counts as small. */
  static final int FIRST_PAGE_ROWS = 16;
  static final int MAX_PAGE_ROWS = 256;
  /** A page with more text than this is encoded on a worker thread: an event loop never spends long on one. */
  static final long WORKER_BYTES = 256L << 10;
  /** The most views a page (or, where no host lies between them, a write) begins and ends: hostless clusters. */
  static final int VIEWS_PER_WRITE = 256;
  /** The text a view's own head and tail are taken for when choosing where to encode (a cluster's fields: ~7 KB). */
  private static final long VIEW_BYTES = 8L << 10;

  /** Reads the rows of some ids, in their order, leaving out those gone. */
  interface Rows {
    Future<List<HostRow>> read(List<UUID> ids);
  }

  /** What the view being written adds up to: its counts and its host networks. */
  private static final class Totals {
    long total;
    long known;
    final HostNetworks networks = new HostNetworks();
  }

  /**
   * One view of the answer (a cluster, or a host list). Its head is made when it is written (a list of 10,000
   * clusters holds no 10,000 heads). With a cluster id, a row of another cluster (its host moved after the ids were
   * read) is left out of it.
   */
  private record Part(Supplier<Buffer> head, Function<Totals, Buffer> tail, UUID clusterId) {}

  private final Buffer open;
  /** The views in order; each is dropped (null) once written, so what it holds can go. */
  private final Part[] parts;
  /** Where each view's hosts end in {@link #ids}: view i holds the ids from {@code ends[i - 1]} (0) to ends[i]. */
  private final int[] ends;
  private final Buffer close;
  private final List<UUID> ids;
  private final Rows rows;
  /** The view being written: its head is out, its tail not yet (all are written once it reaches the end). */
  private int part;
  private Totals totals = new Totals();

  private HostViewStream(Buffer open, List<Part> parts, int[] ends, Buffer close, List<UUID> ids, Rows rows) {
    this.open = open;
    this.parts = parts.toArray(new Part[0]);
    this.ends = ends;
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
    return new HostViewStream(Buffer.buffer(), List.of(clusterPart("", c, catalog)), new int[] {ids.size()},
        Buffer.buffer(), ids, rows);
  }

  /** A cluster's view; the counts are those of the hosts written, so they come after the hosts. */
  private static Part clusterPart(String before, ClusterRow c, ReleaseCatalog catalog) {
    return clusterPart(before, c.id(), () -> c, catalog);
  }

  /** As above, the cluster's row made ({@code row}) only when its view is written. */
  private static Part clusterPart(String before, UUID id, Supplier<ClusterRow> row, ReleaseCatalog catalog) {
    return new Part(() -> Buffer.buffer(before).appendBuffer(ApiViews.clusterHead(row.get(), catalog)),
        t -> ApiViews.clusterTail(t.networks, new HostRepository.HostCounts(t.total, t.known)), id);
  }

  /** The clusters as upstream's list {@code with_hosts} answers them, each with its hosts, in the clusters' order. */
  static Future<HostViewStream> clusters(SqlClient db, String tenant, List<UnparsedRow> clusters,
      ReleaseCatalog catalog) {
    Rows rows = page -> HostRepository.tenantHostsByIds(db, tenant, page);
    if (clusters.isEmpty()) {
      return Future.succeededFuture(clusters(clusters, catalog, java.util.Map.of(), rows));
    }
    return HostRepository.idsByClusters(db, tenant, clusters.stream().map(UnparsedRow::id).toList())
        .map(byCluster -> clusters(clusters, catalog, byCluster, rows));
  }

  static HostViewStream clusters(List<UnparsedRow> clusters, ReleaseCatalog catalog,
      java.util.Map<UUID, List<UUID>> idsByCluster, Rows rows) {
    List<UUID> ids = new java.util.ArrayList<>();
    List<Part> parts = new java.util.ArrayList<>(clusters.size());
    int[] ends = new int[clusters.size()];
    for (UnparsedRow c : clusters) {
      UUID id = c.id();
      ids.addAll(idsByCluster.getOrDefault(id, List.of()));
      ends[parts.size()] = ids.size();
      parts.add(clusterPart(parts.isEmpty() ? "" : ",", id, c::parse, catalog));
    }
    return new HostViewStream(Buffer.buffer("["), parts, ends, Buffer.buffer("]"), ids, rows);
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
        null)), new int[] {ids.size()}, Buffer.buffer(), ids, rows);
  }

  /**
   * Writes the answer. The first page is read before anything is written, so a failure there is still an error
   * answer; a failure later fails the returned future with the head written (the caller resets the connection: half
   * a view must not read as a whole one).
   */
  @Override
  public Future<Void> writeTo(HttpServerResponse response, Vertx vertx) {
    Promise<Void> done = Promise.promise();
    try {
      response.closeHandler(v -> done.tryFail("the client closed the connection"));
      Buffer start = open.copy();
      if (parts.length > 0) {
        start.appendBuffer(parts[0].head().get());
      }
      page(response, vertx, start, 0, FIRST_PAGE_ROWS, Future.succeededFuture(), done);
    } catch (RuntimeException e) { // a row that cannot be shown: nothing written yet, so an error answer
      done.tryFail(e);
    }
    return done.future();
  }

  /**
   * Reads and encodes the page at {@code from} (after {@code before}, the text not written yet) while the one before
   * is being sent ({@code sent}), and writes it once that one is on the socket: an answer in flight holds two pages at
   * most. (The response's own queue would not bound it: it counts writes, not bytes, and took 16 pages of a big
   * cluster before it said it was full.) {@code size} is the rows the page before suggests.
   */
  private void page(HttpServerResponse response, Vertx vertx, Buffer before, int from, int size, Future<Void> sent,
      Promise<Void> done) {
    if (done.future().isComplete()) {
      return;
    }
    if (parts.length - part > 1 && viewsUpTo(from) > (from >= ids.size() ? 0 : VIEWS_PER_WRITE)) {
      // views with no host between them (hostless clusters), more than a page may cross, or all that is left once
      // every host is out: a batch of them at a time, made on a worker
      int until = part + VIEWS_PER_WRITE;
      vertx.executeBlocking(() -> closeViews(from, until, before), false).compose(views -> sent.map(views))
          .onFailure(done::tryFail)
          .onSuccess(views -> write(response, views, done, w -> page(response, vertx, Buffer.buffer(), from, size, w,
              done)));
      return;
    }
    if (from >= ids.size()) { // the last view's tail (one at most is left), and the end
      Buffer end = closeViews(ids.size(), parts.length, before);
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
    List<UUID> batch = ids.subList(from, pageEnd(from, size));
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

  /**
   * Where the page from {@code from} ends. In a big view (more than {@link #FIRST_PAGE_ROWS} hosts: a report per
   * host that names every peer) pages stay within it, its first of {@link #FIRST_PAGE_ROWS} rows, the next sized by
   * the rows before. Small views share pages, up to {@code size} rows and {@link #VIEWS_PER_WRITE} views, and a page
   * of them ends where a big view begins: rows sized by small clusters' rows would make a big one's page huge.
   */
  private int pageEnd(int from, int size) {
    int view = part + viewsUpTo(from);
    if (hostsOf(view) > FIRST_PAGE_ROWS) {
      return Math.min(ends[view], from + (from == startOf(view) ? FIRST_PAGE_ROWS : size));
    }
    int end = Math.min(ends[view], from + size);
    for (int v = view + 1; v < parts.length && end < from + size && v - part <= VIEWS_PER_WRITE; v++) {
      if (hostsOf(v) > FIRST_PAGE_ROWS) {
        break;
      }
      end = Math.min(ends[v], from + size);
    }
    return end;
  }

  private int startOf(int view) {
    return view == 0 ? 0 : ends[view - 1];
  }

  private int hostsOf(int view) {
    return ends[view] - startOf(view);
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
    while (part < Math.min(until, parts.length) && position >= ends[part]) {
      out.appendBuffer(parts[part].tail().apply(totals));
      parts[part] = null;
      part++;
      totals = new Totals();
      if (part < parts.length) {
        out.appendBuffer(parts[part].head().get());
      }
    }
    return out;
  }

  /** How many views from the one being written end at or before {@code position}: those a page up to it crosses. */
  private int viewsUpTo(int position) {
    int lo = part;
    int hi = parts.length;
    while (lo < hi) { // the first view that holds a host past position
      int mid = (lo + hi) >>> 1;
      if (ends[mid] > position) {
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
    Buffer out = before;
    int written = 0;
    long text = 0;
    int next = 0; // found is in the batch's order, the rows gone left out
    for (int i = 0; i < batch.size(); i++) {
      closeViews(from + i, parts.length, out);
      HostRow h = next < found.size() && found.get(next).id().equals(batch.get(i)) ? found.get(next++) : null;
      UUID clusterId = parts[part].clusterId();
      if (h == null || clusterId != null && !clusterId.equals(h.clusterId())) {
        continue; // gone, or moved to another cluster, since the ids were read
      }
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
