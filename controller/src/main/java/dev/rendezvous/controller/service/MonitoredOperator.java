package dev.rendezvous.controller.service;

/** {@code monitored-operator}: what the service follows for the cluster (builtin console/cvo, OLM operators). */
public record MonitoredOperator(
    String name,
    String operatorType,
    String namespace,
    String subscriptionName,
    OperatorStatus status,
    String statusInfo,
    String version,
    Long timeoutSeconds) {

  public static final String TYPE_BUILTIN = "builtin";
  public static final String TYPE_OLM = "olm";

  public boolean isOlm() {
    return TYPE_OLM.equals(operatorType);
  }

  /** Available or failed: the service stops waiting for it. */
  public boolean settled() {
    return status == OperatorStatus.AVAILABLE || status == OperatorStatus.FAILED;
  }
}
