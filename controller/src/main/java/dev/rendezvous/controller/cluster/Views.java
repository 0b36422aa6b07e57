package dev.rendezvous.controller.cluster;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** What the loops see of the cluster: plain values, free of any client library's types. */
public final class Views {
  private Views() {
  }

  /** A node: name, InternalIP addresses, Ready condition, labels, whether it still carries the uninitialized taint. */
  public record Node(String name, List<String> internalIps, boolean ready, Map<String, String> labels,
      boolean uninitializedTaint, String systemUuid) {
    public Node {
      internalIps = List.copyOf(internalIps);
      labels = Map.copyOf(labels);
    }
  }

  /**
   * A certificate signing request, with the subject of its PKCS#10 request already parsed ({@code commonName} null
   * when the request could not be read).
   */
  public record Csr(String name, String signerName, String username, String commonName, List<String> organizations,
      boolean approved, boolean denied, boolean failed) {
    public Csr {
      organizations = List.copyOf(organizations);
    }

    /** Not approved, denied or failed yet. */
    public boolean pending() {
      return !approved && !denied && !failed;
    }
  }

  /** A status condition (ClusterOperator, ClusterVersion). */
  public record Condition(String type, String status, String message) {
  }

  /** A ClusterOperator: its conditions in their order and {@code status.versions[0]}. */
  public record ClusterOperator(String name, List<Condition> conditions, String version) {
    public ClusterOperator {
      conditions = List.copyOf(conditions);
    }
  }

  /** The ClusterVersion {@code version}: conditions, desired version, capabilities. */
  public record ClusterVersion(List<Condition> conditions, String desiredVersion, Set<String> enabledCapabilities,
      Set<String> knownCapabilities) {
    public ClusterVersion {
      conditions = List.copyOf(conditions);
      enabledCapabilities = Set.copyOf(enabledCapabilities);
      knownCapabilities = Set.copyOf(knownCapabilities);
    }

    /** Upstream's IsClusterCapabilityEnabled: enabled, or unknown to this version (then it is always on). */
    public boolean capabilityEnabled(String capability) {
      return enabledCapabilities.contains(capability) || !knownCapabilities.contains(capability);
    }
  }

  /** An OLM ClusterServiceVersion: phase (Succeeded, Failed, ...), message, {@code spec.version}. */
  public record Csv(String name, String phase, String message, String version) {
  }

  /** A file for a log bundle. */
  public record NamedFile(String name, byte[] content) {
  }

  /** Result of creating an event. */
  public enum EventCreation { CREATED, ALREADY_EXISTS }
}
