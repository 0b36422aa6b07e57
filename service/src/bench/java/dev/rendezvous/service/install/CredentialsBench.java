package dev.rendezvous.service.install;

import java.security.GeneralSecurityException;
import java.security.Provider;

/**
 * A cluster's certificates (its CA and the admin client certificate: two P-256 keys, two signatures), as each
 * preparation makes them, with Java 17's own providers (the baseline) and with Bouncy Castle's, which the service
 * uses. One thread, warmed up, the two in turn twice.
 *
 * <pre>
 * mvn -q -B install -DskipTests -pl bus,service
 * mvn -q -B -pl service -Pbench test-compile exec:java -Dbench.main=dev.rendezvous.service.install.CredentialsBench -Dexec.args="2000"
 * </pre>
 */
public final class CredentialsBench {
  private CredentialsBench() {}

  public static void main(String[] args) throws Exception {
    int clusters = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    run(null, clusters / 4);
    run(ClusterCertificates.FAST, clusters / 4);
    double[] java = new double[2];
    double[] bc = new double[2];
    for (int round = 0; round < 2; round++) {
      java[round] = run(null, clusters);
      bc[round] = run(ClusterCertificates.FAST, clusters);
      System.out.printf("round %d: %,d clusters' certificates: Java's providers %.3f ms each, Bouncy Castle %.3f ms"
          + " each (%.1f× faster)%n", round + 1, clusters, java[round], bc[round], java[round] / bc[round]);
    }
  }

  /** Milliseconds per cluster. */
  private static double run(Provider provider, int clusters) throws GeneralSecurityException {
    long start = System.nanoTime();
    int check = 0;
    for (int i = 0; i < clusters; i++) {
      ClusterCertificates.Pem ca = ClusterCertificates.ca("bench-" + i, provider);
      ClusterCertificates.Pem admin = ClusterCertificates.client(ca, "system:admin", "system:masters", provider);
      check += admin.certificate().length();
    }
    double ms = (System.nanoTime() - start) / 1e6 / clusters;
    if (check == 0) {
      throw new IllegalStateException("no certificate made");
    }
    return ms;
  }
}
