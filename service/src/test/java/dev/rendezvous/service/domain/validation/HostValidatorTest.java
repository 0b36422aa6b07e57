package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static dev.rendezvous.service.domain.validation.ValidationStatus.ERROR;
import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.MajorityGroups;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.planning.StepOutputs.ApiVipConnectivityResponse;
import dev.rendezvous.service.domain.planning.StepOutputs.DomainResolutionResponse;
import dev.rendezvous.service.domain.planning.StepOutputs.ImageAvailability;
import dev.rendezvous.service.domain.planning.StepOutputs.NtpSource;
import dev.rendezvous.service.domain.planning.StepOutputs.Resolution;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HostValidatorTest {

  private static final HostValidator VALIDATOR = new HostValidator(DomainConfig.defaults());
  static final UnaryOperator<HostSnapshot.Builder> SAME = b -> b;
  static final UnaryOperator<ClusterContext.Builder> SAME_CLUSTER = b -> b;
  static final UnaryOperator<ClusterContext.Builder> UNBOUND = b -> null;

  /** The host under test is host 1 of a three-host cluster (hosts 2 and 3 as known peers). */
  static HostValidation evaluate(
      UnaryOperator<HostSnapshot.Builder> host, UnaryOperator<ClusterContext.Builder> cluster) {
    HostSnapshot h = host.apply(Fixtures.host(1, HostStatus.KNOWN)).build();
    List<HostSnapshot> hosts = List.of(h, Fixtures.host(2, HostStatus.KNOWN).build(), Fixtures.host(3, HostStatus.KNOWN).build());
    ClusterContext.Builder cb = cluster.apply(Fixtures.cluster(hosts));
    if (cb == null) {
      return VALIDATOR.validate(h.toBuilder().clusterId(null).build(), null, NOW);
    }
    ClusterContext c = cb.build();
    HostSnapshot inCluster = c.host(h.id()).orElse(h);
    return VALIDATOR.validate(inCluster, c, NOW);
  }

  static UnaryOperator<HostSnapshot.Builder> inv(java.util.function.Consumer<ObjectNode> edit) {
    return b -> b.inventory(Fixtures.inventoryForHost(1, edit));
  }

  static DomainResolutionResponse resolutions(Resolution... r) {
    return new DomainResolutionResponse(List.of(r));
  }

  static Resolution resolved(String name, String ip) {
    return new Resolution(name, List.of(ip), List.of(), List.of());
  }

  static Resolution unresolved(String name) {
    return new Resolution(name, List.of(), List.of(), List.of());
  }

  static ConnectivityReport l3To(int peer, double rtt, double loss) {
    return new ConnectivityReport(List.of(new ConnectivityReport.RemoteHost(Fixtures.hostId(peer), List.of(),
        List.of(new ConnectivityReport.L3("enp1s0", "192.168.111." + (20 + peer), true, rtt, loss)), List.of())));
  }

  static Stream<Arguments> rows() {
    String api = "api.ostest.test.metalkube.org";
    String apiInt = "api-int.ostest.test.metalkube.org";
    String apps = "console-openshift-console.apps.ostest.test.metalkube.org";
    UnaryOperator<ClusterContext.Builder> umn = b -> b.userManagedNetworking(true).apiVips(List.of()).ingressVips(List.of());
    UnaryOperator<ClusterContext.Builder> sno = b -> b.controlPlaneCount(1);
    return Stream.of(
        // connected: 3 min, 5 for the bootstrap, not judged after Rebooting
        Arguments.of("connected recently", (UnaryOperator<HostSnapshot.Builder>) b -> b.checkedInAt(NOW.minusSeconds(179)), SAME_CLUSTER, "connected", SUCCESS, "Host is connected"),
        Arguments.of("disconnected after 3 min", (UnaryOperator<HostSnapshot.Builder>) b -> b.checkedInAt(NOW.minusSeconds(181)), SAME_CLUSTER, "connected", FAILURE, "Host is disconnected"),
        Arguments.of("bootstrap gets 5 min", (UnaryOperator<HostSnapshot.Builder>) b -> b.bootstrap(true).checkedInAt(NOW.minusSeconds(290)), SAME_CLUSTER, "connected", SUCCESS, "Host is connected"),
        Arguments.of("bootstrap after 5 min", (UnaryOperator<HostSnapshot.Builder>) b -> b.bootstrap(true).checkedInAt(NOW.minusSeconds(301)), SAME_CLUSTER, "connected", FAILURE, "disconnected"),
        Arguments.of("never checked in", (UnaryOperator<HostSnapshot.Builder>) b -> b.checkedInAt(null), SAME_CLUSTER, "connected", SUCCESS, "connected"),
        Arguments.of("media disconnected", (UnaryOperator<HostSnapshot.Builder>) b -> b.mediaDisconnected(true), SAME_CLUSTER, "media-connected", FAILURE, "Unable to read from the discovery media"),
        Arguments.of("media connected", SAME, SAME_CLUSTER, "media-connected", SUCCESS, "Media device is connected"),
        // inventory
        Arguments.of("has inventory", SAME, SAME_CLUSTER, "has-inventory", SUCCESS, "Valid inventory exists"),
        Arguments.of("no inventory", (UnaryOperator<HostSnapshot.Builder>) b -> b.inventory(null), SAME_CLUSTER, "has-inventory", FAILURE, "Inventory has not been received"),
        Arguments.of("inventory without disks", inv(n -> n.putArray("disks")), SAME_CLUSTER, "has-inventory", FAILURE, "Inventory has not been received"),
        Arguments.of("partially truncated", inv(n -> n.putObject("truncation").put("type", "partial").putArray("reasons").add("disks list too long")), SAME_CLUSTER, "inventory-not-partially-truncated", FAILURE, "partially truncated by the agent: disks list too long"),
        Arguments.of("fully truncated", inv(n -> n.putObject("truncation").put("type", "full")), SAME_CLUSTER, "inventory-not-fully-truncated", FAILURE, "fully truncated"),
        // minimum hardware for any role (min of master and worker)
        Arguments.of("2 cores is the any-role minimum", inv(Fixtures.cpu(2)), SAME_CLUSTER, "has-min-cpu-cores", SUCCESS, "Sufficient CPU cores"),
        Arguments.of("1 core is too few", inv(Fixtures.cpu(1)), SAME_CLUSTER, "has-min-cpu-cores", FAILURE, "minimum required CPU cores for any role is 2, found only 1"),
        Arguments.of("cpu pending without inventory", (UnaryOperator<HostSnapshot.Builder>) b -> b.inventory(null), SAME_CLUSTER, "has-min-cpu-cores", PENDING, "Missing inventory"),
        Arguments.of("8 GiB is enough", inv(Fixtures.ramGib(8)), SAME_CLUSTER, "has-min-memory", SUCCESS, "Sufficient minimum RAM"),
        Arguments.of("100 MiB tolerance", inv(n -> ((ObjectNode) n.get("memory")).put("physical_bytes", 8192L * 1024 * 1024 - 50L * 1024 * 1024)), SAME_CLUSTER, "has-min-memory", SUCCESS, "Sufficient minimum RAM"),
        Arguments.of("4 GiB is not", inv(Fixtures.ramGib(4)), SAME_CLUSTER, "has-min-memory", FAILURE, "minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB"),
        Arguments.of("eligible disk", SAME, SAME_CLUSTER, "has-min-valid-disks", SUCCESS, "Sufficient disk capacity"),
        Arguments.of("only small disks", inv(n -> ((ObjectNode) n.get("disks").get(0)).put("size_bytes", 21474836480L)), SAME_CLUSTER, "has-min-valid-disks", FAILURE, "No eligible disks were found"),
        // role thresholds
        Arguments.of("master needs 4 cores", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER).inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(3))), SAME_CLUSTER, "has-cpu-cores-for-role", FAILURE, "Require at least 4 CPU cores for master role, found only 3"),
        Arguments.of("master with 4 cores", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER).inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(4))), SAME_CLUSTER, "has-cpu-cores-for-role", SUCCESS, "Sufficient CPU cores for role master"),
        Arguments.of("worker with 2 cores", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.WORKER).inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(2))), SAME_CLUSTER, "has-cpu-cores-for-role", SUCCESS, "for role worker"),
        Arguments.of("arbiter with 2 cores", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.ARBITER).inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(2))), SAME_CLUSTER, "has-cpu-cores-for-role", SUCCESS, "for role arbiter"),
        Arguments.of("SNO master needs 8 cores", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER).inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(6))), sno, "has-cpu-cores-for-role", FAILURE, "Require at least 8 CPU cores for master role, found only 6"),
        Arguments.of("SNO on 4.22 needs 4", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER).inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(4))), (UnaryOperator<ClusterContext.Builder>) b -> b.controlPlaneCount(1).openshiftVersion("4.22.0"), "has-cpu-cores-for-role", SUCCESS, "master"),
        Arguments.of("master needs 16 GiB", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER).inventory(Fixtures.inventoryForHost(1, Fixtures.ramGib(12))), SAME_CLUSTER, "has-memory-for-role", FAILURE, "Require at least 16.00 GiB RAM for role master, found only 12.00 GiB"),
        Arguments.of("worker with 12 GiB", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.WORKER).inventory(Fixtures.inventoryForHost(1, Fixtures.ramGib(12))), SAME_CLUSTER, "has-memory-for-role", SUCCESS, "Sufficient RAM for role worker"),
        Arguments.of("suggested role counts", (UnaryOperator<HostSnapshot.Builder>) b -> b.suggestedRole(HostRole.MASTER).inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(2))), SAME_CLUSTER, "has-cpu-cores-for-role", FAILURE, "for master role"),
        // hostname
        Arguments.of("unique hostname", SAME, SAME_CLUSTER, "hostname-unique", SUCCESS, "Hostname host-1 is unique in cluster"),
        Arguments.of("duplicate hostname", (UnaryOperator<HostSnapshot.Builder>) b -> b.requestedHostname("host-2"), SAME_CLUSTER, "hostname-unique", FAILURE, "Hostname host-2 is not unique in cluster"),
        Arguments.of("valid hostname", SAME, SAME_CLUSTER, "hostname-valid", SUCCESS, "Hostname host-1 is allowed"),
        Arguments.of("localhost forbidden", (UnaryOperator<HostSnapshot.Builder>) b -> b.requestedHostname("localhost"), SAME_CLUSTER, "hostname-valid", FAILURE, "The host name localhost is forbidden"),
        Arguments.of("uppercase forbidden", (UnaryOperator<HostSnapshot.Builder>) b -> b.requestedHostname("Host_1"), SAME_CLUSTER, "hostname-valid", FAILURE, "should match pattern"),
        // machine network
        Arguments.of("machine cidr defined", SAME, SAME_CLUSTER, "machine-cidr-defined", SUCCESS, "Machine Network CIDR is defined"),
        Arguments.of("machine cidr missing", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.machineNetworks(List.of()), "machine-cidr-defined", FAILURE, "can be defined by setting either the API or Ingress virtual IPs"),
        Arguments.of("machine cidr not needed with UMN", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.machineNetworks(List.of()).userManagedNetworking(true), "machine-cidr-defined", SUCCESS, "User Managed Networking"),
        Arguments.of("belongs to machine cidr", SAME, SAME_CLUSTER, "belongs-to-machine-cidr", SUCCESS, "Host belongs to all machine network CIDRs"),
        Arguments.of("outside machine cidr", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.machineNetworks(List.of("10.0.0.0/24")), "belongs-to-machine-cidr", FAILURE, "Host does not belong to machine network CIDRs"),
        Arguments.of("machine cidr pending", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.machineNetworks(List.of()), "belongs-to-machine-cidr", PENDING, "Missing inventory or machine network CIDR"),
        // majority group
        Arguments.of("majority group missing", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.connectivityMajorityGroups(null), "belongs-to-majority-group", PENDING, "Connectivity Majority Groups missing"),
        Arguments.of("in majority group", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.connectivityMajorityGroups(new MajorityGroups(Map.of("192.168.111.0/24", List.of(Fixtures.hostId(1), Fixtures.hostId(2), Fixtures.hostId(3))), Map.of())), "belongs-to-majority-group", SUCCESS, "Host has connectivity to the majority"),
        Arguments.of("not in majority group", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.connectivityMajorityGroups(new MajorityGroups(Map.of("192.168.111.0/24", List.of(Fixtures.hostId(2), Fixtures.hostId(3))), Map.of())), "belongs-to-majority-group", FAILURE, "No connectivity to the majority of hosts"),
        Arguments.of("SNO needs no group", SAME, sno, "belongs-to-majority-group", SUCCESS, "majority"),
        Arguments.of("UMN uses L3 groups", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.userManagedNetworking(true).connectivityMajorityGroups(new MajorityGroups(Map.of("IPv4", List.of(Fixtures.hostId(1))), Map.of())), "belongs-to-majority-group", SUCCESS, "majority"),
        // ntp / time
        Arguments.of("ntp synced", SAME, SAME_CLUSTER, "ntp-synced", SUCCESS, "Host NTP is synced"),
        Arguments.of("ntp unreachable", (UnaryOperator<HostSnapshot.Builder>) b -> b.ntpSources(List.of(new NtpSource("a", "unreachable"))), SAME_CLUSTER, "ntp-synced", FAILURE, "Host couldn't synchronize with any NTP server"),
        Arguments.of("clock in sync", SAME, SAME_CLUSTER, "time-synced-between-host-and-service", SUCCESS, "Host clock is synchronized with service"),
        Arguments.of("clock 21 min behind", (UnaryOperator<HostSnapshot.Builder>) b -> b.hostTimestamp(NOW.getEpochSecond() - 21 * 60), SAME_CLUSTER, "time-synced-between-host-and-service", FAILURE, "service time is ahead of host's at least for 20.0 minutes"),
        Arguments.of("clock 61 min ahead", (UnaryOperator<HostSnapshot.Builder>) b -> b.hostTimestamp(NOW.getEpochSecond() + 61 * 60), SAME_CLUSTER, "time-synced-between-host-and-service", FAILURE, "host time is ahead of service at least for 60.0 minutes"),
        Arguments.of("clock unknown", (UnaryOperator<HostSnapshot.Builder>) b -> b.hostTimestamp(0), SAME_CLUSTER, "time-synced-between-host-and-service", PENDING, "Missing host time"),
        // images and disk speed
        Arguments.of("images unchecked", SAME, SAME_CLUSTER, "container-images-available", SUCCESS, "no attempt was made"),
        Arguments.of("image pull failed", (UnaryOperator<HostSnapshot.Builder>) b -> b.imagesStatus(List.of(new ImageAvailability("quay.io/openshift-release-dev/ocp-release:4.16", "failure", 0, 0, 0))), SAME_CLUSTER, "container-images-available", FAILURE, "Failed to fetch container images needed for installation from quay.io/openshift-release-dev/ocp-release:4.16."),
        Arguments.of("disk speed untested", SAME, SAME_CLUSTER, "sufficient-installation-disk-speed", SUCCESS, "has not yet been measured"),
        Arguments.of("disk speed ok", (UnaryOperator<HostSnapshot.Builder>) b -> b.diskSpeeds(Map.of("/dev/sda", new HostSnapshot.DiskSpeed(true, 0, 5))), SAME_CLUSTER, "sufficient-installation-disk-speed", SUCCESS, "is sufficient"),
        Arguments.of("disk speed failed", (UnaryOperator<HostSnapshot.Builder>) b -> b.diskSpeeds(Map.of("/dev/sda", new HostSnapshot.DiskSpeed(true, 1, 0))), SAME_CLUSTER, "sufficient-installation-disk-speed", FAILURE, "measurement failed or was found to be insufficient"),
        // latency and packet loss against same-role peers
        Arguments.of("latency auto-assign passes", SAME, SAME_CLUSTER, "sufficient-network-latency-requirement-for-role", SUCCESS, "satisfied"),
        Arguments.of("master latency pending", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER), SAME_CLUSTER, "sufficient-network-latency-requirement-for-role", PENDING, "Missing network latency information."),
        Arguments.of("master latency 150ms to master", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER).connectivity(l3To(2, 150, 0)), (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(List.of(Fixtures.host(1, HostStatus.KNOWN).role(HostRole.MASTER).connectivity(l3To(2, 150, 0)).build(), Fixtures.host(2, HostStatus.KNOWN).role(HostRole.MASTER).build())), "sufficient-network-latency-requirement-for-role", FAILURE, "Network latency requirements of less than or equals 100.00 ms not met for connectivity between a0000000-0000-0000-0000-000000000001 and host-2 (150.00 ms)."),
        Arguments.of("worker latency 150ms fine", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.WORKER).connectivity(l3To(2, 150, 0)), SAME_CLUSTER, "sufficient-network-latency-requirement-for-role", SUCCESS, "satisfied"),
        Arguments.of("master packet loss 1%", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER), (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(List.of(Fixtures.host(1, HostStatus.KNOWN).role(HostRole.MASTER).connectivity(l3To(2, 1, 1)).build(), Fixtures.host(2, HostStatus.KNOWN).role(HostRole.MASTER).build())), "sufficient-packet-loss-requirement-for-role", FAILURE, "Packet loss percentage requirement of equals 0.00% not met"),
        Arguments.of("worker packet loss 5% fine", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.WORKER), (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(List.of(Fixtures.host(1, HostStatus.KNOWN).role(HostRole.WORKER).connectivity(l3To(2, 1, 5)).build(), Fixtures.host(2, HostStatus.KNOWN).role(HostRole.WORKER).build())), "sufficient-packet-loss-requirement-for-role", SUCCESS, "satisfied"),
        // routes, subnets
        Arguments.of("default route", SAME, SAME_CLUSTER, "has-default-route", SUCCESS, "at least one default route"),
        Arguments.of("no default route", inv(n -> n.putArray("routes")), SAME_CLUSTER, "has-default-route", FAILURE, "has not yet been configured with a default route"),
        Arguments.of("subnets fine", SAME, SAME_CLUSTER, "non-overlapping-subnets", SUCCESS, "Host subnets are not overlapping"),
        Arguments.of("same subnet on two NICs", inv(n -> ((com.fasterxml.jackson.databind.node.ArrayNode) n.get("interfaces")).add(((ObjectNode) n.get("interfaces").get(0)).deepCopy().put("name", "enp9s0"))), SAME_CLUSTER, "non-overlapping-subnets", FAILURE, "Address network 192.168.111.0/24 appears on multiple interfaces [enp1s0, enp9s0]"),
        // DNS
        Arguments.of("managed networking needs no DNS", SAME, SAME_CLUSTER, "api-domain-name-resolved-correctly", SUCCESS, "Domain name resolution for the " + api + " domain was successful or not required"),
        Arguments.of("UMN api resolves", (UnaryOperator<HostSnapshot.Builder>) b -> b.domainResolutions(resolutions(resolved(api, "192.168.111.100"))), umn, "api-domain-name-resolved-correctly", SUCCESS, "successful or not required"),
        Arguments.of("UMN api unresolved", (UnaryOperator<HostSnapshot.Builder>) b -> b.domainResolutions(resolutions(unresolved(api))), umn, "api-domain-name-resolved-correctly", FAILURE, "Couldn't resolve domain name " + api + " on the host"),
        Arguments.of("UMN api points at this host", (UnaryOperator<HostSnapshot.Builder>) b -> b.domainResolutions(resolutions(resolved(api, "192.168.111.21"))), umn, "api-domain-name-resolved-correctly", FAILURE, "must not point at 192.168.111.21"),
        Arguments.of("UMN api-int without resolution step", (UnaryOperator<HostSnapshot.Builder>) b -> b.domainResolutions(null), umn, "api-int-domain-name-resolved-correctly", ERROR, "Error while evaluating DNS resolution"),
        Arguments.of("UMN apps resolves", (UnaryOperator<HostSnapshot.Builder>) b -> b.domainResolutions(resolutions(resolved(apps, "192.168.111.101"), resolved(apiInt, "192.168.111.100"))), umn, "apps-domain-name-resolved-correctly", SUCCESS, "*.apps.ostest.test.metalkube.org"),
        Arguments.of("wildcard not configured", (UnaryOperator<HostSnapshot.Builder>) b -> b.domainResolutions(resolutions(unresolved("validateNoWildcardDNS.ostest.test.metalkube.org"))), SAME_CLUSTER, "dns-wildcard-not-configured", SUCCESS, "DNS wildcard check was successful"),
        Arguments.of("wildcard configured", (UnaryOperator<HostSnapshot.Builder>) b -> b.domainResolutions(resolutions(resolved("validateNoWildcardDNS.ostest.test.metalkube.org", "1.2.3.4"))), SAME_CLUSTER, "dns-wildcard-not-configured", FAILURE, "DNS wildcard configuration was detected for domain *.ostest.test.metalkube.org"),
        Arguments.of("wildcard pending", (UnaryOperator<HostSnapshot.Builder>) b -> b.domainResolutions(null), SAME_CLUSTER, "dns-wildcard-not-configured", PENDING, "has not yet performed DNS resolution"),
        // platform
        Arguments.of("baremetal platform", SAME, SAME_CLUSTER, "compatible-with-cluster-platform", SUCCESS, "Host is compatible with cluster platform baremetal"),
        Arguments.of("vsphere platform on KVM", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.platformType("vsphere"), "compatible-with-cluster-platform", FAILURE, "Host is not compatible with cluster platform vsphere; either disable this host or choose a compatible cluster platform ([baremetal none external])"),
        Arguments.of("OpenStack needs UMN", inv(n -> ((ObjectNode) n.get("system_vendor")).put("product_name", "OpenStack Compute")), SAME_CLUSTER, "valid-platform-network-settings", FAILURE, "Platform OpenStack Compute is allowed only for Single Node OpenShift or user-managed networking"),
        Arguments.of("KVM platform allowed", SAME, SAME_CLUSTER, "valid-platform-network-settings", SUCCESS, "Platform KVM is allowed"),
        Arguments.of("vsphere without disk uuid", inv(n -> ((ObjectNode) n.get("disks").get(0)).put("has_uuid", false)), (UnaryOperator<ClusterContext.Builder>) b -> b.platformType("vsphere"), "vsphere-disk-uuid-enabled", FAILURE, "disk.EnableUUID isn't enabled"),
        // disk encryption
        Arguments.of("tpm missing for masters", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER), (UnaryOperator<ClusterContext.Builder>) b -> b.diskEncryption(new ClusterContext.DiskEncryption("masters", "tpmv2", null)), "disk-encryption-requirements-satisfied", FAILURE, "TPM version could not be found"),
        Arguments.of("tpm 2.0 for masters", (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER).inventory(Fixtures.inventoryForHost(1, n -> n.put("tpm_version", "2.0"))), (UnaryOperator<ClusterContext.Builder>) b -> b.diskEncryption(new ClusterContext.DiskEncryption("all", "tpmv2", null)), "disk-encryption-requirements-satisfied", SUCCESS, "Installation disk can be encrypted using tpmv2"),
        Arguments.of("encryption waits for a role", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.diskEncryption(new ClusterContext.DiskEncryption("all", "tpmv2", null)), "disk-encryption-requirements-satisfied", PENDING, "Missing role assignment"),
        // day-2, agent, skip-format, collisions, iscsi, mtu
        Arguments.of("day2 ignition pending", (UnaryOperator<HostSnapshot.Builder>) b -> b.day2(true), (UnaryOperator<ClusterContext.Builder>) b -> b.day2(true), "ignition-downloadable", PENDING, "pending API connectivity"),
        Arguments.of("day2 ignition failed", (UnaryOperator<HostSnapshot.Builder>) b -> b.day2(true).apiVipConnectivity(new ApiVipConnectivityResponse(false, "http://api:22624/config/worker", "timeout", null)), (UnaryOperator<ClusterContext.Builder>) b -> b.day2(true), "ignition-downloadable", FAILURE, "failed to download the ignition file from http://api:22624/config/worker with the following error: timeout"),
        Arguments.of("agent check disabled", SAME, SAME_CLUSTER, "compatible-agent", SUCCESS, "Host agent compatibility checking is disabled"),
        Arguments.of("skip install disk", (UnaryOperator<HostSnapshot.Builder>) b -> b.skipFormattingDiskIds(List.of("/dev/disk/by-id/wwn-0x05abcd4ae2c1f2b1")), SAME_CLUSTER, "no-skip-installation-disk", FAILURE, "not allowed"),
        Arguments.of("skip missing disk", (UnaryOperator<HostSnapshot.Builder>) b -> b.skipFormattingDiskIds(List.of("/dev/disk/by-id/gone")), SAME_CLUSTER, "no-skip-missing-disk", FAILURE, "no longer present on this host"),
        Arguments.of("ip collision", SAME, (UnaryOperator<ClusterContext.Builder>) b -> b.ipCollisions(Map.of("192.168.111.21", List.of("00:0e:0f:a1:38:01", "52:54:00:00:00:01"))), "no-ip-collisions-in-network", FAILURE, "Collisions detected for host ID a0000000-0000-0000-0000-000000000001, IP address: 192.168.111.21 Mac addresses: 00:0e:0f:a1:38:01,52:54:00:00:00:01"),
        Arguments.of("no collisions evaluated", SAME, SAME_CLUSTER, "no-ip-collisions-in-network", SUCCESS, "IP collisions have not yet been evaluated"),
        Arguments.of("mtu broken", (UnaryOperator<HostSnapshot.Builder>) b -> b.connectivity(new ConnectivityReport(List.of(new ConnectivityReport.RemoteHost(Fixtures.hostId(2), List.of(), List.of(), List.of(new ConnectivityReport.Mtu("enp1s0", "192.168.111.22", false)))))), SAME_CLUSTER, "mtu-valid", FAILURE, "MTU is broken. Interface: enp1s0, remote IP address: 192.168.111.22"),
        Arguments.of("iscsi fine when not iscsi", SAME, SAME_CLUSTER, "no-iscsi-nic-belongs-to-machine-cidr", SUCCESS, "not an iSCSI disk"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("rows")
  void validation(
      String name,
      UnaryOperator<HostSnapshot.Builder> host,
      UnaryOperator<ClusterContext.Builder> cluster,
      String id,
      ValidationStatus status,
      String fragment) {
    HostValidation v = evaluate(host, cluster);
    ValidationResult r = v.info().find(id).orElseThrow(() -> new AssertionError(id + " missing from " + v.info().toJson()));
    assertEquals(status, r.status(), r.message());
    assertTrue(r.message().contains(fragment), () -> "message was: " + r.message());
    assertEquals(status == SUCCESS, v.conditions().get(id));
  }

  @Test
  void everyHostValidationIdIsReportedForABoundHost() {
    HostValidation v = evaluate(SAME, SAME_CLUSTER);
    List<String> ids = v.info().all().stream().map(ValidationResult::id).toList();
    List<String> missing = new ArrayList<>();
    for (HostValidationId id : HostValidationId.values()) {
      if (!ids.contains(id.id()) && id != HostValidationId.IGNITION_DOWNLOADABLE
          && id != HostValidationId.DISK_ENCRYPTION_REQUIREMENTS && id != HostValidationId.RELEASE_DOMAIN_NAME_RESOLVED) {
        missing.add(id.id());
      }
    }
    assertEquals(List.of(), missing, "day-1 host without encryption omits only the suppressed ones");
    assertEquals(List.of("hardware", "network", "operators"), List.copyOf(v.info().categories().keySet()));
    List<String> ops = v.info().categories().get("operators").stream().map(ValidationResult::id).toList();
    assertEquals(ops.stream().sorted().toList(), ops);
    assertEquals("lso is disabled", v.info().find("lso-requirements-satisfied").orElseThrow().message());
  }

  @Test
  void theDiskSpeedCheckCountsAsSuccessfulOnlyWhenMeasuredOrNeverToBeSent() {
    assertFalse(evaluate(SAME, SAME_CLUSTER).diskSpeedCheckSuccessful(), "not measured yet: preparation waits");
    assertTrue(evaluate(b -> b.diskSpeeds(Map.of("/dev/sda", new HostSnapshot.DiskSpeed(true, 0, 5))), SAME_CLUSTER)
        .diskSpeedCheckSuccessful());
    assertFalse(evaluate(b -> b.diskSpeeds(Map.of("/dev/sda", new HostSnapshot.DiskSpeed(true, 1, 0))), SAME_CLUSTER)
        .diskSpeedCheckSuccessful());
    // the planner sends no check to a host booted from a persistent disk or keeping partitions (upstream's rule)
    assertTrue(evaluate(inv(i -> i.putObject("boot").put("device_type", "persistent")), SAME_CLUSTER)
        .diskSpeedCheckSuccessful(), "persistent boot");
    assertFalse(evaluate(inv(i -> i.putObject("boot").put("device_type", "ephemeral")), SAME_CLUSTER)
        .diskSpeedCheckSuccessful(), "live ISO boot is measured");
    assertTrue(evaluate(b -> b.installerArgs(List.of("--save-partlabel", "data")), SAME_CLUSTER)
        .diskSpeedCheckSuccessful(), "partitions kept");
  }

  @Test
  void unboundHostSuppressesClusterValidations() {
    HostValidation v = evaluate(SAME, UNBOUND);
    assertTrue(v.info().find("hostname-unique").isEmpty());
    assertTrue(v.info().find("belongs-to-majority-group").isEmpty());
    assertTrue(v.conditions().get("hostname-unique"), "suppressed output still passes");
    assertFalse(v.info().categories().containsKey("operators"));
    assertTrue(v.group(HostValidationId.Blocking.HARDWARE));
  }

  @Test
  void connectivityValidationsAreHiddenAfterRebooting() {
    HostValidation v = evaluate(b -> b.status(HostStatus.INSTALLING_IN_PROGRESS)
        .checkedInAt(NOW.minusSeconds(3600))
        .progress(new HostProgress(HostStage.REBOOTING, "", NOW, NOW, 50)), SAME_CLUSTER);
    assertTrue(v.info().find("connected").isEmpty());
    assertTrue(v.info().find("ntp-synced").isEmpty());
    assertTrue(v.passes(HostValidationId.CONNECTED), "no disconnection after Rebooting");
  }

  @Test
  void ignoredAndDisabledValidationsPass() {
    HostValidation ignored = evaluate(inv(Fixtures.cpu(1)), b -> b.ignoredHostValidations(Set.of("has-min-cpu-cores", "hostname-valid")));
    assertEquals(FAILURE, ignored.status(HostValidationId.HAS_MIN_CPU_CORES), "output keeps the real status");
    assertTrue(ignored.passes(HostValidationId.HAS_MIN_CPU_CORES));
    HostValidation nonIgnorable = evaluate(b -> b.requestedHostname("localhost"), b -> b.ignoredHostValidations(Set.of("all")));
    assertFalse(nonIgnorable.passes(HostValidationId.HOSTNAME_VALID));

    HostValidator disabled = new HostValidator(DomainConfig.defaults().withDisabledHostValidations(Set.of("has-default-route")));
    HostSnapshot h = Fixtures.host(1, HostStatus.KNOWN).inventory(Fixtures.inventoryForHost(1, n -> n.putArray("routes"))).build();
    HostValidation d = disabled.validate(h, Fixtures.cluster(List.of(h)).build(), NOW);
    ValidationResult r = d.info().find("has-default-route").orElseThrow();
    assertEquals(ValidationStatus.DISABLED, r.status());
    assertEquals("Validation disabled by configuration", r.message());
    assertTrue(d.passes(HostValidationId.HAS_DEFAULT_ROUTE));
  }

  @Test
  void loweredRequirementsAcceptASmallTestMachine() {
    HostSnapshot small = Fixtures.host(1, HostStatus.KNOWN).role(HostRole.MASTER)
        .inventory(Fixtures.inventoryForHost(1, n -> {
          Fixtures.cpu(2).accept(n);
          Fixtures.ramGib(4).accept(n);
          ((ObjectNode) n.get("disks").get(0)).put("size_bytes", 21474836480L);
        })).build();
    ClusterContext c = Fixtures.cluster(List.of(small)).build();
    HostValidation strict = VALIDATOR.validate(small, c, NOW);
    assertFalse(strict.group(HostValidationId.Blocking.HARDWARE));
    HostValidator lowered = new HostValidator(DomainConfig.defaults()
        .withHardware(HardwareRequirements.defaults().lowered(2, 3 * 1024, 20)));
    HostValidation ok = lowered.validate(small, c, NOW);
    assertTrue(ok.group(HostValidationId.Blocking.HARDWARE), ok.info().toJson());
    assertTrue(ok.passes(HostValidationId.HAS_CPU_CORES_FOR_ROLE));
    assertTrue(ok.passes(HostValidationId.HAS_MEMORY_FOR_ROLE));
  }

  @Test
  void upstreamRequirementsJsonIsRead() {
    HardwareRequirements r = HardwareRequirements.fromUpstreamJson(
        "[{\"version\":\"default\",\"master\":{\"cpu_cores\":2,\"ram_mib\":4096,\"disk_size_gb\":20,"
            + "\"installation_disk_speed_threshold_ms\":10,\"network_latency_threshold_ms\":100,\"packet_loss_percentage\":0}}]");
    assertEquals(2, r.master().cpuCores());
    assertEquals(4096, r.master().ramMib());
    assertEquals(HardwareRequirements.defaults().worker(), r.worker());
  }

  @Test
  void aRefreshWithNothingNewKeepsTheHostsDocumentAndAChangeReplacesIt() {
    HostValidation first = evaluate(SAME, SAME_CLUSTER);
    HostValidation again = evaluate(b -> b.validationsInfo(first.info()), SAME_CLUSTER);
    assertSame(first.info(), again.info());
    HostValidation renamed = evaluate(b -> b.validationsInfo(first.info()).requestedHostname("localhost"), SAME_CLUSTER);
    assertNotSame(first.info(), renamed.info());
    assertEquals(FAILURE, renamed.info().find("hostname-valid").orElseThrow().status(), renamed.info().toJson());
    assertEquals(SUCCESS, first.info().find("hostname-valid").orElseThrow().status());
    // a document equal to another host's is still the one shared instance
    assertEquals(first.info(), evaluate(b -> b.validationsInfo(renamed.info()), SAME_CLUSTER).info());
  }

  @Test
  void compatibleAgentComparesTheAgentWithTheServicesOwnWhenUpgradesAreOn() {
    HostValidator upgrading = new HostValidator(DomainConfig.defaults().withAgentUpgrade("0.2.0"));
    java.util.function.Function<UnaryOperator<HostSnapshot.Builder>, ValidationResult> check = b -> {
      HostSnapshot h = b.apply(Fixtures.host(1, HostStatus.KNOWN)).build();
      ClusterContext c = Fixtures.cluster(List.of(h, Fixtures.host(2, HostStatus.KNOWN).build())).build();
      return upgrading.validate(h, c, NOW).info().find("compatible-agent").orElseThrow();
    };
    ValidationResult same = check.apply(b -> b.discoveryAgentVersion("0.2.0"));
    assertEquals(SUCCESS, same.status());
    assertEquals("Host agent is compatible with the service", same.message());
    ValidationResult older = check.apply(b -> b.discoveryAgentVersion("0.1.0"));
    assertEquals(FAILURE, older.status());
    assertEquals("This host's agent is in the process of being upgraded to a compatible version. This might take a few"
        + " minutes", older.message());
    ValidationResult failed = check.apply(b -> b.discoveryAgentVersion("0.1.0").agentUpgradeFailed("0.2.0"));
    assertEquals(FAILURE, failed.status());
    assertTrue(failed.message().contains("could not be upgraded to 0.2.0"), failed.message());
    // upstream's agent reports its container image: this service has none to give it
    assertEquals(SUCCESS, check.apply(b -> b.discoveryAgentVersion(
        "quay.io/edge-infrastructure/assisted-installer-agent:latest")).status());
  }
}
