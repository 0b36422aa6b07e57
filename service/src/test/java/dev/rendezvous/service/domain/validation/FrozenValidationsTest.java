package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Once a host installs, only its connection is judged again; the rest keeps what was decided before. */
class FrozenValidationsTest {
  private static final HostValidator VALIDATOR = new HostValidator(DomainConfig.defaults());
  private static final ConnectivityReport BROKEN_MTU = new ConnectivityReport(List.of(new ConnectivityReport.RemoteHost(
      Fixtures.hostId(2), List.of(), List.of(), List.of(new ConnectivityReport.Mtu("enp1s0", "192.168.111.22", false)))));

  private static HostValidation validate(HostSnapshot h) {
    ClusterContext c = Fixtures.cluster(List.of(h, Fixtures.host(2, HostStatus.KNOWN).build(),
        Fixtures.host(3, HostStatus.KNOWN).build())).build();
    return VALIDATOR.validate(c.host(h.id()).orElseThrow(), c, NOW);
  }

  private static String status(HostValidation v, String id) {
    return v.info().find(id).map(r -> r.status().toString()).orElse("absent");
  }

  @Test
  void anInstallingHostKeepsItsResultsButItsConnectionIsJudgedAgain() {
    HostSnapshot known = Fixtures.host(1, HostStatus.KNOWN).connectivity(BROKEN_MTU).checkedInAt(NOW).build();
    HostValidation before = validate(known);
    assertEquals("failure", status(before, "mtu-valid"));
    assertEquals("success", status(before, "connected"));

    // installing now: the peer report changed (it would pass) and the host went quiet for four minutes
    HostSnapshot installing = known.toBuilder().status(HostStatus.INSTALLING_IN_PROGRESS)
        .validationsInfo(before.info()).connectivity(new ConnectivityReport(List.of()))
        .checkedInAt(NOW.minusSeconds(240)).build();
    HostValidation frozen = validate(installing);
    assertEquals("failure", status(frozen, "mtu-valid"), "decided before the installation began");
    assertEquals("failure", status(frozen, "connected"), "judged again");
    assertFalse(frozen.passes(HostValidationId.CONNECTED));
    assertFalse(frozen.passes(HostValidationId.MTU_VALID));
    assertTrue(frozen.passes(HostValidationId.MEDIA_CONNECTED));
    // the same host before its installation is validated in full: the new report passes
    HostValidation full = validate(installing.toBuilder().status(HostStatus.KNOWN).build());
    assertEquals("success", status(full, "mtu-valid"));
    // nothing but the connection differs from the results it had
    List<ValidationResult> kept = before.info().all().stream().filter(r -> !r.id().equals("connected")).toList();
    assertEquals(kept, frozen.info().all().stream().filter(r -> !r.id().equals("connected")).toList());
  }

  @Test
  void unchangedInputsGiveTheSameResultAsAFullValidation() {
    HostSnapshot installing = Fixtures.host(1, HostStatus.INSTALLING_IN_PROGRESS).checkedInAt(NOW).build();
    HostValidation full = validate(installing); // no stored results yet: validated in full
    HostValidation frozen = validate(installing.toBuilder().validationsInfo(full.info()).build());
    assertEquals(full.info(), frozen.info());
    for (HostValidationId id : HostValidationId.values()) {
      if (full.info().find(id.id()).isPresent()) {
        assertEquals(full.passes(id), frozen.passes(id), id.id());
      }
    }
  }
}
