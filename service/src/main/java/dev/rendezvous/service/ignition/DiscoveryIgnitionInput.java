package dev.rendezvous.service.ignition;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything that shapes one infra-env's discovery Ignition.
 *
 * @param serviceBaseUrl where the agent reaches the service, e.g. {@code https://rdv.example:8090}
 * @param infraEnvId the infra-env id
 * @param agentToken the infra-env's agent token (sent by the agent as {@code X-Secret-Key})
 * @param sshAuthorizedKey the infra-env's {@code ssh_authorized_key} (several keys: one a line), or null
 * @param pullSecret the pull secret JSON, or null
 * @param proxy the infra-env's proxy, or null
 * @param additionalTrustBundle PEM certificates to trust system-wide, or null
 * @param registryMirrors image registry mirrors, or null
 * @param ntpSources additional NTP servers (host names or addresses)
 * @param staticNetworkConfig per-host NMState configs (upstream shape)
 * @param ignitionConfigOverride an Ignition config (JSON text) merged last, or null
 * @param agent how the agent is fetched and started
 */
public record DiscoveryIgnitionInput(
    String serviceBaseUrl,
    String infraEnvId,
    String agentToken,
    String sshAuthorizedKey,
    String pullSecret,
    Proxy proxy,
    String additionalTrustBundle,
    RegistryMirrors registryMirrors,
    List<String> ntpSources,
    List<StaticNetworkConfig> staticNetworkConfig,
    String ignitionConfigOverride,
    AgentLaunch agent) {

  public DiscoveryIgnitionInput {
    Objects.requireNonNull(serviceBaseUrl, "serviceBaseUrl");
    Objects.requireNonNull(infraEnvId, "infraEnvId");
    Objects.requireNonNull(agentToken, "agentToken");
    ntpSources = ntpSources == null ? List.of() : List.copyOf(ntpSources);
    staticNetworkConfig = staticNetworkConfig == null ? List.of() : List.copyOf(staticNetworkConfig);
    agent = agent == null ? AgentLaunch.DEFAULT : agent;
  }

  /** Upstream infra-env {@code proxy}. */
  public record Proxy(
      @JsonProperty("http_proxy") String httpProxy,
      @JsonProperty("https_proxy") String httpsProxy,
      @JsonProperty("no_proxy") String noProxy) {

    boolean isEmpty() {
      return blank(httpProxy) && blank(httpsProxy) && blank(noProxy);
    }
  }

  /** Upstream {@code static_network_config} item: one host's NMState YAML and its NIC names. */
  public record StaticNetworkConfig(
      @JsonProperty("network_yaml") String networkYaml,
      @JsonProperty("mac_interface_map") List<MacInterface> macInterfaceMap) {

    public StaticNetworkConfig {
      macInterfaceMap = macInterfaceMap == null ? List.of() : List.copyOf(macInterfaceMap);
    }
  }

  /** Upstream {@code mac_interface_map} item. */
  public record MacInterface(
      @JsonProperty("mac_address") String macAddress,
      @JsonProperty("logical_nic_name") String logicalNicName) {}

  /** Mirrors for image pulls on the discovery host, written to {@code /etc/containers/registries.conf}. */
  public record RegistryMirrors(List<Mirror> mirrors, String caBundle) {
    public RegistryMirrors {
      mirrors = mirrors == null ? List.of() : List.copyOf(mirrors);
    }
  }

  /** Pulls of {@code source} (a registry or repository prefix) are tried from {@code mirrors} first. */
  public record Mirror(String source, List<String> mirrors, boolean mirrorByDigestOnly) {
    public Mirror {
      mirrors = mirrors == null ? List.of() : List.copyOf(mirrors);
    }
  }

  /**
   * How the agent unit gets and runs the agent.
   *
   * @param jarUrl where to fetch the agent jar; null: {@code <serviceBaseUrl>/api/rendezvous/v1/agent/rendezvous-agent.jar}
   * @param javaImage container image with a Java 17+ runtime, used when the host has no {@code java}
   *     (CoreOS live images have none); run with podman
   * @param serviceCaCert PEM of the CA that signed the service's certificate, or null
   * @param insecure skip TLS verification towards the service (development only)
   * @param startTimeout systemd {@code TimeoutStartSec} of the agent unit
   * @param enabled whether the agent unit is enabled
   */
  public record AgentLaunch(String jarUrl, String javaImage, String serviceCaCert, boolean insecure,
      Duration startTimeout, boolean enabled) {

    public static final String DEFAULT_JAVA_IMAGE = "registry.access.redhat.com/ubi9/openjdk-17-runtime:latest";
    public static final AgentLaunch DEFAULT =
        new AgentLaunch(null, DEFAULT_JAVA_IMAGE, null, false, Duration.ofMinutes(10), true);

    public AgentLaunch {
      javaImage = javaImage == null ? DEFAULT_JAVA_IMAGE : javaImage;
      startTimeout = startTimeout == null ? Duration.ofMinutes(10) : startTimeout;
    }
  }

  static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
