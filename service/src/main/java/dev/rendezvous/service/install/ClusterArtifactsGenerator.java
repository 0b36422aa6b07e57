package dev.rendezvous.service.install;

/**
 * Makes a cluster's installation files from its install-config: the Ignition configs of each role, the
 * kubeconfig and kubeadmin password, metadata.json (port; adapters: {@link BuiltInArtifactsGenerator},
 * {@link OpenshiftInstallGenerator}). Blocking: called on a worker thread.
 */
public interface ClusterArtifactsGenerator {
  /** What made the files: {@code built-in} or {@code openshift-install}. */
  String name();

  /** Whether the files are a real OpenShift payload (the built-in generator's are not). */
  boolean realPayload();

  ClusterArtifacts generate(GenerationRequest request) throws GenerationException;

  /** A generation that failed, with the reason a user reads in the cluster's events. */
  final class GenerationException extends Exception {
    public GenerationException(String reason, Throwable cause) {
      super(reason, cause);
    }

    public GenerationException(String reason) {
      super(reason);
    }
  }
}
