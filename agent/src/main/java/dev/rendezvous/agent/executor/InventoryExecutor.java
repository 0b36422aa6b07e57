package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.inventory.InventoryCollector;
import dev.rendezvous.agent.inventory.InventoryTruncation;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.WireJson;

/**
 * {@code inventory}: args = [host_id, optional "--output-max-size=N", optional "--disk-min-size=N"] (not
 * JSON, as upstream). Output is the {@link Inventory} JSON, bounded by {@link InventoryTruncation}.
 */
public final class InventoryExecutor implements StepExecutor {
  private final InventoryCollector collector;
  private final int maxDisks;

  public InventoryExecutor(InventoryCollector collector, int maxDisks) {
    this.collector = collector;
    this.maxDisks = maxDisks;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    long maxBytes = InventoryTruncation.DEFAULT_MAX_BYTES;
    for (String a : step.args()) {
      if (a.startsWith("--output-max-size=")) {
        try {
          maxBytes = Long.parseLong(a.substring("--output-max-size=".length()));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("inventory: invalid argument " + a);
        }
      }
    }
    Inventory inventory = InventoryTruncation.apply(collector.collect(), maxDisks, maxBytes);
    return StepOutcome.ok(WireJson.write(inventory));
  }
}
