package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.bus.TopicSetup;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.planning.Step;
import dev.rendezvous.service.domain.planning.StepPlan;
import dev.rendezvous.service.domain.planning.StepType;
import dev.rendezvous.service.domain.planning.Steps;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A unit's many large plans are handed to the bus over several event-loop turns, all of them, in the unit's order. */
class PlanPublisherTest {
  private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");
  private static final UUID CLUSTER = UUID.fromString("c0000000-0000-0000-0000-000000000001");
  private static final UUID INFRA_ENV = UUID.fromString("e0000000-0000-0000-0000-000000000001");

  @TempDir Path dir;

  @Test
  void manyLargePlansArePublishedOverSeveralTurnsWithOtherWorkBetween() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), false);
        BusProducer producer = new BusProducer(kafka.bootstrapServers(), "plans-test")) {
      TopicSetup.ensure(kafka.bootstrapServers(), 2, (short) 1, Duration.ofSeconds(60));
      Map<String, String> received = new ConcurrentHashMap<>();
      CountDownLatch all = new CountDownLatch(40);
      BusConsumer reader = BusConsumer.fanOut(kafka.bootstrapServers(), List.of(Topics.STEPS),
          BusConsumer.StartFrom.EARLIEST, e -> {
            StepsToDeliver s = (StepsToDeliver) e.payload();
            received.put(e.hostId(), s.instructions().get(0).args().get(0));
            all.countDown();
            return CompletableFuture.completedFuture(null);
          });
      try {
        // 40 hosts, each plan's connectivity targets ~150 KB (a 1,000-host cluster's): 6 MB, three turns' worth
        Work w = new Work(BrainFixtures.loaded(CLUSTER, T0), T0);
        List<UUID> hosts = BrainFixtures.ids(40);
        for (int i = 0; i < hosts.size(); i++) {
          HostSnapshot h = HostSnapshot.builder(hosts.get(i), INFRA_ENV).clusterId(CLUSTER).build();
          String targets = i + ":" + "x".repeat(150_000);
          w.push(h, new StepPlan(new Steps(60, Steps.CONTINUE, List.of(new Step(StepType.CONNECTIVITY_CHECK, "c-" + i,
              List.of(targets)))), List.of()), "sig-" + i, -1);
        }
        PlanPublisher publisher = new PlanPublisher(producer);
        Context ctx = vertx.getOrCreateContext();
        AtomicReference<Boolean> doneWhenReturned = new AtomicReference<>();
        AtomicReference<Boolean> doneWhenOtherWorkRan = new AtomicReference<>();
        CompletableFuture<Void> finished = new CompletableFuture<>();
        ctx.runOnContext(v -> {
          Future<Void> f = publisher.publish(w);
          doneWhenReturned.set(f.isComplete());
          // another cluster's work queued on the same event loop while the plans are being sent
          ctx.runOnContext(x -> doneWhenOtherWorkRan.set(f.isComplete()));
          f.onComplete(r -> finished.complete(null));
        });
        finished.get(30, TimeUnit.SECONDS);
        assertFalse(doneWhenReturned.get(), "6 MB of plans are not encoded in the turn that asked for them");
        assertFalse(doneWhenOtherWorkRan.get(), "work queued meanwhile ran before the last plan was handed over");
        for (UUID h : hosts) {
          assertTrue(publisher.last(HostSnapshot.builder(h, INFRA_ENV).clusterId(CLUSTER).build()) != null,
              "every host's push is remembered");
        }
        assertTrue(all.await(60, TimeUnit.SECONDS), "every plan reached the steps topic: " + received.size());
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < hosts.size(); i++) {
          if (!received.get(hosts.get(i).toString()).startsWith(i + ":")) {
            wrong.add(hosts.get(i).toString());
          }
        }
        assertEquals(List.of(), wrong, "each host got its own plan");
      } finally {
        reader.close();
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
