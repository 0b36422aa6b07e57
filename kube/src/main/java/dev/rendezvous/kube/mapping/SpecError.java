package dev.rendezvous.kube.mapping;

/**
 * A custom resource's spec that cannot be applied: the field is the CR's own path (e.g.
 * {@code AgentClusterInstall.spec.networking.clusterNetwork}), so {@code SpecSynced=False/InputError} names what to fix.
 */
public final class SpecError extends RuntimeException {
  private final String field;

  public SpecError(String field, String reason) {
    super(field + ": " + reason);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
