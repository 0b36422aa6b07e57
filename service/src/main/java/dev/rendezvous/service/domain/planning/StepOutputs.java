package dev.rendezvous.service.domain.planning;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.host.Inventory;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Value records of the other step outputs the domain reads, and the parsers that turn an agent's
 * output string into them. Unknown fields are ignored; a malformed output raises
 * {@link InvalidStepOutputException} naming the offending field.
 */
public final class StepOutputs {
  private StepOutputs() {}

  /**
   * Shared mapper: lenient on unknown fields, strict on types and on anything after the document (as Go's
   * json.Unmarshal upstream; the inventory and connectivity texts are stored as sent, so they must be one document).
   */
  public static final ObjectMapper JSON =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          // parsed outputs stay in the brain's cache: one copy of each short text (SharedText)
          .addModule(new com.fasterxml.jackson.databind.module.SimpleModule("shared-text")
              .addDeserializer(String.class, new dev.rendezvous.service.domain.SharedText.Deserializer()))
          .build();

  public static Inventory inventory(String output) {
    return parse(output, Inventory.class, "inventory");
  }

  /**
   * A connectivity report names every peer on every layer (~8 texts per peer, 300 KB in a 1,000-host cluster): read
   * without sharing each text as it comes, the report shares the few it keeps per peer once its columns are built
   * (interning every text was a third of the parse).
   */
  private static final ObjectMapper UNSHARED_TEXTS = JsonMapper.builder()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  public static ConnectivityReport connectivity(String output) {
    return parse(UNSHARED_TEXTS, output, ConnectivityReport.class, "connectivity");
  }

  public static NtpSynchronizationResponse ntp(String output) {
    return parse(output, NtpSynchronizationResponse.class, "ntp_sources");
  }

  public static DomainResolutionResponse domainResolution(String output) {
    return parse(output, DomainResolutionResponse.class, "domain_name_resolutions");
  }

  public static ContainerImageAvailabilityResponse imageAvailability(String output) {
    return parse(output, ContainerImageAvailabilityResponse.class, "images_status");
  }

  public static DiskSpeedResponse diskSpeed(String output) {
    return parse(output, DiskSpeedResponse.class, "disks_info");
  }

  public static ApiVipConnectivityResponse apiVipConnectivity(String output) {
    return parse(output, ApiVipConnectivityResponse.class, "api_vip_connectivity");
  }

  /** verify-vips' answer: one verdict per VIP asked about. */
  public static List<VerifiedVip> verifiedVips(String output) {
    VerifiedVip[] parsed = parse(output, VerifiedVip[].class, "verify_vips");
    for (VerifiedVip v : parsed) {
      if (v == null || v.vip() == null || v.verification() == null) {
        throw new InvalidStepOutputException("verify_vips", "each entry needs vip and verification", null);
      }
    }
    return List.of(parsed);
  }

  /** dhcp-lease-allocate's answer: an IPv4 address for each VIP and, optionally, the lease behind each. */
  public static DhcpAllocation dhcpAllocation(String output) {
    DhcpAllocation r = parse(output, DhcpAllocation.class, "dhcp_allocation_response");
    if (!ipv4(r.apiVipAddress())) {
      throw new InvalidStepOutputException("api_vip_address", "must be an IPv4 address", null);
    }
    if (!ipv4(r.ingressVipAddress())) {
      throw new InvalidStepOutputException("ingress_vip_address", "must be an IPv4 address", null);
    }
    return r;
  }

  private static boolean ipv4(String address) {
    return address != null && !address.contains("/")
        && dev.rendezvous.service.domain.Cidr.parse(address).map(c -> c.address().length == 4).orElse(false);
  }

  /** upgrade-agent's answer: the version asked for and success or failure. */
  public static UpgradeAgentResponse upgradeAgent(String output) {
    UpgradeAgentResponse r = parse(output, UpgradeAgentResponse.class, "upgrade_agent_response");
    if (r.result() == null || !java.util.Set.of("success", "failure").contains(r.result())) {
      throw new InvalidStepOutputException("upgrade_agent_response", "result must be success or failure", null);
    }
    return r;
  }

  /** free-network-addresses' answer: per network, the addresses nothing answered at. */
  public static List<FreeNetworkAddresses> freeAddresses(String output) {
    return List.of(parse(output, FreeNetworkAddresses[].class, "free_addresses"));
  }

  public static TangConnectivityResponse tangConnectivity(String output) {
    return parse(output, TangConnectivityResponse.class, "tang_connectivity");
  }

  /** Serialises a value record back to JSON (unknown fields dropped): for documents not stored as sent. */
  public static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + value.getClass().getSimpleName(), e);
    }
  }

  static <T> T parse(String output, Class<T> type, String what) {
    return parse(JSON, output, type, what);
  }

  private static <T> T parse(ObjectMapper mapper, String output, Class<T> type, String what) {
    if (output == null || output.isBlank()) {
      throw new InvalidStepOutputException(what, "output is empty", null);
    }
    try {
      T value = mapper.readValue(output, type);
      if (value == null) {
        throw new InvalidStepOutputException(what, "output is null", null);
      }
      return value;
    } catch (JsonMappingException e) {
      String path =
          e.getPath().stream()
              .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
              .collect(Collectors.joining("."));
      throw new InvalidStepOutputException(
          path.isEmpty() ? what : what + "." + path, e.getOriginalMessage(), e);
    } catch (JsonProcessingException e) {
      throw new InvalidStepOutputException(what, "not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record NtpSynchronizationResponse(List<NtpSource> ntpSources) {
    public NtpSynchronizationResponse {
      ntpSources = Inventory.listOf(ntpSources);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record NtpSource(String sourceName, String sourceState) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DomainResolutionResponse(List<Resolution> resolutions) {
    /** The hosts of a cluster resolve the same names to the same addresses: one list of answers for all of them. */
    private static final dev.rendezvous.service.domain.SharedText.Values<List<Resolution>> SHARED =
        new dev.rendezvous.service.domain.SharedText.Values<>();

    public DomainResolutionResponse {
      resolutions = SHARED.of(Inventory.listOf(resolutions));
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Resolution(
      String domainName, List<String> ipv4Addresses, List<String> ipv6Addresses, List<String> cnames) {
    public Resolution {
      ipv4Addresses = Inventory.listOf(ipv4Addresses);
      ipv6Addresses = Inventory.listOf(ipv6Addresses);
      cnames = Inventory.listOf(cnames);
    }

    public boolean resolved() {
      return !ipv4Addresses.isEmpty() || !ipv6Addresses.isEmpty();
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ContainerImageAvailabilityResponse(List<ImageAvailability> images) {
    public ContainerImageAvailabilityResponse {
      images = Inventory.listOf(images);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ImageAvailability(String name, String result, long sizeBytes, double time, double downloadRate) {
    /** Upstream threshold: a pull slower than 0.001 MB/s counts as failed. */
    public boolean invalid() {
      return "failure".equals(result) || (sizeBytes > 0 && downloadRate < 0.001);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DiskSpeedResponse(long ioSyncDuration, String path) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record ApiVipConnectivityResponse(boolean isSuccess, String url, String downloadError, String ignition) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record TangConnectivityResponse(boolean isSuccess) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record VerifiedVip(String vip, String vipType, String verification) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record DhcpAllocation(String apiVipAddress, String ingressVipAddress, String apiVipLease, String ingressVipLease) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record UpgradeAgentResponse(String agentImage, String result) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record FreeNetworkAddresses(String network, List<String> freeAddresses) {}
}
