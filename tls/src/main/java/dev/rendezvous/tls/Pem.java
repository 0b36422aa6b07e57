package dev.rendezvous.tls;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/** PEM in and out: certificate chains and private keys in the forms openssl and cert-manager write. */
public final class Pem {
  private Pem() {}

  public static String encode(String type, byte[] der) {
    String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n";
  }

  /** Every certificate of the text, in order; refuses text holding none. */
  public static List<X509Certificate> certificates(String pem, String what) {
    try {
      List<X509Certificate> out = new ArrayList<>();
      for (var c : CertificateFactory.getInstance("X.509")
          .generateCertificates(new java.io.ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)))) {
        out.add((X509Certificate) c);
      }
      if (out.isEmpty()) {
        throw new IllegalArgumentException(what + " holds no PEM certificate");
      }
      return out;
    } catch (CertificateException e) {
      throw new IllegalArgumentException(what + " holds no readable PEM certificate: " + e.getMessage());
    }
  }

  /** The first private key of the text: PKCS#8 ({@code PRIVATE KEY}) or a traditional {@code EC}/{@code RSA} key. */
  public static PrivateKey privateKey(String pem, String what) {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return converter.getKeyPair(pair).getPrivate();
        }
      }
      throw new IllegalArgumentException(what + " holds no unencrypted PEM private key");
    } catch (IOException e) {
      throw new IllegalArgumentException(what + " holds no readable PEM private key: " + e.getMessage());
    }
  }
}
