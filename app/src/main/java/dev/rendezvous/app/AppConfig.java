package dev.rendezvous.app;

import dev.rendezvous.bus.BusConfig;
import dev.rendezvous.image.ImageConfig;
import dev.rendezvous.image.OsImage;
import dev.rendezvous.kube.ContainerImages;
import dev.rendezvous.service.ServiceConfig;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.domain.DomainConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The launcher's settings (its own plus each module's record), from flags ({@code --api-port=8090}) over environment ({@code RDV_API_PORT})
 * over defaults that run locally. External servers are used when their addresses are given.
 */
public record AppConfig(
    int apiPort,
    int imagePort,
    Path dataDir,
    String databaseUrl,
    String agentTokenSecret,
    boolean durable,
    java.time.Duration eventsRetention,
    int eventStreamMaxPending,
    Path agentJar,
    List<String> gatewayFlags,
    long pressureBacklogEvents,
    java.time.Duration pressureBehind,
    double pressureMaxStretch,
    java.time.Duration pressureHold,
    ImageConfig image,
    BusConfig bus,
    ServiceConfig service,
    Kube kube,
    AgentBased agentBased,
    dev.rendezvous.tls.TlsConfig tls) {

  /**
   * The agent-based installer's site service (set by the ISO's unit on the rendezvous host): the site's files to
   * register as a cluster and infra-env ({@code --agent-based-site=DIR}) and the admin token made with the ISO
   * ({@code --admin-token}, adopted as the default tenant's admin token). Both null otherwise.
   */
  public record AgentBased(Path siteDir, String adminToken) {
    public boolean enabled() {
      return siteDir != null;
    }
  }

  /**
   * The Kubernetes-native face: off unless given a hub ({@code --kubeconfig=PATH}, or {@code in-cluster} for a pod's
   * service account); {@code --kube-namespaces=a,b} limits the watched namespaces (default all).
   */
  public record Kube(String kubeconfig, List<String> namespaces, int workers) {
    public boolean enabled() {
      return kubeconfig != null && !kubeconfig.isBlank();
    }
  }

  public boolean embeddedDatabase() {
    return databaseUrl == null;
  }

  public static AppConfig from(List<String> args, Map<String, String> env) {
    Map<String, String> flags = new HashMap<>();
    for (String a : args) {
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + a + "' (flags look like --api-port=8090)");
      }
      int eq = a.indexOf('=');
      if (eq < 0) {
        flags.put(a.substring(2), "true");
      } else {
        flags.put(a.substring(2, eq), a.substring(eq + 1));
      }
    }
    Settings s = new Settings(flags, env);
    int apiPort = s.integer("api-port", 8090);
    int imagePort = s.integer("image-port", 8080);
    if (imagePort == apiPort && apiPort != 0) {
      // one Vert.x shares a port between its servers and takes turns: half the API's requests would reach the images'
      throw new IllegalArgumentException("image-port must differ from api-port (both " + apiPort + ")");
    }
    Path dataDir = Path.of(s.string("data-dir", "./data")).toAbsolutePath().normalize();
    String catalog = s.string("release-catalog", null);
    String auth = s.string("auth", "token");
    if (!auth.equals("token") && !auth.equals("none")) {
      throw new IllegalArgumentException("auth must be 'token' or 'none', got '" + auth + "'");
    }
    // The image service's catalog (RDV_OS_IMAGES / RDV_OS_IMAGES_FILE, upstream's OS_IMAGES format) is read by ImageConfig;
    // its metal_url/metal_sha256 entries are the OS disk images installs write.
    ImageConfig imageFlags = ImageConfig.from(args.toArray(String[]::new), env);
    String fromCatalog = s.string("os-images-from-catalog", null);
    if (fromCatalog != null) {
      if (!imageFlags.osImages().isEmpty()) {
        throw new IllegalArgumentException("give either --os-images(-file) or --os-images-from-catalog, not both");
      }
      imageFlags = new ImageConfig(imageFlags.host(), imageFlags.port(), imageFlags.dataDir(),
          osImagesFromCatalog(fromCatalog, catalog), imageFlags.baseUrl(), imageFlags.urlLifetime());
    }
    Map<String, DomainConfig.MetalImage> metal = new HashMap<>();
    for (OsImage i : imageFlags.osImages()) {
      if (i.metalUrl() != null && !i.metalUrl().isBlank()) {
        metal.put(DomainConfig.metalImageKey(i.openshiftVersion(), i.cpuArchitecture()),
            new DomainConfig.MetalImage(i.metalUrl(), i.metalSha256()));
      }
    }
    // TLS: --tls=auto makes its own CA and certificate, --tls-cert/--tls-key take the operator's; an https public
    // URL turns it on (auto unless files are given). Off otherwise: the local try-out on loopback.
    String givenPublicUrl = s.string("public-url", null);
    String tlsMode = s.string("tls", null);
    String tlsCert = s.string("tls-cert", null);
    String tlsKey = s.string("tls-key", null);
    String tlsCa = s.string("tls-ca", null);
    if (tlsMode == null) {
      tlsMode = tlsCert != null || tlsKey != null ? "files"
          : givenPublicUrl != null && givenPublicUrl.strip().startsWith("https://") ? "auto" : "off";
    }
    if (!List.of("off", "auto", "files").contains(tlsMode)) {
      throw new IllegalArgumentException("tls must be 'auto' (make a CA and certificate in the data directory), 'off', "
          + "or left out with --tls-cert and --tls-key; got '" + tlsMode + "'");
    }
    if (tlsMode.equals("auto") && (tlsCert != null || tlsKey != null)) {
      throw new IllegalArgumentException("tls=auto makes its own certificate: leave out tls-cert/tls-key, or --tls=auto");
    }
    if (tlsMode.equals("files") && (tlsCert == null || tlsKey == null)) {
      throw new IllegalArgumentException("tls-cert and tls-key go together: give both PEM files");
    }
    if (tlsCa != null && !tlsMode.equals("files")) {
      throw new IllegalArgumentException("tls-ca is the CA of --tls-cert (auto mode puts its own CA into images)");
    }
    String scheme = tlsMode.equals("off") ? "http" : "https";
    String publicUrl = givenPublicUrl != null ? givenPublicUrl : scheme + "://127.0.0.1:" + apiPort;
    String imagePublicUrl = s.string("image-public-url", null);
    if (imagePublicUrl == null) {
      // the image service beside the API: same scheme and host, its own port
      java.net.URI api = java.net.URI.create(publicUrl.strip());
      imagePublicUrl = scheme + "://" + (api.getHost() == null ? "127.0.0.1" : api.getHost()) + ":" + imagePort;
    }
    // the gateway holds agents' messages past this backlog; the brain fetches ahead of it (ServiceConfig.BrainSettings)
    int pressureBacklogEvents = s.integer("pressure-backlog-events", 2000);
    if (pressureBacklogEvents < 1) {
      throw new IllegalArgumentException("pressure-backlog-events must be 1 or more, got " + pressureBacklogEvents);
    }
    ServiceConfig service = new ServiceConfig(
        auth.equals("none"),
        s.integer("body-limit-bytes", 4 * 1024 * 1024),
        publicUrl,
        imagePublicUrl,
        catalog == null ? null : Path.of(catalog),
        new ServiceConfig.BrainSettings(
            java.time.Duration.ofMillis(s.integer("brain-monitor-interval-ms", 5000)),
            s.optionalInteger("hw-min-cpu-cores"),
            s.optionalLong("hw-min-ram-mib"),
            s.optionalLong("hw-min-disk-gb"),
            java.time.Duration.ofSeconds(s.integer("host-disconnection-timeout-seconds", 180)),
            commaList(s.string("disabled-host-validations", "")).stream().collect(java.util.stream.Collectors.toSet()),
            commaList(s.string("required-images", "")),
            s.integer("brain-batches-in-flight", 0),
            java.time.Duration.ofMillis(s.integer("brain-batch-max-wait-ms",
                (int) ServiceConfig.BrainSettings.DEFAULT_BATCH_MAX_WAIT.toMillis())),
            timeouts(s.string("timeouts", "")),
            agentUpgrade(s.string("agent-upgrade", "true"), s.string("agent-jar", DEFAULT_AGENT_JAR)),
            s.string("controller-image", defaultControllerImage(ContainerImages.DEFAULT_FILE)),
            pressureBacklogEvents),
        s.string("installer-binary", ""),
        metal,
        s.optionalLong("logs-body-limit-bytes") == null ? 0 : s.optionalLong("logs-body-limit-bytes"),
        mirrors(s.string("registries-conf", null), s.string("mirror-registry-ca", null)),
        new ServiceConfig.Ephemeral(uuid("infra-env-id", s.string("infra-env-id", null)),
            mac("bootstrap-host-mac", s.string("bootstrap-host-mac", null)),
            s.string("cluster-credentials-dir", null) == null ? null : Path.of(s.string("cluster-credentials-dir", null))));
    BusConfig bus = BusConfig.from(args.toArray(String[]::new), env);
    if (s.string("kafka-data-dir", null) == null) {
      bus = bus.withEmbeddedDataDir(dataDir.resolve("kafka"));
    }
    BusConfig.FLAGS.forEach(s.known::add);
    ImageConfig image = new ImageConfig(s.string("image-host", "0.0.0.0"), imagePort, dataDir, imageFlags.osImages(),
        service.imagePublicUrl(), imageFlags.urlLifetime());
    s.string("image-url-lifetime-seconds", null);
    s.string("os-images", null);
    s.string("os-images-file", null);
    // The gateway's own settings (--gateway-*, RDV_GATEWAY_*) are read by GatewayConfig.
    List<String> gatewayFlags = args.stream().filter(a -> a.startsWith("--gateway-")).toList();
    gatewayFlags.forEach(a -> s.known.add(a.substring(2, a.contains("=") ? a.indexOf('=') : a.length())));
    String durability = s.string("durability", "durable");
    if (!durability.equals("durable") && !durability.equals("relaxed")) {
      throw new IllegalArgumentException("durability must be 'durable' or 'relaxed' (throw-away benchmarks only), got '"
          + durability + "'");
    }
    AppConfig c = new AppConfig(apiPort, imagePort, dataDir, s.string("database-url", null),
        s.string("agent-token-secret", null), durability.equals("durable"),
        java.time.Duration.ofDays(nonNegative("events-retention-days", s.integer("events-retention-days", 90),
            "keep forever")),
        Math.max(1, s.integer("event-stream-max-pending", 1000)),
        Path.of(s.string("agent-jar", DEFAULT_AGENT_JAR)).toAbsolutePath().normalize(),
        gatewayFlags, pressureBacklogEvents,
        java.time.Duration.ofMillis(nonNegative("pressure-behind-ms", s.integer("pressure-behind-ms", 1000),
            "by the event count only")),
        s.integer("pressure-max-stretch", 8),
        java.time.Duration.ofMillis(nonNegative("pressure-hold-ms", s.integer("pressure-hold-ms", 5000),
            "never hold a reply")), image, bus, service,
        new Kube(s.string("kubeconfig", null), commaList(s.string("kube-namespaces", "")),
            Math.max(1, s.integer("kube-workers", 4))),
        new AgentBased(s.string("agent-based-site", null) == null ? null : Path.of(s.string("agent-based-site", null)),
            s.string("admin-token", null)),
        tls(tlsMode, tlsCert, tlsKey, tlsCa, dataDir, publicUrl, imagePublicUrl,
            java.time.Duration.ofMillis(s.integer("tls-reload-interval-ms", 5000))));
    s.rejectUnknown();
    return c;
  }

  private static dev.rendezvous.tls.TlsConfig tls(String mode, String cert, String key, String ca, Path dataDir,
      String publicUrl, String imagePublicUrl, java.time.Duration reload) {
    return switch (mode) {
      case "auto" -> new dev.rendezvous.tls.TlsConfig(dev.rendezvous.tls.TlsConfig.Mode.AUTO, null, null, null,
          dataDir.resolve("tls"), dev.rendezvous.tls.ServerCertificates.defaultNames(List.of(publicUrl, imagePublicUrl)),
          reload);
      case "files" -> new dev.rendezvous.tls.TlsConfig(dev.rendezvous.tls.TlsConfig.Mode.FILES, Path.of(cert),
          Path.of(key), ca == null ? null : Path.of(ca), null, List.of(), reload);
      default -> dev.rendezvous.tls.TlsConfig.OFF;
    };
  }

  private static java.util.UUID uuid(String name, String v) {
    if (v == null) {
      return null;
    }
    try {
      return java.util.UUID.fromString(v);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " must be a UUID, got '" + v + "'");
    }
  }

  private static String mac(String name, String v) {
    if (v != null && !v.matches("([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}")) {
      throw new IllegalArgumentException(name + " must be a MAC address, got '" + v + "'");
    }
    return v;
  }

  /** {@code zero}: what 0 means, named in the error. */
  private static int nonNegative(String name, int v, String zero) {
    if (v < 0) {
      throw new IllegalArgumentException(name + " must be 0 (" + zero + ") or more, got " + v);
    }
    return v;
  }

  /** Flag or RDV_ environment variable, remembering which flags were read so typos are refused. */
  /**
   * The base ISOs of the release catalog's entries named by {@code spec}: {@code all}, or a comma list of
   * {@code VERSION} or {@code VERSION/ARCH} (e.g. {@code 4.22/x86_64}). The image service downloads each at start,
   * about 1 GiB apiece, so name only what the sites will boot.
   */
  /** A disconnected site's mirrors: a registries.conf file and its registry's CA file (both read once, at start). */
  static dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors mirrors(String confFile, String caFile) {
    if (confFile == null) {
      if (caFile != null) {
        throw new IllegalArgumentException("mirror-registry-ca needs registries-conf (the mirrors it is the CA of)");
      }
      return null;
    }
    try {
      String ca = caFile == null ? null : java.nio.file.Files.readString(Path.of(caFile));
      if (ca != null && !ca.contains("-----BEGIN CERTIFICATE-----")) {
        throw new IllegalArgumentException("mirror-registry-ca: " + caFile + " holds no PEM certificate");
      }
      return dev.rendezvous.service.ignition.RegistriesConf.parse(java.nio.file.Files.readString(Path.of(confFile)), ca);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("registries-conf / mirror-registry-ca: cannot read: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("registries-conf " + confFile + ": " + e.getMessage());
    }
  }

  /**
   * {@code --timeouts} / {@code RDV_TIMEOUTS}: {@code name=duration,...} (names as {@code DomainTimeouts#byName},
   * durations as upstream's environment writes them: 90s, 30m, 1h30m); a bad one is refused naming it.
   */
  static java.util.Map<String, java.time.Duration> timeouts(String v) {
    java.util.Map<String, java.time.Duration> out = new java.util.LinkedHashMap<>();
    for (String item : commaList(v)) {
      int eq = item.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("timeouts: '" + item + "' is not name=duration");
      }
      String name = item.substring(0, eq).trim();
      try {
        out.put(name, dev.rendezvous.service.domain.DomainTimeouts.parse(item.substring(eq + 1)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("timeouts: " + name + ": " + e.getMessage());
      }
    }
    return out;
  }

  private static List<String> commaList(String v) {
    return java.util.Arrays.stream(v.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList();
  }

  static List<OsImage> osImagesFromCatalog(String spec, String catalogFile) {
    ReleaseCatalog catalog;
    try {
      catalog = catalogFile == null ? ReleaseCatalog.builtIn() : ReleaseCatalog.fromFile(Path.of(catalogFile));
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("release-catalog: cannot read " + catalogFile + ": " + e.getMessage());
    }
    List<OsImage> out = new java.util.ArrayList<>();
    for (String item : spec.split(",")) {
      String want = item.strip();
      String version = want.contains("/") ? want.substring(0, want.indexOf('/')) : want;
      String arch = want.contains("/") ? want.substring(want.indexOf('/') + 1) : null;
      int before = out.size();
      for (ReleaseCatalog.Release r : catalog.releases()) {
        if (!version.equals("all") && !r.openshiftVersion().equals(version)) {
          continue;
        }
        for (ReleaseCatalog.OsImage o : r.osImages()) {
          if (arch == null || arch.equals(o.cpuArchitecture())) {
            out.add(new OsImage(r.openshiftVersion(), o.cpuArchitecture(), o.url(), o.version(), null));
          }
        }
      }
      if (out.size() == before) {
        throw new IllegalArgumentException("os-images-from-catalog: the release catalog has no base ISO for '" + want + "'");
      }
    }
    return out;
  }

  private static final class Settings {
    private final Map<String, String> flags;
    private final Map<String, String> env;
    final java.util.Set<String> known = new java.util.HashSet<>();

    Settings(Map<String, String> flags, Map<String, String> env) {
      this.flags = flags;
      this.env = env;
    }

    String string(String name, String dflt) {
      known.add(name);
      String v = flags.get(name);
      if (v == null) {
        v = env.get("RDV_" + name.toUpperCase().replace('-', '_'));
      }
      return v == null || v.isEmpty() ? dflt : v;
    }

    int integer(String name, int dflt) {
      String v = string(name, null);
      if (v == null) {
        return dflt;
      }
      try {
        return Integer.parseInt(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " must be an integer, got '" + v + "'");
      }
    }

    Integer optionalInteger(String name) {
      return string(name, null) == null ? null : integer(name, 0);
    }

    Long optionalLong(String name) {
      String v = string(name, null);
      if (v == null) {
        return null;
      }
      try {
        return Long.parseLong(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " must be an integer, got '" + v + "'");
      }
    }

    void rejectUnknown() {
      for (String f : flags.keySet()) {
        if (!known.contains(f)) {
          throw new IllegalArgumentException("unknown flag --" + f);
        }
      }
    }
  }

  static final String DEFAULT_AGENT_JAR = "agent/target/rendezvous-agent.jar";

  /**
   * The controller image this build made, by digest, when the containers module built it (its images.txt, from where
   * {@code ./rendezvous} runs); else null, upstream's default. {@code --controller-image} / {@code RDV_CONTROLLER_IMAGE}
   * win over both (the hub Deployment sets the latter: the service's image holds no images.txt).
   */
  static String defaultControllerImage(java.nio.file.Path imagesTxt) {
    return ContainerImages.read(imagesTxt).byDigest(ContainerImages.CONTROLLER).orElse(null);
  }

  /**
   * The version hosts' agents are upgraded to: the one of the agent jar this service serves (read from it, so what is
   * asked for is what a host downloads); null when upgrades are off ({@code --agent-upgrade=false}) or there is no jar.
   */
  static String agentUpgrade(String enabled, String jar) {
    if (!enabled.equals("true") && !enabled.equals("false")) {
      throw new IllegalArgumentException("agent-upgrade must be true or false, got '" + enabled + "'");
    }
    Path p = Path.of(jar).toAbsolutePath().normalize();
    if (enabled.equals("false") || !java.nio.file.Files.isRegularFile(p)) {
      return null;
    }
    try (java.util.zip.ZipFile z = new java.util.zip.ZipFile(p.toFile())) {
      java.util.zip.ZipEntry e = z.getEntry(AGENT_VERSION_ENTRY);
      if (e == null) {
        throw new IllegalArgumentException("agent-jar " + p + " is no agent jar: it has no " + AGENT_VERSION_ENTRY);
      }
      try (java.io.InputStream in = z.getInputStream(e)) {
        return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
      }
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("agent-jar " + p + " cannot be read: " + e.getMessage());
    }
  }

  /** Where an agent jar says its version (the agent's AgentVersion.RESOURCE; app does not depend on the agent). */
  static final String AGENT_VERSION_ENTRY = "dev/rendezvous/agent/agent-version";
}
