package dev.rendezvous.kube.reconcile;

/** One kind's reconcile: brings the service in line with the custom resource {@code namespace/name}, then its status. */
public interface Reconciler {
  void reconcile(String namespace, String name);
}
