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
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tang-connectivity-check}: args[0] = {"tang_servers": "[{\"url\":..,\"thumbprint\":..}]"} (a JSON string, as
 * upstream's). Each server is asked, as upstream's agent asks it, for its advertisement signed by the key of that
 * thumbprint ({@code GET <url>/adv/<thumbprint>}: what clevis needs to bind a disk); success when every one answers 200
 * with a JWS (general or flattened serialization). A failure answers {"is_success":false} with exit -1 and says why
 * on stderr, as upstream's does; the service keeps it and shows it in disk-encryption-requirements-satisfied.
 */
public final class TangConnectivityExecutor implements StepExecutor {
  private final HttpClient http;
  private final Duration timeout;

  public TangConnectivityExecutor(HttpClient http, Duration timeout) {
    this.http = http;
    this.timeout = timeout;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("tang-connectivity-check: args[0] ({\"tang_servers\": ...}) is missing");
    }
    StepModels.TangConnectivityRequest req = WireJson.read(step.arg(0), StepModels.TangConnectivityRequest.class);
    List<StepModels.TangServer> servers = req.tangServers() == null || req.tangServers().isBlank() ? List.of()
        : WireJson.read(req.tangServers(), WireJson.listOf(StepModels.TangServer.class));
    List<String> errors = new ArrayList<>();
    if (servers.isEmpty()) {
      errors.add("no Tang server is configured");
    }
    List<StepModels.TangServerResponse> answers = new ArrayList<>();
    for (StepModels.TangServer s : servers) {
      try {
        answers.add(advertisement(s));
      } catch (java.io.IOException | IllegalArgumentException | java.io.UncheckedIOException e) {
        errors.add(s.url() + ": " + e.getMessage());
      }
    }
    if (!errors.isEmpty()) {
      return new StepOutcome(-1, WireJson.write(new StepModels.TangConnectivityResponse(false, null)),
          String.join("; ", errors));
    }
    return StepOutcome.ok(WireJson.write(new StepModels.TangConnectivityResponse(true, answers)));
  }

  private StepModels.TangServerResponse advertisement(StepModels.TangServer server)
      throws java.io.IOException, InterruptedException {
    if (server.url() == null || server.url().isBlank()) {
      throw new IllegalArgumentException("a Tang server has no url");
    }
    if (server.thumbprint() == null || server.thumbprint().isBlank()) {
      throw new IllegalArgumentException("Tang thumbprint isn't set for server: " + server.url());
    }
    String url = (server.url().endsWith("/") ? server.url() : server.url() + "/") + "adv/" + server.thumbprint();
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new java.io.IOException("HTTP GET failure. Status Code: " + r.statusCode());
    }
    if (r.body().isBlank()) {
      throw new java.io.IOException("Empty tang response");
    }
    JsonNode jws = WireJson.read(r.body(), JsonNode.class);
    List<JsonNode> signatures = new ArrayList<>();
    if (jws.path("signatures").isArray()) {
      jws.path("signatures").forEach(signatures::add);
    } else if (jws.path("signature").isTextual()) { // flattened serialization: one signature beside the payload
      com.fasterxml.jackson.databind.node.ObjectNode one = WireJson.MAPPER.createObjectNode();
      one.set("protected", jws.path("protected"));
      one.set("signature", jws.path("signature"));
      signatures.add(one);
    }
    if (!jws.path("payload").isTextual() || signatures.isEmpty()) {
      throw new java.io.IOException("the answer is not a signed advertisement (JWS)");
    }
    return new StepModels.TangServerResponse(url, jws.get("payload").asText(), signatures);
  }
}
