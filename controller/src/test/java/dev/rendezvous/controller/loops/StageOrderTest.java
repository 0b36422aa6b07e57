package dev.rendezvous.controller.loops;

import static dev.rendezvous.controller.service.HostStage.CONFIGURING;
import static dev.rendezvous.controller.service.HostStage.DONE;
import static dev.rendezvous.controller.service.HostStage.FAILED;
import static dev.rendezvous.controller.service.HostStage.JOINED;
import static dev.rendezvous.controller.service.HostStage.REBOOTING;
import static dev.rendezvous.controller.service.HostStage.WAITING_FOR_CONTROLLER;
import static dev.rendezvous.controller.service.HostStage.WAITING_FOR_IGNITION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.controller.service.Host;
import org.junit.jupiter.api.Test;

class StageOrderTest {
  static Host host(String role, String suggested, boolean bootstrap) {
    return new Host("h", "ie", "c", "installing-in-progress", role, suggested, bootstrap, "n", null, null, null, null);
  }

  @Test
  void eachRoleHasItsSequence() {
    assertSame(StageOrder.BOOTSTRAP, StageOrder.of(host("master", null, true), false));
    assertSame(StageOrder.MASTER, StageOrder.of(host("master", null, false), false));
    assertSame(StageOrder.WORKER, StageOrder.of(host("auto-assign", "worker", false), false));
    assertSame(StageOrder.SINGLE_NODE, StageOrder.of(host("master", null, true), true));
  }

  @Test
  void onlyForwardMovesWithinTheSequence() {
    assertTrue(StageOrder.isForward(StageOrder.MASTER, REBOOTING, JOINED));
    assertTrue(StageOrder.isForward(StageOrder.MASTER, null, DONE));
    assertFalse(StageOrder.isForward(StageOrder.MASTER, JOINED, JOINED), "never twice");
    assertFalse(StageOrder.isForward(StageOrder.MASTER, DONE, JOINED), "never backwards");
    assertFalse(StageOrder.isForward(StageOrder.MASTER, FAILED, DONE), "a failed host stays failed");
    assertFalse(StageOrder.isForward(StageOrder.MASTER, REBOOTING, WAITING_FOR_IGNITION), "not a master stage");
    assertFalse(StageOrder.isForward(StageOrder.SINGLE_NODE, REBOOTING, CONFIGURING), "not a single-node stage");
    assertTrue(StageOrder.isForward(StageOrder.BOOTSTRAP, WAITING_FOR_CONTROLLER, REBOOTING));
    assertTrue(StageOrder.isForward(StageOrder.WORKER, WAITING_FOR_IGNITION, CONFIGURING));
    assertEquals(9, StageOrder.WORKER.size());
  }
}
