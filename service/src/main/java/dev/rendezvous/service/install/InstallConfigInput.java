package dev.rendezvous.service.install;

import java.util.List;

/**
 * What an install-config is made of, read from the cluster (its settings, its hosts at the time installation
 * starts, the pull secret and the user's overrides).
 *
 * @param workerCount hosts that install as workers (compute replicas)
 * @param bootstrapInPlaceDisk single node: the host's installation disk (install-config bootstrapInPlace)
 * @param overrides the user's install_config_overrides, a JSON object text merged over the rendered config (null: none)
 * @param mirrors the site's mirror registries (imageDigestSources, their CA trusted too), or null
 */
public record InstallConfigInput(
    String clusterName,
    String baseDomain,
    String cpuArchitecture,
    int controlPlaneCount,
    int workerCount,
    String networkType,
    List<ClusterNetwork> clusterNetworks,
    List<String> serviceNetworks,
    List<String> machineNetworks,
    List<String> apiVips,
    List<String> ingressVips,
    String platformType,
    String hyperthreading,
    String pullSecret,
    String sshKey,
    String httpProxy,
    String httpsProxy,
    String noProxy,
    String additionalTrustBundle,
    String bootstrapInPlaceDisk,
    String overrides,
    dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors mirrors) {

  public record ClusterNetwork(String cidr, int hostPrefix) {}

  public InstallConfigInput {
    clusterNetworks = List.copyOf(clusterNetworks);
    serviceNetworks = List.copyOf(serviceNetworks);
    machineNetworks = List.copyOf(machineNetworks);
    apiVips = List.copyOf(apiVips);
    ingressVips = List.copyOf(ingressVips);
  }

  /** The same input with the site's mirror registries (null: none). */
  public InstallConfigInput withMirrors(dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors m) {
    return new InstallConfigInput(clusterName, baseDomain, cpuArchitecture, controlPlaneCount, workerCount, networkType,
        clusterNetworks, serviceNetworks, machineNetworks, apiVips, ingressVips, platformType, hyperthreading,
        pullSecret, sshKey, httpProxy, httpsProxy, noProxy, additionalTrustBundle, bootstrapInPlaceDisk, overrides, m);
  }

  public boolean singleNode() {
    return controlPlaneCount == 1;
  }
}
