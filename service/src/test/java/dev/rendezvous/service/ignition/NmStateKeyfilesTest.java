package dev.rendezvous.service.ignition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.MacInterface;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.StaticNetworkConfig;
import dev.rendezvous.service.ignition.NmStateKeyfiles.GeneratedFile;
import java.util.List;
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
        "interfaces:\n  - name: bond0\n    type: bond\n",
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
}
