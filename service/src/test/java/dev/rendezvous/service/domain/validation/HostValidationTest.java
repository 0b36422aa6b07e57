package dev.rendezvous.service.domain.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Statuses and conditions by id, whichever way they were set (host ids, operators, ids of another version). */
class HostValidationTest {

  private static HostValidation.Slots sufficient() {
    HostValidation.Slots s = new HostValidation.Slots();
    for (HostValidationId id : HostValidationId.values()) {
      s.put(id, ValidationStatus.SUCCESS, true);
    }
    return s;
  }

  @Test
  void setByIdOrBySlotReadsTheSame() {
    HostValidation.Slots s = new HostValidation.Slots();
    s.put(HostValidationId.CONNECTED, ValidationStatus.FAILURE, false);
    s.put("has-inventory", ValidationStatus.SUCCESS, true);
    s.put("cnv-requirements-satisfied", ValidationStatus.FAILURE, true); // ignored: passes
    s.put("gone-in-this-version", ValidationStatus.PENDING, false);
    HostValidation v = s.build(ValidationsInfo.empty(), true, true);
    assertFalse(v.passes(HostValidationId.CONNECTED));
    assertTrue(v.passes(HostValidationId.HAS_INVENTORY));
    assertFalse(v.passes(HostValidationId.HOSTNAME_VALID), "not evaluated: does not pass");
    assertNull(v.status(HostValidationId.HOSTNAME_VALID));
    assertEquals(Map.of("connected", ValidationStatus.FAILURE, "has-inventory", ValidationStatus.SUCCESS,
        "cnv-requirements-satisfied", ValidationStatus.FAILURE, "gone-in-this-version", ValidationStatus.PENDING),
        v.statuses());
    assertEquals(Map.of("connected", false, "has-inventory", true, "cnv-requirements-satisfied", true,
        "gone-in-this-version", false), v.conditions());
  }

  @Test
  void aFailingOperatorHoldsTheSufficientGroupBackButOcsAndUnevaluatedOnesDoNot() {
    assertTrue(sufficient().build(ValidationsInfo.empty(), true, true).group(HostValidationId.Blocking.SUFFICIENT),
        "no operator evaluated (an unbound host)");
    HostValidation.Slots ocs = sufficient();
    ocs.put("ocs-requirements-satisfied", ValidationStatus.FAILURE, false);
    assertTrue(ocs.build(ValidationsInfo.empty(), true, true).group(HostValidationId.Blocking.SUFFICIENT));
    HostValidation.Slots lvm = sufficient();
    lvm.putOperator(HostValidationId.OPERATORS.indexOf("lvm"), ValidationStatus.FAILURE, false);
    HostValidation v = lvm.build(ValidationsInfo.empty(), true, true);
    assertFalse(v.group(HostValidationId.Blocking.SUFFICIENT));
    assertEquals(ValidationStatus.FAILURE, v.statuses().get("lvm-requirements-satisfied"));
    assertTrue(v.group(HostValidationId.Blocking.HARDWARE));
  }
}
