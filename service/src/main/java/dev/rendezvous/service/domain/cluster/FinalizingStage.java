package dev.rendezvous.service.domain.cluster;

import java.util.List;

/** Cluster finalizing stages, upstream strings, in order. */
public final class FinalizingStage {
  private FinalizingStage() {}

  public static final String WAITING_FOR_CLUSTER_OPERATORS = "Waiting for cluster operators";
  public static final String ADDING_ROUTER_CA = "Adding router ca";
  public static final String APPLYING_OLM_MANIFESTS = "Applying olm manifests";
  public static final String WAITING_FOR_OLM_CSV_INITIALIZATION = "Waiting for olm operators csv initialization";
  public static final String WAITING_FOR_OLM_CSV = "Waiting for olm operators csv";
  public static final String WAITING_FOR_OLM_OPERATOR_SETUP_JOBS = "Waiting for OLM operator setup jobs";
  public static final String DONE = "Done";

  public static final List<String> ORDER =
      List.of(WAITING_FOR_CLUSTER_OPERATORS, ADDING_ROUTER_CA, APPLYING_OLM_MANIFESTS,
          WAITING_FOR_OLM_CSV_INITIALIZATION, WAITING_FOR_OLM_CSV, WAITING_FOR_OLM_OPERATOR_SETUP_JOBS, DONE);

  /** OLM stages whose timeout only warns (never fails the cluster). */
  public static final List<String> OLM_NON_FAILING =
      List.of(APPLYING_OLM_MANIFESTS, WAITING_FOR_OLM_CSV_INITIALIZATION, WAITING_FOR_OLM_CSV);
}
