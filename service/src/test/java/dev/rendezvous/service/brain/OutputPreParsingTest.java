package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.planning.StepOutputs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A batch's heavy outputs parsed on the pool: what the lane would have parsed, or nothing when it should say why. */
class OutputPreParsingTest {
  private final Vertx vertx = Vertx.vertx();
  private final OutputPreParsing parsing = new OutputPreParsing(vertx.createSharedWorkerExecutor("test-parse", 2));

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aHeavyBatchIsParsedAheadAsTheLaneWouldParseIt() throws Exception {
    Map<UUID, Integer> peers = new LinkedHashMap<>();
    for (int j = 0; j < 200; j++) {
      peers.put(UUID.randomUUID(), j);
    }
    String connectivity = BrainFixtures.connectivity(peers);
    List<BusEvent> batch = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      batch.add(reply("inventory", 0, BrainFixtures.inventory(i, 8)));
    }
    batch.add(reply("connectivity-check", 0, connectivity));
    BusEvent broken = reply("inventory", 0, "{\"cpu\": \"lots\"}");
    BusEvent failed = reply("inventory", 1, BrainFixtures.inventory(99, 8)); // a failed step's output is not read
    BusEvent ntp = reply("ntp-synchronizer", 0, BrainFixtures.ntp());
    batch.addAll(List.of(broken, failed, ntp));

    Map<BusEvent, Future<Object>> parsed = parsing.start(batch);
    Future.join(new ArrayList<>(parsed.values())).await(30, TimeUnit.SECONDS);

    assertEquals(42, parsed.size(), "the inventories, the report and the broken one");
    for (int i = 0; i < 40; i++) {
      assertEquals(StepOutputs.inventory(BrainFixtures.inventory(i, 8)), OutputPreParsing.result(parsed.get(batch.get(i))));
    }
    Object report = OutputPreParsing.result(parsed.get(batch.get(40)));
    assertTrue(report instanceof ConnectivityReport r
        && ConnectivityReport.sameReach(r, StepOutputs.connectivity(connectivity)), "the report as the lane reads it");
    assertNull(OutputPreParsing.result(parsed.get(broken)), "left to the lane, which says why it is refused");
    assertNull(parsed.get(failed));
    assertNull(parsed.get(ntp));
    assertEquals(41, parsing.parsedCount());
  }

  @Test
  void aLightBatchIsLeftToTheLane() {
    List<BusEvent> batch = List.of(reply("inventory", 0, BrainFixtures.inventory(1, 8)),
        reply("inventory", 0, BrainFixtures.inventory(2, 8)));
    assertTrue(parsing.start(batch).isEmpty());
    assertEquals(0, parsing.parsedCount());
  }

  private static BusEvent reply(String type, int exitCode, String output) {
    UUID host = UUID.randomUUID();
    return BusEvent.of(UUID.randomUUID().toString(), UUID.randomUUID().toString(), host.toString(),
        new StepReplyReceived(type, type + "-1", exitCode, output, ""));
  }
}
