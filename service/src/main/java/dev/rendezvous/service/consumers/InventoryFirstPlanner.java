package dev.rendezvous.service.consumers;

import dev.rendezvous.bus.event.StepsToDeliver;
import io.vertx.core.Future;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Until host state drives planning, every (re)registered or reconnected host is asked for its
 * inventory: the first step upstream's instruction manager gives a discovering host.
 */
public final class InventoryFirstPlanner implements BrainConsumer.StepPlanner {
  private static final SecureRandom RANDOM = new SecureRandom();

  @Override
  public Future<Optional<StepsToDeliver>> plan(UUID hostId, UUID infraEnvId, UUID clusterId) {
    byte[] b = new byte[4];
    RANDOM.nextBytes(b);
    StepsToDeliver.Step inventory = new StepsToDeliver.Step("inventory", "inventory-" + HexFormat.of().formatHex(b),
        List.of(hostId.toString()));
    return Future.succeededFuture(Optional.of(new StepsToDeliver(60, StepsToDeliver.CONTINUE, List.of(inventory))));
  }
}
