package dev.rendezvous.agentbased.config;

import dev.rendezvous.agentbased.config.AgentConfig.Host;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A site as {@code ./rendezvous agent create image --dir DIR} finds it: {@code DIR/install-config.yaml} and
 * {@code DIR/agent-config.yaml}, each checked on its own and against the other.
 */
public record SiteConfig(InstallConfig install, AgentConfig agent) {

  /** Reads, parses and checks both files of {@code dir}. */
  public static SiteConfig read(Path dir) throws SiteConfigException {
    YamlDoc ic = new YamlDoc(InstallConfig.FILE);
    InstallConfig install = InstallConfigParser.parse(ic, ic.read(dir));
    YamlDoc ac = new YamlDoc(AgentConfig.FILE);
    AgentConfig agent = AgentConfigParser.parse(ac, ac.read(dir));
    return of(install, agent);
  }

  /** Both files' contents checked against each other. */
  public static SiteConfig of(InstallConfig install, AgentConfig agent) throws SiteConfigException {
    SiteConfig site = new SiteConfig(install, agent);
    site.checkRendezvousIp();
    site.checkHostCount();
    return site;
  }

  /**
   * The rendezvous host's address: agent-config's {@code rendezvousIP}, else (as openshift-install) the first static
   * address in the networkConfig of the hosts with role master, then of those without a role.
   */
  public String rendezvousIp() {
    return agent.rendezvousIP() != null ? agent.rendezvousIP() : derivedRendezvousIp().orElse(null);
  }

  private Optional<String> derivedRendezvousIp() {
    for (boolean master : new boolean[] {true, false}) {
      for (Host h : agent.hosts()) {
        if (master ? "master".equals(h.role()) : h.role() == null) {
          if (!h.staticAddresses().isEmpty()) {
            return Optional.of(h.staticAddresses().get(0));
          }
        }
      }
    }
    return Optional.empty();
  }

  /** The index of the host whose networkConfig has {@code ip} as a static address, or -1. */
  int hostWithAddress(String ip) {
    for (int i = 0; i < agent.hosts().size(); i++) {
      for (String a : agent.hosts().get(i).staticAddresses()) {
        if (Addresses.same(a, ip)) {
          return i;
        }
      }
    }
    return -1;
  }

  private void checkRendezvousIp() throws SiteConfigException {
    String ip = rendezvousIp();
    if (ip == null) {
      throw agentError("rendezvousIP", "is required: the address of the host that runs the installation"
          + " (or give a master host a networkConfig with a static address to take it from)");
    }
    List<String> machine = install.networking().machineNetwork();
    if (!machine.isEmpty() && !Addresses.inAny(machine, ip)) {
      throw agentError("rendezvousIP", ip + " is not in any machine network of " + InstallConfig.FILE
          + " (networking.machineNetwork " + machine + ")");
    }
    int owner = hostWithAddress(ip);
    if (owner >= 0 && "worker".equals(agent.hosts().get(owner).role())) {
      throw agentError("hosts[" + owner + "].role", "this host has the rendezvousIP " + ip
          + " in its networkConfig but role worker: the rendezvous host must be a control-plane host");
    }
    boolean allStatic = !agent.hosts().isEmpty() && agent.hosts().stream().allMatch(Host::onlyStaticAddresses);
    if (owner < 0 && allStatic && agent.hosts().size() >= expectedHosts()) {
      // every host is listed with static addresses only and none has it: no machine would have the rendezvous IP
      throw agentError("rendezvousIP", ip + " is not a static address of any host's networkConfig, and every host"
          + " is listed with static addresses only: the rendezvous host must have this address");
    }
  }

  /**
   * openshift-install's rule: hosts without a role fill the control-plane places first, then the workers'; more
   * masters than {@code controlPlane.replicas} or more workers than the compute replicas is an error, fewer hosts
   * than expected only a warning (the others boot unlisted).
   */
  private void checkHostCount() throws SiteConfigException {
    List<Host> hosts = agent.hosts();
    if (hosts.isEmpty()) {
      return;
    }
    int cp = install.controlPlaneReplicas();
    int wk = install.workerReplicas();
    if (hosts.size() > cp + wk) {
      throw agentError("hosts", hosts.size() + " hosts are listed, more than the " + (cp + wk) + " of "
          + InstallConfig.FILE + " (controlPlane.replicas " + cp + " + compute replicas " + wk + ")");
    }
    List<String> masters = new ArrayList<>();
    int workers = 0;
    for (int i = 0; i < hosts.size(); i++) {
      if ("master".equals(hosts.get(i).role())) {
        masters.add("hosts[" + i + "]");
      } else if ("worker".equals(hosts.get(i).role())) {
        workers++;
      }
    }
    if (masters.size() > cp) {
      throw agentError("hosts", masters.size() + " hosts have role master " + masters
          + ", more than controlPlane.replicas (" + cp + ") of " + InstallConfig.FILE);
    }
    int free = cp - masters.size();
    for (Host h : hosts) {
      if (h.role() == null) {
        if (free > 0) {
          free--;
        } else {
          workers++;
        }
      }
    }
    if (workers > wk) {
      throw agentError("hosts", workers + " hosts would be workers (role worker, or no role once the control-plane"
          + " places are taken), more than the compute replicas (" + wk + ") of " + InstallConfig.FILE);
    }
  }

  /** {@code controlPlane.replicas} + the worker replicas of install-config. */
  public int expectedHosts() {
    return install.controlPlaneReplicas() + install.workerReplicas();
  }

  /** Things that are allowed but worth telling the user, each naming its file and field. */
  public List<String> warnings() {
    List<String> out = new ArrayList<>();
    int listed = agent.hosts().size();
    if (listed > 0 && listed < expectedHosts()) {
      out.add(AgentConfig.FILE + ": hosts: " + listed + " listed of the " + expectedHosts() + " expected; the others"
          + " boot unlisted (no host name, role or root device hints from this file)");
    }
    String ip = rendezvousIp();
    if (agent.rendezvousIP() == null && ip != null) {
      out.add(AgentConfig.FILE + ": rendezvousIP: not set; using " + ip + ", the first static address of hosts["
          + hostWithAddress(ip) + "]");
    }
    boolean anyStatic = agent.hosts().stream().anyMatch(h -> h.networkConfig() != null);
    if (ip != null && anyStatic && hostWithAddress(ip) < 0) {
      out.add(AgentConfig.FILE + ": rendezvousIP: " + ip + " is no host's static address: the rendezvous host must get"
          + " it otherwise (DHCP reservation, or an unlisted host's own configuration)");
    }
    return out;
  }

  /** The fields of both files that are not used, each as {@code <file>: <field>}. */
  public List<String> ignoredFields() {
    List<String> out = new ArrayList<>();
    install.ignoredFields().forEach(f -> out.add(InstallConfig.FILE + ": " + f));
    agent.ignoredFields().forEach(f -> out.add(AgentConfig.FILE + ": " + f));
    return out;
  }

  private static SiteConfigException agentError(String field, String problem) {
    return new SiteConfigException(AgentConfig.FILE, field, problem);
  }
}
