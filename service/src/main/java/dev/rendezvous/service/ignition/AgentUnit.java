package dev.rendezvous.service.ignition;

import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.AgentLaunch;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.Proxy;

/** Text of the units and scripts the discovery Ignition installs. */
final class AgentUnit {

  private AgentUnit() {}

  static String unit(String serviceUrl, String infraEnvId, String jarUrl, AgentLaunch agent, Proxy proxy) {
    StringBuilder s = new StringBuilder()
        .append("[Unit]\n")
        .append("Description=Rendezvous discovery agent\n")
        .append("Wants=network-online.target\n")
        .append("After=network-online.target\n")
        .append("StartLimitIntervalSec=0\n")
        .append("\n[Service]\n")
        .append("Type=simple\n")
        .append("Restart=always\n")
        .append("RestartSec=3\n")
        .append("TimeoutStartSec=").append(agent.startTimeout().toSeconds()).append('\n')
        .append("EnvironmentFile=").append(DiscoveryIgnitionBuilder.AGENT_ENV_FILE).append('\n')
        .append(env("RDV_AGENT_JAR_URL", jarUrl))
        .append(env("RDV_AGENT_JAVA_IMAGE", agent.javaImage()));
    if (agent.serviceCaCert() != null) {
      s.append(env("RDV_AGENT_CACERT", DiscoveryIgnitionBuilder.SERVICE_CA_PATH));
    }
    if (agent.insecure()) {
      s.append(env("RDV_AGENT_INSECURE", "true"));
    }
    if (proxy != null) {
      for (String[] v : new String[][] {{"HTTP_PROXY", proxy.httpProxy()}, {"HTTPS_PROXY", proxy.httpsProxy()},
          {"NO_PROXY", proxy.noProxy()}}) {
        if (!DiscoveryIgnitionInput.blank(v[1])) {
          s.append(env(v[0], v[1])).append(env(v[0].toLowerCase(java.util.Locale.ROOT), v[1]));
        }
      }
    }
    s.append("ExecStart=").append(DiscoveryIgnitionBuilder.AGENT_LAUNCHER)
        .append(" --url ").append(escape(serviceUrl))
        .append(" --infra-env-id ").append(infraEnvId);
    if (agent.serviceCaCert() != null) {
      s.append(" --cacert ").append(DiscoveryIgnitionBuilder.SERVICE_CA_PATH);
    }
    if (agent.insecure()) {
      s.append(" --insecure");
    }
    return s.append("\n\n[Install]\nWantedBy=multi-user.target\n").toString();
  }

  /** systemd expands specifiers in these values: a literal % is written %%. */
  private static String env(String name, String value) {
    return "Environment=\"" + name + "=" + escape(value) + "\"\n";
  }

  private static String escape(String v) {
    return v.replace("%", "%%");
  }

  static String launcherScript() {
    return """
        #!/bin/bash
        # Starts the Rendezvous agent (arguments are passed on). The jar is fetched from the service
        # once; the host's java runs it, or a JRE container when the host has none (CoreOS).
        set -euo pipefail
        dir=/var/lib/rendezvous
        jar="$dir/rendezvous-agent.jar"
        tls=()
        if [ -n "${RDV_AGENT_CACERT:-}" ]; then tls=(--cacert "$RDV_AGENT_CACERT"); fi
        if [ "${RDV_AGENT_INSECURE:-}" = true ]; then tls=(--insecure); fi
        if [ ! -s "$jar" ]; then
          mkdir -p "$dir"
          curl --fail --silent --show-error --location --retry 5 --retry-delay 3 "${tls[@]}" \\
            -H "X-Secret-Key: ${RDV_AGENT_TOKEN}" -o "$jar.part" "$RDV_AGENT_JAR_URL"
          mv "$jar.part" "$jar"
        fi
        if command -v java >/dev/null 2>&1; then
          exec java -jar "$jar" "$@"
        fi
        exec podman run --rm --name rendezvous-agent --privileged --net=host --pid=host --ipc=host \\
          -v /:/host -v "$dir:$dir" -v /etc/rendezvous:/etc/rendezvous:ro -v /etc/pki:/etc/pki:ro \\
          $( [ -d /etc/assisted-service ] && echo -v /etc/assisted-service:/etc/assisted-service:ro ) \\
          --env-file /etc/rendezvous/agent.env \\
          -e HTTP_PROXY -e HTTPS_PROXY -e NO_PROXY -e http_proxy -e https_proxy -e no_proxy \\
          "$RDV_AGENT_JAVA_IMAGE" java -jar "$jar" "$@"
        """;
  }

  static String proxyProfile(Proxy p) {
    StringBuilder s = new StringBuilder();
    for (String[] v : new String[][] {{"HTTP_PROXY", p.httpProxy()}, {"HTTPS_PROXY", p.httpsProxy()},
        {"NO_PROXY", p.noProxy()}}) {
      if (!DiscoveryIgnitionInput.blank(v[1])) {
        s.append("export ").append(v[0]).append("=\"").append(v[1]).append("\"\n")
            .append("export ").append(v[0].toLowerCase(java.util.Locale.ROOT)).append("=\"").append(v[1]).append("\"\n");
      }
    }
    return s.toString();
  }

  static String ntpScript() {
    return """
        #!/bin/bash
        # Adds the infra-env's NTP sources to chrony (once) and restarts it.
        set -euo pipefail
        changed=0
        while read -r src; do
          [ -n "$src" ] || continue
          if ! grep -q "^server $src " /etc/chrony.conf; then
            echo "server $src iburst" >> /etc/chrony.conf
            changed=1
          fi
        done < /etc/rendezvous/ntp-sources
        if [ "$changed" = 1 ]; then systemctl try-restart chronyd.service; fi
        """;
  }

  static String ntpUnit() {
    return """
        [Unit]
        Description=Add the infra-env's NTP sources to chrony
        After=chronyd.service

        [Service]
        Type=oneshot
        RemainAfterExit=yes
        ExecStart=/usr/local/bin/add-ntp-sources.sh

        [Install]
        WantedBy=multi-user.target
        """;
  }
}
