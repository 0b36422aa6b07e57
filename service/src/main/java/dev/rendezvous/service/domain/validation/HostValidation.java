package dev.rendezvous.service.domain.validation;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Outcome of evaluating every host validation once: the validations_info to store, each id's status, and
 * the condition values the state machine reads (ignored and disabled validations already count as passing).
 *
 * <p>Statuses and conditions sit in arrays by a fixed slot per id (the host validations in their order, then each
 * operator's): a host refresh filled and copied two hash maps of ~70 entries, a visible share of a big cluster's brain
 * lane. An id outside that set (a result kept from another version) is held in a small map beside them.
 */
public final class HostValidation {
  private static final HostValidationId[] IDS = HostValidationId.values();
  /** Each operator's validation id, in {@link HostValidationId#OPERATORS} order. */
  static final List<String> OPERATOR_IDS =
      HostValidationId.OPERATORS.stream().map(HostValidationId::operatorValidationId).toList();
  private static final int SLOTS = IDS.length + OPERATOR_IDS.size();
  private static final Map<String, Integer> SLOT_OF_ID = slots();

  private final ValidationsInfo info;
  private final ValidationStatus[] statuses;
  private final boolean[] conditions;
  private final Map<String, ValidationStatus> otherStatuses;
  private final Map<String, Boolean> otherConditions;
  private final boolean diskSpeedCheckSuccessful;
  private final boolean imagesAvailabilitySuccessful;

  private HostValidation(Slots s, ValidationsInfo info, boolean diskSpeedCheckSuccessful,
      boolean imagesAvailabilitySuccessful) {
    this.info = info;
    this.statuses = s.statuses;
    this.conditions = s.conditions;
    this.otherStatuses = s.otherStatuses == null ? Map.of() : Map.copyOf(s.otherStatuses);
    this.otherConditions = s.otherConditions == null ? Map.of() : Map.copyOf(s.otherConditions);
    this.diskSpeedCheckSuccessful = diskSpeedCheckSuccessful;
    this.imagesAvailabilitySuccessful = imagesAvailabilitySuccessful;
  }

  private static Map<String, Integer> slots() {
    Map<String, Integer> m = new HashMap<>();
    for (HostValidationId id : IDS) {
      m.put(id.id(), id.ordinal());
    }
    for (int i = 0; i < OPERATOR_IDS.size(); i++) {
      m.put(OPERATOR_IDS.get(i), IDS.length + i);
    }
    return Map.copyOf(m);
  }

  /** The statuses and conditions of one evaluation as they are set; one use, then {@link #build}. */
  static final class Slots {
    private final ValidationStatus[] statuses = new ValidationStatus[SLOTS];
    private final boolean[] conditions = new boolean[SLOTS];
    private Map<String, ValidationStatus> otherStatuses;
    private Map<String, Boolean> otherConditions;

    void put(HostValidationId id, ValidationStatus status, boolean condition) {
      statuses[id.ordinal()] = status;
      conditions[id.ordinal()] = condition;
    }

    /** The {@code index}-th operator's validation, in {@link HostValidationId#OPERATORS} order. */
    void putOperator(int index, ValidationStatus status, boolean condition) {
      statuses[IDS.length + index] = status;
      conditions[IDS.length + index] = condition;
    }

    void put(String id, ValidationStatus status, boolean condition) {
      Integer slot = SLOT_OF_ID.get(id);
      if (slot != null) {
        statuses[slot] = status;
        conditions[slot] = condition;
        return;
      }
      if (otherStatuses == null) {
        otherStatuses = new HashMap<>();
        otherConditions = new HashMap<>();
      }
      otherStatuses.put(id, status);
      otherConditions.put(id, condition);
    }

    HostValidation build(ValidationsInfo info, boolean diskSpeedCheckSuccessful, boolean imagesAvailabilitySuccessful) {
      return new HostValidation(this, info, diskSpeedCheckSuccessful, imagesAvailabilitySuccessful);
    }
  }

  public ValidationsInfo info() {
    return info;
  }

  public boolean diskSpeedCheckSuccessful() {
    return diskSpeedCheckSuccessful;
  }

  public boolean imagesAvailabilitySuccessful() {
    return imagesAvailabilitySuccessful;
  }

  /** Each evaluated id's status (a copy, for reading and tests; the brain asks {@link #status} and {@link #passes}). */
  public Map<String, ValidationStatus> statuses() {
    Map<String, ValidationStatus> m = new LinkedHashMap<>();
    for (int i = 0; i < SLOTS; i++) {
      if (statuses[i] != null) {
        m.put(idOf(i), statuses[i]);
      }
    }
    m.putAll(otherStatuses);
    return m;
  }

  /** Each evaluated id's condition (a copy, as {@link #statuses}). */
  public Map<String, Boolean> conditions() {
    Map<String, Boolean> m = new LinkedHashMap<>();
    for (int i = 0; i < SLOTS; i++) {
      if (statuses[i] != null) {
        m.put(idOf(i), conditions[i]);
      }
    }
    m.putAll(otherConditions);
    return m;
  }

  private static String idOf(int slot) {
    return slot < IDS.length ? IDS[slot].id() : OPERATOR_IDS.get(slot - IDS.length);
  }

  public boolean passes(HostValidationId id) {
    return statuses[id.ordinal()] != null && conditions[id.ordinal()];
  }

  public ValidationStatus status(HostValidationId id) {
    return statuses[id.ordinal()];
  }

  /** True when every validation of the group passes (operator validations belong to SUFFICIENT, except ocs). */
  public boolean group(HostValidationId.Blocking blocking) {
    for (HostValidationId id : IDS) {
      if (id.blocking() == blocking && !passes(id)) {
        return false;
      }
    }
    if (blocking == HostValidationId.Blocking.SUFFICIENT) {
      for (int i = 0; i < OPERATOR_IDS.size(); i++) {
        int slot = IDS.length + i;
        // an operator not evaluated (an unbound host) holds nothing back
        if (!HostValidationId.OPERATORS.get(i).equals("ocs") && statuses[slot] != null && !conditions[slot]) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HostValidation v && v.info.equals(info) && Arrays.equals(v.statuses, statuses)
        && Arrays.equals(v.conditions, conditions) && v.otherStatuses.equals(otherStatuses)
        && v.otherConditions.equals(otherConditions) && v.diskSpeedCheckSuccessful == diskSpeedCheckSuccessful
        && v.imagesAvailabilitySuccessful == imagesAvailabilitySuccessful;
  }

  @Override
  public int hashCode() {
    return info.hashCode() * 31 + Arrays.hashCode(statuses);
  }

  @Override
  public String toString() {
    return "HostValidation[statuses=" + statuses() + ", conditions=" + conditions() + "]";
  }
}
