package dev.rendezvous.service.domain.validation;

import java.util.Map;

/**
 * Outcome of evaluating every host validation once: the validations_info to store, each id's status, and
 * the condition values the state machine reads (ignored and disabled validations already count as passing).
 */
public record HostValidation(
    ValidationsInfo info,
    Map<String, ValidationStatus> statuses,
    Map<String, Boolean> conditions,
    boolean diskSpeedCheckSuccessful,
    boolean imagesAvailabilitySuccessful) {

  public HostValidation {
    statuses = Map.copyOf(statuses);
    conditions = Map.copyOf(conditions);
  }

  public boolean passes(HostValidationId id) {
    return conditions.getOrDefault(id.id(), false);
  }

  public ValidationStatus status(HostValidationId id) {
    return statuses.get(id.id());
  }

  /** True when every validation of the group passes (operator validations belong to SUFFICIENT, except ocs). */
  public boolean group(HostValidationId.Blocking blocking) {
    for (HostValidationId id : HostValidationId.values()) {
      if (id.blocking() == blocking && !passes(id)) {
        return false;
      }
    }
    if (blocking == HostValidationId.Blocking.SUFFICIENT) {
      for (String op : HostValidationId.OPERATORS) {
        String id = HostValidationId.operatorValidationId(op);
        if (!op.equals("ocs") && !conditions.getOrDefault(id, true)) {
          return false;
        }
      }
    }
    return true;
  }
}
