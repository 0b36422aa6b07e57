package dev.rendezvous.agentbased.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * openshift-install's agent-config.yaml (apiVersion v1beta1, kind AgentConfig). Parse with {@link AgentConfigParser}.
 *
 * @param name {@code metadata.name}, or null
 * @param rendezvousIP the address of the host that runs the installation's service (node zero), or null when the file
 *     has none (then {@link SiteConfig} takes it from the hosts' static addresses, as openshift-install does)
 * @param bootArtifactsBaseURL read but unused (PXE artifacts are not made here); listed in {@code ignoredFields}
 * @param additionalNTPSources NTP servers added to every host
 * @param hosts the hosts described, in file order (their index is their position)
 * @param ignoredFields fields present in the file that are not used, as paths
 */
public record AgentConfig(
    String name,
    String rendezvousIP,
    String bootArtifactsBaseURL,
    List<String> additionalNTPSources,
    List<Host> hosts,
    List<String> ignoredFields) {

  public static final String FILE = "agent-config.yaml";

  public AgentConfig {
    additionalNTPSources = List.copyOf(additionalNTPSources);
    hosts = List.copyOf(hosts);
    ignoredFields = List.copyOf(ignoredFields);
  }

  /** This config with the rendezvous IP set (when it was taken from the hosts). */
  public AgentConfig withRendezvousIP(String ip) {
    return new AgentConfig(name, ip, bootArtifactsBaseURL, additionalNTPSources, hosts, ignoredFields);
  }

  /**
   * One host.
   *
   * @param hostname the host name to give it, or null
   * @param role {@code master}, {@code worker}, or null (the service chooses)
   * @param interfaces its NICs: name and MAC address; the MACs are how the booted machine is recognised
   * @param rootDeviceHints where to install, or null
   * @param networkConfig its NMState document as YAML text (handed on as upstream's {@code network_yaml}), or null
   */
  public record Host(
      String hostname, String role, List<Interface> interfaces, RootDeviceHints rootDeviceHints, String networkConfig) {
    public Host {
      interfaces = List.copyOf(interfaces);
    }

    /** The MAC addresses in lower case, as upstream's agent keeps them. */
    public List<String> macAddresses() {
      return interfaces.stream().map(i -> i.macAddress().toLowerCase(Locale.ROOT)).toList();
    }

    /** The static addresses (ipv4 then ipv6 of each interface, in order) of its networkConfig; empty without one. */
    public List<String> staticAddresses() {
      List<String> out = new ArrayList<>();
      for (JsonNode iface : nmState().path("interfaces")) {
        for (String family : new String[] {"ipv4", "ipv6"}) {
          for (JsonNode a : iface.path(family).path("address")) {
            String ip = a.path("ip").asText("");
            if (!ip.isEmpty()) {
              out.add(ip);
            }
          }
        }
      }
      return out;
    }

    /** Whether it has a networkConfig with static addresses only: no interface with DHCP or IPv6 autoconf. */
    public boolean onlyStaticAddresses() {
      if (networkConfig == null) {
        return false;
      }
      for (JsonNode iface : nmState().path("interfaces")) {
        for (String family : new String[] {"ipv4", "ipv6"}) {
          JsonNode f = iface.path(family);
          if (f.path("dhcp").asBoolean(false) || f.path("autoconf").asBoolean(false)) {
            return false;
          }
        }
      }
      return true;
    }

    private JsonNode nmState() {
      if (networkConfig == null) {
        return MissingNode.getInstance();
      }
      try {
        return YamlDoc.YAML.readTree(networkConfig);
      } catch (JsonProcessingException e) {
        return MissingNode.getInstance(); // refused when the file was read
      }
    }
  }

  /** A NIC: its name in the NMState document and its MAC address. */
  public record Interface(String name, String macAddress) {}
}
