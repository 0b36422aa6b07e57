package dev.rendezvous.service.domain.host;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.rendezvous.service.domain.SharedText;
import java.util.List;
import java.util.UUID;

/** The agent's {@code connectivity-check} output (upstream models.ConnectivityReport). */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ConnectivityReport(List<RemoteHost> remoteHosts) {
  public ConnectivityReport {
    remoteHosts = Inventory.listOf(remoteHosts);
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record RemoteHost(UUID hostId, List<L2> l2Connectivity, List<L3> l3Connectivity, List<Mtu> mtuReport) {
    public RemoteHost {
      l2Connectivity = Inventory.listOf(l2Connectivity);
      l3Connectivity = Inventory.listOf(l3Connectivity);
      mtuReport = Inventory.listOf(mtuReport);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record L2(
      String outgoingNic, String outgoingIpAddress, String remoteIpAddress, String remoteMac, boolean successful) {
    public L2 {
      outgoingNic = SharedText.of(outgoingNic);
      outgoingIpAddress = SharedText.of(outgoingIpAddress);
      remoteIpAddress = SharedText.of(remoteIpAddress);
      remoteMac = SharedText.of(remoteMac);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record L3(
      String outgoingNic,
      String remoteIpAddress,
      boolean successful,
      double averageRttMs,
      double packetLossPercentage) {
    public L3 {
      outgoingNic = SharedText.of(outgoingNic);
      remoteIpAddress = SharedText.of(remoteIpAddress);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Mtu(String outgoingNic, String remoteIpAddress, boolean mtuSuccessful) {
    public Mtu {
      outgoingNic = SharedText.of(outgoingNic);
      remoteIpAddress = SharedText.of(remoteIpAddress);
    }
  }

  /**
   * One entry of the {@code connectivity-check} request (args[0] is a JSON array of these): another host
   * of the cluster and its NICs, addresses without prefix.
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record CheckHost(UUID hostId, List<CheckNic> nics) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record CheckNic(String name, String mac, List<String> ipAddresses) {}
}
