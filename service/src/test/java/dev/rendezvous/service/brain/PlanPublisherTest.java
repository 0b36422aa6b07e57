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

  @Test
  void aClustersTargetsGoBeforeThePlansThatLeaveThemToTheGatewayAndAgainOnlyWhenTheyMoveOrAge() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), false);
        BusProducer producer = new BusProducer(kafka.bootstrapServers(), "targets-test")) {
      TopicSetup.ensure(kafka.bootstrapServers(), 2, (short) 1, Duration.ofSeconds(60));
      java.util.concurrent.LinkedBlockingQueue<dev.rendezvous.bus.BusEvent> read =
          new java.util.concurrent.LinkedBlockingQueue<>();
      BusConsumer reader = BusConsumer.fanOut(kafka.bootstrapServers(), List.of(Topics.STEPS),
          BusConsumer.StartFrom.EARLIEST, e -> {
            read.add(e);
            return CompletableFuture.completedFuture(null);
          });
      try {
        PlanPublisher publisher = new PlanPublisher(producer);
        UUID one = UUID.fromString("a0000000-0000-0000-0000-000000000001");
        UUID two = UUID.fromString("a0000000-0000-0000-0000-000000000002");
        HostSnapshot h = HostSnapshot.builder(one, INFRA_ENV).clusterId(CLUSTER).build();
        assertFalse(publisher.fillsTargets(h), "nothing said yet: targets in full");
        publisher.gatewayOf(HostKey.of(h), true);
        assertTrue(publisher.fillsTargets(h));
        List<dev.rendezvous.service.domain.planning.NextStepPlanner.CheckTarget> targets = List.of(
            new dev.rendezvous.service.domain.planning.NextStepPlanner.CheckTarget(one, "{\"n\":1}"),
            new dev.rendezvous.service.domain.planning.NextStepPlanner.CheckTarget(two, "{\"n\":2}"));
        java.util.function.BiFunction<Instant, List<dev.rendezvous.service.domain.planning.NextStepPlanner.CheckTarget>,
            Work> unit = (at, t) -> {
              Work w = new Work(BrainFixtures.loaded(CLUSTER, at), at);
              w.checkTargets(t);
              w.push(h, new StepPlan(new Steps(60, Steps.CONTINUE, List.of(
                  new Step(StepType.INVENTORY, "i-" + at.getEpochSecond(), List.of()),
                  new Step(StepType.CONNECTIVITY_CHECK, "c-" + at.getEpochSecond(), List.of()))), List.of()),
                  "sig", 1, true);
              return w;
            };
        Context ctx = vertx.getOrCreateContext();
        java.util.function.Consumer<Work> publish = w -> {
          CompletableFuture<Void> f = new CompletableFuture<>();
          ctx.runOnContext(v -> publisher.publish(w).onComplete(r -> f.complete(null)));
          f.join();
        };

        publish.accept(unit.apply(T0, targets));
        dev.rendezvous.bus.BusEvent first = read.poll(60, TimeUnit.SECONDS);
        dev.rendezvous.bus.BusEvent second = read.poll(60, TimeUnit.SECONDS);
        assertEquals(null, first.hostId(), "the cluster's targets first, on no host");
        assertEquals(CLUSTER.toString(), first.clusterId());
        assertEquals(List.of(new StepsToDeliver.Target(one.toString(), "{\"n\":1}"),
            new StepsToDeliver.Target(two.toString(), "{\"n\":2}")),
            ((StepsToDeliver) first.payload()).connectivityTargets());
        StepsToDeliver plan = (StepsToDeliver) second.payload();
        assertEquals(one.toString(), second.hostId());
        assertEquals(List.of(false, true), plan.instructions().stream().map(StepsToDeliver.Step::usesSharedTargets).toList(),
            "only the connectivity check is marked");
        assertEquals(List.of("[{\"n\":2}]"), plan.withTargets(one.toString(),
            ((StepsToDeliver) first.payload()).connectivityTargets()).instructions().get(1).args());

        publish.accept(unit.apply(T0.plusSeconds(30), new ArrayList<>(targets)));
        assertEquals(one.toString(), read.poll(60, TimeUnit.SECONDS).hostId(), "equal targets within a minute: not again");
        List<dev.rendezvous.service.domain.planning.NextStepPlanner.CheckTarget> moved = List.of(targets.get(1));
        publish.accept(unit.apply(T0.plusSeconds(40), moved));
        assertEquals(null, read.poll(60, TimeUnit.SECONDS).hostId(), "moved targets go out again");
        assertEquals(one.toString(), read.poll(60, TimeUnit.SECONDS).hostId());
        publish.accept(unit.apply(T0.plusSeconds(101), moved));
        assertEquals(null, read.poll(60, TimeUnit.SECONDS).hostId(), "a minute old: out again for gateways started since");
        assertEquals(one.toString(), read.poll(60, TimeUnit.SECONDS).hostId());

        publisher.gatewayOf(HostKey.of(h), false);
        assertFalse(publisher.fillsTargets(h), "its gateway now is one of the previous release");
      } finally {
        reader.close();
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
