package dev.rendezvous.controller.loops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.controller.cluster.Views;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CsrPolicyTest {
  static final Set<String> HOSTS = Set.of("master-0", "worker-0");

  static Views.Csr csr(String signer, String user, String cn, boolean approved) {
    return new Views.Csr("c", signer, user, cn, List.of("system:nodes"), approved, false, false);
  }

  @Test
  void approvesAKubeletsFirstClientCertificateForAHostOfTheCluster() {
    CsrPolicy.Decision d = CsrPolicy.decide(csr(CsrPolicy.CLIENT_SIGNER, CsrPolicy.NODE_BOOTSTRAPPER,
        "system:node:Master-0", false), HOSTS);
    assertTrue(d.approve(), d.reason());
    assertEquals("master-0", d.node());
  }

  @Test
  void approvesANodesOwnServingAndRenewalRequests() {
    assertTrue(CsrPolicy.decide(csr(CsrPolicy.SERVING_SIGNER, "system:node:worker-0", "system:node:worker-0", false),
        HOSTS).approve());
    assertTrue(CsrPolicy.decide(csr(CsrPolicy.CLIENT_SIGNER, "system:node:worker-0", "system:node:worker-0", false),
        HOSTS).approve());
  }

  @Test
  void leavesEverythingElsePending() {
    assertFalse(CsrPolicy.decide(csr(CsrPolicy.CLIENT_SIGNER, CsrPolicy.NODE_BOOTSTRAPPER, "system:node:intruder",
        false), HOSTS).approve(), "not a host of this cluster");
    assertFalse(CsrPolicy.decide(csr(CsrPolicy.SERVING_SIGNER, CsrPolicy.NODE_BOOTSTRAPPER, "system:node:master-0",
        false), HOSTS).approve(), "the bootstrapper asks for client certificates only");
    assertFalse(CsrPolicy.decide(csr(CsrPolicy.SERVING_SIGNER, "system:node:worker-0", "system:node:master-0",
        false), HOSTS).approve(), "one node speaking for another");
    assertFalse(CsrPolicy.decide(csr("kubernetes.io/kube-apiserver-client", CsrPolicy.NODE_BOOTSTRAPPER,
        "system:node:master-0", false), HOSTS).approve(), "other signer");
    assertFalse(CsrPolicy.decide(csr(CsrPolicy.CLIENT_SIGNER, "system:admin", "system:node:master-0", false), HOSTS)
        .approve(), "other requester");
    assertFalse(CsrPolicy.decide(csr(CsrPolicy.CLIENT_SIGNER, CsrPolicy.NODE_BOOTSTRAPPER, "admin", false), HOSTS)
        .approve(), "CN names no node");
    assertFalse(CsrPolicy.decide(csr(CsrPolicy.CLIENT_SIGNER, CsrPolicy.NODE_BOOTSTRAPPER, null, false), HOSTS)
        .approve(), "unreadable request");
    assertFalse(CsrPolicy.decide(new Views.Csr("c", CsrPolicy.CLIENT_SIGNER, CsrPolicy.NODE_BOOTSTRAPPER,
        "system:node:master-0", List.of("system:masters"), false, false, false), HOSTS).approve(), "wrong O");
    assertFalse(CsrPolicy.decide(csr(CsrPolicy.CLIENT_SIGNER, CsrPolicy.NODE_BOOTSTRAPPER, "system:node:master-0",
        true), HOSTS).approve(), "already approved");
  }
}
