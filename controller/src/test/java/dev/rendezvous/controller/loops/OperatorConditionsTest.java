package dev.rendezvous.controller.loops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.OperatorStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class OperatorConditionsTest {
  static Views.Condition c(String type, String status, String message) {
    return new Views.Condition(type, status, message);
  }

  @Test
  void theFirstMatchingConditionDecides() {
    assertEquals(new OperatorConditions.Reported(OperatorStatus.AVAILABLE, "ok", "4.18"),
        OperatorConditions.of(List.of(c("Degraded", "False", ""), c("Available", "True", "ok")), "4.18"));
    assertEquals(OperatorStatus.PROGRESSING, OperatorConditions.of(List.of(c("Progressing", "True", "p"),
        c("Available", "False", "a")), "").status());
    assertEquals(OperatorStatus.FAILED, OperatorConditions.of(List.of(c("Available", "False", "a"),
        c("Progressing", "True", "p")), "").status());
    assertEquals(OperatorStatus.FAILED, OperatorConditions.of(List.of(c("Degraded", "True", "d")), "").status());
    assertEquals(new OperatorConditions.Reported(OperatorStatus.PROGRESSING, "", ""),
        OperatorConditions.of(List.of(), ""));
  }

  @Test
  void csvPhases() {
    assertEquals(OperatorStatus.AVAILABLE, OperatorConditions.ofCsv(new Views.Csv("x", "Succeeded", "", "1")).status());
    assertEquals(OperatorStatus.FAILED, OperatorConditions.ofCsv(new Views.Csv("x", "Failed", "", "1")).status());
    assertEquals(OperatorStatus.PROGRESSING, OperatorConditions.ofCsv(new Views.Csv("x", "Installing", "", "1")).status());
  }
}
