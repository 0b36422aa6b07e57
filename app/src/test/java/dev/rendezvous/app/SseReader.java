package dev.rendezvous.app;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A server-sent-events client over the JDK's HTTP client, as a script would follow the live event stream. */
final class SseReader implements AutoCloseable {
  record Received(long id, JsonObject event) {}

  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private final List<Received> received = new ArrayList<>();
  private final InputStream body;
  final int status;
  final String contentType;

  SseReader(int port, String token, String query, Long lastEventId) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + Api.BASE + "/events/stream"
        + (query.isEmpty() ? "" : "?" + query))).header("Authorization", "Bearer " + token)
        .header("Accept", "text/event-stream");
    if (lastEventId != null) {
      b.header("Last-Event-ID", Long.toString(lastEventId));
    }
    HttpResponse<InputStream> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    status = r.statusCode();
    contentType = r.headers().firstValue("Content-Type").orElse("");
    body = r.body();
    Thread t = new Thread(this::read, "sse-reader");
    t.setDaemon(true);
    t.start();
  }

  private void read() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      long id = -1;
      StringBuilder data = new StringBuilder();
      for (String line; (line = in.readLine()) != null; ) {
        if (line.isEmpty()) {
          if (data.length() > 0) {
            synchronized (received) {
              received.add(new Received(id, new JsonObject(data.toString())));
            }
          }
          data.setLength(0);
        } else if (line.startsWith("id: ")) {
          id = Long.parseLong(line.substring(4));
        } else if (line.startsWith("data: ")) {
          data.append(line.substring(6));
        }
      }
    } catch (Exception closed) {
      // the test closed it, or the server went away
    }
  }

  List<Received> received() {
    synchronized (received) {
      return List.copyOf(received);
    }
  }

  /** Waits until {@code n} events arrived; returns them. */
  List<Received> await(int n, Duration patience) {
    return Await.until(n + " streamed events", patience, () -> {
      List<Received> r = received();
      return r.size() >= n ? r : null;
    });
  }

  long lastId() {
    List<Received> r = received();
    return r.isEmpty() ? -1 : r.get(r.size() - 1).id();
  }

  @Override
  public void close() throws Exception {
    body.close();
  }
}
