package dev.rendezvous.controller.service;

/** The cluster and host status strings the controller acts on (upstream's models constants). */
public final class ClusterStatus {
  public static final String FINALIZING = "finalizing";
  public static final String INSTALLED = "installed";
  public static final String ERROR = "error";
  public static final String CANCELLED = "cancelled";
  public static final String ADDING_HOSTS = "adding-hosts";

  public static final String HOST_INSTALLED = "installed";
  public static final String HOST_ERROR = "error";
  public static final String HOST_DISABLED = "disabled";

  private ClusterStatus() {
  }
}
