package dev.rendezvous.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * {@code --tls=auto}: a CA made once in the data directory ({@code ca.pem}, {@code ca-key.pem}; ten years: every
 * ISO and Ignition handed out trusts it, so it outlives them) and a server certificate it signs
 * ({@code server.pem} with the chain, {@code server-key.pem}; one year) for every name and address the service is
 * reached by. The server certificate is made again, under the same CA, when a name is missing from it (a new public
 * URL, a new address) or it has less than 30 days left; the CA never changes by itself. EC P-256 keys.
 */
public final class ServerCertificates {
  static final Duration CA_VALIDITY = Duration.ofDays(3650);
  static final Duration SERVER_VALIDITY = Duration.ofDays(365);
  static final Duration RENEW_BEFORE = Duration.ofDays(30);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The files of a directory's CA and server certificate. */
  public record Files(Path ca, Path caKey, Path cert, Path key) {
    static Files in(Path dir) {
      return new Files(dir.resolve("ca.pem"), dir.resolve("ca-key.pem"), dir.resolve("server.pem"),
          dir.resolve("server-key.pem"));
    }
  }

  private ServerCertificates() {}

  /**
   * Makes what is missing or due in {@code dir} and says which files hold it.
   *
   * @return the files, and whether the server certificate was (re)made
   */
  public static synchronized Files ensure(Path dir, Collection<String> names, Instant now)
      throws IOException, GeneralSecurityException {
    java.nio.file.Files.createDirectories(dir);
    Files f = Files.in(dir);
    if (!java.nio.file.Files.exists(f.ca()) || !java.nio.file.Files.exists(f.caKey())) {
      KeyPair kp = keyPair();
      X509Certificate ca = ca(kp, "Rendezvous CA " + dir.toAbsolutePath().getParent().getFileName(), now);
      writePrivate(f.caKey(), Pem.encode("PRIVATE KEY", kp.getPrivate().getEncoded()));
      write(f.ca(), Pem.encode("CERTIFICATE", ca.getEncoded()));
      java.nio.file.Files.deleteIfExists(f.cert()); // whatever the old CA signed goes with it
    }
    if (serverCertificateDue(f, names, now)) {
      X509Certificate ca = Pem.certificates(java.nio.file.Files.readString(f.ca()), f.ca().toString()).get(0);
      PrivateKey caKey = Pem.privateKey(java.nio.file.Files.readString(f.caKey()), f.caKey().toString());
      KeyPair kp = keyPair();
      X509Certificate server = server(kp, ca, caKey, names, now);
      // key first, then the certificate: a reader that sees the new certificate finds its key
      writePrivate(f.key(), Pem.encode("PRIVATE KEY", kp.getPrivate().getEncoded()));
      write(f.cert(), Pem.encode("CERTIFICATE", server.getEncoded()) + Pem.encode("CERTIFICATE", ca.getEncoded()));
    }
    return f;
  }

  /** Missing, unreadable, signed by another CA, short of a name, or less than 30 days left. */
  static boolean serverCertificateDue(Files f, Collection<String> names, Instant now) {
    try {
      if (!java.nio.file.Files.exists(f.cert()) || !java.nio.file.Files.exists(f.key())) {
        return true;
      }
      X509Certificate cert = Pem.certificates(java.nio.file.Files.readString(f.cert()), "server.pem").get(0);
      X509Certificate ca = Pem.certificates(java.nio.file.Files.readString(f.ca()), "ca.pem").get(0);
      cert.verify(ca.getPublicKey());
      if (cert.getNotAfter().toInstant().isBefore(now.plus(RENEW_BEFORE))) {
        return true;
      }
      return !subjectAltNames(cert).containsAll(normalized(names));
    } catch (Exception e) {
      return true;
    }
  }

  /** The certificate's DNS names and IP addresses as text (IPv6 in the JDK's long form, as {@link #normalized}). */
  static Set<String> subjectAltNames(X509Certificate cert) throws GeneralSecurityException {
    Set<String> out = new LinkedHashSet<>();
    if (cert.getSubjectAlternativeNames() != null) {
      for (List<?> san : cert.getSubjectAlternativeNames()) {
        out.add(normalize(String.valueOf(san.get(1))));
      }
    }
    return out;
  }

  static Set<String> normalized(Collection<String> names) {
    Set<String> out = new LinkedHashSet<>();
    names.forEach(n -> out.add(normalize(n)));
    return out;
  }

  private static String normalize(String name) {
    String n = name.strip();
    if (n.startsWith("[") && n.endsWith("]")) {
      n = n.substring(1, n.length() - 1);
    }
    if (isIpLiteral(n)) {
      try {
        return InetAddress.getByName(n).getHostAddress().replaceAll("%.*$", "");
      } catch (IOException e) {
        return n;
      }
    }
    return n.toLowerCase(java.util.Locale.ROOT);
  }

  static boolean isIpLiteral(String n) {
    return n.contains(":") || n.matches("\\d{1,3}(\\.\\d{1,3}){3}");
  }

  /**
   * The names a server certificate made here carries: {@code localhost}, the loopback addresses, this machine's name
   * and its addresses (what an agent on the site network dials), and the hosts of the given public URLs.
   */
  public static List<String> defaultNames(Collection<String> publicUrls) {
    Set<String> names = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
    for (String url : publicUrls) {
      if (url == null || url.isBlank()) {
        continue;
      }
      String host = java.net.URI.create(url.strip()).getHost();
      if (host != null && !host.isBlank()) {
        names.add(host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
      }
    }
    try {
      names.add(InetAddress.getLocalHost().getHostName());
    } catch (IOException e) {
      // no resolvable name: the addresses below still are
    }
    try {
      for (NetworkInterface nic : java.util.Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!nic.isUp()) {
          continue;
        }
        for (InetAddress a : java.util.Collections.list(nic.getInetAddresses())) {
          if (!a.isLinkLocalAddress()) {
            names.add(a.getHostAddress().replaceAll("%.*$", ""));
          }
        }
      }
    } catch (IOException e) {
      // no interfaces to list: loopback and the public URLs' hosts remain
    }
    return new ArrayList<>(names);
  }

  public static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  static X509Certificate ca(KeyPair kp, String commonName, Instant now) throws GeneralSecurityException {
    X500Name subject = new X500Name("O=Rendezvous,CN=" + commonName.replaceAll("[,+=\"\\\\<>;]", "-"));
    JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(), Date.from(now.minusSeconds(300)),
        Date.from(now.plus(CA_VALIDITY)), subject, kp.getPublic());
    try {
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      b.addExtension(Extension.subjectKeyIdentifier, false,
          new JcaX509ExtensionUtils().createSubjectKeyIdentifier(kp.getPublic()));
    } catch (IOException e) {
      throw new GeneralSecurityException(e);
    }
    return sign(b, kp.getPrivate());
  }

  /** A server certificate for {@code names}, valid from {@code notBefore} for {@code validity}; signed by the CA. */
  public static X509Certificate server(KeyPair kp, X509Certificate ca, PrivateKey caKey, Collection<String> names,
      Instant notBefore, Duration validity) throws GeneralSecurityException {
    List<GeneralName> sans = new ArrayList<>();
    for (String n : normalized(names)) {
      sans.add(isIpLiteral(n) ? new GeneralName(GeneralName.iPAddress, n) : new GeneralName(GeneralName.dNSName, n));
    }
    String cn = names.isEmpty() ? "rendezvous" : names.iterator().next();
    JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(X500Name.getInstance(
        ca.getSubjectX500Principal().getEncoded()), serial(), Date.from(notBefore.minusSeconds(300)),
        Date.from(notBefore.plus(validity)), new X500Name("O=Rendezvous,CN=" + cn.replaceAll("[,+=\"\\\\<>;]", "-")),
        kp.getPublic());
    try {
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans.toArray(GeneralName[]::new)));
      b.addExtension(Extension.authorityKeyIdentifier, false,
          new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(ca));
    } catch (IOException e) {
      throw new GeneralSecurityException(e);
    }
    return sign(b, caKey);
  }

  private static X509Certificate server(KeyPair kp, X509Certificate ca, PrivateKey caKey, Collection<String> names,
      Instant now) throws GeneralSecurityException {
    return server(kp, ca, caKey, names, now, SERVER_VALIDITY);
  }

  private static X509Certificate sign(JcaX509v3CertificateBuilder b, PrivateKey key) throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter().getCertificate(
          b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static void write(Path p, String text) throws IOException {
    Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
    java.nio.file.Files.writeString(tmp, text);
    java.nio.file.Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static void writePrivate(Path p, String text) throws IOException {
    Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
    java.nio.file.Files.deleteIfExists(tmp);
    try {
      java.nio.file.Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      java.nio.file.Files.createFile(tmp);
    }
    java.nio.file.Files.writeString(tmp, text);
    java.nio.file.Files.move(tmp, p, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
