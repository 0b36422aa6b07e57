package dev.rendezvous.service.ignition;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.MacInterface;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.StaticNetworkConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns upstream {@code static_network_config} (NMState YAML + MAC to NIC-name map per host) into
 * NetworkManager keyfiles.
 *
 * <p>Supported NMState subset: {@code interfaces} of type {@code ethernet} (state up, optional
 * mac-address and mtu), {@code bond} ({@code link-aggregation}: mode, port, options) and {@code vlan} ({@code vlan}:
 * base-iface, id; on an ethernet NIC or a bond; see {@link BondsAndVlans}), with {@code ipv4}/{@code ipv6} (enabled,
 * dhcp, autoconf, static address list), {@code dns-resolver.config} (server, search) and {@code routes.config}
 * (destination, next-hop-address, next-hop-interface, metric, table-id). Anything else is refused, naming the field
 * {@code static_network_config}.
 *
 * <p>Layout, as upstream's: host {@code i}'s profiles are
 * {@code /etc/assisted/network/host<i>/<nic>.nmconnection} with its {@code mac_interface.ini}
 * ({@code <mac>=<nic>} lines, sorted), and {@link PreNetworkManagerConfig}'s script (run by its unit
 * before NetworkManager) copies the profiles of the host whose MACs this machine has into
 * {@code /etc/NetworkManager/system-connections}. Unlike upstream's script, it renames nothing:
 * each profile is bound to its NIC by {@code ethernet.mac-address}, so NetworkManager applies it to
 * whichever device has that MAC, whatever the kernel named it. An ethernet interface without a map
 * entry is accepted only when its name is a predictable physical name ({@code en...}), as upstream
 * checks, and that profile is bound by {@code interface-name}. A VLAN on such a NIC names its parent by the NIC
 * profile's UUID, for the same reason; a bond and its VLANs have the names the YAML gives them.
 */
public final class NmStateKeyfiles {

  public static final String FIELD = "static_network_config";
  /** Where each host's files go: {@code host<i>/<nic>.nmconnection} and {@code host<i>/mac_interface.ini}, as upstream. */
  public static final String NETWORK_DIR = "/etc/assisted/network";
  /** systemd's predictable names of physical NICs (man systemd.net-naming-scheme), as upstream checks them. */
  private static final Pattern PREDICTABLE_NAME = Pattern.compile("en[PsvxXbucaipod]");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern MAC = Pattern.compile("([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}");
  private static final Pattern NIC = Pattern.compile("[A-Za-z0-9_.-]{1,15}");
  private static final Pattern DOMAIN = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]{0,252})?");
  private static final List<String> TYPES = List.of("ethernet", "bond", "vlan");
  private static final Set<String> TOP_LEVEL = Set.of("interfaces", "dns-resolver", "routes");
  private static final Set<String> IFACE_KEYS = Set.of("name", "type", "state", "mac-address", "identifier", "mtu", "ipv4",
      "ipv6", "link-aggregation", "vlan");
  private static final Set<String> IP_KEYS = Set.of("enabled", "dhcp", "autoconf", "address", "auto-dns");

  /** A generated file: absolute path, octal mode, content. */
  public record GeneratedFile(String path, int mode, String content) {}

  private NmStateKeyfiles() {}

  public static List<GeneratedFile> convert(List<StaticNetworkConfig> hosts) {
    List<GeneratedFile> out = new ArrayList<>();
    Map<String, Integer> macOwner = new HashMap<>();
    for (int i = 0; i < hosts.size(); i++) {
      out.addAll(convertHost(hosts.get(i), i, macOwner));
    }
    return out;
  }

  /** The field of host {@code i}'s YAML, as the 400 names it. */
  public static String yamlField(int i) {
    return FIELD + "[" + i + "].network_yaml";
  }

  /** The field of host {@code i}'s MAC map, as the 400 names it. */
  public static String mapField(int i) {
    return FIELD + "[" + i + "].mac_interface_map";
  }

  private static List<GeneratedFile> convertHost(StaticNetworkConfig host, int index, Map<String, Integer> macOwner) {
    String where = yamlField(index);
    String mapWhere = mapField(index);
    if (host == null || host.networkYaml() == null || host.networkYaml().isBlank()) {
      throw bad(where, "is required");
    }
    JsonNode root;
    try {
      root = YAML.readTree(host.networkYaml());
    } catch (JsonProcessingException e) {
      throw bad(where, "is not valid YAML: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw bad(where, "must be an NMState YAML mapping");
    }
    root.fieldNames().forEachRemaining(k -> {
      if (!TOP_LEVEL.contains(k)) {
        throw bad(where, "unsupported NMState section '" + k + "'");
      }
    });
    if (host.macInterfaceMap().isEmpty()) {
      throw bad(mapWhere, "at least one interface must be provided");
    }
    Map<String, String> macByNic = new HashMap<>();
    Set<String> hostMacs = new HashSet<>();
    for (int j = 0; j < host.macInterfaceMap().size(); j++) {
      MacInterface m = host.macInterfaceMap().get(j);
      if (m == null || m.macAddress() == null || !MAC.matcher(m.macAddress()).matches()) {
        throw bad(mapWhere + "[" + j + "].mac_address", "'" + (m == null ? null : m.macAddress())
            + "' is not a valid MAC address");
      }
      if (m.logicalNicName() == null || !NIC.matcher(m.logicalNicName()).matches()) {
        throw bad(mapWhere + "[" + j + "].logical_nic_name", "'" + m.logicalNicName() + "' is not a valid interface name");
      }
      String mac = m.macAddress().toUpperCase(Locale.ROOT);
      if (!hostMacs.add(mac) || macByNic.put(m.logicalNicName(), mac) != null) {
        throw bad(mapWhere, "MACs and interfaces must be unique within a host");
      }
      claim(macOwner, mac, index, mapWhere);
    }

    Map<String, KeyfileProfile> profiles = new LinkedHashMap<>();
    JsonNode ifaces = root.path("interfaces");
    if (!ifaces.isArray() || ifaces.isEmpty()) {
      throw bad(where, "must have a non-empty interfaces list");
    }
    for (JsonNode n : ifaces) {
      KeyfileProfile p = iface(n, where, mapWhere, macByNic);
      if (p != null) {
        if (profiles.put(p.name, p) != null) {
          throw bad(where, "interface " + p.name + " listed twice");
        }
        if (p.mac != null && !hostMacs.contains(p.mac)) {
          claim(macOwner, p.mac, index, where);
        }
      }
    }
    for (KeyfileProfile p : BondsAndVlans.link(profiles, macByNic, nic -> PREDICTABLE_NAME.matcher(nic).lookingAt(),
        where, mapWhere)) {
      if (p.mac != null && !hostMacs.contains(p.mac)) {
        claim(macOwner, p.mac, index, where);
      }
    }
    routes(root.path("routes"), profiles, where);
    dns(root.path("dns-resolver"), profiles, where);
    String dir = NETWORK_DIR + "/host" + index + "/";
    List<GeneratedFile> files = new ArrayList<>();
    for (KeyfileProfile p : profiles.values()) {
      files.add(new GeneratedFile(dir + p.name + ".nmconnection", 0600, p.render()));
    }
    List<String> lines = new ArrayList<>();
    for (MacInterface m : host.macInterfaceMap()) {
      lines.add(m.macAddress() + "=" + m.logicalNicName());
    }
    java.util.Collections.sort(lines);
    files.add(new GeneratedFile(dir + "mac_interface.ini", 0600, String.join("\n", lines)));
    return files;
  }

  /** A MAC belongs to one host: refuses it when an earlier host has it. */
  private static void claim(Map<String, Integer> macOwner, String mac, int index, String where) {
    Integer owner = macOwner.putIfAbsent(mac, index);
    if (owner != null && owner != index) {
      throw bad(where, "MAC address " + mac + " is also in " + mapField(owner) + ": a MAC belongs to one host");
    }
  }

  private static KeyfileProfile iface(JsonNode n, String where, String mapWhere, Map<String, String> macByNic) {
    if (!n.isObject()) {
      throw bad(where, "each interface must be a mapping");
    }
    n.fieldNames().forEachRemaining(k -> {
      if (!IFACE_KEYS.contains(k)) {
        throw bad(where, "unsupported interface setting '" + k + "'");
      }
    });
    String name = text(n, "name", where);
    if (!NIC.matcher(name).matches()) {
      throw bad(where, "invalid interface name " + name);
    }
    String type = n.path("type").asText("ethernet");
    if (!TYPES.contains(type)) {
      throw bad(where, "interface " + name + " has unsupported type " + type + " (supported: " + String.join(", ", TYPES)
          + ")");
    }
    for (String[] own : new String[][] {{"link-aggregation", "bond"}, {"vlan", "vlan"}}) {
      if (n.has(own[0]) && !type.equals(own[1])) {
        throw bad(where, "interface " + name + " of type " + type + " has " + own[0] + " (only a " + own[1] + " has)");
      }
    }
    String state = n.path("state").asText("up");
    if (!state.equals("up")) {
      if (state.equals("down") || state.equals("absent")) {
        return null;
      }
      throw bad(where, "interface " + name + " has invalid state " + state);
    }
    if (!type.equals("ethernet")) {
      return virtual(n, name, type, where);
    }
    String mac = macByNic.get(name);
    if (n.hasNonNull("mac-address")) {
      String own = n.get("mac-address").asText();
      if (!MAC.matcher(own).matches()) {
        throw bad(where, "interface " + name + " has invalid mac-address " + own);
      }
      if (mac != null && !mac.equalsIgnoreCase(own)) {
        throw bad(where, "interface " + name + " mac-address differs from mac_interface_map");
      }
      mac = own.toUpperCase(Locale.ROOT);
    }
    if (n.hasNonNull("identifier")) {
      String id = n.get("identifier").asText();
      if (!id.equals("name") && !id.equals("mac-address")) {
        throw bad(where, "interface " + name + " has invalid identifier " + id);
      }
      if (id.equals("mac-address") && !n.hasNonNull("mac-address")) {
        throw bad(where, "interface " + name + " is identified by mac-address but has none");
      }
    }
    if (mac == null && !PREDICTABLE_NAME.matcher(name).lookingAt()) {
      // upstream's loose check: an unmapped ethernet NIC is allowed when its name is a predictable physical one
      throw bad(mapWhere, "has no entry for interface " + name + " of network_yaml, and " + name
          + " is not a predictable physical interface name (en...)");
    }
    return addressing(n, new KeyfileProfile(name, mac), where);
  }

  /** A bond or a VLAN: its name is its own (no NIC to bind), a mac-address is the one it takes. */
  private static KeyfileProfile virtual(JsonNode n, String name, String type, String where) {
    if (n.has("identifier")) {
      throw bad(where, "interface " + name + ": identifier applies to ethernet interfaces only");
    }
    KeyfileProfile p = new KeyfileProfile(name, null, type);
    if (n.hasNonNull("mac-address")) {
      String own = n.get("mac-address").asText();
      if (!MAC.matcher(own).matches()) {
        throw bad(where, "interface " + name + " has invalid mac-address " + own);
      }
      p.clonedMac = own.toUpperCase(Locale.ROOT);
    }
    if (type.equals("bond")) {
      BondsAndVlans.bond(n.path("link-aggregation"), p, where);
    } else {
      BondsAndVlans.vlan(n.path("vlan"), p, where);
    }
    return addressing(n, p, where);
  }

  private static KeyfileProfile addressing(JsonNode n, KeyfileProfile p, String where) {
    if (n.has("mtu")) {
      if (!n.get("mtu").canConvertToInt() || n.get("mtu").asInt() < 68 || n.get("mtu").asInt() > 65535) {
        throw bad(where, "interface " + p.name + " has invalid mtu");
      }
      p.mtu = n.get("mtu").asInt();
    }
    p.v4 = family(n.path("ipv4"), false, p.name, where);
    p.v6 = family(n.path("ipv6"), true, p.name, where);
    return p;
  }

  private static KeyfileProfile.Family family(JsonNode n, boolean v6, String nic, String where) {
    KeyfileProfile.Family f = new KeyfileProfile.Family(v6);
    if (n.isMissingNode() || n.isNull()) {
      return f; // nmstate: a new profile without this family has it disabled
    }
    if (!n.isObject()) {
      throw bad(where, "" + nic + " ipv" + (v6 ? 6 : 4) + " must be a mapping");
    }
    n.fieldNames().forEachRemaining(k -> {
      if (!IP_KEYS.contains(k) || (!v6 && k.equals("autoconf"))) {
        throw bad(where, "unsupported " + nic + " ipv" + (v6 ? 6 : 4) + " setting '" + k + "'");
      }
    });
    f.enabled = n.path("enabled").asBoolean(false);
    f.dhcp = n.path("dhcp").asBoolean(false);
    f.autoconf = n.path("autoconf").asBoolean(false);
    if (n.has("auto-dns")) {
      f.ignoreAutoDns = !n.get("auto-dns").asBoolean(true);
    }
    for (JsonNode a : n.path("address")) {
      String ip = ip(a.path("ip").asText(""), v6, where);
      int prefix = a.path("prefix-length").asInt(-1);
      if (!a.path("prefix-length").canConvertToInt() || prefix < 0 || prefix > (v6 ? 128 : 32)) {
        throw bad(where, "" + nic + " address " + ip + " has invalid prefix-length");
      }
      f.addresses.add(ip + "/" + prefix);
    }
    if (f.enabled && !f.dhcp && !f.autoconf && f.addresses.isEmpty()) {
      throw bad(where, "" + nic + " ipv" + (v6 ? 6 : 4) + " is enabled without dhcp"
          + (v6 ? ", autoconf" : "") + " or addresses");
    }
    return f;
  }

  private static void routes(JsonNode routes, Map<String, KeyfileProfile> profiles, String where) {
    if (routes.isMissingNode() || routes.isNull()) {
      return;
    }
    for (JsonNode r : routes.path("config")) {
      String dest = r.path("destination").asText("");
      int slash = dest.indexOf('/');
      if (slash < 0) {
        throw bad(where, "route destination must be an address/prefix: " + dest);
      }
      boolean v6 = dest.contains(":");
      String net = ip(dest.substring(0, slash), v6, where);
      int prefix;
      try {
        prefix = Integer.parseInt(dest.substring(slash + 1));
      } catch (NumberFormatException e) {
        throw bad(where, "invalid route destination " + dest);
      }
      if (prefix < 0 || prefix > (v6 ? 128 : 32)) {
        throw bad(where, "invalid route destination " + dest);
      }
      String hop = ip(r.path("next-hop-address").asText(""), v6, where);
      String ifName = r.path("next-hop-interface").asText("");
      KeyfileProfile p = profiles.get(ifName);
      if (p == null) {
        throw bad(where, "route to " + dest + " names unknown next-hop-interface '" + ifName + "'");
      }
      KeyfileProfile.Family f = v6 ? p.v6 : p.v4;
      if (!f.enabled) {
        throw bad(where, "route to " + dest + " via " + ifName + " whose ipv" + (v6 ? 6 : 4) + " is disabled");
      }
      Integer metric = r.has("metric") ? r.get("metric").asInt() : null;
      Integer table = r.has("table-id") ? r.get("table-id").asInt() : null;
      if (prefix == 0 && table == null) {
        if (f.gateway != null) {
          throw bad(where, "two default routes via " + ifName);
        }
        f.gateway = hop;
        f.defaultMetric = metric;
      } else {
        f.routes.add(new String[] {net + "/" + prefix + "," + hop + (metric != null ? "," + metric : ""),
            table != null ? "table=" + table : null});
      }
    }
  }

  private static void dns(JsonNode resolver, Map<String, KeyfileProfile> profiles, String where) {
    JsonNode config = resolver.path("config");
    if (config.isMissingNode() || config.isNull()) {
      return;
    }
    List<String> search = new ArrayList<>();
    for (JsonNode s : config.path("search")) {
      if (!DOMAIN.matcher(s.asText()).matches()) {
        throw bad(where, "invalid dns search domain " + s.asText());
      }
      search.add(s.asText());
    }
    boolean searchPlaced = false;
    for (JsonNode s : config.path("server")) {
      boolean v6 = s.asText().contains(":");
      String ip = ip(s.asText(), v6, where);
      KeyfileProfile.Family target = dnsTarget(profiles, v6);
      if (target == null) {
        throw bad(where, "no interface with ipv" + (v6 ? 6 : 4) + " enabled to carry DNS server " + ip);
      }
      target.dns.add(ip);
      target.ignoreAutoDns = true;
      if (!searchPlaced) {
        target.dnsSearch.addAll(search);
        searchPlaced = true;
      }
    }
    if (!searchPlaced && !search.isEmpty()) {
      KeyfileProfile.Family target = dnsTarget(profiles, false);
      if (target == null) {
        target = dnsTarget(profiles, true);
      }
      if (target == null) {
        throw bad(where, "no interface with IP enabled to carry the dns search list");
      }
      target.dnsSearch.addAll(search);
    }
  }

  /** nmstate puts DNS on the interface with the default route of that family, else the first enabled one. */
  private static KeyfileProfile.Family dnsTarget(Map<String, KeyfileProfile> profiles, boolean v6) {
    KeyfileProfile.Family first = null;
    for (KeyfileProfile p : profiles.values()) {
      KeyfileProfile.Family f = v6 ? p.v6 : p.v4;
      if (f.enabled && f.gateway != null) {
        return f;
      }
      if (f.enabled && first == null) {
        first = f;
      }
    }
    return first;
  }

  private static String ip(String s, boolean v6, String where) {
    boolean ok = v6 ? s.contains(":") && s.matches("[0-9A-Fa-f:.]{2,45}")
        : s.matches("(\\d{1,3}\\.){3}\\d{1,3}");
    if (ok) {
      try {
        // a literal: no name lookup happens
        InetAddress a = InetAddress.getByName(s);
        if ((a instanceof java.net.Inet6Address) == v6) {
          return s;
        }
      } catch (UnknownHostException e) {
        // fall through
      }
    }
    throw bad(where, "invalid IPv" + (v6 ? 6 : 4) + " address '" + s + "'");
  }

  private static String text(JsonNode n, String key, String where) {
    JsonNode v = n.get(key);
    if (v == null || !v.isTextual() || v.asText().isBlank()) {
      throw bad(where, "interface " + key + " is required");
    }
    return v.asText();
  }

  private static InvalidIgnitionInputException bad(String field, String reason) {
    return new InvalidIgnitionInputException(field, reason);
  }
}
