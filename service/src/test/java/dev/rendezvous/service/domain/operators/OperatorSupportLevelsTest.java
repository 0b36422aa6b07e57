package dev.rendezvous.service.domain.operators;

import static dev.rendezvous.service.domain.operators.OperatorSupportLevels.DEV_PREVIEW;
import static dev.rendezvous.service.domain.operators.OperatorSupportLevels.SUPPORTED;
import static dev.rendezvous.service.domain.operators.OperatorSupportLevels.UNAVAILABLE;
import static dev.rendezvous.service.domain.operators.OperatorSupportLevels.level;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class OperatorSupportLevelsTest {
  @Test
  void everyOperatorIsSupportedOnX86BareMetalForTheOfferedReleases() {
    for (String v : new String[] {"4.14", "4.18", "4.22"}) {
      for (OlmOperator op : OlmOperator.values()) {
        assertEquals(SUPPORTED, level(op, v, null, null, null), op + " " + v);
        assertEquals(SUPPORTED, level(op, v, "x86_64", "baremetal", null), op + " " + v);
      }
    }
  }

  @Test
  void architecturesPlatformsAndReleasesAnOperatorDoesNotRunOnMakeItUnavailable() {
    assertEquals(UNAVAILABLE, level(OlmOperator.ODF, "4.18", "aarch64", null, null));
    assertEquals(UNAVAILABLE, level(OlmOperator.LSO, "4.18", "arm64", null, null));
    assertEquals(SUPPORTED, level(OlmOperator.LVM, "4.18", "arm64", null, null));
    assertEquals(UNAVAILABLE, level(OlmOperator.LVM, "4.18", "s390x", null, null));
    assertEquals(DEV_PREVIEW, level(OlmOperator.CNV, "4.18", "arm64", null, null));
    assertEquals(UNAVAILABLE, level(OlmOperator.CNV, "4.13", "arm64", null, null));
    assertEquals(UNAVAILABLE, level(OlmOperator.NMSTATE, "4.18", "ppc64le", null, null));
    assertEquals(SUPPORTED, level(OlmOperator.MCE, "4.18", "multi", null, null));
    assertEquals(UNAVAILABLE, level(OlmOperator.MTV, "4.18", null, "vsphere", null));
    assertEquals(UNAVAILABLE, level(OlmOperator.MCE, "4.18", null, "nutanix", null));
    assertEquals(UNAVAILABLE, level(OlmOperator.NMSTATE, "4.18", null, "external", null));
    assertEquals(UNAVAILABLE, level(OlmOperator.ODF, "4.18", null, "external", "oci"));
    assertEquals(SUPPORTED, level(OlmOperator.ODF, "4.18", null, "external", "other"));
    assertEquals(UNAVAILABLE, level(OlmOperator.MTV, "4.13", null, null, null), "MTV starts at 4.14");
  }
}
