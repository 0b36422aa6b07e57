package dev.rendezvous.observability;

/** Names of the structured log fields every module uses, so dashboards can filter on them. */
public final class LogFields {
  public static final String CLUSTER_ID = "cluster_id";
  public static final String INFRA_ENV_ID = "infra_env_id";
  public static final String HOST_ID = "host_id";
  public static final String TENANT = "tenant";
  public static final String REQUEST_ID = "request_id";

  private LogFields() {}
}
