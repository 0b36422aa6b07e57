package dev.rendezvous.service.ignition;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The edge's interfaces in NMState: bonds ({@code link-aggregation}) and VLANs ({@code vlan}), a VLAN possibly on a
 * bond. Refuses, naming the field, what nmstate refuses or what could never come up: an unknown mode, a bond without
 * ports, a port in two bonds or with its own IP settings, a port that is no ethernet NIC of this host, an option of
 * another mode, a VLAN id outside 0-4094 or a VLAN on an interface this host does not have.
 */
final class BondsAndVlans {
  /** The kernel's bonding modes, by the names nmstate takes. */
  static final List<String> MODES = List.of("balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad",
      "balance-tlb", "balance-alb"); // in the kernel's order: nmstate also takes the numbers 0-6
  /** Bonding options and the modes each applies to (null: every mode), as the kernel's bonding driver documents them. */
  private static final Map<String, Set<String>> OPTIONS = new HashMap<>();
  private static final Set<String> NUMERIC = Set.of("miimon", "updelay", "downdelay", "arp_interval", "min_links",
      "ad_actor_sys_prio", "ad_user_port_key", "resend_igmp", "num_grat_arp", "num_unsol_na", "packets_per_slave",
      "lp_interval", "peer_notif_delay", "use_carrier", "all_slaves_active", "tlb_dynamic_lb");

  static {
    for (String any : List.of("miimon", "updelay", "downdelay", "use_carrier", "arp_interval", "arp_ip_target",
        "arp_validate", "arp_all_targets", "fail_over_mac", "all_slaves_active", "resend_igmp", "num_grat_arp",
        "num_unsol_na", "peer_notif_delay", "primary_reselect")) {
      OPTIONS.put(any, null);
    }
    Set<String> lacp = Set.of("802.3ad");
    for (String o : List.of("lacp_rate", "ad_select", "ad_actor_sys_prio", "ad_actor_system", "ad_user_port_key",
        "min_links")) {
      OPTIONS.put(o, lacp);
    }
    OPTIONS.put("primary", Set.of("active-backup", "balance-tlb", "balance-alb"));
    OPTIONS.put("xmit_hash_policy", Set.of("balance-xor", "802.3ad", "balance-tlb"));
    OPTIONS.put("packets_per_slave", Set.of("balance-rr"));
    OPTIONS.put("tlb_dynamic_lb", Set.of("balance-tlb"));
    OPTIONS.put("lp_interval", Set.of("balance-tlb", "balance-alb"));
  }

  private BondsAndVlans() {}

  /** A bond's {@code link-aggregation}: mode, ports ({@code port}, or its alias {@code ports}) and options. */
  static void bond(JsonNode la, KeyfileProfile p, String where) {
    String at = "interface " + p.name + " link-aggregation";
    if (!la.isObject()) {
      throw bad(where, "bond mode is mandatory for new bond interface " + p.name + " (link-aggregation.mode)");
    }
    la.fieldNames().forEachRemaining(k -> {
      if (k.equals("slaves")) {
        throw bad(where, at + " setting 'slaves' is nmstate 1's: nmstate 2 calls it 'port'");
      }
      if (!Set.of("mode", "port", "ports", "options").contains(k)) {
        throw bad(where, "unsupported " + at + " setting '" + k + "'");
      }
    });
    JsonNode modeNode = la.path("mode");
    String mode = modeNode.canConvertToInt() && modeNode.asInt() >= 0 && modeNode.asInt() < MODES.size()
        ? MODES.get(modeNode.asInt()) : modeNode.asText("");
    if (mode.isEmpty()) {
      throw bad(where, "bond mode is mandatory for new bond interface " + p.name + " (link-aggregation.mode)");
    }
    if (!MODES.contains(mode)) {
      throw bad(where, at + " mode '" + mode + "' is not one of " + MODES);
    }
    p.bondMode = mode;
    JsonNode ports = la.has("port") ? la.get("port") : la.path("ports");
    if (!ports.isMissingNode() && !ports.isNull() && !ports.isArray()) {
      throw bad(where, at + " port must be a list of interface names");
    }
    for (JsonNode port : ports) { // none is allowed, as nmstate allows it: the bond then has no carrier
      if (!port.isTextual() || p.ports.contains(port.asText())) {
        throw bad(where, at + " port must list distinct interface names");
      }
      p.ports.add(port.asText());
    }
    JsonNode options = la.path("options");
    if (options.isMissingNode() || options.isNull()) {
      return;
    }
    if (!options.isObject()) {
      throw bad(where, at + " options must be a mapping");
    }
    options.fields().forEachRemaining(e -> {
      String key = e.getKey();
      if (!OPTIONS.containsKey(key)) {
        throw bad(where, at + " has unknown option '" + key + "'");
      }
      Set<String> modes = OPTIONS.get(key);
      if (modes != null && !modes.contains(mode)) {
        throw bad(where, at + " option '" + key + "' applies to mode " + String.join(" or ", modes.stream().sorted().toList())
            + ", not " + mode);
      }
      JsonNode v = e.getValue();
      boolean number = (v.canConvertToInt() && v.asInt() >= 0) || (v.isTextual() && v.asText().matches("\\d{1,9}"));
      if (!v.isValueNode() || v.isNull() || (NUMERIC.contains(key) && !number)) { // nmstate takes "100" for 100 too
        throw bad(where, at + " option '" + key + "' has invalid value " + v);
      }
      if (key.equals("primary") && !p.ports.contains(v.asText())) {
        throw bad(where, at + " primary '" + v.asText() + "' is not one of its ports " + p.ports);
      }
      p.bondOptions.put(key, v.isBoolean() ? (v.asBoolean() ? "1" : "0") : v.asText());
    });
    if (options.path("miimon").asInt(0) > 0 && options.path("arp_interval").asInt(0) > 0) {
      throw bad(where, at + " sets both miimon and arp_interval: the kernel monitors links one way or the other");
    }
  }

  /** A VLAN's {@code vlan}: base-iface, id, and nmstate's protocol, reorder-headers, loose-binding, registration-protocol. */
  static void vlan(JsonNode vlan, KeyfileProfile p, String where) {
    String at = "interface " + p.name + " vlan";
    if (!vlan.isObject()) {
      throw bad(where, "missing 'vlan.base-iface' for interface '" + p.name + "'");
    }
    vlan.fieldNames().forEachRemaining(k -> {
      if (!Set.of("base-iface", "id", "protocol", "reorder-headers", "loose-binding", "registration-protocol").contains(k)) {
        throw bad(where, "unsupported " + at + " setting '" + k + "'");
      }
    });
    JsonNode id = vlan.path("id");
    if (!id.canConvertToInt() && !(id.isTextual() && id.asText().matches("\\d{1,4}"))) {
      throw bad(where, at + " id must be 0-4094, not " + (id.isMissingNode() ? "missing" : id.toString()));
    }
    int number = id.isTextual() ? Integer.parseInt(id.asText()) : id.asInt();
    if (number < 0 || number > 4094) {
      throw bad(where, at + " id must be 0-4094, not " + number);
    }
    p.vlanId = number;
    String base = vlan.path("base-iface").asText("");
    if (base.isBlank()) {
      throw bad(where, "missing 'vlan.base-iface' for interface '" + p.name + "'");
    }
    p.vlanBase = base;
    String protocol = vlan.path("protocol").asText("802.1q");
    if (!protocol.equals("802.1q") && !protocol.equals("802.1ad")) {
      throw bad(where, at + " protocol must be 802.1q or 802.1ad, not " + protocol);
    }
    p.vlanProtocol = protocol.equals("802.1ad") ? protocol : null;
    String registration = vlan.path("registration-protocol").asText("none");
    int gvrpMvrp = switch (registration) {
      case "none" -> 0;
      case "gvrp" -> 2;
      case "mvrp" -> 8;
      default -> throw bad(where, at + " registration-protocol must be none, gvrp or mvrp, not " + registration);
    };
    // NetworkManager's vlan.flags bits: 1 reorder headers (its default), 2 GVRP, 4 loose binding, 8 MVRP
    p.vlanFlags = (vlan.path("reorder-headers").asBoolean(true) ? 1 : 0) | gvrpMvrp
        | (vlan.path("loose-binding").asBoolean(false) ? 4 : 0);
  }

  /**
   * Binds ports to their bonds and VLANs to their parents. A port or base interface the YAML only names (nmstate
   * takes an existing NIC) gets its own profile, bound by the MAC the map gives it (else by its predictable name),
   * so that it comes up on the host: returned, in the order first named.
   */
  static List<KeyfileProfile> link(Map<String, KeyfileProfile> profiles, Map<String, String> macByNic,
      java.util.function.Predicate<String> predictable, String where, String mapWhere) {
    List<KeyfileProfile> implicit = new ArrayList<>();
    Map<String, String> bondOfPort = new HashMap<>();
    for (KeyfileProfile bond : List.copyOf(profiles.values())) {
      for (String port : bond.ports) {
        KeyfileProfile nic = profiles.get(port);
        if (nic == null) {
          nic = implicitNic(port, macByNic, predictable, "port of bond " + bond.name, mapWhere);
          profiles.put(port, nic);
          implicit.add(nic);
        }
        if (!nic.type.equals("ethernet")) {
          throw bad(where, "bond " + bond.name + " port " + port + " is a " + nic.type + ": a bond's ports are ethernet"
              + " interfaces");
        }
        String other = bondOfPort.put(port, bond.name);
        if (other != null) {
          throw bad(where, "port " + port + " is overbooked by two controllers: " + other + ", " + bond.name);
        }
        if (nic.v4.enabled || nic.v6.enabled) {
          throw bad(where, "interface " + port + " is a port of bond " + bond.name + " and cannot have IP settings"
              + " of its own (set them on " + bond.name + ")");
        }
        nic.controller = bond.name;
      }
    }
    for (KeyfileProfile vlan : List.copyOf(profiles.values())) {
      if (vlan.vlanBase == null) {
        continue;
      }
      KeyfileProfile base = profiles.get(vlan.vlanBase);
      if (base == null) {
        base = implicitNic(vlan.vlanBase, macByNic, predictable, "base-iface of VLAN " + vlan.name, mapWhere);
        profiles.put(base.name, base);
        implicit.add(base);
      }
      if (base.controller != null) {
        throw bad(where, "VLAN " + vlan.name + " base-iface " + base.name + " is a port of bond " + base.controller
            + ": put the VLAN on " + base.controller);
      }
      // a NIC bound by MAC may have another kernel name than the YAML's: its profile's UUID names it wherever it is
      vlan.vlanParent = base.type.equals("ethernet") && base.mac != null ? base.uuid() : base.name;
    }
    return implicit;
  }

  private static KeyfileProfile implicitNic(String name, Map<String, String> macByNic,
      java.util.function.Predicate<String> predictable, String role, String mapWhere) {
    String mac = macByNic.get(name);
    if (mac == null && !predictable.test(name)) {
      throw bad(mapWhere, "has no entry for interface " + name + " (" + role + "), and " + name
          + " is not a predictable physical interface name (en...)");
    }
    KeyfileProfile p = new KeyfileProfile(name, mac);
    p.v4 = new KeyfileProfile.Family(false);
    p.v6 = new KeyfileProfile.Family(true);
    return p;
  }

  private static InvalidIgnitionInputException bad(String field, String reason) {
    return new InvalidIgnitionInputException(field, reason);
  }
}
