package dev.rendezvous.service.api;

import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.ClusterRepository.RowVersion;
import dev.rendezvous.service.repo.ClusterRepository.UnparsedRow;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.HostRepository.HostCounts;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.SqlClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Upstream's cluster list (every cluster of the tenant, no paging, no hosts) and a cluster's GET without its hosts, at
 * fleet size. Each cluster's view is a function of its row and its host counts, so it is encoded once per row version
 * and counts and kept: a list reads the row versions and the counts, then only the rows that changed since the last
 * list. At 10,000 clusters that is what stays fast while a fleet installs: reading and building all of them took
 * seconds per list (issue 40). A cluster's GET reads its version and counts the same way: each site's controller asks
 * for its cluster every few seconds while it installs, ~28 times a site, and most of those find the row as it was.
 * Every write to a cluster row bumps its version ({@code row_version}; the creation's own transaction aside, which no
 * list sees half done). Kept per tenant (~7 KB a cluster); a cluster that left the list is dropped at the next one,
 * and at once when its GET finds it gone.
 */
final class ClusterViews {
  /** Above this many clusters to build or join, the work runs on a worker thread, not an event loop. */
  private static final int LARGE = 50;

  private record View(long rowVersion, HostCounts counts, Buffer json) {}

  private final ReleaseCatalog catalog;
  private final Map<String, Map<UUID, View>> byTenant = new ConcurrentHashMap<>();

  ClusterViews(ReleaseCatalog catalog) {
    this.catalog = catalog;
  }

  /** The tenant's clusters as upstream's list answers them: a JSON array, in creation order. */
  Future<Buffer> list(Vertx vertx, SqlClient db, String tenant) {
    Map<UUID, View> kept = byTenant.computeIfAbsent(tenant, t -> new ConcurrentHashMap<>());
    return ClusterRepository.versions(db, tenant).compose(versions -> {
      List<UUID> ids = versions.stream().map(RowVersion::id).toList();
      return HostRepository.countsByClusters(db, tenant, ids).compose(counts -> {
        List<UUID> changed = versions.stream().filter(v -> {
          View k = kept.get(v.id());
          return k == null || k.rowVersion() != v.rowVersion() || !k.counts().equals(countsOf(counts, v.id()));
        }).map(RowVersion::id).toList();
        return ClusterRepository.byIds(db, tenant, changed).compose(rows -> {
          if (rows.size() <= LARGE && versions.size() <= LARGE) {
            return Future.succeededFuture(join(kept, versions, rows, counts));
          }
          return vertx.executeBlocking(() -> join(kept, versions, rows, counts), false);
        });
      });
    });
  }

  /**
   * The cluster as upstream's GET with {@code exclude-hosts} answers it: the kept view while the row and the host
   * counts are the ones it was built from, else the row read and its view kept.
   */
  Future<Buffer> one(SqlClient db, String tenant, UUID id) {
    Map<UUID, View> kept = byTenant.computeIfAbsent(tenant, t -> new ConcurrentHashMap<>());
    return ClusterRepository.versionAndCounts(db, tenant, id).compose(found -> {
      if (found.isEmpty()) {
        kept.remove(id);
        return Future.failedFuture(ApiError.notFound("cluster", id));
      }
      ClusterRepository.VersionAndCounts now = found.get();
      View k = kept.get(id);
      if (k != null && k.rowVersion() == now.rowVersion() && k.counts().equals(now.counts())) {
        return Future.succeededFuture(k.json());
      }
      return ClusterRepository.byIds(db, tenant, List.of(id)).map(rows -> {
        if (rows.isEmpty()) {
          kept.remove(id);
          throw ApiError.notFound("cluster", id);
        }
        // the counts as read just before the row: a host that moved in between is counted by the next GET
        View v = view(rows.get(0).parse(), now.counts());
        keep(kept, id, v);
        return v.json();
      });
    });
  }

  /** A list or GET running beside this one may have kept a newer row already: the newer stays. */
  private static void keep(Map<UUID, View> kept, UUID id, View v) {
    kept.merge(id, v, (old, mine) -> mine.rowVersion() >= old.rowVersion() ? mine : old);
  }

  private View view(ClusterRow r, HostCounts counts) {
    return new View(r.rowVersion(), counts, ApiViews.cluster(r, catalog, counts).toBuffer());
  }

  private Buffer join(Map<UUID, View> kept, List<RowVersion> versions, List<UnparsedRow> unparsed,
      Map<UUID, HostCounts> counts) {
    Map<UUID, View> fresh = new HashMap<>();
    for (UnparsedRow u : unparsed) {
      ClusterRow r = u.parse();
      View v = view(r, countsOf(counts, r.id()));
      fresh.put(r.id(), v);
      keep(kept, r.id(), v);
    }
    // the views in list order, each the one built here or else the one kept (none: deleted between the two reads)
    List<Buffer> parts = new ArrayList<>(versions.size());
    Set<UUID> listed = new HashSet<>();
    int size = 2;
    for (RowVersion rv : versions) {
      View v = fresh.containsKey(rv.id()) ? fresh.get(rv.id()) : kept.get(rv.id());
      if (v != null) {
        parts.add(v.json());
        listed.add(rv.id());
        size += v.json().length() + 1;
      }
    }
    Buffer out = Buffer.buffer(size);
    out.appendByte((byte) '[');
    for (int i = 0; i < parts.size(); i++) {
      if (i > 0) {
        out.appendByte((byte) ',');
      }
      out.appendBuffer(parts.get(i));
    }
    out.appendByte((byte) ']');
    kept.keySet().retainAll(listed);
    return out;
  }

  private static HostCounts countsOf(Map<UUID, HostCounts> counts, UUID cluster) {
    return counts.getOrDefault(cluster, HostCounts.NONE);
  }
}
