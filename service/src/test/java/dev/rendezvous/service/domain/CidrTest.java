package dev.rendezvous.service.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CidrTest {
  @ParameterizedTest
  @CsvSource({
    "192.168.111.0/24, 192.168.111.20, true",
    "192.168.111.0/24, 192.168.112.20, false",
    "10.0.0.0/8, 10.255.1.1, true",
    "fd2e:6f44:5dd8:c956::/64, fd2e:6f44:5dd8:c956::14, true",
    "fd2e:6f44:5dd8:c956::/64, fd2e:6f44:5dd8:c957::14, false",
    "192.168.111.0/24, fd2e::1, false",
    "192.168.111.0/24, not-an-ip, false",
  })
  void containsAddress(String cidr, String ip, boolean expected) {
    assertEquals(expected, Cidr.parse(cidr).orElseThrow().containsAddress(ip));
  }

  @ParameterizedTest
  @CsvSource({"192.168.111.20/24, 192.168.111.0/24", "fd2e:6f44:5dd8:c956::14/64, fd2e:6f44:5dd8:c956::/64"})
  void network(String in, String network) {
    assertEquals(network, Cidr.parse(in).orElseThrow().network().toString());
  }

  @ParameterizedTest
  @CsvSource({"'', ", "300.1.1.1, ", "1.2.3.4/33, ", "1::2::3, "})
  void rejectsGarbage(String in, String ignored) {
    assertTrue(Cidr.parse(in).isEmpty());
  }
}
