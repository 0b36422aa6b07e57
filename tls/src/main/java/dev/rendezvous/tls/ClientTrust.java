package dev.rendezvous.tls;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/** Clients of the service inside its own process (the kube face, an agent-based site's registration) trusting its CA. */
public final class ClientTrust {
  private ClientTrust() {}

  /** An SSL context trusting the JVM's roots and the CA (PEM; null: the JVM's roots only). */
  public static SSLContext trusting(String caPem) {
    try {
      if (caPem == null) {
        return SSLContext.getDefault();
      }
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      int i = 0;
      TrustManagerFactory system = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      system.init((KeyStore) null);
      for (var tm : system.getTrustManagers()) {
        if (tm instanceof X509TrustManager x) {
          for (X509Certificate c : x.getAcceptedIssuers()) {
            ks.setCertificateEntry("system-" + i++, c);
          }
        }
      }
      for (X509Certificate c : Pem.certificates(caPem, "the service's CA")) {
        ks.setCertificateEntry("service-ca-" + i++, c);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("cannot trust the service's CA: " + e.getMessage(), e);
    }
  }
}
