package dev.rendezvous.controller.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.rendezvous.controller.testing.MockCluster;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

class CsrSubjectTest {
  @Test
  void readsTheCommonNameAndOrganizationOfARealRequest() {
    String pem = MockCluster.pkcs10("system:node:master-0.example.com");
    CsrSubject s = CsrSubject.fromSpecRequest(Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII)));
    assertEquals("system:node:master-0.example.com", s.commonName());
    assertEquals(List.of("system:nodes"), s.organizations());
  }

  @Test
  void anUnreadableRequestHasNoSubject() {
    assertNull(CsrSubject.fromSpecRequest(Base64.getEncoder().encodeToString("hello".getBytes())).commonName());
    assertNull(CsrSubject.fromSpecRequest("%%%").commonName());
    assertNull(CsrSubject.fromSpecRequest(null).commonName());
  }
}
