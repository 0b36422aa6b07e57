package dev.rendezvous.agent.transport;

import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.net.TrustOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * The HTTP and websocket clients agents use, built once per process and shared by every agent of a
 * swarm. Sized for {@code agents}: each long-polling agent holds one HTTP connection, each websocket
 * agent one socket. TLS: {@code --insecure} trusts anything (as upstream); {@code --cacert} adds a PEM
 * bundle to the JVM's trusted roots (upstream adds it to the system pool).
 */
public record AgentClients(WebClient web, WebSocketClient webSocket) {
  /** Largest websocket message accepted from the gateway. */
  public static final int MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

  private static final java.util.concurrent.atomic.AtomicBoolean INSECURE_WARNED =
      new java.util.concurrent.atomic.AtomicBoolean();

  public static AgentClients create(Vertx vertx, AgentConfig config, int agents) {
    WebClientOptions web = new WebClientOptions()
        .setUserAgent("rendezvous-agent/" + config.agentVersion())
        .setConnectTimeout(10_000)
        .setKeepAlive(true);
    WebSocketClientOptions ws = new WebSocketClientOptions()
        .setMaxConnections(Math.max(50, agents * 2))
        .setMaxMessageSize(MAX_MESSAGE_BYTES)
        .setMaxFrameSize(256 * 1024)
        .setConnectTimeout(10_000);
    if (config.tls()) {
      web.setSsl(true);
      ws.setSsl(true);
      if (config.insecure()) {
        if (INSECURE_WARNED.compareAndSet(false, true)) {
          org.slf4j.LoggerFactory.getLogger(AgentClients.class).warn("--insecure: the service's TLS certificate is not "
              + "verified; anyone on the path can pose as the service and read the agent's token and replies");
        }
        web.setTrustAll(true).setVerifyHost(false);
        ws.setTrustAll(true).setVerifyHost(false);
      } else if (config.caCert().isPresent()) {
        TrustOptions trust = TrustOptions.wrap(withExtraRoots(config.caCert().get()));
        web.setTrustOptions(trust);
        ws.setTrustOptions(trust);
      }
    }
    PoolOptions pool = new PoolOptions().setHttp1MaxSize(Math.max(8, agents * 2));
    return new AgentClients(WebClient.create(vertx, web, pool), vertx.createWebSocketClient(ws));
  }

  public Future<Void> close() {
    web.close();
    return webSocket.close();
  }

  /** JVM default roots plus the PEM certificates in {@code pem}. */
  static TrustManager withExtraRoots(java.nio.file.Path pem) {
    try {
      KeyStore extra = KeyStore.getInstance(KeyStore.getDefaultType());
      extra.load(null, null);
      try (InputStream in = Files.newInputStream(pem)) {
        int i = 0;
        for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
          extra.setCertificateEntry("rdv-cacert-" + i++, cert);
        }
        if (i == 0) {
          throw new ConfigException("cacert", pem + " holds no PEM certificate");
        }
      }
      List<X509TrustManager> managers = new ArrayList<>();
      for (KeyStore ks : new KeyStore[] {null, extra}) {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        for (TrustManager tm : tmf.getTrustManagers()) {
          if (tm instanceof X509TrustManager x) {
            managers.add(x);
          }
        }
      }
      return new AnyOfTrustManager(managers);
    } catch (ConfigException e) {
      throw e;
    } catch (Exception e) {
      throw new ConfigException("cacert", "cannot load " + pem + ": " + e.getMessage());
    }
  }

  /** Trusts a chain when any delegate does. */
  private record AnyOfTrustManager(List<X509TrustManager> delegates) implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      throw new CertificateException("the agent does not accept client connections");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      CertificateException last = null;
      for (X509TrustManager d : delegates) {
        try {
          d.checkServerTrusted(chain, authType);
          return;
        } catch (CertificateException e) {
          last = e;
        }
      }
      throw last != null ? last : new CertificateException("no trust manager");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return delegates.stream().flatMap(d -> java.util.Arrays.stream(d.getAcceptedIssuers()))
          .toArray(X509Certificate[]::new);
    }
  }
}
