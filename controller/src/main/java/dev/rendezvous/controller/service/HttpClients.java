package dev.rendezvous.controller.service;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * One {@link HttpClient} per distinct TLS and proxy setting, shared by every controller of the JVM (a swarm of
 * dry-run controllers uses a single client and its connection pool).
 */
public final class HttpClients {

  /** TLS options: upstream's {@code --insecure}/SKIP_CERT_VERIFICATION and {@code --cacert}/CA_CERT_PATH. */
  public record Tls(boolean skipVerify, Optional<Path> extraCa) {
  }

  private record Key(Tls tls, ProxySettings proxy) {
  }

  private static final Map<Key, HttpClient> CLIENTS = new ConcurrentHashMap<>();

  private HttpClients() {
  }

  public static HttpClient shared(Tls tls, ProxySettings proxy, Executor executor) {
    return CLIENTS.computeIfAbsent(new Key(tls, proxy), k -> build(k.tls(), k.proxy(), executor));
  }

  private static HttpClient build(Tls tls, ProxySettings proxy, Executor executor) {
    HttpClient.Builder b = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(30))
        .followRedirects(HttpClient.Redirect.NORMAL)
        .executor(executor)
        .sslContext(sslContext(tls));
    if (!proxy.isNone()) {
      b.proxy(proxy.selector());
    }
    return b.build();
  }

  /** The SSL context of these settings: trust everything, the JVM's roots plus a PEM file, or the JVM's roots. */
  public static SSLContext sslContext(Tls tls) {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS");
      if (tls.skipVerify()) {
        ctx.init(null, new TrustManager[] {new TrustEverything()}, null);
      } else if (tls.extraCa().isPresent()) {
        ctx.init(null, new TrustManager[] {systemPlus(tls.extraCa().get())}, null);
      } else {
        return SSLContext.getDefault();
      }
      return ctx;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot set up TLS for the service client: " + e.getMessage(), e);
    }
  }

  /** The JVM's trusted roots plus every certificate of the PEM file (upstream adds --cacert to the system pool). */
  private static X509TrustManager systemPlus(Path pem) throws GeneralSecurityException, IOException {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    TrustManagerFactory system = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    system.init((KeyStore) null);
    int i = 0;
    for (TrustManager tm : system.getTrustManagers()) {
      if (tm instanceof X509TrustManager x) {
        for (X509Certificate c : x.getAcceptedIssuers()) {
          ks.setCertificateEntry("system-" + i++, c);
        }
      }
    }
    try (InputStream in = Files.newInputStream(pem)) {
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ks.setCertificateEntry("extra-" + i++, c);
      }
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    for (TrustManager tm : tmf.getTrustManagers()) {
      if (tm instanceof X509TrustManager x) {
        return x;
      }
    }
    throw new GeneralSecurityException("no X509 trust manager");
  }

  /**
   * Accepts any server certificate. Being an extended trust manager it also takes over the host name check (the
   * JDK does endpoint identification inside the trust manager), which is what skip-verify means upstream.
   */
  private static final class TrustEverything extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
