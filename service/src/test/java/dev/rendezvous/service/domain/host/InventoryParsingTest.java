package dev.rendezvous.service.domain.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.planning.InvalidStepOutputException;
import dev.rendezvous.service.domain.planning.StepOutputs;
import dev.rendezvous.service.domain.validation.ValidationResult;
import dev.rendezvous.service.domain.validation.ValidationStatus;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InventoryParsingTest {

  @Test
  void parsesARealAgentInventory() {
    Inventory inv = StepOutputs.inventory(Fixtures.resource("inventory-master-0.json"));
    assertEquals("master-0.ostest.test.metalkube.org", inv.hostname());
    assertEquals(8, inv.cpuCount());
    assertEquals("x86_64", inv.cpu().architecture());
    assertEquals(17179869184L, inv.memory().physicalBytes());
    assertEquals("dmidecode", inv.memory().physicalBytesMethod());
    assertEquals(3, inv.disks().size());
    Inventory.Disk sda = inv.disks().get(0);
    assertEquals("/dev/disk/by-id/wwn-0x05abcd4ae2c1f2b1", sda.identifier());
    assertTrue(sda.bootable());
    assertTrue(sda.installationEligibility().eligible());
    assertEquals(List.of(), sda.holders());
    Inventory.Disk cd = inv.disks().get(2);
    assertTrue(cd.isInstallationMedia());
    assertTrue(cd.removable());
    assertEquals(3, cd.installationEligibility().notEligibleReasons().size());
    assertEquals(List.of("192.168.111.20/24"), inv.interfaces().get(0).ipv4Addresses());
    assertEquals("enp1s0", inv.routes().get(0).iface());
    assertEquals("0.0.0.0", inv.routes().get(0).destination());
    assertEquals("KVM", inv.systemVendor().productName());
    assertEquals("ephemeral", inv.boot().deviceType());
    assertTrue(inv.isUsable());
    assertFalse(inv.fullyTruncated());
  }

  @Test
  void reserialisedInventoryDropsUnknownFieldsAndRoundTrips() {
    Inventory inv = StepOutputs.inventory(Fixtures.resource("inventory-master-0.json"));
    String json = StepOutputs.toJson(inv);
    assertFalse(json.contains("some_future_field"));
    assertTrue(json.contains("\"physical_bytes\":17179869184"));
    assertTrue(json.contains("\"partitionTypes\""));
    assertTrue(json.contains("\"interface\":\"enp1s0\""));
    assertEquals(inv, StepOutputs.inventory(json));
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''|inventory",
        "not json|inventory",
        "{\"cpu\": {\"count\": \"many\"}}|inventory.cpu.count",
        "{\"disks\": {\"a\": 1}}|inventory.disks",
        // one document and nothing after it, as Go's json.Unmarshal upstream (the text is stored as sent)
        "{\"hostname\": \"a\"} {\"hostname\": \"b\"}|inventory",
        "{\"hostname\": \"a\"} trailing|inventory",
      })
  void malformedOutputNamesTheField(String output, String field) {
    InvalidStepOutputException e =
        assertThrows(InvalidStepOutputException.class, () -> StepOutputs.inventory(output));
    assertEquals(field, e.field());
  }

  @Test
  void parsesConnectivityReport() {
    String out =
        """
        {"remote_hosts":[{"host_id":"a0000000-0000-0000-0000-000000000002",
          "l2_connectivity":[{"outgoing_ip_address":"192.168.111.21","outgoing_nic":"enp1s0",
             "remote_ip_address":"192.168.111.22","remote_mac":"00:0e:0f:a1:38:02","successful":true}],
          "l3_connectivity":[{"average_rtt_ms":0.39,"outgoing_nic":"enp1s0","packet_loss_percentage":0,
             "remote_ip_address":"192.168.111.22","successful":true}],
          "mtu_report":[{"outgoing_nic":"enp1s0","remote_ip_address":"192.168.111.22","mtu_successful":true}],
          "extra":1}]}
        """;
    ConnectivityReport r = StepOutputs.connectivity(out);
    assertEquals(Fixtures.hostId(2), r.remoteHosts().get(0).hostId());
    assertEquals(0.39, r.remoteHosts().get(0).l3Connectivity().get(0).averageRttMs());
    assertTrue(r.remoteHosts().get(0).mtuReport().get(0).mtuSuccessful());
  }

  @Test
  void parsesOtherStepOutputs() {
    assertEquals("synced",
        StepOutputs.ntp("{\"ntp_sources\":[{\"source_name\":\"a\",\"source_state\":\"synced\"}]}")
            .ntpSources().get(0).sourceState());
    var images = StepOutputs.imageAvailability(
        "{\"images\":[{\"name\":\"quay.io/x\",\"result\":\"success\",\"size_bytes\":100,\"download_rate\":0.0001}]}");
    assertTrue(images.images().get(0).invalid());
    assertEquals(12, StepOutputs.diskSpeed("{\"io_sync_duration\":12,\"path\":\"/dev/sda\"}").ioSyncDuration());
    var dns = StepOutputs.domainResolution(
        "{\"resolutions\":[{\"domain_name\":\"api.a.b\",\"ipv4_addresses\":[\"1.2.3.4\"]}]}");
    assertTrue(dns.resolutions().get(0).resolved());
  }

  @Test
  void validationsInfoSortsCategoriesAndKeepsFieldOrder() {
    ValidationsInfo info = new ValidationsInfo(Map.of(
        "network", List.of(new ValidationResult("connected", ValidationStatus.SUCCESS, "Host is connected")),
        "hardware", List.of(new ValidationResult("has-inventory", ValidationStatus.FAILURE, "x"))));
    assertEquals(
        "{\"hardware\":[{\"id\":\"has-inventory\",\"status\":\"failure\",\"message\":\"x\"}],"
            + "\"network\":[{\"id\":\"connected\",\"status\":\"success\",\"message\":\"Host is connected\"}]}",
        info.toJson());
    assertEquals(info, ValidationsInfo.parse(info.toJson()));
  }

  @Test
  void whatChangesInEveryReportOfAnIdleMachineIsNotWhatOtherHostsRead() {
    Inventory base = Fixtures.inventory();
    Inventory idleAgain = Fixtures.inventory(n -> {
      ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("memory")).put("usable_bytes", 16765628416L - 4096);
      ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("cpu")).put("frequency", 2401.5);
      ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("disks").get(0)).put("smart", "{\"power_on_time\":{\"hours\":9}}")
          .putObject("io_perf").put("sync_duration", 12);
    });
    assertFalse(base.equals(idleAgain), "a new report, stored as such");
    assertTrue(Inventory.sameForPeers(base, idleAgain));
    assertTrue(Inventory.sameForPeers(base, base));
    assertFalse(Inventory.sameForPeers(base, null));
    // what names, addresses, roles and operator checks of other hosts read
    assertFalse(Inventory.sameForPeers(base, Fixtures.inventory(n -> n.put("hostname", "other-name"))));
    assertFalse(Inventory.sameForPeers(base, Fixtures.inventory(n -> ((com.fasterxml.jackson.databind.node.ArrayNode)
        n.get("interfaces").get(0).get("ipv4_addresses")).add("10.9.9.9/24"))));
    assertFalse(Inventory.sameForPeers(base, Fixtures.inventory(n -> ((com.fasterxml.jackson.databind.node.ObjectNode)
        n.get("disks").get(0)).put("size_bytes", 1L << 40))));
    assertFalse(Inventory.sameForPeers(base, Fixtures.inventory(n -> ((com.fasterxml.jackson.databind.node.ObjectNode)
        n.get("cpu")).put("count", 64))));
    assertFalse(Inventory.sameForPeers(base, Fixtures.inventory(n -> ((com.fasterxml.jackson.databind.node.ObjectNode)
        n.get("memory")).put("physical_bytes", 1L << 36))));
  }
}
