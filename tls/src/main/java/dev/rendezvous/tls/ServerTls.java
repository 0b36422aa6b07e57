package dev.rendezvous.tls;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.KeyCertOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS for every server of an instance (API, agent gateway, image service): one identity, shared, replaced in place
 * when its files change. {@link #apply} turns server options into TLS 1.2+ options on it.
 */
public final class ServerTls implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);
  /** An auto certificate is looked at for renewal this often (and at start). */
  private static final Duration RENEWAL_CHECK = Duration.ofHours(1);

  private final TlsConfig config;
  private final Path certFile;
  private final Path keyFile;
  private final Path caFile;
  private final ReloadingKeyManager keys;
  private volatile String caPem;
  private volatile Stamp loaded;
  private volatile Instant renewalCheckedAt;
  private Vertx vertx;
  private long timer = -1;

  private record Stamp(FileTime certTime, long certSize, FileTime keyTime, long keySize) {
    static Stamp of(Path cert, Path key) throws IOException {
      return new Stamp(Files.getLastModifiedTime(cert), Files.size(cert), Files.getLastModifiedTime(key), Files.size(key));
    }
  }

  private ServerTls(TlsConfig config, Path certFile, Path keyFile, Path caFile) throws IOException, GeneralSecurityException {
    this.config = config;
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.caFile = caFile;
    Stamp stamp = Stamp.of(certFile, keyFile);
    Identity id = read(certFile, keyFile);
    this.keys = new ReloadingKeyManager(id.chain(), id.key());
    this.loaded = stamp;
    this.caPem = caFile == null ? null : Files.readString(caFile);
    this.renewalCheckedAt = Instant.now();
  }

  /** Reads (auto: first makes) the identity; refuses unreadable files and a key of another certificate, naming them. */
  public static ServerTls start(TlsConfig config) throws IOException, GeneralSecurityException {
    Objects.requireNonNull(config, "config");
    if (!config.enabled()) {
      throw new IllegalArgumentException("TLS is off");
    }
    if (config.mode() == TlsConfig.Mode.AUTO) {
      ServerCertificates.Files f = ServerCertificates.ensure(config.dir(), config.names(), Instant.now());
      return new ServerTls(config, f.cert(), f.key(), f.ca());
    }
    for (Path p : config.caFile() == null ? List.of(config.certFile(), config.keyFile())
        : List.of(config.certFile(), config.keyFile(), config.caFile())) {
      if (!Files.isReadable(p)) {
        throw new IllegalArgumentException("TLS file " + p + " is missing or unreadable");
      }
    }
    if (config.caFile() != null) {
      Pem.certificates(Files.readString(config.caFile()), "tls-ca " + config.caFile());
    }
    return new ServerTls(config, config.certFile(), config.keyFile(), config.caFile());
  }

  private record Identity(List<X509Certificate> chain, PrivateKey key) {}

  private static Identity read(Path cert, Path key) throws IOException {
    List<X509Certificate> chain = Pem.certificates(Files.readString(cert), "tls-cert " + cert);
    PrivateKey k = Pem.privateKey(Files.readString(key), "tls-key " + key);
    return new Identity(chain, k);
  }

  /** The given options serving TLS 1.2 and 1.3 only with this identity (and a clear answer to plain HTTP). */
  public HttpServerOptions apply(HttpServerOptions options) {
    options.setSsl(true)
        .setKeyCertOptions(KeyCertOptions.wrap(keys))
        .setSslEngineOptions(new PlainHttpAnswer())
        .setEnabledSecureTransportProtocols(Set.of("TLSv1.2", "TLSv1.3"));
    return options;
  }

  /** The CA clients of ours should trust (PEM), put into discovery images; null when the certificate needs none. */
  public String caPem() {
    return caPem;
  }

  public Path caFile() {
    return caFile;
  }

  /** The server certificate handshakes present now. */
  public X509Certificate certificate() {
    return keys.certificate();
  }

  /** Looks at the files every {@code reloadInterval} (off the event loops) and takes a changed certificate. */
  public synchronized void watch(Vertx vertx) {
    if (timer >= 0) {
      return;
    }
    this.vertx = vertx;
    timer = vertx.setPeriodic(config.reloadInterval().toMillis(), id ->
        vertx.executeBlocking(() -> {
          reloadIfChanged();
          return null;
        }, false));
  }

  /**
   * Takes the files' certificate and key if either changed since last read (auto: first renews a certificate that is
   * due). A pair that does not load (half written, a key of another certificate) is kept out and tried again on the
   * next look; handshakes go on with the current one.
   *
   * @return whether a new certificate is now in use
   */
  public synchronized boolean reloadIfChanged() {
    try {
      if (config.mode() == TlsConfig.Mode.AUTO && renewalCheckedAt.plus(RENEWAL_CHECK).isBefore(Instant.now())) {
        renewalCheckedAt = Instant.now();
        ServerCertificates.ensure(config.dir(), config.names(), Instant.now());
      }
      Stamp now = Stamp.of(certFile, keyFile);
      if (now.equals(loaded)) {
        return false;
      }
      Identity id = read(certFile, keyFile);
      keys.use(id.chain(), id.key());
      loaded = now;
      if (caFile != null) {
        caPem = Files.readString(caFile);
      }
      LOG.atInfo().addKeyValue("subject", id.chain().get(0).getSubjectX500Principal().getName())
          .addKeyValue("not_after", id.chain().get(0).getNotAfter().toInstant().toString())
          .log("TLS certificate reloaded from " + certFile);
      return true;
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      LOG.atWarn().log("TLS certificate in " + certFile + " not taken (the current one stays): " + e.getMessage());
      return false;
    }
  }

  @Override
  public synchronized void close() {
    if (timer >= 0 && vertx != null) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }
}
