package dev.rendezvous.service.ignition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.MacInterface;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.StaticNetworkConfig;
import dev.rendezvous.service.ignition.NmStateKeyfiles.GeneratedFile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NmStateKeyfilesTest {

  static final List<MacInterface> MAP = List.of(new MacInterface("52:54:00:aa:bb:01", "eth0"),
      new MacInterface("52:54:00:aa:bb:02", "eth1"));

  static List<GeneratedFile> convert(String yaml) {
    return NmStateKeyfiles.convert(List.of(new StaticNetworkConfig(yaml, MAP)));
  }

  @Test
  void staticDualStackWithRoutesAndDns() {
    List<GeneratedFile> files = NmStateKeyfiles.convert(List.of(new StaticNetworkConfig(
        DiscoveryIgnitionBuilderTest.YAML, MAP)));
    assertEquals(3, files.size());
    GeneratedFile eth0 = files.get(0);
    assertEquals("/etc/assisted/network/host0/eth0.nmconnection", eth0.path());
    assertEquals(0600, eth0.mode());
    String expected = """
        [connection]
        id=eth0
        uuid=%s
        type=ethernet
        autoconnect=true
        autoconnect-priority=1

        [ethernet]
        mac-address=52:54:00:AA:BB:01
        mtu=9000

        [ipv4]
        method=manual
        address1=192.168.111.30/24,192.168.111.1
        route-metric=100
        route1=10.20.0.0/16,192.168.111.254
        route1_options=table=254
        dns=192.168.111.1;
        dns-search=example.com;

        [ipv6]
        method=manual
        address1=fd00:1::30/64,fd00:1::1
        dns=fd00:1::1;
        addr-gen-mode=eui64
        """.formatted(java.util.UUID.nameUUIDFromBytes("eth0/52:54:00:AA:BB:01".getBytes()));
    assertEquals(expected, eth0.content());
    String eth1 = files.get(1).content();
    assertTrue(eth1.contains("[ipv4]\nmethod=auto\n"), eth1);
    assertTrue(eth1.contains("[ipv6]\nmethod=disabled\n"), eth1);
    assertEquals(new GeneratedFile("/etc/assisted/network/host0/mac_interface.ini", 0600,
        "52:54:00:aa:bb:01=eth0\n52:54:00:aa:bb:02=eth1"), files.get(2));
  }

  @Test
  void eachHostHasItsDirectoryAndAnUnmappedPredictableNicIsBoundByName() {
    String two = "interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4: {enabled: true, dhcp: true}\n"
        + "  - name: enp1s0\n    type: ethernet\n    ipv4: {enabled: true, address: [{ip: 10.0.0.5, prefix-length: 24}]}\n";
    List<GeneratedFile> files = NmStateKeyfiles.convert(List.of(
        new StaticNetworkConfig("interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4: {enabled: true, dhcp: true}\n", MAP),
        new StaticNetworkConfig(two, List.of(new MacInterface("52:54:00:aa:bb:03", "eth0")))));
    assertEquals(List.of("/etc/assisted/network/host0/eth0.nmconnection", "/etc/assisted/network/host0/mac_interface.ini",
        "/etc/assisted/network/host1/eth0.nmconnection", "/etc/assisted/network/host1/enp1s0.nmconnection",
        "/etc/assisted/network/host1/mac_interface.ini"), files.stream().map(GeneratedFile::path).toList());
    assertTrue(files.get(2).content().contains("mac-address=52:54:00:AA:BB:03\n"), files.get(2).content());
    String enp = files.get(3).content();
    assertTrue(enp.contains("interface-name=enp1s0\n") && !enp.contains("mac-address"), enp);
    assertTrue(enp.contains("address1=10.0.0.5/24\n"), enp);
  }

  static String field(Runnable r) {
    return assertThrows(InvalidIgnitionInputException.class, r::run).field();
  }

  @Test
  void badInputNamesTheHostAndTheField() {
    String dhcp = "interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4: {enabled: true, dhcp: true}\n";
    StaticNetworkConfig ok = new StaticNetworkConfig(dhcp, List.of(new MacInterface("52:54:00:00:00:01", "eth0")));
    assertEquals("static_network_config[1].network_yaml", field(() -> NmStateKeyfiles.convert(List.of(ok,
        new StaticNetworkConfig("interfaces: [", List.of(new MacInterface("52:54:00:00:00:02", "eth0")))))));
    assertEquals("static_network_config[1].network_yaml", field(() -> NmStateKeyfiles.convert(List.of(ok,
        new StaticNetworkConfig("dns-resolver: {config: {server: [1.1.1.1]}}\n",
            List.of(new MacInterface("52:54:00:00:00:02", "eth0")))))));
    // the same MAC in two hosts, whatever its case
    assertEquals("static_network_config[1].mac_interface_map", field(() -> NmStateKeyfiles.convert(List.of(ok,
        new StaticNetworkConfig(dhcp, List.of(new MacInterface("52:54:00:00:00:0A", "eth1"),
            new MacInterface("52:54:00:00:00:01", "eth0")))))));
    assertEquals("static_network_config[0].mac_interface_map[0].mac_address", field(() -> NmStateKeyfiles.convert(List.of(
        new StaticNetworkConfig(dhcp, List.of(new MacInterface("52:54:00:00:00", "eth0")))))));
    assertEquals("static_network_config[0].mac_interface_map", field(() -> NmStateKeyfiles.convert(List.of(
        new StaticNetworkConfig(dhcp, List.of())))));
    assertEquals("static_network_config[0].mac_interface_map", field(() -> NmStateKeyfiles.convert(List.of(
        new StaticNetworkConfig(dhcp, List.of(new MacInterface("52:54:00:00:00:01", "eth0"),
            new MacInterface("52:54:00:00:00:02", "eth0")))))));
    // eth3 is in the YAML but not in the map, and is not a predictable physical name
    assertEquals("static_network_config[0].mac_interface_map", field(() -> NmStateKeyfiles.convert(List.of(
        new StaticNetworkConfig(dhcp + "  - name: eth3\n    type: ethernet\n", ok.macInterfaceMap())))));
  }

  @Test
  void refusesWhatItCannotExpress() {
    for (String yaml : List.of(
        "interfaces:\n  - name: bond0\n    type: bond\n",                            // no link-aggregation
        "interfaces:\n  - name: eth9\n    type: ethernet\n",                       // no MAC for eth9
        "interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4: {enabled: true, address: [{ip: 1.2.3.999, prefix-length: 24}]}\n",
        "interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4: {enabled: true, address: [{ip: 1.2.3.4, prefix-length: 33}]}\n",
        "interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4: {enabled: true}\n",
        "interfaces:\n  - name: eth0\n    type: ethernet\n    ethtool: {}\n",
        "interfaces: []\n",
        "ovs-db: {}\ninterfaces:\n  - name: eth0\n",
        "interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4: {enabled: true, dhcp: true}\nroutes:\n  config:\n"
            + "    - {destination: 0.0.0.0/0, next-hop-address: 1.1.1.1, next-hop-interface: eth7}\n",
        "- just a list\n",
        "interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4: {enabled: true, dhcp: true}\ndns-resolver:\n  config:\n"
            + "    server: [\"fd00::1\"]\n")) {
      InvalidIgnitionInputException e = assertThrows(InvalidIgnitionInputException.class, () -> convert(yaml), yaml);
      assertTrue(e.field().startsWith("static_network_config[0]."), e.field());
    }
    assertThrows(InvalidIgnitionInputException.class, () -> NmStateKeyfiles.convert(List.of(
        new StaticNetworkConfig("interfaces:\n  - name: eth0\n    type: ethernet\n",
            List.of(new MacInterface("52:54:00:zz:bb:01", "eth0"))))));
    // the same MAC for two hosts
    String one = "interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4: {enabled: true, dhcp: true}\n";
    assertThrows(InvalidIgnitionInputException.class, () -> NmStateKeyfiles.convert(List.of(
        new StaticNetworkConfig(one, MAP), new StaticNetworkConfig(one, MAP))));
  }

  static final String BOND_VLAN = """
      interfaces:
        - name: eth0
          type: ethernet
          state: up
        - name: bond0
          type: bond
          state: up
          mtu: 9000
          link-aggregation:
            mode: active-backup
            port: [eth0, eth1]
            options: {miimon: 100, primary: eth0}
          ipv4: {enabled: false}
          ipv6: {enabled: false}
        - name: bond0.100
          type: vlan
          state: up
          vlan: {base-iface: bond0, id: 100}
          ipv4:
            enabled: true
            address: [{ip: 10.100.0.5, prefix-length: 24}]
          ipv6: {enabled: false}
      dns-resolver:
        config: {server: [10.100.0.1]}
      routes:
        config:
          - {destination: 0.0.0.0/0, next-hop-address: 10.100.0.1, next-hop-interface: bond0.100}
      """;

  @Test
  void aVlanOnABondOfTwoNicsBecomesFourProfiles() {
    List<GeneratedFile> files = convert(BOND_VLAN);
    assertEquals(List.of("/etc/assisted/network/host0/eth0.nmconnection", "/etc/assisted/network/host0/bond0.nmconnection",
        "/etc/assisted/network/host0/bond0.100.nmconnection", "/etc/assisted/network/host0/eth1.nmconnection",
        "/etc/assisted/network/host0/mac_interface.ini"), files.stream().map(GeneratedFile::path).toList());
    // a port: bound by MAC to its bond, no IP settings of its own; eth1, only named as a port, gets one too
    for (int i : new int[] {0, 3}) {
      String nic = i == 0 ? "eth0" : "eth1";
      String mac = i == 0 ? "52:54:00:AA:BB:01" : "52:54:00:AA:BB:02";
      assertEquals("""
          [connection]
          id=%s
          uuid=%s
          type=ethernet
          autoconnect=true
          autoconnect-priority=1
          master=bond0
          slave-type=bond

          [ethernet]
          mac-address=%s
          """.formatted(nic, java.util.UUID.nameUUIDFromBytes((nic + "/" + mac).getBytes()), mac), files.get(i).content());
    }
    assertEquals("""
        [connection]
        id=bond0
        uuid=%s
        type=bond
        autoconnect=true
        autoconnect-priority=1
        interface-name=bond0
        autoconnect-slaves=1

        [ethernet]
        mtu=9000

        [bond]
        mode=active-backup
        miimon=100
        primary=eth0

        [ipv4]
        method=disabled

        [ipv6]
        method=disabled
        """.formatted(java.util.UUID.nameUUIDFromBytes("bond0/bond".getBytes())), files.get(1).content());
    assertEquals("""
        [connection]
        id=bond0.100
        uuid=%s
        type=vlan
        autoconnect=true
        autoconnect-priority=1
        interface-name=bond0.100

        [vlan]
        flags=1
        id=100
        parent=bond0

        [ipv4]
        method=manual
        address1=10.100.0.5/24,10.100.0.1
        dns=10.100.0.1;

        [ipv6]
        method=disabled
        """.formatted(java.util.UUID.nameUUIDFromBytes("bond0.100/vlan".getBytes())), files.get(2).content());
  }

  @Test
  void aVlanOnANicBoundByMacNamesItsParentByTheNicsProfile() {
    List<GeneratedFile> files = convert("""
        interfaces:
          - name: eth0.20
            type: vlan
            vlan: {base-iface: eth0, id: 20}
            ipv4: {enabled: true, dhcp: true}
        """);
    // eth0 is only the VLAN's base: its own profile (no IP) binds the MAC; the VLAN names that profile, since the NIC
    // may carry another kernel name than eth0 on the host
    String eth0 = files.get(1).content();
    assertTrue(eth0.contains("mac-address=52:54:00:AA:BB:01\n") && eth0.contains("[ipv4]\nmethod=disabled"), eth0);
    String uuid = java.util.UUID.nameUUIDFromBytes("eth0/52:54:00:AA:BB:01".getBytes()).toString();
    assertTrue(files.get(0).content().contains("[vlan]\nflags=1\nid=20\nparent=" + uuid + "\n"), files.get(0).content());
  }

  @Test
  void nmstatesAliasesAnEmptyBondAndQinQAreTaken() {
    List<GeneratedFile> files = convert("""
        interfaces:
          - name: bond1
            type: bond
            link-aggregation: {mode: 4, ports: [eth0, eth1], options: {lacp_rate: fast, miimon: "100"}}
          - name: bond2
            type: bond
            link-aggregation: {mode: balance-rr}
          - name: outer
            type: vlan
            vlan: {base-iface: bond1, id: "300", protocol: 802.1ad, loose-binding: true}
          - name: inner
            type: vlan
            vlan: {base-iface: outer, id: 7, registration-protocol: mvrp}
            ipv4: {enabled: true, dhcp: true}
        """);
    String bond1 = files.get(0).content();
    assertTrue(bond1.contains("[bond]\nmode=802.3ad\nlacp_rate=fast\nmiimon=100\n"), bond1);
    assertTrue(files.get(1).content().contains("[bond]\nmode=balance-rr\n"), files.get(1).content());
    assertTrue(files.get(2).content().contains("[vlan]\nflags=5\nid=300\nparent=bond1\nprotocol=802.1ad\n"),
        files.get(2).content());
    assertTrue(files.get(3).content().contains("[vlan]\nflags=9\nid=7\nparent=outer\n"), files.get(3).content());
    assertTrue(files.get(4).content().contains("master=bond1\n"), files.get(4).content());
  }

  @Test
  void refusesBondsAndVlansNmstateRefusesNamingWhy() {
    String bond = "interfaces:\n  - name: bond0\n    type: bond\n    link-aggregation:\n";
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put(bond + "      mode: fast\n      port: [eth0]\n", "mode 'fast' is not one of");
    cases.put(bond + "      port: [eth0]\n", "bond mode is mandatory for new bond interface bond0");
    cases.put(bond + "      mode: 1\n      slaves: [eth0]\n", "nmstate 2 calls it 'port'");
    cases.put(bond + "      mode: active-backup\n      port: [eth0]\n      options: {lacp_rate: fast}\n",
        "option 'lacp_rate' applies to mode 802.3ad, not active-backup");
    cases.put(bond + "      mode: active-backup\n      port: [eth0]\n      options: {primary: eth1}\n",
        "primary 'eth1' is not one of its ports");
    cases.put(bond + "      mode: balance-rr\n      port: [eth0]\n      options: {miimon: 100, arp_interval: 100}\n",
        "both miimon and arp_interval");
    cases.put(bond + "      mode: balance-rr\n      port: [eth0]\n      options: {miimon: -1}\n", "invalid value -1");
    cases.put(bond + "      mode: balance-rr\n      port: [eth0]\n      options: {frobnicate: 1}\n", "unknown option");
    cases.put(bond + "      mode: balance-rr\n      port: [eth0]\n  - name: bond1\n    type: bond\n"
        + "    link-aggregation: {mode: balance-rr, port: [eth0]}\n", "port eth0 is overbooked by two controllers: bond0, bond1");
    cases.put(bond + "      mode: balance-rr\n      port: [eth0]\n  - name: eth0\n    type: ethernet\n"
        + "    ipv4: {enabled: true, dhcp: true}\n", "cannot have IP settings of its own");
    cases.put(bond + "      mode: balance-rr\n      port: [eth7]\n", "has no entry for interface eth7 (port of bond bond0)");
    cases.put(bond + "      mode: balance-rr\n      port: [eth0]\n  - name: bond0.5\n    type: vlan\n"
        + "    vlan: {base-iface: bond0, id: 4095}\n", "id must be 0-4094");
    cases.put("interfaces:\n  - name: eth0.5\n    type: vlan\n    vlan: {id: 5}\n",
        "missing 'vlan.base-iface' for interface 'eth0.5'");
    cases.put("interfaces:\n  - name: eth0.5\n    type: vlan\n    vlan: {base-iface: eth0, id: 5, protocol: 802.1x}\n",
        "protocol must be 802.1q or 802.1ad");
    cases.put("interfaces:\n  - name: eth7.5\n    type: vlan\n    vlan: {base-iface: eth7, id: 5}\n",
        "(base-iface of VLAN eth7.5)");
    cases.put(bond + "      mode: balance-rr\n      port: [eth0]\n  - name: eth0.5\n    type: vlan\n"
        + "    vlan: {base-iface: eth0, id: 5}\n", "put the VLAN on bond0");
    cases.put("interfaces:\n  - name: eth0\n    type: ethernet\n    link-aggregation: {mode: balance-rr}\n",
        "of type ethernet has link-aggregation");
    cases.put("interfaces:\n  - name: br0\n    type: linux-bridge\n", "unsupported type linux-bridge (supported: ethernet, bond, vlan)");
    cases.forEach((yaml, reason) -> {
      InvalidIgnitionInputException e = assertThrows(InvalidIgnitionInputException.class, () -> convert(yaml), yaml);
      assertTrue(e.getMessage().contains(reason), yaml + " -> " + e.getMessage());
      assertTrue(e.field().startsWith("static_network_config[0]."), e.field());
    });
  }
}
