package dev.rendezvous.app;

import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.bus.TopicSetup;
import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.observability.Observability;
import dev.rendezvous.observability.metrics.EventMetrics;
import dev.rendezvous.observability.metrics.FleetMetrics;
import dev.rendezvous.image.ImageServer;
import dev.rendezvous.image.IpxeScript;
import dev.rendezvous.gateway.ProgressCheck;
import dev.rendezvous.service.api.InfraEnvDownloads;
import dev.rendezvous.service.api.InstallFilesApi;
import dev.rendezvous.service.api.InstallReportsApi;
import dev.rendezvous.service.auth.AgentOrUserAuth;
import dev.rendezvous.service.install.BuiltInArtifactsGenerator;
import dev.rendezvous.service.install.ClusterArtifactsGenerator;
import dev.rendezvous.service.install.ClusterPreparation;
import dev.rendezvous.service.install.OpenshiftInstallGenerator;
import dev.rendezvous.service.api.RestApi;
import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.TokenStore;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.bus.EventRelay;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.consumers.BrainConsumer;
import dev.rendezvous.service.api.EventStreamApi;
import dev.rendezvous.service.feed.EventFeed;
import dev.rendezvous.service.feed.EventStream;
import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import dev.rendezvous.service.repo.InfraEnvRepository.InfraEnvRow;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServerOptions;
import dev.rendezvous.gateway.Gateway;
import dev.rendezvous.gateway.GatewayConfig;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import io.vertx.sqlclient.Pool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole system in one process: embedded (or external) PostgreSQL and Kafka, migrations, and
 * every verticle. {@link #close()} stops them in reverse order so nothing is left half-written.
 */
public final class Rendezvous implements AutoCloseable {
  /** The install stages, upstream's strings: the install metrics have a series for each from the start. */
  private static final List<String> STAGES = java.util.Arrays.stream(dev.rendezvous.service.domain.host.HostStage.values())
      .map(dev.rendezvous.service.domain.host.HostStage::wire).toList();

  private static final Logger LOG = LoggerFactory.getLogger(Rendezvous.class);
  /** This build's version (the jar manifest's; 0.1.0 when run from classes). */
  static final String VERSION = java.util.Objects.requireNonNullElse(
      Rendezvous.class.getPackage().getImplementationVersion(), "0.1.0");

  private final AppConfig config;
  private final EmbeddedPostgresServer postgres;
  private final EmbeddedKafka kafka;
  private final Vertx vertx;
  private final Pool pool;
  private final String kafkaBootstrap;
  private final Path adminTokenFile;
  private final long startupMillis;
  private final List<AutoCloseable> busClients;
  private final dev.rendezvous.service.brain.Brain brain;
  private volatile boolean closed;

  private Rendezvous(AppConfig config, EmbeddedPostgresServer postgres, EmbeddedKafka kafka, Vertx vertx, Pool pool,
      String kafkaBootstrap, Path adminTokenFile, long startupMillis, List<AutoCloseable> busClients,
      dev.rendezvous.service.brain.Brain brain) {
    this.busClients = busClients;
    this.brain = brain;
    this.config = config;
    this.postgres = postgres;
    this.kafka = kafka;
    this.vertx = vertx;
    this.pool = pool;
    this.kafkaBootstrap = kafkaBootstrap;
    this.adminTokenFile = adminTokenFile;
    this.startupMillis = startupMillis;
  }

  public static Rendezvous start(AppConfig c) throws Exception {
    return start(c, System.getenv());
  }

  /** {@code env} is what module configs read beside the flags (RDV_GATEWAY_*, ...). */
  public static Rendezvous start(AppConfig c, Map<String, String> env) throws Exception {
    StartupPhases phases = new StartupPhases(System::nanoTime);
    Files.createDirectories(c.dataDir());
    // The two servers start in parallel: together they are most of the start-up time.
    CompletableFuture<EmbeddedPostgresServer> pgStart = CompletableFuture.supplyAsync(() -> {
      try {
        return c.embeddedDatabase() ? EmbeddedPostgresServer.start(c.dataDir().resolve("postgres"), c.durable()) : null;
      } catch (Exception e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    });
    CompletableFuture<EmbeddedKafka> kafkaStart = CompletableFuture.supplyAsync(() -> {
      try {
        return c.bus().embedded() ? EmbeddedKafka.start(c.bus().embeddedDataDir(), c.durable()) : null;
      } catch (Exception e) {
        throw new IllegalStateException("could not start the embedded Kafka broker: " + e.getMessage(), e);
      }
    });
    EmbeddedPostgresServer pg = null;
    EmbeddedKafka kafka = null;
    Vertx vertx = null;
    // What start-up opened so far, closed newest first if a later step fails (a port in use, say).
    java.util.Deque<AutoCloseable> opened = new java.util.ArrayDeque<>();
    try {
      pg = pgStart.join();
      kafka = kafkaStart.join();
      phases.mark("embedded servers");
      String dbUrl = pg != null ? pg.connectionUri() : c.databaseUrl();
      String bootstrap = kafka != null ? kafka.bootstrapServers() : c.bus().bootstrapServers();
      TopicSetup.ensure(bootstrap, c.bus().partitions(), c.bus().replication(), c.bus().setupTimeout());
      phases.mark("topics");

      Observability observability = new Observability();
      vertx = observability.newVertx(new VertxOptions());
      // TLS for every server of this instance: one identity, re-read when its files change
      dev.rendezvous.tls.ServerTls tls = c.tls().enabled() ? dev.rendezvous.tls.ServerTls.start(c.tls()) : null;
      if (tls != null) {
        tls.watch(vertx);
        opened.push(tls);
      } else if (!isLoopback(c.service().publicUrl())) {
        LOG.atWarn().log("serving plain HTTP to " + c.service().publicUrl() + ": tokens, pull secrets and Ignition "
            + "travel in clear text; use an https:// public URL or --tls=auto");
      }
      Pool pool = Database.pool(vertx, dbUrl, 16, "api");
      List<String> applied = Migrations.apply(pool).await(60, TimeUnit.SECONDS);
      LOG.atDebug().addKeyValue("applied", applied).log("database migrated");
      phases.mark("migrations");

      TokenStore tokens = new TokenStore(pool);
      Path adminTokenFile = c.dataDir().resolve("admin-token");
      if (!c.service().authDisabled()) {
        if (c.agentBased().adminToken() != null) {
          // made with the site's ISO: agent wait-for and the site's users hold it already
          tokens.adopt(Tenant.DEFAULT, "admin (made with the agent-based ISO)", c.agentBased().adminToken(), true)
              .await(30, TimeUnit.SECONDS);
          writePrivate(adminTokenFile, c.agentBased().adminToken());
        }
        ensureAdminToken(tokens, adminTokenFile);
      }
      phases.mark("tokens");
      ReleaseCatalog catalog = c.service().releaseCatalog() == null ? ReleaseCatalog.builtIn()
          : ReleaseCatalog.fromFile(c.service().releaseCatalog());
      BusProducer producer = new BusProducer(bootstrap, "rdv-service");
      opened.push(producer);
      Vertx vx = vertx;
      String agentSecret = agentTokenSecret(c);
      InfraEnvDownloads downloads = new InfraEnvDownloads(pool, c.service().publicUrl(), agentSecret,
          (e, credential) -> IpxeScript.render(c.service().imagePublicUrl(), e.id().toString(),
              e.spec().getString("cpu_architecture"), e.spec().getString("openshift_version"), "api_key", credential,
              dev.rendezvous.service.api.DiscoveryInputs.appendedKernelArguments(e.spec())))
          .mirrors(c.service().mirrors())
          .serviceCa(tls == null ? () -> null : tls::caPem);
      // the brain's connections of its own: a thousand installers polling the API at once must not starve the units
      // that turn their reports into state (they once waited out "Timeout waiting for connection" for minutes)
      // 16: at 10,000 sites its units waited ~0.8 s for one of 8, while PostgreSQL itself was mostly idle
      Pool brainPool = Database.pool(vertx, dbUrl, 16, "brain");
      BrainConsumer brain = new BrainConsumer(vertx, brainPool, producer, bootstrap, c.service());
      opened.push(brain);
      phases.mark("brain");
      RestApi.BusPublisher publisher =
          (topic, event) -> Future.fromCompletionStage(producer.publish(topic, event), vx.getOrCreateContext()).mapEmpty();
      ClusterArtifactsGenerator generator = generator(c);
      brain.brain().preparations(new ClusterPreparation(vertx, pool, generator, catalog, publisher)
          .mirrors(c.service().mirrors()));
      UserAuth userAuth = new UserAuth(tokens, c.service().authDisabled());
      byte[] imageUrlSecret = agentSecret.getBytes(StandardCharsets.UTF_8);
      RestApi api = new RestApi(pool, catalog, userAuth, e -> isoUrl(c, e, imageUrlSecret, java.time.Instant.now()),
          c.service().bodyLimitBytes(), publisher, brain.brain())
          .pinInfraEnvId(c.service().ephemeral().infraEnvId())
          .bootArtifacts(e -> reclaimBootArtifacts(c, e, downloads.agentToken(e)))
          .installation(new InstallFilesApi(pool, brain.brain(), generator.name()).mirrors(c.service().mirrors()),
              new InstallReportsApi(pool, brain.brain(), publisher, c.service().logsBodyLimitBytes(),
                  Files.createDirectories(c.dataDir().resolve("uploads")).toString()),
              new AgentOrUserAuth(userAuth, agentSecret, pool))
          .catalog(new dev.rendezvous.service.api.CatalogApi(pool, catalog, c.service().domainConfig().hardware(),
              VERSION, List.of()));
      EventFeed feed = new EventFeed(vertx, pool);
      phases.mark("REST API");
      feed.start(200).await(30, TimeUnit.SECONDS);
      opened.push(feed::stop);
      phases.mark("event feed");
      api.eventStream(new EventStreamApi(vertx, feed, c.eventStreamMaxPending(), 15_000));
      io.micrometer.core.instrument.Gauge.builder("rdv.event.stream.readers", feed, EventFeed::readers)
          .description("Clients following the live event stream on this instance").register(observability.registry());
      io.micrometer.core.instrument.FunctionCounter.builder("rdv.event.stream.catch.ups", EventStream.OVERFLOWS,
          java.util.concurrent.atomic.AtomicLong::get)
          .description("Slow stream readers that were caught up from the table instead of held in memory")
          .register(observability.registry());
      EventMetrics eventMetrics = new EventMetrics(bootstrap, observability.registry(), STAGES);
      opened.push(eventMetrics);
      EventRelay relay = new EventRelay(vertx, pool, producer);
      relay.start(250);
      opened.push(relay::stop);
      new dev.rendezvous.service.repo.RetentionSweeper(pool, TopicSetup.RETENTION, c.eventsRetention())
          .start(vertx, java.time.Duration.ofHours(1));
      // Closed first to last: stop consuming, stop relaying, then flush the producer.
      List<AutoCloseable> busClients;
      GatewayConfig gatewayConfig = gatewayConfig(c, env);
      phases.mark("event metrics and relay");
      Gateway gateway = Gateway.start(vertx, gatewayConfig, e -> producer.publish(e), bootstrap, observability.registry())
          .await(60, TimeUnit.SECONDS);
      phases.mark("gateway");
      // back-pressure: while the brain is behind, agents (through the gateway) and re-pushes slow down
      BackPressure pressure = new BackPressure(brain::backlog, brain::handledCount, brain::behindSeconds,
          c.pressureBacklogEvents(), c.pressureBehind().toMillis() / 1000.0, c.pressureMaxStretch(),
          observability.registry());
      gateway.pacing(pressure);
      gateway.replyHoldMax(c.pressureHold());
      gateway.replyReleaseRate(pressure::releaseRate);
      io.micrometer.core.instrument.Gauge.builder("rdv.brain.behind", brain, BrainConsumer::behindSeconds)
          .baseUnit("seconds").description("How far the brain of this instance is behind the bus: the age of the "
              + "oldest event it has not handled").register(observability.registry());
      brain.brain().pacing(pressure);
      io.micrometer.core.instrument.Gauge.builder("rdv.brain.cache.hosts", brain.brain(),
          dev.rendezvous.service.brain.Brain::cachedHosts)
          .description("Hosts whose parsed state the brain of this instance keeps in memory").register(observability.registry());
      io.micrometer.core.instrument.FunctionCounter.builder("rdv.brain.host.evaluations", brain.brain(),
          dev.rendezvous.service.brain.Brain::hostEvaluations)
          .description("Host refreshes (all of a host's validations and its state machine) the brain of this instance ran")
          .register(observability.registry());
      io.micrometer.core.instrument.FunctionCounter.builder("rdv.brain.outputs.parsed.ahead", brain.brain(),
          dev.rendezvous.service.brain.Brain::outputsParsedAhead)
          .description("Step outputs (inventories, connectivity reports) the brain of this instance parsed off its "
              + "lanes, ahead of their units").register(observability.registry());
      io.micrometer.core.instrument.FunctionCounter.builder("rdv.brain.units", brain.brain(),
          dev.rendezvous.service.brain.Brain::committedUnits)
          .description("Units of work (one transaction each) the brain of this instance committed")
          .register(observability.registry());
      io.micrometer.core.instrument.FunctionCounter.builder("rdv.brain.unit.events", brain.brain(),
          dev.rendezvous.service.brain.Brain::committedUnitEvents)
          .description("Bus events handled in the units the brain of this instance committed (per unit: how they batch)")
          .register(observability.registry());
      io.micrometer.core.instrument.Gauge.builder("rdv.brain.parked.clusters", brain.brain(),
          dev.rendezvous.service.brain.Brain::parkedKeys)
          .description("Installed clusters the brain of this instance keeps out of memory until their rows change")
          .register(observability.registry());
      // tokens issued under a regenerated signing key are refused at the edge too, and a deleted infra-env's agents
      // answered 404 (other instances' changes within 10 s)
      // (the first read done before any agent is answered, so a restart forgets nothing)
      dev.rendezvous.service.auth.InfraEnvTokenStates.follow(vertx, pool, 10_000).await(60, TimeUnit.SECONDS);
      phases.mark("token states");
      gateway.tokenCheck(claims -> {
        if (dev.rendezvous.service.auth.InfraEnvTokenStates.isDeleted(claims.infraEnvId())) {
          return dev.rendezvous.gateway.TokenCheck.Verdict.INFRA_ENV_DELETED;
        }
        return dev.rendezvous.service.auth.InfraEnvTokenStates.isCurrent(claims.infraEnvId(), claims.generation())
            ? dev.rendezvous.gateway.TokenCheck.Verdict.CURRENT : dev.rendezvous.gateway.TokenCheck.Verdict.KEY_REGENERATED;
      });
      // a host the service does not have (deleted, never registered) gets upstream's 404 instead of empty steps
      gateway.hostCheck(new RegisteredHosts(pool));
      // a host registers with an infra-env the service has (an agent-based site's hosts may boot before it has it)
      gateway.infraEnvCheck(new KnownInfraEnvs(pool));
      // installer progress the state machine would refuse gets upstream's answer at the edge
      gateway.progressCheck((infraEnv, host, stage, info) -> brain.brain()
          .checkProgress(java.util.UUID.fromString(infraEnv), java.util.UUID.fromString(host), stage, info)
          .map(r -> r.map(x -> new ProgressCheck.Refusal(x.httpStatus(), x.message()))));
      opened.push(() -> gateway.close().await(10, TimeUnit.SECONDS));
      HttpServerOptions serverOptions = Gateway.serverOptions(new HttpServerOptions(), gatewayConfig);
      if (tls != null) {
        tls.apply(serverOptions);
      }
      String bs = bootstrap;
      vertx.deployVerticle(new ImageServer(c.image(), new InfraEnvImages(downloads, tokens, agentSecret,
          c.service().authDisabled())).downloads(FleetMetrics.imageDownloads(observability.registry())::downloaded)
          .serverOptions(tls == null ? new HttpServerOptions() : tls.apply(new HttpServerOptions())))
          .await(60, TimeUnit.SECONDS);
      phases.mark("image server");
      FleetMetrics fleetMetrics = new FleetMetrics(vertx, pool, bootstrap, observability.registry(),
          List.of(dev.rendezvous.service.consumers.BrainConsumer.GROUP, EventMetrics.GROUP), new FleetMetrics.Statuses(
              java.util.Arrays.stream(dev.rendezvous.service.domain.cluster.ClusterStatus.values()).map(x -> x.wire()).toList(),
              java.util.Arrays.stream(dev.rendezvous.service.domain.host.HostStatus.values()).map(x -> x.wire()).toList(),
              STAGES));
      fleetMetrics.start(java.time.Duration.ofSeconds(15));
      FleetMetrics.busConsumer(observability.registry(), BrainConsumer.GROUP, brain.busConsumer());
      FleetMetrics.busConsumer(observability.registry(), EventMetrics.GROUP, eventMetrics.busConsumer());
      opened.push(fleetMetrics);
      phases.mark("fleet metrics");
      // closed first to last, before the servers stop: metrics readers, consumers, the event feed and the relay (their
      // polls of a pool closing under them logged a WARN each), the gateway, the producer
      busClients = List.of(fleetMetrics, eventMetrics, brain, feed::stop, relay::stop,
          () -> gateway.close().await(10, TimeUnit.SECONDS), producer);
      String fleetPage = ApiVerticle.FLEET_PAGE; // loads the class (and the page) here, off the event loops
      LOG.atDebug().addKeyValue("bytes", fleetPage.length()).log("fleet page loaded");
      dev.rendezvous.ui.UiBundle uiBundle = dev.rendezvous.ui.UiBundle.load(); // a few MB, read here, off the event loops
      if (uiBundle.missingReason() != null) {
        LOG.atWarn().log("web UI not in this build, / explains how to get it: " + uiBundle.missingReason());
      }
      dev.rendezvous.ui.UiRoutes ui = new dev.rendezvous.ui.UiRoutes(uiBundle, !c.service().authDisabled(), VERSION);
      phases.mark("pages");
      String apiDeployment = vertx.deployVerticle(() -> new ApiVerticle(c.apiPort(), api, gateway::mount, downloads::mount, serverOptions, pool,
              bs, observability, c.agentJar(), ui),
              new DeploymentOptions().setInstances(Math.max(1, Runtime.getRuntime().availableProcessors())))
          .await(30, TimeUnit.SECONDS);
      phases.mark("API servers");
      // the supervisor is stopped before anything else closes: its timer must not reach a closed worker pool
      List<AutoCloseable> closing = new java.util.ArrayList<>();
      if (pg != null) {
        closing.add(superviseEmbeddedPostgres(vertx, pg));
      }
      // this process's own clients of the API (the site registration, the kube face): on loopback (a certificate made
      // here names localhost), or at the public URL, which the operator's certificate names, trusting the CA
      String selfUrl = tls == null ? "http://127.0.0.1:" + c.apiPort()
          : c.tls().mode() == dev.rendezvous.tls.TlsConfig.Mode.AUTO ? "https://localhost:" + c.apiPort()
          : c.service().publicUrl().replaceAll("/+$", "");
      javax.net.ssl.SSLContext selfTls = tls == null ? null : dev.rendezvous.tls.ClientTrust.trusting(tls.caPem());
      if (c.agentBased().enabled()) {
        // the agent-based site: its cluster and infra-env registered from the ISO's files, the install started once
        // every expected host is there (a client of the API like upstream's units; closed first)
        closing.add(dev.rendezvous.agentbased.site.SiteRegistration.start(c.agentBased().siteDir(),
            selfUrl + dev.rendezvous.service.api.ApiViews.BASE,
            c.service().authDisabled() ? null : Files.readString(adminTokenFile).strip(), selfTls));
      }
      if (c.kube().enabled()) {
        // the kube face talks to the API like any client, with a token of its own; closed first (it calls the API)
        String kubeToken = c.service().authDisabled() ? null : ensureToken(tokens, c.dataDir().resolve("kube-token"),
            "kube face (custom resources)");
        closing.add(dev.rendezvous.kube.KubeFace.start(new dev.rendezvous.kube.KubeConfig(c.kube().kubeconfig(),
            c.kube().namespaces(), selfUrl + dev.rendezvous.service.api.ApiViews.BASE, kubeToken,
            c.kube().workers(), Duration.ofSeconds(10), selfTls), bootstrap));
      }
      // after its own clients, before the bus clients: no request may meet a closed producer (ApiVerticle#stop)
      Vertx apiVertx = vertx;
      closing.add(() -> apiVertx.undeploy(apiDeployment).await(10, TimeUnit.SECONDS));
      closing.addAll(busClients);
      phases.mark("site and kube faces");
      long millis = phases.elapsedMillis();
      LOG.atInfo().addKeyValue("startup_ms", millis).addKeyValue("api_port", c.apiPort())
          .addKeyValue("startup_phases", phases.summary()).log("rendezvous started");
      return new Rendezvous(c, pg, kafka, vertx, pool, bootstrap, adminTokenFile, millis, closing, brain.brain());
    } catch (Exception | Error e) {
      for (AutoCloseable o : opened) {
        try {
          o.close();
        } catch (Exception suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      if (vertx != null) {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
      if (kafka != null) {
        kafka.close();
      }
      if (pg != null) {
        pg.close();
      }
      throw e;
    }
  }

  private static boolean isLoopback(String url) {
    String host = java.net.URI.create(url.strip()).getHost();
    return host == null || host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]");
  }

  /**
   * What makes the installation files: openshift-install when configured (a path, or {@code extract} from each
   * release image with oc), else the built-in generator, which says plainly that its files are no real payload.
   */
  static ClusterArtifactsGenerator generator(AppConfig c) {
    String bin = c.service().installerBinary();
    if (bin.isEmpty()) {
      return new BuiltInArtifactsGenerator(c.service().ephemeral().clusterCredentialsDir());
    }
    Path work = c.dataDir().resolve("openshift-install");
    OpenshiftInstallGenerator.BinaryResolver resolver = bin.equals("extract")
        ? OpenshiftInstallGenerator.extractWithOc(work.resolve("bin"), Duration.ofMinutes(10))
        : OpenshiftInstallGenerator.path(Path.of(bin));
    return new OpenshiftInstallGenerator(resolver, work.resolve("work"), Duration.ofMinutes(20));
  }

  /**
   * The HMAC key of agent tokens: given, or made once and kept in the data directory, because every
   * token already baked into an ISO must keep verifying across restarts.
   */
  static String agentTokenSecret(AppConfig c) throws IOException {
    if (c.agentTokenSecret() != null) {
      return c.agentTokenSecret();
    }
    Path file = c.dataDir().resolve("agent-token-secret");
    if (!Files.exists(file)) {
      writePrivate(file, TokenStore.newToken());
    }
    return Files.readString(file, StandardCharsets.UTF_8).strip();
  }

  private static GatewayConfig gatewayConfig(AppConfig c, Map<String, String> env) throws IOException {
    Map<String, String> withSecret = new HashMap<>(env);
    withSecret.put("RDV_AGENT_TOKEN_SECRET", agentTokenSecret(c));
    return GatewayConfig.fromSources(withSecret, c.gatewayFlags().toArray(String[]::new));
  }

  /**
   * The ISO's download URL (upstream's presigned download_url): its {@code api_key} is an image token for this
   * infra-env and its signing-key generation, valid for the configured lifetime (4 h by default). Each call signs a
   * new one, so every GET of the infra-env or of downloads/image-url hands out a fresh URL, as upstream's do.
   */
  static dev.rendezvous.service.api.ApiViews.DownloadUrl isoUrl(AppConfig c, InfraEnvRow e, byte[] secret,
      java.time.Instant now) {
    java.time.Duration lifetime = c.image().urlLifetime();
    java.time.Instant exp = lifetime.isZero() ? null : now.plus(lifetime).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    String token = dev.rendezvous.image.ImageUrlTokens.issue(secret, e.id(), e.signingKeyGeneration(),
        exp == null ? 0 : exp.getEpochSecond());
    String url = c.service().imagePublicUrl() + "/images/" + e.id() + "?api_key=" + token
        + "&arch=" + e.spec().getString("cpu_architecture")
        + "&type=" + e.spec().getString("image_type") + "&version=" + e.spec().getString("openshift_version");
    return new dev.rendezvous.service.api.ApiViews.DownloadUrl(url, exp);
  }

  /**
   * What a reclaimed host of {@code e} downloads to boot into discovery (upstream's boot-artifact URLs): the base
   * image's kernel and rootfs for the infra-env's version and architecture, and its own PXE initrd (the discovery
   * Ignition inside) signed with its agent token, valid until its signing key is regenerated.
   */
  static String reclaimBootArtifacts(AppConfig c, InfraEnvRow e, String agentToken) {
    String query = "?arch=" + enc(e.spec().getString("cpu_architecture")) + "&version="
        + enc(e.spec().getString("openshift_version"));
    String base = c.service().imagePublicUrl();
    return dev.rendezvous.service.domain.planning.NextStepPlanner.bootArtifactsRequest(
        base + "/boot-artifacts/kernel" + query, base + "/boot-artifacts/rootfs" + query,
        base + "/images/" + e.id() + "/pxe-initrd" + query + "&api_key=" + enc(agentToken));
  }

  private static String enc(String v) {
    return java.net.URLEncoder.encode(v == null ? "" : v, StandardCharsets.UTF_8);
  }

  /** First start creates an admin token for the default tenant and keeps it in the data directory (0600). */
  private static void ensureAdminToken(TokenStore tokens, Path file) throws Exception {
    ensureToken(tokens, file, "admin (created at first start)");
  }

  /** An admin token of the default tenant kept in {@code file} (0600), made when missing or revoked. */
  private static String ensureToken(TokenStore tokens, Path file, String name) throws Exception {
    if (Files.exists(file)) {
      String existing = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (tokens.lookup(existing).await(30, TimeUnit.SECONDS).isPresent()) {
        return existing;
      }
    }
    String token = tokens.create(Tenant.DEFAULT, name, true).await(30, TimeUnit.SECONDS);
    writePrivate(file, token);
    return token;
  }

  /** Writes a secret readable only by its owner, atomically. */
  private static void writePrivate(Path file, String secret) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(tmp, secret + "\n", StandardCharsets.UTF_8);
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  public AppConfig config() {
    return config;
  }

  public Vertx vertx() {
    return vertx;
  }

  public Pool pool() {
    return pool;
  }

  /**
   * The embedded PostgreSQL is our child: if it dies (killed, crashed) it is started again on the same port within
   * about a second, and the pool reconnects. Meanwhile requests that need it are answered 503 with Retry-After.
   */
  private static AutoCloseable superviseEmbeddedPostgres(Vertx vertx, EmbeddedPostgresServer pg) {
    java.util.concurrent.atomic.AtomicBoolean checking = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
    long timer = vertx.setPeriodic(1000, id -> {
      if (stopped.get() || !checking.compareAndSet(false, true)) {
        return;
      }
      vertx.executeBlocking(pg::restartIfDead, false).onComplete(ar -> {
        checking.set(false);
        if (ar.failed() && !stopped.get()) {
          LOG.atWarn().log("restarting the embedded PostgreSQL failed (retried in a second): " + ar.cause());
        }
      });
    });
    return () -> {
      // a tick already queued on the event loop sees the flag; later ones are cancelled
      stopped.set(true);
      vertx.cancelTimer(timer);
    };
  }

  /** The embedded PostgreSQL, when this system runs one (fault tests kill it). */
  public java.util.Optional<EmbeddedPostgresServer> embeddedPostgres() {
    return java.util.Optional.ofNullable(postgres);
  }

  public String kafkaBootstrap() {
    return kafkaBootstrap;
  }

  /** Issues the agent token of an infra-env (what its discovery Ignition carries). */
  public String agentToken(String infraEnvId, String clusterIdOrNull) throws IOException {
    return AgentTokens.issue(agentTokenSecret(config), infraEnvId, clusterIdOrNull);
  }

  /** The brain of this instance (benchmarks listen to its commits). */
  public dev.rendezvous.service.brain.Brain brain() {
    return brain;
  }

  public Path adminTokenFile() {
    return adminTokenFile;
  }

  public long startupMillis() {
    return startupMillis;
  }

  /**
   * For a main whose JVM shutdown hook {@link #close()}s this system: the embedded broker is then stopped there, after
   * its clients, and not by its own hook at the same time (see {@link EmbeddedKafka#shutdownByCaller()}).
   */
  public void closedByShutdownHook() {
    if (kafka != null) {
      kafka.shutdownByCaller();
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (AutoCloseable c : busClients) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.atWarn().setCause(e).log("bus client did not close cleanly");
      }
    }
    try {
      // Undeploying verticles first lets consumers commit and servers stop taking requests.
      vertx.close().await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.atWarn().setCause(e).log("vert.x did not close cleanly");
    }
    if (kafka != null) {
      kafka.close();
    }
    if (postgres != null) {
      postgres.close();
    }
    LOG.atInfo().log("rendezvous stopped");
  }
}
