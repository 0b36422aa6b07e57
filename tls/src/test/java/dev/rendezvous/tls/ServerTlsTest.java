package dev.rendezvous.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real Vert.x server on the TLS of this module, asked by real TLS clients. */
class ServerTlsTest {
  @TempDir
  Path dir;
  private Vertx vertx;
  private HttpServer server;

  @BeforeEach
  void vertx() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private int serve(ServerTls tls) throws Exception {
    server = vertx.createHttpServer(tls.apply(new HttpServerOptions().setPort(0).setHost("127.0.0.1")))
        .webSocketHandler(ws -> ws.textMessageHandler(ws::writeTextMessage))
        .requestHandler(r -> r.response().end("hello " + r.path()));
    return server.listen().await(10, TimeUnit.SECONDS).actualPort();
  }

  /** A client trusting the CA (and the JVM's roots), as the service's own clients do. */
  private static HttpClient trusting(Path caPem) throws Exception {
    return HttpClient.newBuilder().sslContext(ClientTrust.trusting(Files.readString(caPem)))
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  private static String get(HttpClient client, String url) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void autoMakesACaOnceAndAServerCertificateForItsNamesThatClientsTrustingTheCaAccept() throws Exception {
    TlsConfig config = new TlsConfig(TlsConfig.Mode.AUTO, null, null, null, dir.resolve("tls"),
        List.of("localhost", "127.0.0.1", "hub.example.test"), Duration.ofSeconds(1));
    ServerTls tls = ServerTls.start(config);
    String ca = Files.readString(dir.resolve("tls/ca.pem"));
    assertEquals(ca, tls.caPem());
    assertTrue(ServerCertificates.subjectAltNames(tls.certificate()).containsAll(List.of("localhost", "127.0.0.1",
        "hub.example.test")));
    int port = serve(tls);
    assertEquals("hello /x", get(trusting(dir.resolve("tls/ca.pem")), "https://localhost:" + port + "/x"));
    assertEquals("hello /y", get(trusting(dir.resolve("tls/ca.pem")), "https://127.0.0.1:" + port + "/y"));

    // a second start keeps the CA and the certificate (every ISO handed out trusts that CA)
    ServerTls again = ServerTls.start(config);
    assertEquals(ca, again.caPem());
    assertEquals(tls.certificate().getSerialNumber(), again.certificate().getSerialNumber());
    // a new public name: a new server certificate under the same CA
    ServerTls renamed = ServerTls.start(new TlsConfig(TlsConfig.Mode.AUTO, null, null, null, dir.resolve("tls"),
        List.of("localhost", "new.example.test"), Duration.ofSeconds(1)));
    assertEquals(ca, renamed.caPem());
    assertNotEquals(tls.certificate().getSerialNumber(), renamed.certificate().getSerialNumber());
    assertTrue(ServerCertificates.subjectAltNames(renamed.certificate()).contains("new.example.test"));
  }

  @Test
  void aClientTrustingAnotherCaIsRefusedAndPlainHttpGetsAClearError() throws Exception {
    ServerTls tls = ServerTls.start(new TlsConfig(TlsConfig.Mode.AUTO, null, null, null, dir.resolve("tls"),
        List.of("localhost", "127.0.0.1"), Duration.ofSeconds(1)));
    int port = serve(tls);
    ServerCertificates.ensure(dir.resolve("other"), List.of("localhost"), Instant.now());
    assertThrows(SSLHandshakeException.class,
        () -> get(trusting(dir.resolve("other/ca.pem")), "https://localhost:" + port + "/"));

    HttpResponse<String> plain = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/assisted-install/v2/clusters")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(400, plain.statusCode());
    assertTrue(plain.body().contains("\"kind\":\"Error\"") && plain.body().contains("HTTPS"), plain.body());

    // the server is fine after that: TLS clients are still served
    assertEquals("hello /z", get(trusting(dir.resolve("tls/ca.pem")), "https://localhost:" + port + "/z"));
  }

  @Test
  void tlsOlderThan12IsRefused() throws Exception {
    ServerTls tls = ServerTls.start(new TlsConfig(TlsConfig.Mode.AUTO, null, null, null, dir.resolve("tls"),
        List.of("localhost"), Duration.ofSeconds(1)));
    int port = serve(tls);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
      public void checkClientTrusted(X509Certificate[] c, String a) {}

      public void checkServerTrusted(X509Certificate[] c, String a) {}

      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }}, null);
    try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
      s.setEnabledProtocols(new String[] {"TLSv1.1"});
      s.setSoTimeout(5000);
      assertThrows(javax.net.ssl.SSLException.class, s::startHandshake);
    } catch (IllegalArgumentException unsupportedHere) {
      // this JDK cannot even offer TLS 1.1: nothing older than 1.2 can be spoken to the server either
    }
  }

  @Test
  void expiredAndWrongNameCertificatesAreRefusedByClientsTrustingTheCa() throws Exception {
    ServerCertificates.Files ca = ServerCertificates.ensure(dir.resolve("ca"), List.of("localhost"), Instant.now());
    X509Certificate caCert = Pem.certificates(Files.readString(ca.ca()), "ca").get(0);
    var caKey = Pem.privateKey(Files.readString(ca.caKey()), "ca key");
    Path expired = issue(dir.resolve("expired"), caCert, caKey, List.of("localhost"),
        Instant.now().minus(Duration.ofDays(30)), Duration.ofDays(1));
    Path wrongName = issue(dir.resolve("wrong"), caCert, caKey, List.of("elsewhere.example.test"), Instant.now(),
        Duration.ofDays(30));
    for (Path p : List.of(expired, wrongName)) {
      ServerTls tls = ServerTls.start(new TlsConfig(TlsConfig.Mode.FILES, p.resolve("cert.pem"), p.resolve("key.pem"),
          ca.ca(), null, List.of(), Duration.ofSeconds(1)));
      int port = serve(tls);
      assertThrows(SSLHandshakeException.class, () -> get(trusting(ca.ca()), "https://localhost:" + port + "/"), p.toString());
      server.close().await(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aChangedCertificateFileIsTakenForNewConnectionsWhileAnOpenWebSocketStays() throws Exception {
    ServerCertificates.Files ca = ServerCertificates.ensure(dir.resolve("ca"), List.of("localhost"), Instant.now());
    X509Certificate caCert = Pem.certificates(Files.readString(ca.ca()), "ca").get(0);
    var caKey = Pem.privateKey(Files.readString(ca.caKey()), "ca key");
    Path files = issue(dir.resolve("files"), caCert, caKey, List.of("localhost", "127.0.0.1"), Instant.now(),
        Duration.ofDays(30));
    ServerTls tls = ServerTls.start(new TlsConfig(TlsConfig.Mode.FILES, files.resolve("cert.pem"),
        files.resolve("key.pem"), ca.ca(), null, List.of(), Duration.ofMillis(100)));
    int port = serve(tls);
    tls.watch(vertx);
    X509Certificate before = tls.certificate();

    // held in a variable: Vert.x closes a client nothing refers to any more (its connection "evicted")
    io.vertx.core.http.WebSocketClient client = vertx.createWebSocketClient(new WebSocketClientOptions().setSsl(true)
        .setTrustOptions(new PemTrustOptions().addCertPath(ca.ca().toString())));
    WebSocket ws = client.connect(port, "localhost", "/echo").await(10, TimeUnit.SECONDS);
    java.util.concurrent.BlockingQueue<String> echoes = new java.util.concurrent.LinkedBlockingQueue<>();
    ws.textMessageHandler(echoes::add);
    ws.writeTextMessage("one");
    assertEquals("one", echoes.poll(5, TimeUnit.SECONDS));

    // a half-written pair (a key of another certificate) is not taken
    issue(dir.resolve("other"), caCert, caKey, List.of("localhost"), Instant.now(), Duration.ofDays(30));
    Files.copy(dir.resolve("other/key.pem"), files.resolve("key.pem"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertFalse(tls.reloadIfChanged());
    assertEquals(before.getSerialNumber(), tls.certificate().getSerialNumber());
    // the matching certificate arrives: taken by the watcher
    Files.copy(dir.resolve("other/cert.pem"), files.resolve("cert.pem"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (tls.certificate().getSerialNumber().equals(before.getSerialNumber()) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    X509Certificate after = tls.certificate();
    assertNotEquals(before.getSerialNumber(), after.getSerialNumber());

    // a new connection gets the new certificate
    assertEquals(after.getSerialNumber(), presented(port, ca.ca()).getSerialNumber());
    // the websocket opened before is still open and answering
    ws.writeTextMessage("two");
    assertEquals("two", echoes.poll(5, TimeUnit.SECONDS));
    assertFalse(ws.isClosed());
    client.close().await(5, TimeUnit.SECONDS);
  }

  private static X509Certificate presented(int port, Path caPem) throws Exception {
    SSLContext ctx = ClientTrust.trusting(Files.readString(caPem));
    try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) ctx.getSocketFactory().createSocket("localhost", port)) {
      s.startHandshake();
      return (X509Certificate) s.getSession().getPeerCertificates()[0];
    }
  }

  /** A certificate signed by the CA for the names, valid from {@code from} for {@code validity}: cert.pem, key.pem. */
  private static Path issue(Path dir, X509Certificate ca, java.security.PrivateKey caKey, List<String> names,
      Instant from, Duration validity) throws Exception {
    Files.createDirectories(dir);
    KeyPair kp = ServerCertificates.keyPair();
    X509Certificate cert = ServerCertificates.server(kp, ca, caKey, names, from, validity);
    Files.writeString(dir.resolve("key.pem"), Pem.encode("PRIVATE KEY", kp.getPrivate().getEncoded()));
    Files.writeString(dir.resolve("cert.pem"), Pem.encode("CERTIFICATE", cert.getEncoded()));
    return dir;
  }

}
