package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.wire.Inventory;
import java.io.IOException;
import java.util.List;

/** This host's network interfaces, read fresh for each network step. */
@FunctionalInterface
public interface InterfaceSource {
  List<Inventory.Interface> interfaces() throws IOException, InterruptedException;
}
