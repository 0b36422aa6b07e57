package dev.rendezvous.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The swarm's calls when no connection can be made in time (a machine loaded enough that the service's accept queue
 * overflows): nothing was sent, so the call is made again, a POST too. Here a real listener whose accept queue is
 * kept full (Linux then drops new connection attempts, so the client's connect times out) drains it after 12 s.
 */
class FleetApiConnectTest {

  @Test
  void aPostWhoseConnectionTimedOutIsMadeAgainAndGoesThroughOnceTheServiceAccepts() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      List<SocketChannel> fillers = new ArrayList<>();
      for (int i = 0; i < 4; i++) { // past the backlog: the queue is full, later handshakes are not answered
        SocketChannel c = SocketChannel.open();
        c.configureBlocking(false);
        c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
        fillers.add(c);
      }
      List<String> requests = new ArrayList<>();
      CompletableFuture<Void> service = CompletableFuture.runAsync(() -> {
        try {
          Thread.sleep(12_000); // past the client's 10 s connect timeout
          for (SocketChannel c : fillers) {
            c.close();
          }
          // the queued fillers come out first (closed: nothing to read); then the swarm's request
          while (true) {
            try (Socket s = server.accept()) {
              s.setSoTimeout(5_000);
              String head = readHead(s.getInputStream());
              if (head.isEmpty()) {
                continue;
              }
              requests.add(head.lines().findFirst().orElse(""));
              java.util.regex.Matcher length =
                  java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
              s.getInputStream().readNBytes(length.find() ? Integer.parseInt(length.group(1)) : 0); // the body
              OutputStream out = s.getOutputStream();
              out.write(("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 13\r\n"
                  + "Connection: close\r\n\r\n{\"id\":\"c-1\"}\n").getBytes(StandardCharsets.US_ASCII));
              out.flush();
              return;
            } catch (java.net.SocketTimeoutException | java.net.SocketException e) {
              if (server.isClosed()) {
                return; // the test ended (failed) before a request came
              }
              // else a filler's connection: next
            }
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      FleetApi api = new FleetApi("http://127.0.0.1:" + server.getLocalPort(), "token",
          new PrintStream(printed, true, StandardCharsets.UTF_8));
      var created = api.post("/clusters", new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode()
          .put("name", "connect-later"));
      service.get();
      assertEquals("c-1", created.path("id").asText());
      assertEquals(List.of("POST /api/assisted-install/v2/clusters HTTP/1.1"), requests, "sent once, when it could be");
      assertTrue(printed.toString(StandardCharsets.UTF_8)
          .contains("POST /api/assisted-install/v2/clusters: no connection in 10 s; trying again"), printed.toString());
    }
  }

  /** The request's head (empty: a connection that closed without a request). */
  private static String readHead(InputStream in) throws java.io.IOException {
    StringBuilder head = new StringBuilder();
    int b;
    while ((b = in.read()) >= 0) {
      head.append((char) b);
      if (head.toString().endsWith("\r\n\r\n")) {
        break;
      }
    }
    return head.toString();
  }
}
