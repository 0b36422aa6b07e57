package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.inventory.Ipv6Text;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.Attributes;
import javax.naming.directory.DirContext;
import javax.naming.directory.InitialDirContext;

/**
 * {@code domain-resolution}: args[0] = {"domains":[{"domain_name":..}]}. Addresses come from the system
 * resolver ({@link InetAddress#getAllByName}: /etc/hosts, then DNS per /etc/resolv.conf, as the Go
 * resolver upstream); CNAMEs from a DNS CNAME query through the JDK's DNS provider (best effort, 2 s).
 * A name that does not resolve is not an error: its lists are empty (upstream: NXDOMAIN is not an error).
 */
public final class DomainResolutionExecutor implements StepExecutor {

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("domain-resolution: args[0] ({\"domains\":[...]}) is missing");
    }
    StepModels.DomainResolutionRequest req = WireJson.read(step.arg(0), StepModels.DomainResolutionRequest.class);
    List<java.util.concurrent.Callable<StepModels.DomainResolution>> lookups = new ArrayList<>();
    for (StepModels.DomainName d : req.domains() == null ? List.<StepModels.DomainName>of() : req.domains()) {
      String name = d.domainName();
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("domain-resolution: a domain has no domain_name");
      }
      lookups.add(() -> resolve(name.trim()));
    }
    // at once: where the DNS server does not answer, every name waits out the resolver's timeouts (~10 s each), and
    // the host's DNS validations wait for the whole step
    List<StepModels.DomainResolution> out = Parallel.run("dns", 8, lookups);
    return StepOutcome.ok(WireJson.write(new StepModels.DomainResolutionResponse(out)));
  }

  static StepModels.DomainResolution resolve(String name) {
    List<String> v4 = new ArrayList<>();
    List<String> v6 = new ArrayList<>();
    try {
      for (InetAddress a : InetAddress.getAllByName(name)) {
        if (a instanceof Inet4Address) {
          v4.add(a.getHostAddress());
        } else {
          v6.add(Ipv6Text.canonical(a.getHostAddress()));
        }
      }
    } catch (UnknownHostException e) {
      // NXDOMAIN or no answer: empty lists
    }
    return new StepModels.DomainResolution(name, v4, v6, cnames(name));
  }

  private static List<String> cnames(String name) {
    List<String> result = new ArrayList<>();
    Hashtable<String, String> env = new Hashtable<>();
    env.put("java.naming.factory.initial", "com.sun.jndi.dns.DnsContextFactory");
    env.put("java.naming.provider.url", "dns:");
    env.put("com.sun.jndi.dns.timeout.initial", "1000");
    env.put("com.sun.jndi.dns.timeout.retries", "1");
    DirContext ctx = null;
    try {
      ctx = new InitialDirContext(env);
      Attributes attrs = ctx.getAttributes(name, new String[] {"CNAME"});
      Attribute cname = attrs.get("CNAME");
      if (cname != null) {
        for (int i = 0; i < cname.size(); i++) {
          result.add(String.valueOf(cname.get(i)));
        }
      }
    } catch (NamingException | RuntimeException e) {
      // no DNS server, NXDOMAIN, no CNAME: nothing to report
    } finally {
      if (ctx != null) {
        try {
          ctx.close();
        } catch (NamingException ignored) {
          // closing a DNS context cannot lose anything
        }
      }
    }
    return result;
  }
}
