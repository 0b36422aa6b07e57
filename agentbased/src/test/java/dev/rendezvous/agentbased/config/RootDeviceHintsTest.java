package dev.rendezvous.agentbased.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RootDeviceHintsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Two disks as our agent reports them: an SSD and a big HDD, and an ineligible installation medium. */
  private static final String INVENTORY = """
      {"hostname": "master-0", "disks": [
        {"id": "/dev/disk/by-id/wwn-0x5000c500a1", "name": "sda", "path": "/dev/sda",
         "by_id": "/dev/disk/by-id/wwn-0x5000c500a1", "by_path": "/dev/disk/by-path/pci-0000:00:1f.2-ata-1",
         "hctl": "0:0:0:0", "model": "Samsung SSD 870", "vendor": "ATA", "serial": "S5Y1NX0R1",
         "wwn": "0x5000c500a1", "size_bytes": 250059350016, "drive_type": "SSD",
         "installation_eligibility": {"eligible": true}},
        {"id": "/dev/disk/by-path/pci-0000:00:1f.2-ata-2", "name": "sdb", "path": "/dev/sdb",
         "by_path": "/dev/disk/by-path/pci-0000:00:1f.2-ata-2",
         "hctl": "1:0:0:0", "model": "ST4000NM0035", "vendor": "SEAGATE", "serial": "ZC1ABC",
         "wwn": "0x5000c500b2", "size_bytes": 4000787030016, "drive_type": "HDD",
         "installation_eligibility": {"eligible": true}},
        {"id": "/dev/sr0", "name": "sr0", "path": "/dev/sr0", "model": "QEMU DVD-ROM", "size_bytes": 1200000000,
         "drive_type": "ODD", "installation_eligibility": {"eligible": false, "not_eligible_reasons": ["medium"]}}
      ]}
      """;

  private static JsonNode inventory() throws Exception {
    return JSON.readTree(INVENTORY);
  }

  private static JsonNode disk(int i) throws Exception {
    return inventory().path("disks").path(i);
  }

  private static RootDeviceHints hints(String deviceName, String hctl, String model, String vendor, String serial,
      Long minGb, String wwn, Boolean rotational) {
    return new RootDeviceHints(deviceName, hctl, model, vendor, serial, minGb, wwn, null, null, rotational);
  }

  @Test
  void deviceNameMatchesThePathOrTheByPathName() throws Exception {
    assertTrue(hints("/dev/sda", null, null, null, null, null, null, null).matches(disk(0)));
    assertTrue(hints("/dev/disk/by-path/pci-0000:00:1f.2-ata-2", null, null, null, null, null, null, null)
        .matches(disk(1)));
    assertFalse(hints("/dev/sda", null, null, null, null, null, null, null).matches(disk(1)));
    assertFalse(hints("sda", null, null, null, null, null, null, null).matches(disk(0)));
  }

  @Test
  void modelAndVendorAreSubstringsTheOthersExact() throws Exception {
    assertTrue(hints(null, null, "SSD 870", "AT", null, null, null, null).matches(disk(0)));
    assertFalse(hints(null, null, "ssd 870", null, null, null, null, null).matches(disk(0)));
    assertTrue(hints(null, "1:0:0:0", null, null, "ZC1ABC", null, "0x5000c500b2", null).matches(disk(1)));
    assertFalse(hints(null, "1:0:0", null, null, null, null, null, null).matches(disk(1)));
    assertFalse(hints(null, null, null, null, "ZC1AB", null, null, null).matches(disk(1)));
    assertFalse(hints(null, null, null, null, null, null, "0x5000c500", null).matches(disk(1)));
  }

  @Test
  void minSizeComparesDecimalGigabytes() throws Exception {
    assertTrue(hints(null, null, null, null, null, 250L, null, null).matches(disk(0))); // 250.06 GB
    assertFalse(hints(null, null, null, null, null, 251L, null, null).matches(disk(0)));
    assertTrue(hints(null, null, null, null, null, 0L, null, null).matches(disk(0))); // 0: no minimum
  }

  @Test
  void rotationalMeansAnHdd() throws Exception {
    assertTrue(hints(null, null, null, null, null, null, null, true).matches(disk(1)));
    assertFalse(hints(null, null, null, null, null, null, null, true).matches(disk(0)));
    assertTrue(hints(null, null, null, null, null, null, null, false).matches(disk(0)));
  }

  @Test
  void everyHintGivenMustMatch() throws Exception {
    assertFalse(hints("/dev/sda", null, null, null, null, 1000L, null, null).matches(disk(0)));
    assertTrue(hints("/dev/sdb", "1:0:0:0", "ST4000", "SEAGATE", "ZC1ABC", 4000L, "0x5000c500b2", true)
        .matches(disk(1)));
    assertTrue(hints(null, null, null, null, null, null, null, null).isEmpty());
  }

  @Test
  void chooseGivesTheIdOfTheFirstEligibleMatchingDisk() throws Exception {
    assertEquals(Optional.of("/dev/disk/by-path/pci-0000:00:1f.2-ata-2"),
        RootDeviceHints.choose(hints(null, null, null, null, null, 1000L, null, null), inventory()));
    assertEquals(Optional.of("/dev/disk/by-id/wwn-0x5000c500a1"),
        RootDeviceHints.choose(hints(null, null, null, null, null, null, null, false), inventory()));
    // no hints: the first eligible disk, as upstream
    assertEquals(Optional.of("/dev/disk/by-id/wwn-0x5000c500a1"), RootDeviceHints.choose(null, inventory()));
  }

  @Test
  void chooseSkipsIneligibleDisksAndMayFindNone() throws Exception {
    assertEquals(Optional.empty(), RootDeviceHints.choose(hints("/dev/sr0", null, null, null, null, null, null, null),
        inventory()));
    assertEquals(Optional.empty(), RootDeviceHints.choose(hints(null, null, "NVMe", null, null, null, null, null),
        inventory()));
    assertEquals(Optional.empty(), RootDeviceHints.choose(null, JSON.readTree("{\"disks\": []}")));
  }

  @Test
  void theDiskIdFallsBackAsTheServiceDoes() throws Exception {
    assertEquals("/dev/disk/by-id/x", RootDeviceHints.diskId(JSON.readTree(
        "{\"by_id\": \"/dev/disk/by-id/x\", \"by_path\": \"/dev/disk/by-path/y\", \"path\": \"/dev/sdc\"}")));
    assertEquals("/dev/disk/by-path/y", RootDeviceHints.diskId(JSON.readTree(
        "{\"by_path\": \"/dev/disk/by-path/y\", \"path\": \"/dev/sdc\"}")));
    assertEquals("/dev/sdc", RootDeviceHints.diskId(JSON.readTree("{\"id\": \"\", \"path\": \"/dev/sdc\"}")));
  }
}
