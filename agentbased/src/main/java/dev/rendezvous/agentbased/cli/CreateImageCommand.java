package dev.rendezvous.agentbased.cli;

import dev.rendezvous.agentbased.config.SiteConfig;
import dev.rendezvous.agentbased.config.SiteConfigException;
import dev.rendezvous.agentbased.config.SitePlan;
import dev.rendezvous.agentbased.image.AgentIgnition;
import dev.rendezvous.agentbased.image.AgentIso;
import dev.rendezvous.agentbased.image.RuntimeBundle;
import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.service.auth.TokenStore;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput;
import dev.rendezvous.service.install.ClusterCredentials;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@code agent create image --dir DIR}: the two files checked, then {@code DIR/agent.x86_64.iso},
 * {@code DIR/auth/kubeconfig}, {@code DIR/auth/kubeadmin-password} and {@code DIR/auth/rendezvous-admin-token} (what
 * {@code agent wait-for} and a user's curl authenticate with against the site's Rendezvous). Nothing is written
 * unless the files are valid and the ISO could be made. The two files stay where they are (openshift-install
 * consumes them; keeping them lets wait-for read them).
 */
final class CreateImageCommand {
  static final String ISO_NAME = "agent.x86_64.iso";
  static final String ADMIN_TOKEN = "auth/rendezvous-admin-token";

  private final PrintStream out;
  private final PrintStream err;

  CreateImageCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  int run(Flags f) throws IOException {
    Path dir = f.dir();
    // --os-images-from-catalog=VERSION[/x86_64], as ./rendezvous run takes it: the catalog's live ISO of that release
    String fromCatalog = f.value("os-images-from-catalog", null);
    if (fromCatalog != null && (f.value("base-iso", null) != null
        || fromCatalog.contains("/") && !fromCatalog.endsWith("/x86_64"))) {
      err.println("error: --os-images-from-catalog: give VERSION or VERSION/x86_64 (this ISO is x86_64), and not"
          + " with --base-iso");
      return 2;
    }
    String version = fromCatalog != null ? fromCatalog.replace("/x86_64", "")
        : f.value("openshift-version", ReleaseCatalog.builtIn().defaultRelease().openshiftVersion());
    if (ReleaseCatalog.builtIn().find(version).isEmpty()) {
      err.println("error: --openshift-version: '" + version + "' is not in the release catalog");
      return 2;
    }
    SitePlan plan;
    try {
      plan = SitePlan.of(SiteConfig.read(dir), version);
    } catch (SiteConfigException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
    for (String ignored : plan.ignoredFields()) {
      err.println("warning: " + ignored + " (not read by Rendezvous)");
    }
    String xorriso = AgentIso.xorrisoProblem();
    if (xorriso != null) {
      err.println("error: making the ISO needs xorriso: " + xorriso);
      return 1;
    }
    Path base = baseIso(f, version);
    if (base == null) {
      return 1;
    }

    // made here, before any host exists: the site's service is started with them (upstream's ephemeral installer)
    String infraEnvId = UUID.randomUUID().toString();
    String agentTokenSecret = TokenStore.newToken();
    String adminToken = TokenStore.newToken();
    // generation 0: a new infra-env's signing key generation, which the service checks tokens against
    String agentToken = AgentTokens.issue(agentTokenSecret, infraEnvId, null, 0, Instant.now());
    ClusterCredentials credentials = ClusterCredentials.generate(plan.clusterName());

    JsonObject spec = new JsonObject(plan.infraEnvParams(null).toString());
    String pullSecret = (String) spec.remove("pull_secret");
    Map<String, String> siteFiles = new LinkedHashMap<>();
    siteFiles.put("install-config.yaml", Files.readString(dir.resolve("install-config.yaml")));
    siteFiles.put("agent-config.yaml", Files.readString(dir.resolve("agent-config.yaml")));
    siteFiles.put("openshift-version", version + "\n");
    byte[] ignition = AgentIgnition.build(new AgentIgnition.Inputs(spec, pullSecret, plan.rendezvousIp(), infraEnvId,
        agentToken, agentTokenSecret, adminToken, credentials.files(), siteFiles, f.value("service-args", ""),
        mirrors(plan)));

    Path work = Files.createTempDirectory(dir, ".rendezvous-work-");
    try {
      Path runtime = work.resolve("rendezvous");
      out.println("making the site's runtime (jlink, once per JDK) and copying Rendezvous into it...");
      RuntimeBundle.write(runtime, classPath(f), agentJar(f), cacheDir().resolve("runtime"));
      long added = RuntimeBundle.size(runtime);
      Path iso = dir.resolve(ISO_NAME);
      Path part = work.resolve(ISO_NAME);
      out.println("writing the ISO (xorriso)...");
      AgentIso.write(base, runtime, ignition, part);
      // the ISO holds the site's secrets (pull secret, tokens, the admin client key): its owner's only
      Files.setPosixFilePermissions(part, PosixFilePermissions.fromString("rw-------"));
      // the credentials first: an ISO whose kubeconfig exists nowhere else must never be left behind
      Path auth = dir.resolve("auth");
      if (!Files.isDirectory(auth)) {
        Files.createDirectory(auth, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      }
      String server = "https://api." + plan.clusterName() + "." + plan.baseDomain() + ":6443";
      writePrivate(auth.resolve("kubeconfig"), credentials.kubeconfig(plan.clusterName(), server));
      writePrivate(auth.resolve("kubeadmin-password"), credentials.kubeadminPassword());
      writePrivate(dir.resolve(ADMIN_TOKEN), adminToken + "\n");
      Files.move(part, iso, StandardCopyOption.REPLACE_EXISTING);
      out.printf("wrote %s (%d MiB; the site's runtime adds %d MiB), auth/kubeconfig, auth/kubeadmin-password and %s%n",
          iso, Files.size(iso) >> 20, added >> 20, ADMIN_TOKEN);
      out.printf("boot every host of %s from it; the host holding %s runs Rendezvous at %s%n", plan.clusterName(),
          plan.rendezvousIp(), AgentIgnition.serviceUrl(plan.rendezvousIp()));
      out.printf("follow the installation: ./rendezvous agent wait-for install-complete --dir %s%n", dir);
      return 0;
    } finally {
      RuntimeBundle.deleteTree(work);
    }
  }

  /** The base live ISO: --base-iso, or the release catalog's RHCOS live ISO for the version (downloaded once). */
  private Path baseIso(Flags f, String version) throws IOException {
    String given = f.value("base-iso", null);
    if (given != null) {
      Path p = Path.of(given);
      if (!Files.isRegularFile(p)) {
        err.println("error: --base-iso: " + p + " is not a file");
        return null;
      }
      return p;
    }
    ReleaseCatalog.Release release = ReleaseCatalog.builtIn().find(version).orElseThrow();
    String url = release.osImages().stream().filter(o -> "x86_64".equals(o.cpuArchitecture())).findFirst()
        .map(ReleaseCatalog.OsImage::url).orElse(null);
    if (url == null) {
      err.println("error: the release catalog has no x86_64 live ISO for " + version + "; give --base-iso=PATH");
      return null;
    }
    Path cached = cacheDir().resolve("isos").resolve(url.substring(url.lastIndexOf('/') + 1));
    if (!Files.isRegularFile(cached)) {
      out.println("downloading the base live ISO " + url + " (once, about 1 GiB)...");
      Files.createDirectories(cached.getParent());
      Path tmp = cached.resolveSibling(cached.getFileName() + ".part");
      try {
        var client = java.net.http.HttpClient.newBuilder().followRedirects(java.net.http.HttpClient.Redirect.NORMAL).build();
        var resp = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).build(),
            java.net.http.HttpResponse.BodyHandlers.ofFile(tmp));
        if (resp.statusCode() != 200) {
          err.println("error: downloading " + url + " answered " + resp.statusCode() + "; give --base-iso=PATH");
          return null;
        }
      } catch (IOException e) {
        err.println("error: cannot download " + url + " (" + e.getMessage() + "); give --base-iso=PATH");
        return null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        err.println("error: interrupted while downloading " + url);
        return null;
      }
      Files.move(tmp, cached, StandardCopyOption.REPLACE_EXISTING);
    }
    return cached;
  }

  private static DiscoveryIgnitionInput.RegistryMirrors mirrors(SitePlan plan) {
    List<DiscoveryIgnitionInput.Mirror> list = new ArrayList<>();
    for (SitePlan.Mirror m : plan.mirrors()) {
      list.add(new DiscoveryIgnitionInput.Mirror(m.source(), m.mirrors(), true));
    }
    return list.isEmpty() ? null : new DiscoveryIgnitionInput.RegistryMirrors(list, plan.additionalTrustBundle());
  }

  /** What runs Rendezvous: --runtime-classpath, else this JVM's own class path (the launcher's). */
  private static List<Path> classPath(Flags f) {
    String cp = f.value("runtime-classpath", System.getProperty("java.class.path"));
    List<Path> out = new ArrayList<>();
    for (String e : cp.split(java.io.File.pathSeparator)) {
      if (!e.isBlank()) {
        out.add(Path.of(e));
      }
    }
    return out;
  }

  private static Path agentJar(Flags f) {
    String home = System.getProperty("rdv.home", ".");
    return Path.of(f.value("agent-jar", Path.of(home, "agent/target/rendezvous-agent.jar").toString()));
  }

  static Path cacheDir() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("rendezvous");
  }

  /** A secret readable by its owner only from the moment it exists, replaced whole. */
  private static void writePrivate(Path p, String content) throws IOException {
    Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(tmp, content, StandardCharsets.UTF_8);
    Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
