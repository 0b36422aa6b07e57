package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** Upstream {@code connectivity-check-params} (args[0], an array of {@link Host}) and {@code connectivity-report}. */
public final class ConnectivityCheck {
  private ConnectivityCheck() {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Host(String hostId, List<Nic> nics) {
    public Host {
      nics = nics == null ? List.of() : List.copyOf(nics);
    }
  }

  /** {@code ip_addresses} may carry a prefix ({@code 10.0.0.5/24}) or not. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Nic(String name, String mac, List<String> ipAddresses) {
    public Nic {
      ipAddresses = ipAddresses == null ? List.of() : List.copyOf(ipAddresses);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Report(List<RemoteHost> remoteHosts) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record RemoteHost(
      String hostId, List<L2Connectivity> l2Connectivity, List<L3Connectivity> l3Connectivity, List<MtuReport> mtuReport) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record L2Connectivity(
      String outgoingNic, String outgoingIpAddress, String remoteIpAddress, String remoteMac, boolean successful) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record L3Connectivity(
      String outgoingNic, String remoteIpAddress, boolean successful, double averageRttMs, double packetLossPercentage) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record MtuReport(String outgoingNic, String remoteIpAddress, boolean mtuSuccessful) {}
}
