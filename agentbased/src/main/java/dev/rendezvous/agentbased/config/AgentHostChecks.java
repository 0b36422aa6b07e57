package dev.rendezvous.agentbased.config;

import static dev.rendezvous.agentbased.config.YamlDoc.index;

import dev.rendezvous.agentbased.config.AgentConfig.Host;
import dev.rendezvous.agentbased.config.AgentConfig.Interface;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.MacInterface;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.StaticNetworkConfig;
import dev.rendezvous.service.ignition.InvalidIgnitionInputException;
import dev.rendezvous.service.ignition.NmStateKeyfiles;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** agent-config.yaml's rules across its hosts: interfaces, unique MACs and host names, convertible networkConfig. */
final class AgentHostChecks {
  private AgentHostChecks() {}

  static void check(YamlDoc doc, List<Host> hosts) throws SiteConfigException {
    Map<String, String> macOwner = new HashMap<>();
    Map<String, Integer> nameOwner = new HashMap<>();
    for (int i = 0; i < hosts.size(); i++) {
      Host h = hosts.get(i);
      String at = index("hosts", i);
      if (h.interfaces().isEmpty()) {
        // openshift-install requires them for every host listed: the MACs are how a booted machine finds its entry
        throw doc.error(at + ".interfaces", "at least one interface (name and macAddress) is required:"
            + " the MAC addresses are how the booted host is recognised");
      }
      for (int j = 0; j < h.interfaces().size(); j++) {
        String where = index(at + ".interfaces", j) + ".macAddress";
        String mac = h.interfaces().get(j).macAddress().toLowerCase(Locale.ROOT);
        String earlier = macOwner.putIfAbsent(mac, where);
        if (earlier != null) {
          throw doc.error(where, h.interfaces().get(j).macAddress() + " is also " + earlier
              + ": a MAC address belongs to one interface of one host");
        }
      }
      if (h.hostname() != null) {
        Integer other = nameOwner.putIfAbsent(h.hostname(), i);
        if (other != null) {
          throw doc.error(at + ".hostname", "'" + h.hostname() + "' is also the hostname of " + index("hosts", other)
              + ": host names must be unique");
        }
      }
      if (h.networkConfig() != null) {
        networkConfig(doc, h, at);
      }
    }
  }

  /** The NMState document must be one our converter takes (ethernet interfaces only), with the host's NIC names. */
  private static void networkConfig(YamlDoc doc, Host h, String at) throws SiteConfigException {
    List<MacInterface> map = new ArrayList<>();
    for (int j = 0; j < h.interfaces().size(); j++) {
      Interface nic = h.interfaces().get(j);
      if (nic.name() == null) {
        throw doc.error(index(at + ".interfaces", j) + ".name", "is required when the host has a networkConfig"
            + " (the interface's name in it)");
      }
      map.add(new MacInterface(nic.macAddress(), nic.name()));
    }
    try {
      NmStateKeyfiles.convert(List.of(new StaticNetworkConfig(h.networkConfig(), map)));
    } catch (InvalidIgnitionInputException e) {
      String reason = e.reason();
      if (e.field().contains("mac_interface_map")) {
        reason = "the interfaces list (name and macAddress) " + reason;
      }
      throw doc.error(at + ".networkConfig", reason);
    }
  }
}
