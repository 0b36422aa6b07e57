package dev.rendezvous.bus;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

/**
 * Free loopback ports for the servers this process starts itself (the embedded Kafka's two listeners, the embedded
 * PostgreSQL). A free port is only a port nobody holds now: the embedded PostgreSQL and Kafka start side by side and
 * each bind theirs a moment after picking it, so both were once given the same port, and Kafka's controller, failing
 * to bind, ended the process. Ports handed out here are never handed out again in this process.
 */
public final class LocalPorts {
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  private LocalPorts() {}

  /** {@code n} different free loopback ports, none handed out before in this process. */
  public static synchronized int[] free(int n) throws IOException {
    int[] ports = new int[n];
    java.util.List<ServerSocket> held = new java.util.ArrayList<>();
    try {
      // every socket stays open until all are picked: the system does not hand an open port out again
      for (int i = 0; i < n; ) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        s.setReuseAddress(true);
        held.add(s);
        if (HANDED_OUT.add(s.getLocalPort())) {
          ports[i++] = s.getLocalPort();
        }
      }
      return ports;
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }
}
