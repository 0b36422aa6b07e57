package dev.rendezvous.agentbased.image;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.api.DiscoveryInputs;
import dev.rendezvous.service.ignition.DiscoveryIgnitionBuilder;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one Ignition every host of a site boots with. It is the site infra-env's discovery Ignition (the service's own
 * builder: SSH key, pull secret, proxy, trust bundle, mirrors, NTP, every host's static networking matched by MAC,
 * the agent's unit), with three changes made as an Ignition override:
 * <ul>
 *   <li>the agent runs from the boot medium ({@link AgentIso#RUNTIME_ON_HOST}) instead of being downloaded;</li>
 *   <li>{@code rendezvous-node-zero.service} finds out whether this host holds the rendezvous IP and, if so, notes
 *       its NIC's MAC (the service makes that host a master and the bootstrap, so it installs last);</li>
 *   <li>{@code rendezvous.service}, on that host only, runs Rendezvous itself on its embedded PostgreSQL and Kafka
 *       (data in {@code /var/lib/rendezvous}, RAM on a live system) with the site's two files, which it registers as
 *       a cluster and an infra-env at start, and installs once every expected host is there.</li>
 * </ul>
 */
public final class AgentIgnition {
  public static final String SITE_DIR = "/etc/rendezvous/site";
  public static final String CREDENTIALS_DIR = SITE_DIR + "/credentials";
  public static final String SERVICE_ENV = "/etc/rendezvous/rendezvous.env";
  public static final String NODE_ZERO_ENV = "/etc/rendezvous/node-zero.env";
  public static final String NODE_ZERO_SCRIPT = "/usr/local/bin/rendezvous-node-zero.sh";
  public static final String SERVICE_LAUNCHER = "/usr/local/bin/rendezvous-site";
  public static final String NODE_ZERO_UNIT = "rendezvous-node-zero.service";
  public static final String SERVICE_UNIT = "rendezvous.service";
  public static final String AGENT_UNIT = "agent.service";
  public static final int API_PORT = 8090;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the ISO is made for, and the secrets made with it. */
  public record Inputs(
      JsonObject infraEnvSpec,
      String pullSecret,
      String rendezvousIp,
      String infraEnvId,
      String agentToken,
      String agentTokenSecret,
      String adminToken,
      Map<String, String> credentialFiles,
      Map<String, String> siteFiles,
      String serviceArgs,
      DiscoveryIgnitionInput.RegistryMirrors mirrors) {}

  private AgentIgnition() {}

  public static String serviceUrl(String rendezvousIp) {
    String host = rendezvousIp.contains(":") ? "[" + rendezvousIp + "]" : rendezvousIp;
    return "http://" + host + ":" + API_PORT;
  }

  public static byte[] build(Inputs in) {
    ObjectNode override = JSON.createObjectNode();
    override.putObject("ignition").put("version", "3.1.0");
    ArrayNode files = override.putObject("storage").putArray("files");
    ArrayNode units = override.putObject("systemd").putArray("units");
    file(files, "/usr/local/bin/rendezvous-agent", 0755, agentLauncher());
    file(files, SERVICE_LAUNCHER, 0755, serviceLauncher());
    file(files, NODE_ZERO_SCRIPT, 0755, nodeZeroScript(in.rendezvousIp()));
    for (Map.Entry<String, String> f : in.siteFiles().entrySet()) {
      file(files, SITE_DIR + "/" + f.getKey(), 0600, f.getValue());
    }
    for (Map.Entry<String, String> f : in.credentialFiles().entrySet()) {
      file(files, CREDENTIALS_DIR + "/" + f.getKey(), 0600, f.getValue());
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put("RDV_DATA_DIR", "/var/lib/rendezvous/data");
    env.put("RDV_API_PORT", Integer.toString(API_PORT));
    env.put("RDV_PUBLIC_URL", serviceUrl(in.rendezvousIp()));
    env.put("RDV_AGENT_TOKEN_SECRET", in.agentTokenSecret());
    env.put("RDV_ADMIN_TOKEN", in.adminToken());
    env.put("RDV_INFRA_ENV_ID", in.infraEnvId());
    env.put("RDV_CLUSTER_CREDENTIALS_DIR", CREDENTIALS_DIR);
    env.put("RDV_AGENT_BASED_SITE", SITE_DIR);
    if (in.mirrors() != null && !in.mirrors().mirrors().isEmpty()) {
      // the discovery Ignition writes both files; the service puts them into the install-config
      env.put("RDV_REGISTRIES_CONF", "/etc/containers/registries.conf");
      if (in.mirrors().caBundle() != null && !in.mirrors().caBundle().isBlank()) {
        env.put("RDV_MIRROR_REGISTRY_CA", "/etc/pki/ca-trust/source/anchors/domain.crt");
      }
    }
    env.put("RDV_SERVICE_ARGS", in.serviceArgs() == null ? "" : in.serviceArgs().replace('\n', ' '));
    StringBuilder envText = new StringBuilder();
    // double-quoted, as systemd's EnvironmentFile reads a value with blanks (the service arguments)
    env.forEach((k, v) -> envText.append(k).append("=\"").append(v.replace("\\", "\\\\").replace("\"", "\\\"")
        .replace("$", "\\$").replace("`", "\\`")).append("\"\n"));
    file(files, SERVICE_ENV, 0600, envText.toString());
    unit(units, NODE_ZERO_UNIT, nodeZeroUnit());
    unit(units, SERVICE_UNIT, serviceUnit());

    JsonObject spec = in.infraEnvSpec().copy();
    spec.put("ignition_config_override", override.toString());
    String ignition = DiscoveryInputs.ignition(spec, in.pullSecret(), serviceUrl(in.rendezvousIp()), in.infraEnvId(),
        in.agentToken(), in.mirrors());
    return ignition.getBytes(StandardCharsets.UTF_8);
  }

  /** The names of the units a host runs, in the order a test that plays systemd starts them. */
  public static List<String> unitsInStartOrder() {
    return List.of(AGENT_UNIT, NODE_ZERO_UNIT, SERVICE_UNIT);
  }

  static String agentLauncher() {
    return """
        #!/bin/bash
        # The agent-based ISO's agent: run from the boot medium with the runtime it carries (nothing is downloaded
        # on a disconnected site). Arguments are passed on.
        set -euo pipefail
        runtime="${RDV_RUNTIME_DIR:-%s}"
        # the site's service starts with the rendezvous host, maybe after this agent: retry every 10 s at most
        export RDV_AGENT_BACKOFF_CAP_MS="${RDV_AGENT_BACKOFF_CAP_MS:-10000}"
        # RDV_AGENT_JAVA_OPTS replaces the JVM's options (a systemd drop-in's Environment=)
        exec "$runtime/jre/bin/java" ${RDV_AGENT_JAVA_OPTS:--Xmx256m -XX:+ExitOnOutOfMemoryError} -jar "$runtime/%s" "$@"
        """.formatted(AgentIso.RUNTIME_ON_HOST, RuntimeBundle.AGENT_JAR);
  }

  static String serviceLauncher() {
    return """
        #!/bin/bash
        # Rendezvous itself, on the site's rendezvous host: run from the boot medium with the runtime it carries.
        set -euo pipefail
        runtime="${RDV_RUNTIME_DIR:-%s}"
        mkdir -p /var/lib/rendezvous
        # RDV_JAVA_OPTS replaces the JVM's options, as with ./rendezvous run (a systemd drop-in's Environment=)
        exec "$runtime/jre/bin/java" \\
          ${RDV_JAVA_OPTS:--XX:MaxRAMPercentage=25 -XX:+ExitOnOutOfMemoryError -XX:+IgnoreUnrecognizedVMOptions -XX:-UseCodeCacheFlushing} \\
          -Djava.io.tmpdir=/var/lib/rendezvous -cp "$runtime/lib/*" dev.rendezvous.app.RendezvousMain "$@"
        """.formatted(AgentIso.RUNTIME_ON_HOST);
  }

  static String nodeZeroScript(String rendezvousIp) {
    return """
        #!/bin/bash
        # Is this the site's rendezvous host? It is when one of its NICs holds the rendezvous IP (%1$s; ip compares
        # addresses, not their spelling); static networking may take a while to be applied, so it looks for two
        # minutes. Writes %2$s there. Every other host ends here: its agent needs nothing of this unit.
        set -euo pipefail
        rip='%1$s'
        for _ in $(seq 60); do
          nic=$(ip -o addr show to "$rip" | awk '{ print $2; exit }')
          if [ -n "$nic" ]; then
            mac=$(cat "/sys/class/net/$nic/address")
            echo "RDV_BOOTSTRAP_HOST_MAC=$mac" > %2$s
            echo "rendezvous-node-zero: this host holds $rip on $nic ($mac): it runs the site's Rendezvous"
            exit 0
          fi
          sleep 2
        done
        echo "rendezvous-node-zero: $rip is not on this host: its agent registers with the rendezvous host"
        """.formatted(rendezvousIp, NODE_ZERO_ENV);
  }

  static String nodeZeroUnit() {
    return """
        [Unit]
        Description=Find out whether this host is the site's rendezvous host
        Wants=network-online.target
        After=network-online.target

        [Service]
        Type=oneshot
        RemainAfterExit=yes
        ExecStart=%s

        [Install]
        WantedBy=multi-user.target
        """.formatted(NODE_ZERO_SCRIPT);
  }

  static String serviceUnit() {
    return """
        [Unit]
        Description=Rendezvous, the site's installer service (on the rendezvous host only)
        Wants=network-online.target
        After=network-online.target %1$s
        ConditionPathExists=%2$s
        StartLimitIntervalSec=0

        [Service]
        Type=simple
        EnvironmentFile=%3$s
        EnvironmentFile=%2$s
        ExecStart=%4$s run $RDV_SERVICE_ARGS
        Restart=always
        RestartSec=5
        TimeoutStopSec=60

        [Install]
        WantedBy=multi-user.target
        """.formatted(NODE_ZERO_UNIT, NODE_ZERO_ENV, SERVICE_ENV, SERVICE_LAUNCHER);
  }

  private static void file(ArrayNode files, String path, int mode, String content) {
    DiscoveryIgnitionBuilder.file(files, path, mode, content);
  }

  private static void unit(ArrayNode units, String name, String contents) {
    units.addObject().put("name", name).put("enabled", true).put("contents", contents);
  }
}
