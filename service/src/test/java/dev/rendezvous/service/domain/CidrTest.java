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

  /**
   * Networks, containment and overlap by bytes agree with the same questions asked of the addresses as numbers under
   * a mask (the model), for random addresses of both families and every prefix length, on byte boundaries and not.
   */
  @org.junit.jupiter.api.Test
  void maskingByBytesAgreesWithMaskingNumbers() {
    java.util.Random rnd = new java.util.Random(7);
    for (int n = 0; n < 20_000; n++) {
      int len = rnd.nextBoolean() ? 4 : 16;
      byte[] a = new byte[len];
      byte[] b = new byte[len];
      rnd.nextBytes(a);
      System.arraycopy(a, 0, b, 0, len);
      // b shares a random number of leading bits with a, then differs at random
      int shared = rnd.nextInt(len * 8 + 1);
      for (int bit = shared; bit < len * 8; bit++) {
        if (rnd.nextBoolean()) {
          b[bit / 8] ^= (byte) (0x80 >>> (bit % 8));
        }
      }
      Cidr x = new Cidr(a, rnd.nextInt(len * 8 + 1));
      Cidr y = new Cidr(b, rnd.nextInt(len * 8 + 1));
      String where = x + " " + y;
      assertEquals(masked(a, x.prefix()), new java.math.BigInteger(1, x.network().address()), where);
      boolean contains = y.prefix() >= x.prefix() && masked(a, x.prefix()).equals(masked(b, x.prefix()));
      assertEquals(contains, x.contains(y), where);
      assertEquals(masked(a, x.prefix()).equals(masked(b, x.prefix())), x.containsAddressOf(y), where);
      assertEquals(x.containsAddressOf(y), x.containsAddress(y.addressString()), where);
      assertEquals(contains || (x.prefix() >= y.prefix() && masked(a, y.prefix()).equals(masked(b, y.prefix()))),
          x.overlaps(y), where);
    }
  }

  private static java.math.BigInteger masked(byte[] address, int prefix) {
    int bits = address.length * 8;
    java.math.BigInteger mask = java.math.BigInteger.ONE.shiftLeft(bits).subtract(java.math.BigInteger.ONE)
        .shiftRight(bits - prefix).shiftLeft(bits - prefix);
    return new java.math.BigInteger(1, address).and(mask);
  }

  @org.junit.jupiter.api.Test
  void aTextParsedTwiceGivesEqualNetworks() {
    assertEquals(Cidr.parse("10.1.2.3/16"), Cidr.parse("10.1.2.3/16"));
    assertTrue(Cidr.parse("   ").isEmpty());
    assertTrue(Cidr.parse(null).isEmpty());
  }
}
