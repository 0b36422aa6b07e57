package dev.rendezvous.controller.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * The subject (CN and O) of a PKCS#10 certificate request, read with a minimal DER walk: enough to decide which
 * node a CSR speaks for. The signature is not checked here (the API server checked it on create).
 *
 * @param commonName the subject's CN, e.g. {@code system:node:master-0}; null if absent
 * @param organizations the subject's O values, e.g. {@code system:nodes}
 */
public record CsrSubject(String commonName, List<String> organizations) {

  private static final byte[] OID_CN = {0x55, 0x04, 0x03};
  private static final byte[] OID_O = {0x55, 0x04, 0x0a};

  /** Parses a PEM request (as {@code spec.request} holds it once base64-decoded) or raw DER. */
  public static CsrSubject parse(byte[] pemOrDer) {
    byte[] der = pemOrDer;
    String text = new String(pemOrDer, StandardCharsets.US_ASCII);
    int begin = text.indexOf("-----BEGIN");
    if (begin >= 0) {
      int bodyStart = text.indexOf('\n', begin) + 1;
      int end = text.indexOf("-----END", bodyStart);
      if (bodyStart <= 0 || end < 0) {
        throw new IllegalArgumentException("truncated PEM");
      }
      der = Base64.getMimeDecoder().decode(text.substring(bodyStart, end));
    }
    Der request = new Der(der, 0, der.length);
    Der info = request.enter(0x30).enter(0x30); // CertificationRequest { CertificationRequestInfo {
    info.skip(0x02); // version
    Der name = info.enter(0x30); // subject Name
    String cn = null;
    List<String> orgs = new ArrayList<>();
    while (name.hasMore()) {
      Der rdn = name.enter(0x31);
      while (rdn.hasMore()) {
        Der atv = rdn.enter(0x30);
        byte[] oid = atv.read(0x06);
        String value = atv.readString();
        if (Arrays.equals(oid, OID_CN) && cn == null) {
          cn = value;
        } else if (Arrays.equals(oid, OID_O)) {
          orgs.add(value);
        }
      }
    }
    return new CsrSubject(cn, orgs);
  }

  /** Parses the base64 of {@code spec.request}; an unreadable request gives an empty subject. */
  public static CsrSubject fromSpecRequest(String base64) {
    if (base64 == null || base64.isBlank()) {
      return new CsrSubject(null, List.of());
    }
    try {
      return parse(Base64.getMimeDecoder().decode(base64));
    } catch (RuntimeException e) {
      return new CsrSubject(null, List.of());
    }
  }

  /** A cursor over a run of DER elements. */
  private static final class Der {
    private final byte[] b;
    private int pos;
    private final int end;

    Der(byte[] b, int pos, int end) {
      this.b = b;
      this.pos = pos;
      this.end = end;
    }

    boolean hasMore() {
      return pos < end;
    }

    /** Reads the next element's header, checks its tag, returns [contentStart, contentEnd]. */
    private int[] header(int expectedTag) {
      if (pos + 2 > end) {
        throw new IllegalArgumentException("truncated DER");
      }
      int tag = b[pos++] & 0xff;
      if (expectedTag >= 0 && tag != expectedTag) {
        throw new IllegalArgumentException("unexpected DER tag " + tag + ", wanted " + expectedTag);
      }
      int len = b[pos++] & 0xff;
      if (len >= 0x80) {
        int n = len & 0x7f;
        if (n == 0 || n > 3 || pos + n > end) {
          throw new IllegalArgumentException("bad DER length");
        }
        len = 0;
        for (int i = 0; i < n; i++) {
          len = (len << 8) | (b[pos++] & 0xff);
        }
      }
      if (pos + len > end) {
        throw new IllegalArgumentException("DER element overruns its parent");
      }
      int[] r = {pos, pos + len};
      pos += len;
      return r;
    }

    Der enter(int tag) {
      int[] r = header(tag);
      return new Der(b, r[0], r[1]);
    }

    void skip(int tag) {
      header(tag);
    }

    byte[] read(int tag) {
      int[] r = header(tag);
      return Arrays.copyOfRange(b, r[0], r[1]);
    }

    String readString() {
      int tag = b[pos] & 0xff;
      int[] r = header(-1);
      byte[] v = Arrays.copyOfRange(b, r[0], r[1]);
      if (tag == 0x1e) {
        return new String(v, StandardCharsets.UTF_16BE);
      }
      return new String(v, tag == 0x0c ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
    }
  }
}
