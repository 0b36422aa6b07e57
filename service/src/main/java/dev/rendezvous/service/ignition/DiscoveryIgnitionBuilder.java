package dev.rendezvous.service.ignition;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.AgentLaunch;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.Mirror;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.Proxy;
import dev.rendezvous.service.ignition.NmStateKeyfiles.GeneratedFile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Renders an infra-env's discovery Ignition config (spec 3.1.0), after upstream's discovery
 * template: core user with the infra-env's SSH keys, pull secret, proxy, extra CA bundle, registry
 * mirrors, NTP sources, static network, the agent unit, then {@code ignition_config_override}
 * merged last.
 *
 * <p>The agent: upstream's unit pulls and runs a container image. Ours runs the Rendezvous agent
 * jar: {@code /usr/local/bin/rendezvous-agent} (written here) downloads the jar from the service
 * once into {@code /var/lib/rendezvous/}, then runs it with the host's {@code java}, or, on hosts
 * without Java (CoreOS live images have none), with podman in a JRE container image (host network,
 * PID namespace and root file system mounted, privileged, as upstream's agent container). The
 * agent gets {@code --url <service> --infra-env-id <id>} (plus {@code --cacert}/{@code --insecure});
 * its token comes from {@code /etc/rendezvous/agent.env} (mode 0600) as {@code PULL_SECRET_TOKEN}
 * (upstream's variable) and {@code RDV_AGENT_TOKEN}; proxy variables are in the unit's environment
 * (upper and lower case) so curl, podman and the agent honour them.
 */
public final class DiscoveryIgnitionBuilder {

  public static final String AGENT_ENV_FILE = "/etc/rendezvous/agent.env";
  public static final String AGENT_LAUNCHER = "/usr/local/bin/rendezvous-agent";
  /** Where upstream's discovery Ignition puts the service's CA, and its agent reads it ({@code --cacert}). */
  public static final String SERVICE_CA_PATH = "/etc/assisted-service/service-ca-cert.crt";
  public static final String AGENT_JAR_PATH = "/api/rendezvous/v1/agent/rendezvous-agent.jar";
  static final String TRUST_BUNDLE_PATH = "/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final Pattern URL = Pattern.compile("https?://[^\\s\"'\\\\$`;]+");
  private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._~+/=:-]+");
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.:-]{0,252})?");
  private static final Pattern IMAGE_REF = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:/@-]{0,254}");
  private static final Pattern IGNITION_VERSION = Pattern.compile("3\\.[0-3]\\.0");
  private static final Set<String> TOP_LEVEL = Set.of("ignition", "passwd", "storage", "systemd", "kernelArguments");
  private static final Pattern UNIT_NAME =
      Pattern.compile(".+\\.(service|socket|device|mount|automount|swap|target|path|timer|snapshot|slice|scope)");

  /** The config as JSON text. @throws InvalidIgnitionInputException naming the bad field */
  public String build(DiscoveryIgnitionInput in) {
    try {
      return JSON.writeValueAsString(buildTree(in));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The config as a Jackson tree. */
  public ObjectNode buildTree(DiscoveryIgnitionInput in) {
    String serviceUrl = url(in.serviceBaseUrl(), "service_base_url");
    if (!UUID.matcher(in.infraEnvId()).matches()) {
      throw new InvalidIgnitionInputException("infra_env_id", "must be a lowercase UUID");
    }
    if (!TOKEN.matcher(in.agentToken()).matches()) {
      throw new InvalidIgnitionInputException("agent_token", "contains characters a token cannot have");
    }
    ObjectNode override = parseOverride(in.ignitionConfigOverride());

    ObjectNode root = JSON.createObjectNode();
    ObjectNode ignition = root.putObject("ignition");
    ignition.put("version", "3.1.0");
    Proxy proxy = in.proxy() == null || in.proxy().isEmpty() ? null : proxy(in.proxy());
    if (proxy != null) {
      ObjectNode p = ignition.putObject("proxy");
      if (!DiscoveryIgnitionInput.blank(proxy.httpProxy())) {
        p.put("httpProxy", proxy.httpProxy());
      }
      // Ignition warns on a plain-HTTP proxy for HTTPS fetches ("insecure plaintext HTTP proxy"), so it
      // gets only an https:// one; our config has only data: URLs, and the host (agent, curl,
      // podman) gets the proxy from the unit environment and profile.d whatever its scheme.
      if (!DiscoveryIgnitionInput.blank(proxy.httpsProxy()) && proxy.httpsProxy().startsWith("https://")) {
        p.put("httpsProxy", proxy.httpsProxy());
      }
      if (!DiscoveryIgnitionInput.blank(proxy.noProxy())) {
        ArrayNode np = p.putArray("noProxy");
        Arrays.stream(proxy.noProxy().split(",")).filter(s -> !s.isBlank()).forEach(np::add);
      }
    }

    ObjectNode core = root.putObject("passwd").putArray("users").addObject();
    core.put("name", "core").put("passwordHash", "!");
    ArrayNode keys = core.putArray("sshAuthorizedKeys");
    sshKeys(in.sshAuthorizedKey()).forEach(keys::add);
    core.putArray("groups").add("sudo");

    ArrayNode files = root.putObject("storage").putArray("files");
    ArrayNode units = root.putObject("systemd").putArray("units");
    AgentLaunch agent = in.agent();

    // the agent
    StringBuilder env = new StringBuilder()
        .append("PULL_SECRET_TOKEN=").append(in.agentToken()).append('\n')
        .append("RDV_AGENT_TOKEN=").append(in.agentToken()).append('\n');
    file(files, AGENT_ENV_FILE, 0600, env.toString());
    file(files, AGENT_LAUNCHER, 0755, AgentUnit.launcherScript());
    if (agent.serviceCaCert() != null) {
      file(files, SERVICE_CA_PATH, 0644, pem(agent.serviceCaCert(), "service_ca_cert"));
    }
    String jarUrl = agent.jarUrl() != null ? url(agent.jarUrl(), "agent_jar_url") : serviceUrl + AGENT_JAR_PATH;
    if (!IMAGE_REF.matcher(agent.javaImage()).matches()) {
      throw new InvalidIgnitionInputException("agent_java_image", "is not an image reference");
    }
    unit(units, "agent.service", agent.enabled(),
        AgentUnit.unit(serviceUrl, in.infraEnvId(), jarUrl, agent, proxy));

    // pull secret (also what podman uses to pull the JRE image)
    if (!DiscoveryIgnitionInput.blank(in.pullSecret())) {
      try {
        if (!JSON.readTree(in.pullSecret()).isObject()) {
          throw new InvalidIgnitionInputException("pull_secret", "must be a JSON object");
        }
      } catch (JsonProcessingException e) {
        throw new InvalidIgnitionInputException("pull_secret", "is not valid JSON");
      }
      file(files, "/root/.docker/config.json", 0600, in.pullSecret());
    }
    if (!DiscoveryIgnitionInput.blank(in.additionalTrustBundle())) {
      file(files, TRUST_BUNDLE_PATH, 0644, pem(in.additionalTrustBundle(), "additional_trust_bundle"));
    }
    if (proxy != null) {
      file(files, "/etc/profile.d/proxy.sh", 0644, AgentUnit.proxyProfile(proxy));
    }
    if (in.registryMirrors() != null && !in.registryMirrors().mirrors().isEmpty()) {
      file(files, "/etc/containers/registries.conf", 0644, registriesConf(in.registryMirrors().mirrors()));
      if (!DiscoveryIgnitionInput.blank(in.registryMirrors().caBundle())) {
        file(files, "/etc/pki/ca-trust/source/anchors/domain.crt", 0644,
            pem(in.registryMirrors().caBundle(), "mirror_registries"));
      }
    }
    if (!in.ntpSources().isEmpty()) {
      StringBuilder sources = new StringBuilder();
      for (String s : in.ntpSources()) {
        if (s == null || !HOST.matcher(s.strip()).matches()) {
          throw new InvalidIgnitionInputException("additional_ntp_sources", "invalid NTP source '" + s + "'");
        }
        sources.append(s.strip()).append('\n');
      }
      file(files, "/etc/rendezvous/ntp-sources", 0644, sources.toString());
      file(files, "/usr/local/bin/add-ntp-sources.sh", 0755, AgentUnit.ntpScript());
      unit(units, "add-ntp-sources.service", true, AgentUnit.ntpUnit());
    }
    for (GeneratedFile f : NmStateKeyfiles.convert(in.staticNetworkConfig())) {
      file(files, f.path(), f.mode(), f.content());
    }
    if (!in.staticNetworkConfig().isEmpty()) {
      file(files, PreNetworkManagerConfig.SCRIPT_PATH, 0755, PreNetworkManagerConfig.script());
      unit(units, PreNetworkManagerConfig.UNIT_NAME, true, PreNetworkManagerConfig.unit());
    }
    file(files, "/etc/NetworkManager/conf.d/01-ipv6.conf", 0644,
        "[connection]\nipv6.dhcp-iaid=mac\nipv6.dhcp-duid=ll\n");
    file(files, "/etc/motd", 0644, "This is a host being discovered by Rendezvous for infra-env "
        + in.infraEnvId() + ".\nThe agent's log: journalctl -u agent.service\n");

    if (override != null) {
      String v = override.path("ignition").path("version").asText();
      IgnitionMerge.merge(root, override);
      // a later spec in the override is kept: its features may be in use
      ((ObjectNode) root.get("ignition")).put("version", v.compareTo("3.1.0") > 0 ? v : "3.1.0");
    }
    return root;
  }

  /** Splits upstream's comma-separated {@code additional_ntp_sources}. */
  public static List<String> splitNtpSources(String commaSeparated) {
    if (commaSeparated == null) {
      return List.of();
    }
    return Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  private static ObjectNode parseOverride(String text) {
    if (DiscoveryIgnitionInput.blank(text)) {
      return null;
    }
    String field = "ignition_config_override";
    JsonNode n;
    try {
      n = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new InvalidIgnitionInputException(field, "is not valid JSON: " + e.getOriginalMessage());
    }
    if (!(n instanceof ObjectNode o)) {
      throw new InvalidIgnitionInputException(field, "must be a JSON object");
    }
    String version = o.path("ignition").path("version").asText("");
    if (!IGNITION_VERSION.matcher(version).matches()) {
      throw new InvalidIgnitionInputException(field, "ignition.version must be 3.0.0 to 3.3.0, got '" + version + "'");
    }
    o.fieldNames().forEachRemaining(k -> {
      if (!TOP_LEVEL.contains(k)) {
        throw new InvalidIgnitionInputException(field, "unknown key '" + k + "'");
      }
    });
    for (String kind : List.of("files", "directories", "links")) {
      for (JsonNode f : o.path("storage").path(kind)) {
        String path = f.path("path").asText("");
        if (!path.startsWith("/")) {
          throw new InvalidIgnitionInputException(field, "storage." + kind + " path '" + path + "' is not absolute");
        }
      }
    }
    for (JsonNode u : o.path("systemd").path("units")) {
      if (!UNIT_NAME.matcher(u.path("name").asText("")).matches()) {
        throw new InvalidIgnitionInputException(field, "invalid systemd unit name '" + u.path("name").asText("") + "'");
      }
    }
    return o;
  }

  private static Proxy proxy(Proxy p) {
    for (String[] v : new String[][] {{p.httpProxy(), "http_proxy"}, {p.httpsProxy(), "https_proxy"}}) {
      if (!DiscoveryIgnitionInput.blank(v[0])) {
        url(v[0], "proxy");
      }
    }
    String noProxy = p.noProxy() == null ? null : p.noProxy().replace(" ", "");
    if (noProxy != null && !noProxy.isEmpty() && !noProxy.matches("[A-Za-z0-9.*:/_,-]+")) {
      throw new InvalidIgnitionInputException("proxy", "no_proxy holds characters a host list cannot have");
    }
    return new Proxy(p.httpProxy(), p.httpsProxy(), noProxy);
  }

  private static String url(String u, String field) {
    if (u == null || !URL.matcher(u).matches()) {
      throw new InvalidIgnitionInputException(field, "must be an http(s) URL without blanks, quotes or '$': " + u);
    }
    return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
  }

  private static List<String> sshKeys(String keys) {
    List<String> out = new ArrayList<>();
    if (keys == null) {
      return out;
    }
    for (String line : keys.split("\\R")) {
      String k = line.strip();
      if (k.isEmpty()) {
        continue;
      }
      if (!k.matches("(ssh-|ecdsa-|sk-)[A-Za-z0-9@._-]+ [A-Za-z0-9+/=]+( .*)?")) {
        throw new InvalidIgnitionInputException("ssh_authorized_key", "not an OpenSSH public key: '"
            + (k.length() > 40 ? k.substring(0, 40) + "..." : k) + "'");
      }
      out.add(k);
    }
    return out;
  }

  private static String pem(String pem, String field) {
    if (!pem.contains("-----BEGIN CERTIFICATE-----") || !pem.contains("-----END CERTIFICATE-----")) {
      throw new InvalidIgnitionInputException(field, "must hold PEM certificates");
    }
    return pem.endsWith("\n") ? pem : pem + "\n";
  }

  private static String registriesConf(List<Mirror> mirrors) {
    StringBuilder out = new StringBuilder("unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\n");
    for (Mirror m : mirrors) {
      if (m.source() == null || !IMAGE_REF.matcher(m.source()).matches() || m.mirrors().isEmpty()) {
        throw new InvalidIgnitionInputException("mirror_registries", "invalid mirror source " + m.source());
      }
      out.append("\n[[registry]]\n  prefix = \"\"\n  location = \"").append(m.source()).append("\"\n")
          .append("  mirror-by-digest-only = ").append(m.mirrorByDigestOnly()).append('\n');
      for (String to : m.mirrors()) {
        if (to == null || !IMAGE_REF.matcher(to).matches()) {
          throw new InvalidIgnitionInputException("mirror_registries", "invalid mirror location " + to);
        }
        out.append("\n  [[registry.mirror]]\n    location = \"").append(to).append("\"\n");
      }
    }
    return out.toString();
  }

  /** A file entry (owned by root, overwritten, its content a base64 data URL), as every file of this config is. */
  public static void file(ArrayNode files, String path, int mode, String content) {
    ObjectNode f = files.addObject();
    f.put("path", path).put("mode", mode).put("overwrite", true);
    f.putObject("user").put("name", "root");
    f.putObject("contents").put("source", "data:text/plain;charset=utf-8;base64,"
        + Base64.getEncoder().encodeToString(content.getBytes(StandardCharsets.UTF_8)));
  }

  private static void unit(ArrayNode units, String name, boolean enabled, String contents) {
    units.addObject().put("name", name).put("enabled", enabled).put("contents", contents);
  }
}
