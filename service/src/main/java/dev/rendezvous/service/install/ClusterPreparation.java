package dev.rendezvous.service.install;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.ClusterPreparationFinished;
import dev.rendezvous.service.api.RestApi.BusPublisher;
import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.db.DatabaseUnavailable;
import dev.rendezvous.service.db.PipelinedTransaction;
import dev.rendezvous.service.db.PoolGate;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.operators.OperatorManifests;
import dev.rendezvous.service.repo.ClusterFileRepository;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.ManifestRepository;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepares a cluster's installation when the brain asks ({@link Brain.PreparationRequests}): renders the
 * install-config from the stored cluster and hosts and its OLM operators' manifests ({@link OperatorManifests}, given
 * to the generator with the user's), runs the generator on a worker thread, stores every file in one
 * transaction tagged with the preparation, then publishes {@link ClusterPreparationFinished}. Idempotent: runs for a
 * cluster are never concurrent here, and a preparation whose files are already stored is only announced again (so a
 * repeat never changes files a host may have fetched).
 */
public final class ClusterPreparation implements Brain.PreparationRequests {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterPreparation.class);

  private final Vertx vertx;
  private final Pool pool;
  private final ClusterArtifactsGenerator generator;
  private final ReleaseCatalog catalog;
  private final BusPublisher bus;
  private final Set<UUID> running = ConcurrentHashMap.newKeySet();
  /**
   * Preparations at once; the others wait their turn. Each is a few reads, a generation on a worker thread and a
   * durable write and publish, mostly waiting: 2,000 clusters asked to install together each started theirs,
   * overflowed the pool's queue, and were reported failed by the thousand; 8 at a time made about 9 a second at
   * 10,000 sites, the workers mostly idle.
   */
  private final PoolGate gate = new PoolGate(IN_FLIGHT);
  static final int IN_FLIGHT = 32;

  private volatile dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors mirrors;

  public ClusterPreparation(Vertx vertx, Pool pool, ClusterArtifactsGenerator generator, ReleaseCatalog catalog,
      BusPublisher bus) {
    this.vertx = vertx;
    this.pool = pool;
    this.generator = generator;
    this.catalog = catalog;
    this.bus = bus;
  }

  /** The site's mirror registries, carried into each install-config (null: none). */
  public ClusterPreparation mirrors(dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors m) {
    this.mirrors = m;
    return this;
  }

  public ClusterArtifactsGenerator generator() {
    return generator;
  }

  @Override
  public void prepare(UUID clusterId, Instant installStartedAt) {
    if (!running.add(clusterId)) {
      return;
    }
    OffsetDateTime preparation = installStartedAt.atOffset(ZoneOffset.UTC);
    gate.run(() -> ClusterFileRepository.preparation(pool, clusterId)
        .compose(done -> done.isPresent() && done.get().toInstant().equals(installStartedAt)
            ? Future.succeededFuture((String) null)
            : generateAndStore(clusterId, preparation)))
        .transform(ar -> {
          if (ar.failed() && DatabaseUnavailable.is(ar.cause())) {
            // the database busy or away: nothing to report, the brain asks again on its next pass over the cluster
            LOG.atInfo().addKeyValue("cluster_id", clusterId).log("preparation postponed: " + reason(ar.cause()));
            return Future.<Void>succeededFuture();
          }
          return finished(clusterId, installStartedAt, ar.succeeded() ? null : reason(ar.cause()));
        })
        .onComplete(ar -> running.remove(clusterId));
  }

  private Future<String> generateAndStore(UUID clusterId, OffsetDateTime preparation) {
    return pool.preparedQuery("SELECT tenant FROM clusters WHERE id = $1").execute(Tuple.of(clusterId)).compose(rs -> {
      if (rs.size() == 0) {
        return Future.failedFuture(new IllegalStateException("cluster " + clusterId + " is gone"));
      }
      String tenant = rs.iterator().next().getString(0);
      return request(tenant, clusterId);
    }).compose(p -> vertx.executeBlocking(() -> stored(p.operators(), p.masterFiles(), generator.generate(p.request())),
            false))
        .compose(a -> PipelinedTransaction.run(pool, tx -> ClusterFileRepository.replaceGenerated(tx, clusterId,
            preparation, a.generator(), a.files())).map(v -> {
              LOG.atInfo().addKeyValue("cluster_id", clusterId).addKeyValue("generator", a.generator())
                  .addKeyValue("files", a.files().keySet()).log("installation files generated");
              return (String) null;
            }));
  }

  /** A generation's input, and the operators' manifests in it (stored with the files). */
  record Prepared(GenerationRequest request, OperatorManifests.Rendered operators, Map<String, String> masterFiles) {}

  /**
   * The generated files plus what upstream keeps beside them: the manifests the system added (listed as
   * {@code manifest_source: system}) and the controller's {@code custom_manifests.json}; {@code masterFiles} are added
   * to {@code master.ign} (the DHCP-leased VIPs' files).
   */
  static ClusterArtifacts stored(OperatorManifests.Rendered operators, Map<String, String> masterFiles, ClusterArtifacts a) {
    Map<String, byte[]> files = new LinkedHashMap<>(a.files());
    if (!masterFiles.isEmpty() && files.containsKey(ClusterArtifacts.MASTER)) {
      files.put(ClusterArtifacts.MASTER, DhcpVipFiles.addTo(files.get(ClusterArtifacts.MASTER), masterFiles));
    }
    for (OperatorManifests.File f : operators.files()) {
      files.put(ClusterArtifacts.systemManifest(f.folder(), f.fileName()), f.content().getBytes(StandardCharsets.UTF_8));
    }
    byte[] controller = operators.controllerFile();
    if (controller != null) {
      files.put(ClusterArtifacts.CONTROLLER_MANIFESTS, controller);
    }
    return new ClusterArtifacts(files, a.generator(), a.realPayload());
  }

  /**
   * The user's manifests and then the operators' (upstream writes its own after the user's, so a user file of the
   * same name is replaced).
   */
  static List<GenerationRequest.Manifest> withOperators(List<ManifestRepository.Manifest> user,
      OperatorManifests.Rendered operators) {
    Map<String, GenerationRequest.Manifest> byPath = new LinkedHashMap<>();
    for (ManifestRepository.Manifest m : user) {
      byPath.put(m.folder() + "/" + m.fileName(), new GenerationRequest.Manifest(m.folder(), m.fileName(), m.content()));
    }
    for (OperatorManifests.File f : operators.files()) {
      String key = f.folder() + "/" + f.fileName();
      byPath.remove(key);
      byPath.put(key, new GenerationRequest.Manifest(f.folder(), f.fileName(), f.content()));
    }
    return List.copyOf(byPath.values());
  }

  /** What the generator needs, read from the stored cluster, its hosts, pull secret and manifests. */
  Future<Prepared> request(String tenant, UUID clusterId) {
    Future<ClusterRow> cluster = ClusterRepository.get(pool, tenant, clusterId)
        .map(o -> o.orElseThrow(() -> new IllegalStateException("cluster " + clusterId + " is gone")));
    Future<String> secret = ClusterRepository.pullSecret(pool, tenant, clusterId).map(o -> o.orElse(""));
    Future<List<HostRepository.HostRow>> hosts = HostRepository.listByCluster(pool, tenant, clusterId,
        HostRepository.Documents.INVENTORY); // the connectivity reports are not an input of the install config
    Future<List<ManifestRepository.Manifest>> manifests = ManifestRepository.list(pool, clusterId);
    return Future.all(cluster, secret, hosts, manifests).map(v -> {
      ClusterRow c = cluster.result();
      InstallConfigInput in = InstallConfigInputs.of(c, hosts.result(), secret.result()).withMirrors(mirrors);
      String release = c.spec().getString("ocp_release_image",
          catalog.find(c.openshiftVersion()).map(ReleaseCatalog.Release::releaseImage).orElse(null));
      OperatorManifests.Rendered operators = withDiskEncryption(
          OperatorManifests.render(OperatorTargets.of(c, hosts.result())), c, hosts.result());
      return new Prepared(new GenerationRequest(clusterId, c.openshiftVersion(), release, in,
          InstallConfigRenderer.render(in), withOperators(manifests.result(), operators)), operators, DhcpVipFiles.of(c));
    });
  }

  /** The system's manifests with the disk encryption's MachineConfigs after the operators' (all upstream adds). */
  static OperatorManifests.Rendered withDiskEncryption(OperatorManifests.Rendered operators, ClusterRow c,
      List<HostRepository.HostRow> hosts) {
    io.vertx.core.json.JsonObject d = c.spec().getJsonObject("disk_encryption");
    if (d == null) {
      return operators;
    }
    boolean arbiters = hosts.stream().anyMatch(h -> "arbiter".equals(h.role()) || "arbiter".equals(h.suggestedRole()));
    List<OperatorManifests.File> encryption = DiskEncryptionManifests.render(new ClusterContext.DiskEncryption(
        d.getString("enable_on", "none"), d.getString("mode", "tpmv2"), d.getString("tang_servers")), arbiters);
    if (encryption.isEmpty()) {
      return operators;
    }
    List<OperatorManifests.File> files = new java.util.ArrayList<>(operators.files());
    files.addAll(encryption);
    return new OperatorManifests.Rendered(files, operators.postInstall());
  }

  private Future<Void> finished(UUID clusterId, Instant preparation, String failure) {
    if (failure != null) {
      LOG.atWarn().addKeyValue("cluster_id", clusterId).log("preparing the installation failed: " + failure);
    }
    BusEvent e = BusEvent.ofCluster(clusterId.toString(), new ClusterPreparationFinished(preparation.toString(),
        failure == null, failure, generator.name()));
    return bus.publish(Topics.CLUSTER_ACTIONS, e).onFailure(err -> LOG.atWarn().setCause(err)
        .addKeyValue("cluster_id", clusterId).log("preparation result not published; the monitor asks again"));
  }

  private static String reason(Throwable t) {
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
