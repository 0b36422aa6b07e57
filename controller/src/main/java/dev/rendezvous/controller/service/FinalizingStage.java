package dev.rendezvous.controller.service;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/** Upstream's cluster finalizing stages (models.FinalizingStage), with their wire strings. */
public enum FinalizingStage {
  WAITING_FOR_CLUSTER_OPERATORS("Waiting for cluster operators"),
  ADDING_ROUTER_CA("Adding router ca"),
  APPLYING_OLM_MANIFESTS("Applying olm manifests"),
  WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION("Waiting for olm operators csv initialization"),
  WAITING_FOR_OLM_OPERATORS_CSV("Waiting for olm operators csv"),
  WAITING_FOR_OLM_OPERATOR_SETUP_JOBS("Waiting for OLM operator setup jobs"),
  DONE("Done");

  /**
   * The order the controller walks the stages in (it differs from the enum's declaration order: CSVs are
   * initialized before the OLM manifests are applied). Used to report only forward moves.
   */
  public static final List<FinalizingStage> CONTROLLER_ORDER = List.of(
      WAITING_FOR_CLUSTER_OPERATORS,
      ADDING_ROUTER_CA,
      WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION,
      APPLYING_OLM_MANIFESTS,
      WAITING_FOR_OLM_OPERATORS_CSV,
      WAITING_FOR_OLM_OPERATOR_SETUP_JOBS,
      DONE);

  private final String wire;

  FinalizingStage(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  /** The stage with this wire string; null for an empty or unknown one. */
  @JsonCreator
  public static FinalizingStage fromWire(String value) {
    if (value == null) {
      return null;
    }
    for (FinalizingStage s : values()) {
      if (s.wire.equals(value)) {
        return s;
      }
    }
    return null;
  }

  /** Position in {@link #CONTROLLER_ORDER}; -1 for null (no stage reported yet). */
  public static int position(FinalizingStage stage) {
    return stage == null ? -1 : CONTROLLER_ORDER.indexOf(stage);
  }

  @Override
  public String toString() {
    return wire;
  }
}
