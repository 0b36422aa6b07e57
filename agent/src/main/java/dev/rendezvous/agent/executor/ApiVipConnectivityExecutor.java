package dev.rendezvous.agent.executor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * {@code api-vip-connectivity-check} (a day-2 host): args[0] = {"url": the cluster's machine-config server
 * (…:22624/config/worker), "request_headers": [{key, value}], "ignition_endpoint_token", "ca_certificate"}. The worker
 * Ignition is fetched as a node's first boot would fetch it (an Ignition 3.2 Accept header, the token as a bearer, the
 * CA when given); success when it answers 2xx with an Ignition config ({@code ignition.version}). The answer says
 * why not otherwise ({@code download_error}); the step itself fails only on a request it cannot read.
 */
public final class ApiVipConnectivityExecutor implements StepExecutor {
  static final String ACCEPT = "application/vnd.coreos.ignition+json; version=3.2.0";
  private final HttpClient http;
  private final Duration timeout;

  public ApiVipConnectivityExecutor(HttpClient http, Duration timeout) {
    this.http = http;
    this.timeout = timeout;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("api-vip-connectivity-check: args[0] ({\"url\": ...}) is missing");
    }
    StepModels.ApiVipConnectivityRequest req = WireJson.read(step.arg(0), StepModels.ApiVipConnectivityRequest.class);
    if (req.url() == null || req.url().isBlank()) {
      throw new IllegalArgumentException("api-vip-connectivity-check: url is missing");
    }
    HttpClient client = http;
    if (req.caCertificate() != null && !req.caCertificate().isBlank()) {
      client = HttpClient.newBuilder().connectTimeout(timeout).sslContext(trusting(req.caCertificate())).build();
    }
    HttpRequest.Builder get = HttpRequest.newBuilder(URI.create(req.url())).timeout(timeout).header("Accept", ACCEPT);
    if (req.requestHeaders() != null) {
      for (StepModels.RequestHeader h : req.requestHeaders()) {
        get.header(h.key(), h.value());
      }
    }
    if (req.ignitionEndpointToken() != null && !req.ignitionEndpointToken().isBlank()) {
      get.header("Authorization", "Bearer " + req.ignitionEndpointToken());
    }
    String error;
    try {
      HttpResponse<String> r = client.send(get.GET().build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() / 100 != 2) {
        error = "ignition file download failed: bad status code: " + r.statusCode() + " from " + req.url();
      } else {
        JsonNode ign = WireJson.read(r.body(), JsonNode.class);
        if (ign.path("ignition").path("version").isTextual()) {
          return StepOutcome.ok(WireJson.write(new StepModels.ApiVipConnectivityResponse(true, req.url(), "", r.body())));
        }
        error = "ignition file download failed: " + req.url() + " answered no Ignition config (no ignition.version)";
      }
    } catch (java.io.IOException | IllegalArgumentException e) {
      error = "ignition file download failed: " + req.url() + ": " + e;
    }
    return StepOutcome.ok(WireJson.write(new StepModels.ApiVipConnectivityResponse(false, req.url(), error, "")));
  }

  /**
   * Trusting the cluster's CA alone (it signs the machine-config server's certificate): PEM, or base64 of PEM as
   * upstream's service sends it.
   */
  private static javax.net.ssl.SSLContext trusting(String ca) throws Exception {
    String pem = ca.strip().startsWith("-----") ? ca
        : new String(java.util.Base64.getMimeDecoder().decode(ca.strip()), java.nio.charset.StandardCharsets.UTF_8);
    java.security.KeyStore store = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
    store.load(null, null);
    int n = 0;
    for (java.security.cert.Certificate c : java.security.cert.CertificateFactory.getInstance("X.509")
        .generateCertificates(new java.io.ByteArrayInputStream(pem.getBytes(java.nio.charset.StandardCharsets.UTF_8)))) {
      store.setCertificateEntry("cluster-" + n++, c);
    }
    javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
        javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }
}
