package dev.rendezvous.agentbased.config;

import static dev.rendezvous.agentbased.config.YamlDoc.child;
import static dev.rendezvous.agentbased.config.YamlDoc.index;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.rendezvous.agentbased.config.AgentConfig.Host;
import dev.rendezvous.agentbased.config.AgentConfig.Interface;
import dev.rendezvous.service.validation.Names;
import dev.rendezvous.service.validation.Net;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Reads and checks agent-config.yaml on its own; the rules that need install-config too are in {@link SiteConfig}. */
public final class AgentConfigParser {
  private static final Set<String> TOP = Set.of("apiVersion", "kind", "metadata", "rendezvousIP",
      "bootArtifactsBaseURL", "additionalNTPSources", "hosts");
  private static final Set<String> HOST = Set.of("hostname", "role", "interfaces", "rootDeviceHints", "networkConfig");
  private static final Set<String> HINTS = Set.of("deviceName", "hctl", "model", "vendor", "serialNumber",
      "minSizeGigabytes", "wwn", "wwnWithExtension", "wwnVendorExtension", "rotational");
  /** Quoted strings, so that a MAC address or a version-like value is read back as text by any YAML reader. */
  private static final ObjectMapper YAML_OUT = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));

  private AgentConfigParser() {}

  /** Parses and checks agent-config.yaml text. */
  public static AgentConfig parse(String yaml) throws SiteConfigException {
    YamlDoc doc = new YamlDoc(AgentConfig.FILE);
    return parse(doc, doc.parse(yaml));
  }

  static AgentConfig parse(YamlDoc doc, ObjectNode root) throws SiteConfigException {
    List<String> ignored = new ArrayList<>();
    YamlDoc.unread(root, "", TOP, ignored);
    String apiVersion = doc.text(root, "apiVersion", "");
    if (apiVersion == null || apiVersion.isBlank()) {
      throw doc.error("apiVersion", "is required (v1beta1)");
    }
    if (!apiVersion.strip().equals("v1beta1") && !apiVersion.strip().equals("v1alpha1")) {
      throw doc.error("apiVersion", "must be v1beta1, not '" + apiVersion + "'");
    }
    String kind = doc.text(root, "kind", "");
    if (kind != null && !kind.isBlank() && !kind.strip().equals("AgentConfig")) {
      throw doc.error("kind", "must be AgentConfig, not '" + kind + "'");
    }
    JsonNode metadata = doc.object(root, "metadata", "");
    YamlDoc.unread(metadata, "metadata", Set.of("name"), ignored);
    String rendezvousIP = InstallConfigParser.blankToNull(doc.text(root, "rendezvousIP", ""));
    if (rendezvousIP != null) {
      rendezvousIP = rendezvousIP.strip();
      if (!Net.isIp(rendezvousIP)) {
        throw doc.error("rendezvousIP", "'" + rendezvousIP + "' is not an IP address");
      }
    }
    String bootArtifacts = InstallConfigParser.blankToNull(doc.text(root, "bootArtifactsBaseURL", ""));
    if (bootArtifacts != null) {
      ignored.add("bootArtifactsBaseURL"); // PXE artifacts are not made here
    }
    List<String> ntp = doc.strings(root, "additionalNTPSources", "");
    for (int i = 0; i < ntp.size(); i++) {
      if (!Net.isIp(ntp.get(i)) && Names.hostnameProblem(ntp.get(i)) != null) {
        throw doc.error(index("additionalNTPSources", i), "'" + ntp.get(i) + "' is not a host name or IP address");
      }
    }
    List<Host> hosts = new ArrayList<>();
    List<JsonNode> items = doc.list(root, "hosts", "");
    for (int i = 0; i < items.size(); i++) {
      hosts.add(host(doc, items.get(i), index("hosts", i), ignored));
    }
    AgentHostChecks.check(doc, hosts);
    return new AgentConfig(InstallConfigParser.blankToNull(doc.text(metadata, "name", "metadata")), rendezvousIP,
        bootArtifacts, ntp, hosts, ignored);
  }

  private static Host host(YamlDoc doc, JsonNode n, String at, List<String> ignored) throws SiteConfigException {
    if (!n.isObject()) {
      throw doc.error(at, "must be a mapping of fields");
    }
    YamlDoc.unread(n, at, HOST, ignored);
    String hostname = InstallConfigParser.blankToNull(doc.text(n, "hostname", at));
    if (hostname != null) {
      hostname = hostname.strip();
      InstallConfigParser.problem(doc, child(at, "hostname"), Names.hostnameProblem(hostname));
    }
    String role = InstallConfigParser.blankToNull(doc.text(n, "role", at));
    if (role != null && !role.strip().equals("master") && !role.strip().equals("worker")) {
      throw doc.error(child(at, "role"), "must be master or worker, not '" + role + "'");
    }
    List<Interface> interfaces = new ArrayList<>();
    List<JsonNode> nics = doc.list(n, "interfaces", at);
    for (int j = 0; j < nics.size(); j++) {
      String nicAt = index(child(at, "interfaces"), j);
      if (!nics.get(j).isObject()) {
        throw doc.error(nicAt, "must be a mapping with name and macAddress");
      }
      YamlDoc.unread(nics.get(j), nicAt, Set.of("name", "macAddress"), ignored);
      String mac = InstallConfigParser.blankToNull(doc.text(nics.get(j), "macAddress", nicAt));
      if (mac == null) {
        throw doc.error(child(nicAt, "macAddress"), "is required");
      }
      if (!Net.isMac(mac.strip())) {
        throw doc.error(child(nicAt, "macAddress"), "'" + mac
            + "' is not a MAC address (six hex pairs: 52:54:00:12:34:56)");
      }
      String name = InstallConfigParser.blankToNull(doc.text(nics.get(j), "name", nicAt));
      interfaces.add(new Interface(name == null ? null : name.strip(), mac.strip()));
    }
    return new Host(hostname, role == null ? null : role.strip(), interfaces, hints(doc, n, at, ignored),
        networkConfig(doc, n, child(at, "networkConfig")));
  }

  private static RootDeviceHints hints(YamlDoc doc, JsonNode host, String hostAt, List<String> ignored)
      throws SiteConfigException {
    JsonNode n = doc.object(host, "rootDeviceHints", hostAt);
    if (n.isMissingNode()) {
      return null;
    }
    String at = child(hostAt, "rootDeviceHints");
    YamlDoc.unread(n, at, HINTS, ignored);
    String device = InstallConfigParser.blankToNull(doc.text(n, "deviceName", at));
    if (device != null) {
      // openshift-install's rule: a /dev/ name, directly or under /dev/disk/by-path/
      String sub = device.startsWith("/dev/") ? device.substring(5) : null;
      if (sub == null || sub.isEmpty() || (sub.startsWith("disk/by-path/") ? sub.substring(13) : sub).contains("/")) {
        throw doc.error(child(at, "deviceName"), "'" + device + "' must be a path in /dev/ or /dev/disk/by-path/");
      }
    }
    for (String ext : new String[] {"wwnWithExtension", "wwnVendorExtension"}) {
      if (InstallConfigParser.blankToNull(doc.text(n, ext, at)) != null) {
        throw doc.error(child(at, ext), "WWN extensions are not supported in root device hints (use wwn)");
      }
    }
    Long min = doc.integer(n, "minSizeGigabytes", at);
    if (min != null && min < 0) {
      throw doc.error(child(at, "minSizeGigabytes"), "must be 0 or more, not " + min);
    }
    return new RootDeviceHints(device, optional(doc, n, "hctl", at), optional(doc, n, "model", at),
        optional(doc, n, "vendor", at), optional(doc, n, "serialNumber", at), min, optional(doc, n, "wwn", at),
        null, null, doc.bool(n, "rotational", at));
  }

  private static String optional(YamlDoc doc, JsonNode n, String key, String at) throws SiteConfigException {
    return InstallConfigParser.blankToNull(doc.text(n, key, at));
  }

  /** The NMState document as YAML text: a mapping re-written, or a block string (YAML inside YAML) checked. */
  private static String networkConfig(YamlDoc doc, JsonNode host, String at) throws SiteConfigException {
    JsonNode n = host.get("networkConfig");
    if (n == null || n.isNull()) {
      return null;
    }
    if (n.isTextual()) {
      if (n.asText().isBlank()) {
        return null;
      }
      try {
        n = YamlDoc.YAML.readTree(n.asText());
      } catch (JsonProcessingException e) {
        throw doc.error(at, YamlDoc.syntaxProblem(e) + " (lines counted within networkConfig)");
      }
    }
    if (n == null || !n.isObject()) {
      throw doc.error(at, "must be an NMState document (a mapping with interfaces, dns-resolver, routes)");
    }
    try {
      return YAML_OUT.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw doc.error(at, "cannot be written back as YAML: " + e.getOriginalMessage());
    }
  }
}
