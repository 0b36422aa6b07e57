package dev.rendezvous.agentbased.config;

import static dev.rendezvous.agentbased.config.YamlDoc.index;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.agentbased.config.InstallConfig.Platform;
import dev.rendezvous.service.validation.Net;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** install-config.yaml's platform section and its cross-field rules (openshift-install's agent-based checks). */
final class InstallConfigChecks {
  private static final Set<String> PLATFORMS = Set.of("baremetal", "none", "external");
  private static final Set<String> BAREMETAL = Set.of("apiVIPs", "ingressVIPs", "apiVIP", "ingressVIP");

  private InstallConfigChecks() {}

  static Platform platform(YamlDoc doc, JsonNode n, List<String> ignored) throws SiteConfigException {
    if (n.isMissingNode() || n.isEmpty()) {
      throw doc.error("platform", "is required: baremetal (with apiVIPs and ingressVIPs), none or external");
    }
    List<String> names = new ArrayList<>();
    n.fieldNames().forEachRemaining(names::add);
    if (names.size() != 1) {
      throw doc.error("platform", "must name exactly one platform, found " + names);
    }
    String type = names.get(0);
    if (!PLATFORMS.contains(type)) {
      throw doc.error("platform", "'" + type + "' is not supported here: use baremetal, none or external");
    }
    JsonNode body = n.get(type);
    String at = "platform." + type;
    if (!body.isNull() && !body.isObject()) {
      throw doc.error(at, "must be a mapping of fields (or {})");
    }
    if (!type.equals("baremetal")) {
      YamlDoc.unread(body, at, Set.of(), ignored);
      return new Platform(type, List.of(), List.of());
    }
    YamlDoc.unread(body, at, BAREMETAL, ignored);
    return new Platform(type, vips(doc, body, "api"), vips(doc, body, "ingress"));
  }

  /** apiVIPs/ingressVIPs, with the older singular field folded in as upstream's backwards compatibility does. */
  private static List<String> vips(YamlDoc doc, JsonNode body, String kind) throws SiteConfigException {
    String plural = kind + "VIPs";
    String singular = kind + "VIP";
    List<String> vips = new ArrayList<>(doc.strings(body, plural, "platform.baremetal"));
    String one = InstallConfigParser.blankToNull(doc.text(body, singular, "platform.baremetal"));
    if (one != null) {
      one = one.strip();
      if (vips.isEmpty()) {
        vips.add(one);
      } else if (!Addresses.same(one, vips.get(0))) {
        throw doc.error("platform.baremetal." + singular, "'" + one + "' differs from " + plural + "[0] '" + vips.get(0)
            + "' (" + singular + " is the older form of " + plural + ": give one of them)");
      }
    }
    for (int i = 0; i < vips.size(); i++) {
      if (!Net.isIp(vips.get(i))) {
        throw doc.error(index("platform.baremetal." + plural, i), "'" + vips.get(i) + "' is not an IP address");
      }
    }
    if (vips.size() > 2 || (vips.size() == 2 && Net.isIpv6(vips.get(0)) == Net.isIpv6(vips.get(1)))) {
      throw doc.error("platform.baremetal." + plural, "takes one address, or two of different families (dual stack)");
    }
    return vips;
  }

  static void check(YamlDoc doc, InstallConfig ic) throws SiteConfigException {
    int cp = ic.controlPlaneReplicas();
    if (cp != 1 && (cp < 3 || cp > 5)) {
      // openshift-install: 1 to 5 but not 2 (2 needs an arbiter or fencing, which are not supported here)
      throw doc.error("controlPlane.replicas", "must be 1 (single node), 3, 4 or 5, not " + cp);
    }
    for (int i = 0; i < ic.compute().size(); i++) {
      String arch = ic.compute().get(i).architecture();
      if (!arch.equals(ic.controlPlane().architecture())) {
        throw doc.error(index("compute", i) + ".architecture", "'" + arch + "' differs from controlPlane.architecture '"
            + ic.controlPlane().architecture() + "': clusters of mixed architectures are not supported");
      }
    }
    String platform = ic.platform().type();
    String arch = ic.controlPlane().architecture();
    if ((arch.equals("ppc64le") || arch.equals("s390x")) && !platform.equals("none")) {
      throw doc.error("platform", "CPU architecture " + arch + " supports only platform none, not " + platform);
    }
    if (ic.singleNode()) {
      singleNode(doc, ic);
    }
    if (platform.equals("baremetal")) {
      baremetal(doc, ic);
    }
    overlaps(doc, ic.networking());
  }

  private static void singleNode(YamlDoc doc, InstallConfig ic) throws SiteConfigException {
    for (int i = 0; i < ic.compute().size(); i++) {
      if (ic.compute().get(i).replicas() != 0) {
        throw doc.error(index("compute", i) + ".replicas", "must be 0 for a single-node cluster"
            + " (controlPlane.replicas 1), not " + ic.compute().get(i).replicas());
      }
    }
    if (ic.platform().type().equals("baremetal")) {
      throw doc.error("platform", "a single-node cluster (controlPlane.replicas 1) needs platform none or external,"
          + " not baremetal");
    }
    if (!ic.networking().networkType().equals("OVNKubernetes")) {
      throw doc.error("networking.networkType", "a single-node cluster needs OVNKubernetes, not "
          + ic.networking().networkType());
    }
  }

  private static void baremetal(YamlDoc doc, InstallConfig ic) throws SiteConfigException {
    Platform p = ic.platform();
    if (p.apiVips().isEmpty()) {
      throw doc.error("platform.baremetal.apiVIPs", "is required for platform baremetal (the API's virtual IP);"
          + " or use platform none");
    }
    if (p.ingressVips().isEmpty()) {
      throw doc.error("platform.baremetal.ingressVIPs", "is required for platform baremetal (the ingress virtual IP);"
          + " or use platform none");
    }
    for (String api : p.apiVips()) {
      for (int i = 0; i < p.ingressVips().size(); i++) {
        if (Addresses.same(api, p.ingressVips().get(i))) {
          throw doc.error(index("platform.baremetal.ingressVIPs", i), p.ingressVips().get(i) + " is also an apiVIP:"
              + " the API and ingress need addresses of their own");
        }
      }
    }
    List<String> machine = ic.networking().machineNetwork();
    if (machine.isEmpty()) {
      return; // the service derives the machine network from the hosts' addresses
    }
    String[] kinds = {"apiVIPs", "ingressVIPs"};
    List<List<String>> lists = List.of(p.apiVips(), p.ingressVips());
    for (int k = 0; k < 2; k++) {
      for (int i = 0; i < lists.get(k).size(); i++) {
        String vip = lists.get(k).get(i);
        if (!Addresses.inAny(machine, vip)) {
          throw doc.error(index("platform.baremetal." + kinds[k], i), vip + " is not in any networking.machineNetwork "
              + machine);
        }
      }
    }
  }

  /** Cluster, service and machine networks must not overlap (the service refuses that too, later and vaguer). */
  private static void overlaps(YamlDoc doc, InstallConfig.Networking n) throws SiteConfigException {
    List<String> names = new ArrayList<>();
    List<String> cidrs = new ArrayList<>();
    for (int i = 0; i < n.clusterNetwork().size(); i++) {
      names.add(index("networking.clusterNetwork", i) + ".cidr");
      cidrs.add(n.clusterNetwork().get(i).cidr());
    }
    for (int i = 0; i < n.serviceNetwork().size(); i++) {
      names.add(index("networking.serviceNetwork", i));
      cidrs.add(n.serviceNetwork().get(i));
    }
    for (int i = 0; i < n.machineNetwork().size(); i++) {
      names.add(index("networking.machineNetwork", i) + ".cidr");
      cidrs.add(n.machineNetwork().get(i));
    }
    for (int a = 0; a < cidrs.size(); a++) {
      for (int b = a + 1; b < cidrs.size(); b++) {
        if (Net.parseCidr(cidrs.get(a)).orElseThrow().overlaps(Net.parseCidr(cidrs.get(b)).orElseThrow())) {
          throw doc.error(names.get(b), cidrs.get(b) + " overlaps " + names.get(a) + " " + cidrs.get(a));
        }
      }
    }
  }
}
