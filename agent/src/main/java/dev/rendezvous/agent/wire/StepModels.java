package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** Upstream request (args[0]) and response (output) models of the smaller steps. */
public final class StepModels {
  private StepModels() {}

  /** free-network-addresses: args[0] is a JSON array of IPv4 CIDRs; output an array of these. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record FreeNetworkAddresses(String network, List<String> freeAddresses) {}

  /** ntp-synchronizer request: comma-separated sources, may be empty. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record NtpRequest(String ntpSource) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record NtpResponse(List<NtpSource> ntpSources) {}

  /** {@code source_state}: synced, combined, not_combined, error, variable, unreachable. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record NtpSource(String sourceName, String sourceState) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record DomainResolutionRequest(List<DomainName> domains) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record DomainName(String domainName) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record DomainResolutionResponse(List<DomainResolution> resolutions) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record DomainResolution(
      String domainName, List<String> ipv4Addresses, List<String> ipv6Addresses, List<String> cnames) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record DiskSpeedRequest(String path) {}

  /** {@code io_sync_duration}: p99 latency of a write + fdatasync, in milliseconds. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record DiskSpeedResponse(long ioSyncDuration, String path) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record ImageAvailabilityRequest(List<String> images, Long timeout) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record ImageAvailabilityResponse(List<ImageAvailability> images) {}

  /** {@code result}: success/failure; {@code time} seconds; {@code download_rate} MB/s (10^6). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record ImageAvailability(String name, String result, Long sizeBytes, Double time, Double downloadRate) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record LogsGatherRequest(
      String clusterId, String infraEnvId, String hostId, Boolean bootstrap, Boolean installerGather,
      List<String> masterIps) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record TangConnectivityRequest(String tangServers) {}

  /** One entry of the tang_servers JSON string: a server's URL and the thumbprint of its signing key. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record TangServer(String url, String thumbprint) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
  public record TangConnectivityResponse(boolean isSuccess, List<TangServerResponse> tangServerResponse) {}

  /** A server's advertisement: its JWS payload and signatures, as the server sent them. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record TangServerResponse(String tangUrl, String payload, List<com.fasterxml.jackson.databind.JsonNode> signatures) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ApiVipConnectivityRequest(String url, String caCertificate, List<RequestHeader> requestHeaders,
      String ignitionEndpointToken) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record RequestHeader(String key, String value) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record ApiVipConnectivityResponse(boolean isSuccess, String url, String downloadError, String ignition) {}

  /** verify-vips: args[0] is a bare JSON array of these; the output an array of {@link VerifiedVip}. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record VerifyVip(String vip, String vipType) {}

  /** verification: succeeded (nothing answers at the VIP) or failed (something does: the address is taken). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record VerifiedVip(String vip, String vipType, String verification) {}

  /** dhcp-lease-allocate: args[0]; the leases are the ones the service kept from the last answer (to renew). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DhcpAllocationRequest(@com.fasterxml.jackson.annotation.JsonProperty("interface") String interfaceName,
      String apiVipMac, String ingressVipMac, String apiVipLease, String ingressVipLease) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record DhcpAllocationResponse(String apiVipAddress, String ingressVipAddress, String apiVipLease,
      String ingressVipLease) {}

  /** upgrade-agent: args[0] names the version to become (upstream: the agent's container image). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record UpgradeAgentRequest(String agentImage) {}

  /** result: success (the agent starts again as it) or failure. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record UpgradeAgentResponse(String agentImage, String result) {
    public static final String SUCCESS = "success";
    public static final String FAILURE = "failure";
  }

  /** download-boot-artifacts: the discovery image's kernel, rootfs and initrd, and where the host's / is mounted. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DownloadBootArtifactsRequest(String kernelUrl, String rootfsUrl, String initrdUrl,
      String hostFsMountDir) {}

  /** reboot-for-reclaim: where the host's / is mounted. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record RebootForReclaimRequest(String hostFsMountDir) {}
}
