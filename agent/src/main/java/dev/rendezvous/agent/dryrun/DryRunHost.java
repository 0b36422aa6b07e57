package dev.rendezvous.agent.dryrun;

import dev.rendezvous.agent.netcheck.Ipv4Network;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.WireJson;
import java.util.List;

/**
 * One simulated host: its address in {@code network} (index + 10, so .1-.9 stay free for gateway and
 * VIPs), MAC 02:d7:xx:xx:xx:xx from the index, and a canned inventory that passes upstream's master
 * thresholds (8 cores, 32 GiB, one 250 GB eligible SSD, ephemeral boot as from a discovery ISO).
 * The inventory JSON is built once: a swarm of thousands answers inventory steps without work.
 */
public final class DryRunHost {
  private final String hostId;
  private final int index;
  private final Ipv4Network network;
  private final String ip;
  private final String mac;
  private final String hostname;
  private final String inventoryJson;

  public DryRunHost(String hostId, int index, String cidr, String hostname) {
    this.hostId = hostId;
    this.index = index;
    Ipv4Network n = Ipv4Network.parse(cidr);
    this.network = new Ipv4Network(n.network(), n.prefix());
    long usable = network.size() - 12;
    if (usable <= 0) {
      throw new IllegalArgumentException("dry-run-cidr " + cidr + " is too small");
    }
    this.ip = Ipv4Network.toDotted((int) (network.network() + 10 + Math.floorMod(index, usable)));
    this.mac = String.format("02:d7:%02x:%02x:%02x:%02x",
        (index >>> 24) & 255, (index >>> 16) & 255, (index >>> 8) & 255, index & 255);
    this.hostname = hostname != null ? hostname : "rdv-dry-" + index;
    this.inventoryJson = WireJson.write(inventory());
  }

  /** An index from a host id, for a single dry-run agent started without --dry-run-index. */
  public static int indexFor(String hostId) {
    return Math.floorMod(hostId.hashCode(), 1 << 20);
  }

  public String hostId() {
    return hostId;
  }

  public String ip() {
    return ip;
  }

  public String mac() {
    return mac;
  }

  public String nic() {
    return "ens3";
  }

  public Ipv4Network network() {
    return network;
  }

  public String inventoryJson() {
    return inventoryJson;
  }

  private Inventory inventory() {
    String cidr = ip + "/" + network.prefix();
    String gateway = Ipv4Network.toDotted(network.network() + 1);
    String wwn = String.format("0x5000c500%08x", index);
    return new Inventory(
        hostname,
        null,
        null,
        List.of(new Inventory.Interface(nic(), mac, List.of(cidr), List.of(), 1500,
            List.of("up", "broadcast", "multicast", "running"), true, 10000, "physical", "0x1af4", "0x1041", null,
            null)),
        List.of(new Inventory.Disk("/dev/disk/by-id/wwn-" + wwn, "sda", "/dev/sda", "/dev/disk/by-id/wwn-" + wwn,
            "/dev/disk/by-path/pci-0000:00:05.0-scsi-0:0:0:0", "0:0:0:0", "SSD", 250_000_000_000L, false, false, false,
            "Dry Run Disk", "RDV", "DRY" + index, wwn, true, "", null, null, null, null,
            new Inventory.InstallationEligibility(true, List.of()))),
        new Inventory.Boot("uefi", null, "BOOT_IMAGE=/images/pxeboot/vmlinuz coreos.liveiso=rhcos", "Disabled",
            "ephemeral"),
        new Inventory.SystemVendor("Rendezvous", "Dry Run Host", "DRY-" + index, true),
        new Inventory.Memory(32L << 30, (32L << 30) - (200L << 20), "dmidecode"),
        new Inventory.Cpu("x86_64", 8,
            List.of("fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce", "cx8", "apic", "sep", "mtrr", "pge", "mca",
                "cmov", "pat", "clflush", "mmx", "fxsr", "sse", "sse2", "ht", "syscall", "nx", "lm", "vmx", "sse4_1",
                "sse4_2", "popcnt", "aes", "avx", "avx2", "hypervisor"),
            2400.0, "Dry Run CPU @ 2.40GHz"),
        List.of(),
        List.of(new Inventory.Route(nic(), gateway, "0.0.0.0", 2, 100),
            new Inventory.Route(nic(), "0.0.0.0", Ipv4Network.toDotted(network.network()), 2, 100)),
        "2.0",
        null);
  }
}
