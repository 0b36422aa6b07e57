package dev.rendezvous.agentbased.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.agentbased.config.AgentConfig.Host;
import dev.rendezvous.agentbased.config.AgentConfig.Interface;
import dev.rendezvous.agentbased.config.InstallConfig.ImageDigestSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A checked site turned into what our REST API v2 takes: the bodies of {@code POST /v2/clusters} and
 * {@code POST /v2/infra-envs}, the install-config overrides ({@code PATCH /v2/clusters/{id}/install-config}) and, per
 * host, what to set once it registers. Pure: no I/O.
 */
public final class SitePlan {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What agent-config.yaml says about one host, to apply when a host with one of its MAC addresses registers.
   *
   * @param index the host's position in agent-config.yaml's {@code hosts}
   * @param hostname the host name to set, or null
   * @param role {@code master} or {@code worker}, or null (the service chooses)
   * @param macAddresses its MAC addresses, lower case
   * @param hints where to install, or null
   */
  public record HostPlan(int index, String hostname, String role, List<String> macAddresses, RootDeviceHints hints) {
    public HostPlan {
      macAddresses = macAddresses.stream().map(m -> m.toLowerCase(Locale.ROOT)).toList();
    }

    /** Whether a host reporting these MAC addresses (any case) is this one. */
    public boolean matches(Collection<String> macs) {
      return macs.stream().anyMatch(m -> m != null && macAddresses.contains(m.toLowerCase(Locale.ROOT)));
    }
  }

  /** Pulls of {@code source} (a registry or repository) are served by {@code mirrors}. */
  public record Mirror(String source, List<String> mirrors) {}

  private final SiteConfig site;
  private final String openshiftVersion;
  private final List<HostPlan> hosts;

  private SitePlan(SiteConfig site, String openshiftVersion) {
    this.site = site;
    this.openshiftVersion = openshiftVersion;
    List<HostPlan> plans = new ArrayList<>();
    for (int i = 0; i < site.agent().hosts().size(); i++) {
      Host h = site.agent().hosts().get(i);
      plans.add(new HostPlan(i, h.hostname(), h.role(), h.macAddresses(), h.rootDeviceHints()));
    }
    this.hosts = List.copyOf(plans);
  }

  /** @param openshiftVersion the release to install, as {@code GET /v2/openshift-versions} names it (e.g. 4.22) */
  public static SitePlan of(SiteConfig site, String openshiftVersion) {
    return new SitePlan(Objects.requireNonNull(site, "site"),
        Objects.requireNonNull(openshiftVersion, "openshiftVersion"));
  }

  /** The body of {@code POST /api/assisted-install/v2/clusters} (cluster-create-params). */
  public ObjectNode clusterParams() {
    InstallConfig ic = site.install();
    ObjectNode p = JSON.createObjectNode();
    p.put("name", ic.clusterName());
    p.put("openshift_version", openshiftVersion);
    p.put("base_dns_domain", ic.baseDomain());
    p.put("pull_secret", ic.pullSecret());
    if (ic.sshKey() != null) {
      p.put("ssh_public_key", ic.sshKey().strip());
    }
    p.put("cpu_architecture", ic.cpuArchitecture());
    int cp = ic.controlPlaneReplicas();
    p.put("control_plane_count", cp);
    p.put("high_availability_mode", cp == 1 ? "None" : "Full");
    String platform = ic.platform().type();
    p.putObject("platform").put("type", platform);
    // as openshift-install's agent manifests: none and external leave load balancing and DNS to the user
    p.put("user_managed_networking", !platform.equals("baremetal"));
    if (platform.equals("baremetal")) {
      ArrayNode api = p.putArray("api_vips");
      ic.platform().apiVips().forEach(ip -> api.addObject().put("ip", ip));
      ArrayNode ingress = p.putArray("ingress_vips");
      ic.platform().ingressVips().forEach(ip -> ingress.addObject().put("ip", ip));
    }
    InstallConfig.Networking n = ic.networking();
    p.put("network_type", n.networkType());
    ArrayNode cluster = p.putArray("cluster_networks");
    n.clusterNetwork().forEach(c -> cluster.addObject().put("cidr", c.cidr()).put("host_prefix", c.hostPrefix()));
    ArrayNode service = p.putArray("service_networks");
    n.serviceNetwork().forEach(c -> service.addObject().put("cidr", c));
    if (!n.machineNetwork().isEmpty()) {
      ArrayNode machine = p.putArray("machine_networks");
      n.machineNetwork().forEach(c -> machine.addObject().put("cidr", c));
    }
    p.put("hyperthreading", ic.hyperthreading());
    if (ic.workerReplicas() == 0) {
      p.put("schedulable_masters", true); // compact or single node: workloads run on the control plane
    }
    if (ic.proxy() != null) {
      putIfSet(p, "http_proxy", ic.proxy().httpProxy());
      putIfSet(p, "https_proxy", ic.proxy().httpsProxy());
      putIfSet(p, "no_proxy", ic.proxy().noProxy());
    }
    if (!site.agent().additionalNTPSources().isEmpty()) {
      p.put("additional_ntp_source", String.join(",", site.agent().additionalNTPSources()));
    }
    return p;
  }

  /**
   * The body of {@code POST /api/assisted-install/v2/infra-envs} (infra-env-create-params).
   *
   * @param clusterId the cluster to bind it to, or null for none
   */
  public ObjectNode infraEnvParams(String clusterId) {
    InstallConfig ic = site.install();
    ObjectNode p = JSON.createObjectNode();
    p.put("name", ic.clusterName() + "-infra-env");
    putIfSet(p, "cluster_id", clusterId);
    p.put("pull_secret", ic.pullSecret());
    p.put("openshift_version", openshiftVersion);
    p.put("cpu_architecture", ic.cpuArchitecture());
    p.put("image_type", "full-iso");
    if (ic.sshKey() != null) {
      p.put("ssh_authorized_key", ic.sshKey().strip());
    }
    if (!site.agent().additionalNTPSources().isEmpty()) {
      p.put("additional_ntp_sources", String.join(",", site.agent().additionalNTPSources()));
    }
    putIfSet(p, "additional_trust_bundle", ic.additionalTrustBundle());
    if (ic.proxy() != null) {
      ObjectNode proxy = p.putObject("proxy");
      putIfSet(proxy, "http_proxy", ic.proxy().httpProxy());
      putIfSet(proxy, "https_proxy", ic.proxy().httpsProxy());
      putIfSet(proxy, "no_proxy", ic.proxy().noProxy());
    }
    ArrayNode snc = JSON.createArrayNode();
    for (Host h : site.agent().hosts()) {
      if (h.networkConfig() != null) {
        ObjectNode item = snc.addObject();
        item.put("network_yaml", h.networkConfig());
        ArrayNode map = item.putArray("mac_interface_map");
        for (Interface nic : h.interfaces()) {
          map.addObject().put("mac_address", nic.macAddress()).put("logical_nic_name", nic.name());
        }
      }
    }
    if (!snc.isEmpty()) {
      p.set("static_network_config", snc);
    }
    putIfSet(p, "rendezvous_ip", rendezvousIp());
    return p;
  }

  /** The hosts agent-config.yaml describes, in its order. */
  public List<HostPlan> hosts() {
    return hosts;
  }

  /** The described host that has one of these MAC addresses (any case), if any. */
  public Optional<HostPlan> hostFor(Collection<String> macs) {
    return hosts.stream().filter(h -> h.matches(macs)).findFirst();
  }

  /** How many hosts the installation waits for: controlPlane.replicas + the worker replicas. */
  public int expectedHosts() {
    return site.expectedHosts();
  }

  /**
   * What install-config.yaml asks for that cluster-create-params cannot carry (fips, imageDigestSources or the older
   * imageContentSources, additionalTrustBundle), as the JSON object text merged over the cluster's rendered
   * install-config: send it as a JSON string to {@code PATCH /v2/clusters/{id}/install-config}. Null when none.
   */
  public String installConfigOverrides() {
    InstallConfig ic = site.install();
    ObjectNode o = JSON.createObjectNode();
    if (ic.fips()) {
      o.put("fips", true);
    }
    if (!ic.imageDigestSources().isEmpty()) {
      ArrayNode sources = o.putArray("imageDigestSources");
      for (ImageDigestSource s : ic.imageDigestSources()) {
        ObjectNode entry = sources.addObject().put("source", s.source());
        s.mirrors().forEach(entry.putArray("mirrors")::add);
      }
    }
    putIfSet(o, "additionalTrustBundle", ic.additionalTrustBundle());
    if (o.isEmpty()) {
      return null;
    }
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("install-config overrides do not serialise", e);
    }
  }

  /** The image mirrors of install-config (imageDigestSources, or the older imageContentSources), in file order. */
  public List<Mirror> mirrors() {
    return site.install().imageDigestSources().stream().map(s -> new Mirror(s.source(), s.mirrors())).toList();
  }

  /** install-config's additionalTrustBundle (PEM), or null. */
  public String additionalTrustBundle() {
    return site.install().additionalTrustBundle();
  }

  public String clusterName() {
    return site.install().clusterName();
  }

  public String baseDomain() {
    return site.install().baseDomain();
  }

  /** The rendezvous host's address (agent-config's rendezvousIP, or the one taken from the hosts' static addresses). */
  public String rendezvousIp() {
    return site.rendezvousIp();
  }

  /** The fields of both files that are not used, each as {@code <file>: <field>}, to warn about. */
  public List<String> ignoredFields() {
    return site.ignoredFields();
  }

  private static void putIfSet(ObjectNode o, String key, String value) {
    if (value != null && !value.isEmpty()) {
      o.put(key, value);
    }
  }
}
