package dev.rendezvous.agentbased.config;

import java.util.List;

/**
 * The parts of openshift-install's install-config.yaml (apiVersion v1) an agent-based installation reads, with
 * openshift-install's defaults applied (3 control-plane replicas, a {@code worker} pool of 3 when {@code compute} is
 * absent, OVNKubernetes, 10.128.0.0/14 /23 and 172.30.0.0/16). Parse with {@link InstallConfigParser}.
 *
 * @param baseDomain the cluster's base DNS domain
 * @param clusterName {@code metadata.name}
 * @param networking the cluster's networks
 * @param platform {@code baremetal}, {@code none} or {@code external}, with the VIPs of baremetal
 * @param controlPlane the {@code controlPlane} machine pool
 * @param compute the {@code compute} machine pools (openshift-install allows only {@code worker} here)
 * @param pullSecret the pull secret JSON
 * @param sshKey the OpenSSH public key(s), or null
 * @param imageDigestSources {@code imageDigestSources}, or the older {@code imageContentSources}
 * @param additionalTrustBundle PEM certificates, or null
 * @param proxy the cluster-wide proxy, or null
 * @param fips whether FIPS mode is asked for
 * @param ignoredFields fields present in the file that an agent-based installation does not use, as paths
 */
public record InstallConfig(
    String baseDomain,
    String clusterName,
    Networking networking,
    Platform platform,
    MachinePool controlPlane,
    List<MachinePool> compute,
    String pullSecret,
    String sshKey,
    List<ImageDigestSource> imageDigestSources,
    String additionalTrustBundle,
    Proxy proxy,
    boolean fips,
    List<String> ignoredFields) {

  public static final String FILE = "install-config.yaml";

  public InstallConfig {
    compute = List.copyOf(compute);
    imageDigestSources = List.copyOf(imageDigestSources);
    ignoredFields = List.copyOf(ignoredFields);
  }

  /** {@code networking}: CIDRs as written. */
  public record Networking(
      List<String> machineNetwork,
      List<ClusterNetwork> clusterNetwork,
      List<String> serviceNetwork,
      String networkType) {
    public Networking {
      machineNetwork = List.copyOf(machineNetwork);
      clusterNetwork = List.copyOf(clusterNetwork);
      serviceNetwork = List.copyOf(serviceNetwork);
    }
  }

  public record ClusterNetwork(String cidr, int hostPrefix) {}

  /** {@code platform}: its type, and for baremetal its VIPs (the singular apiVIP/ingressVIP folded in). */
  public record Platform(String type, List<String> apiVips, List<String> ingressVips) {
    public Platform {
      apiVips = List.copyOf(apiVips);
      ingressVips = List.copyOf(ingressVips);
    }
  }

  /**
   * A machine pool.
   *
   * @param hyperthreading {@code Enabled} or {@code Disabled}
   * @param architecture Go's name, as in the file: amd64, arm64, ppc64le, s390x
   */
  public record MachinePool(String name, int replicas, String hyperthreading, String architecture) {}

  /** Pulls of {@code source} are served by {@code mirrors}. */
  public record ImageDigestSource(String source, List<String> mirrors) {
    public ImageDigestSource {
      mirrors = List.copyOf(mirrors);
    }
  }

  public record Proxy(String httpProxy, String httpsProxy, String noProxy) {}

  /** {@code controlPlane.replicas}. */
  public int controlPlaneReplicas() {
    return controlPlane.replicas();
  }

  /** The replicas of the {@code worker} compute pool(s). */
  public int workerReplicas() {
    return compute.stream().filter(p -> "worker".equals(p.name())).mapToInt(MachinePool::replicas).sum();
  }

  public boolean singleNode() {
    return controlPlane.replicas() == 1;
  }

  /** Our (and upstream assisted-service's) CPU architecture name: amd64 → x86_64, arm64 → aarch64. */
  public String cpuArchitecture() {
    return switch (controlPlane.architecture()) {
      case "amd64" -> "x86_64";
      case "arm64" -> "aarch64";
      default -> controlPlane.architecture();
    };
  }

  /** Our {@code hyperthreading} setting (all, masters, workers, none) from the pools' Enabled/Disabled. */
  public String hyperthreading() {
    boolean masters = "Enabled".equals(controlPlane.hyperthreading());
    boolean workers = compute.stream().allMatch(p -> "Enabled".equals(p.hyperthreading()));
    return masters && workers ? "all" : masters ? "masters" : workers ? "workers" : "none";
  }
}
