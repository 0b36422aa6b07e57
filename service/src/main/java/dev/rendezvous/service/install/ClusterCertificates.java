package dev.rendezvous.service.install;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
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
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The certificates of a built-in cluster: a self-signed cluster CA and the admin client certificate
 * ({@code system:admin} in {@code system:masters}) of its kubeconfig, EC P-256 (cheap to make for thousands of
 * clusters), PEM encoded. The private keys are PKCS#8.
 */
final class ClusterCertificates {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Duration CA_VALIDITY = Duration.ofDays(10 * 365);
  private static final Duration CLIENT_VALIDITY = Duration.ofDays(10 * 365);

  /** A certificate and its key, PEM. */
  record Pem(String certificate, String privateKey, X509Certificate cert, PrivateKey key) {}

  private ClusterCertificates() {}

  static Pem ca(String commonName) throws GeneralSecurityException {
    KeyPair kp = keyPair();
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
    X509Certificate cert = sign(b, kp.getPrivate());
    return new Pem(pem("CERTIFICATE", cert.getEncoded()), pem("PRIVATE KEY", kp.getPrivate().getEncoded()), cert,
        kp.getPrivate());
  }

  static Pem client(Pem ca, String commonName, String organization) throws GeneralSecurityException {
    KeyPair kp = keyPair();
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
    X509Certificate cert = sign(b, ca.key());
    return new Pem(pem("CERTIFICATE", cert.getEncoded()), pem("PRIVATE KEY", kp.getPrivate().getEncoded()), cert,
        kp.getPrivate());
  }

  private static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  private static BigInteger serial() {
    return new BigInteger(64, RANDOM).add(BigInteger.ONE);
  }

  private static X509Certificate sign(JcaX509v3CertificateBuilder b, PrivateKey signer) throws GeneralSecurityException {
    try {
      ContentSigner s = new JcaContentSignerBuilder("SHA256withECDSA").build(signer);
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
