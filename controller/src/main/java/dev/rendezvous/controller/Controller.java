package dev.rendezvous.controller;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The controller's entry point, shared by its own launcher ({@code rendezvous-controller}), the test rigs that stand
 * in for the Job's pod, and the dry-run bootstrap installer, which runs a dry-run controller in its own JVM.
 *
 * <p>{@code env} carries upstream's settings ({@code CLUSTER_ID}, {@code INVENTORY_URL}, {@code OPENSHIFT_VERSION},
 * {@code CONTROL_PLANE_COUNT}, {@code DRY_ENABLE}, the token as {@code PULL_SECRET_TOKEN}, ...), the way the Job's
 * ConfigMap and Secret give them to the pod; {@code args} are flags that override them.
 */
public final class Controller implements AutoCloseable {

  /** How a controller run ended. */
  public enum Outcome { COMPLETED, FAILED, CLUSTER_GONE, STOPPED }

  private Controller() {
  }

  /** Starts a controller (simulated cluster when dry-run is set) and returns at once. */
  public static Controller start(Map<String, String> env, String[] args) {
    throw new UnsupportedOperationException("the controller's loops are being built (issue 11)");
  }

  /**
   * Completes once the controller is running in the cluster and has said so (upstream creates the event
   * {@code AssistedControllerIsReady} in its namespace, which the bootstrap installer waits for).
   */
  public CompletableFuture<Void> ready() {
    throw new UnsupportedOperationException("the controller's loops are being built (issue 11)");
  }

  /** Completes when the controller stopped on its own (installation completed or failed, cluster gone). */
  public CompletableFuture<Outcome> finished() {
    throw new UnsupportedOperationException("the controller's loops are being built (issue 11)");
  }

  /** Stops every loop; {@link #finished()} completes with {@link Outcome#STOPPED}. */
  @Override
  public void close() {
  }
}
