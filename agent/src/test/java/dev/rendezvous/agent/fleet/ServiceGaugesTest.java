package dev.rendezvous.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceGaugesTest {
  @Test
  void theNonZeroGaugesOfOneLabelAreRead() {
    String text = """
        # HELP rdv_hosts Hosts by status (fleet-wide; take max across instances)
        # TYPE rdv_hosts gauge
        rdv_hosts{status="installed"} 12.0
        rdv_hosts{status="installing-in-progress"} 3.0
        rdv_hosts{status="known"} 0.0
        rdv_hosts_installing{stage="Writing image to disk"} 2.0
        rdv_hosts_installing{instance="a",stage="Rebooting"} 1.0
        rdv_hosts_total_something{status="x"} 9.0
        """;
    assertEquals(Map.of("installed", 12L, "installing-in-progress", 3L), ServiceGauges.byLabel(text, "rdv_hosts", "status"));
    assertEquals(Map.of("Writing image to disk", 2L, "Rebooting", 1L),
        ServiceGauges.byLabel(text, "rdv_hosts_installing", "stage"));
    assertEquals(Map.of(), ServiceGauges.byLabel("", "rdv_hosts", "status"));
  }

  @Test
  void anUnlabelledGaugeIsReadByItsWholeName() {
    String text = """
        # TYPE rdv_fleet_counts_age_seconds gauge
        rdv_fleet_counts_age_seconds 12.3
        rdv_fleet_counts_age_seconds_max 99.0
        """;
    assertEquals(12.3, ServiceGauges.value(text, "rdv_fleet_counts_age_seconds"));
    assertNull(ServiceGauges.value(text, "rdv_fleet_counts"));
    assertNull(ServiceGauges.value("", "rdv_fleet_counts_age_seconds"));
  }
}
