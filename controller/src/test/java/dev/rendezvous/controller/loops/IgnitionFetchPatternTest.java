package dev.rendezvous.controller.loops;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class IgnitionFetchPatternTest {
  @Test
  void matchesTheMachineConfigServersRequestLinesOfTheHostsAddresses() {
    var p = NodesLoop.ignitionFetchedBy(List.of("10.0.0.5", "fe80::1"));
    assertTrue(p.matcher("I1125 api.go:117] Pool worker requested by address:\"10.0.0.5:34567\" User-Agent:\"Ignition/2.14.0\"").find());
    assertTrue(p.matcher("requested by address:\"[fe80::1%eth0]:34567\" User-Agent:\"Ignition/2.14.0\"").find());
    assertFalse(p.matcher("requested by address:\"110.0.0.5:34567\" User-Agent:\"Ignition/2.14.0\"").find());
    assertFalse(p.matcher("requested by address:\"10.0.0.5:34567\" User-Agent:\"curl/8\"").find());
  }
}
