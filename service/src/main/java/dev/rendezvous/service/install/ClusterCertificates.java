package dev.rendezvous.service.install;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The certificates of a built-in cluster: a self-signed cluster CA and the admin client certificate
 * ({@code system:admin} in {@code system:masters}) of its kubeconfig, EC P-256 (cheap to make for thousands of
 * clusters), PEM encoded. The private keys are PKCS#8.
 *
 * <p>Keys are made and certificates signed by Bouncy Castle's provider (passed, never registered): its P-256 multiplies
 * the base point with precomputed tables, where Java 17's own provider does the whole scalar multiplication. In the
 * 10,000-site run Java's took a quarter of the service's CPU (docs/benchmarks.md, CredentialsBench).
 */
final class ClusterCertificates {
  /** Bouncy Castle, not registered with java.security.Security: nothing else in the process changes providers. */
  static final Provider FAST = new BouncyCastleProvider();
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Duration CA_VALIDITY = Duration.ofDays(10 * 365);
  private static final Duration CLIENT_VALIDITY = Duration.ofDays(10 * 365);

  /** A certificate and its key, PEM. */
  record Pem(String certificate, String privateKey, X509Certificate cert, PrivateKey key) {}

  private ClusterCertificates() {}

  static Pem ca(String commonName) throws GeneralSecurityException {
    return ca(commonName, FAST);
  }

  /** {@code provider} makes the key and signs (null: Java's own providers). */
  static Pem ca(String commonName, Provider provider) throws GeneralSecurityException {
    KeyPair kp = keyPair(provider);
    X500Name subject = new X500Name("OU=openshift,CN=" + commonName);
    Instant now = Instant.now();
    JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(), Date.from(now.minusSeconds(60)),
        Date.from(now.plus(CA_VALIDITY)), subject, kp.getPublic());
    try {
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException(e);
    }
    X509Certificate cert = sign(b, kp.getPrivate(), provider);
    return new Pem(pem("CERTIFICATE", cert.getEncoded()), pem("PRIVATE KEY", kp.getPrivate().getEncoded()), cert,
        kp.getPrivate());
  }

  static Pem client(Pem ca, String commonName, String organization) throws GeneralSecurityException {
    return client(ca, commonName, organization, FAST);
  }

  static Pem client(Pem ca, String commonName, String organization, Provider provider) throws GeneralSecurityException {
    KeyPair kp = keyPair(provider);
    Instant now = Instant.now();
    JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.cert(), serial(), Date.from(now.minusSeconds(60)),
        Date.from(now.plus(CLIENT_VALIDITY)), new X500Name("O=" + organization + ",CN=" + commonName), kp.getPublic());
    try {
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException(e);
    }
    X509Certificate cert = sign(b, ca.key(), provider);
    return new Pem(pem("CERTIFICATE", cert.getEncoded()), pem("PRIVATE KEY", kp.getPrivate().getEncoded()), cert,
        kp.getPrivate());
  }

  private static KeyPair keyPair(Provider provider) throws GeneralSecurityException {
    KeyPairGenerator g = provider == null ? KeyPairGenerator.getInstance("EC") : KeyPairGenerator.getInstance("EC", provider);
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  private static BigInteger serial() {
    return new BigInteger(64, RANDOM).add(BigInteger.ONE);
  }

  private static X509Certificate sign(JcaX509v3CertificateBuilder b, PrivateKey signer, Provider provider)
      throws GeneralSecurityException {
    try {
      JcaContentSignerBuilder sb = new JcaContentSignerBuilder("SHA256withECDSA");
      ContentSigner s = (provider == null ? sb : sb.setProvider(provider)).build(signer);
      X509CertificateHolder h = b.build(s);
      return new JcaX509CertificateConverter().getCertificate(h);
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  static String pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }
}
