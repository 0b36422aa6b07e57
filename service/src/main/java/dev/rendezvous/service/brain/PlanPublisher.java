package dev.rendezvous.service.brain;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.planning.NextStepPlanner;
import dev.rendezvous.service.domain.planning.Step;
import dev.rendezvous.service.domain.planning.StepType;
import dev.rendezvous.service.domain.planning.Steps;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Publishes committed units' plans to the steps topic and remembers what each host was last sent. */
final class PlanPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(Brain.class);

  private final BusProducer producer;
  /** The plan last pushed per host (per infra-env: one machine may be a host in two); a failed publish removes it. */
  private final Map<HostKey, PushMark> pushed = new ConcurrentHashMap<>();

  /** Keys with a push lost since their last unit: their plan floor no longer holds (a host is due at once). */
  private final java.util.Set<WorkKey> lost = ConcurrentHashMap.newKeySet();

  /** Hosts whose gateway said it fills in shared connectivity targets (its latest presence event here). */
  private final java.util.Set<HostKey> targetFillers = ConcurrentHashMap.newKeySet();

  /** Each cluster's connectivity targets as last published, and when: published again when they move or age. */
  private final Map<UUID, PublishedTargets> publishedTargets = new ConcurrentHashMap<>();

  private record PublishedTargets(List<NextStepPlanner.CheckTarget> targets, Instant at) {}

  /** A cluster's targets older than this go out again with its next plan (gateways started since have none). */
  static final Duration TARGETS_REPUBLISH = Duration.ofSeconds(60);

  /** Past this many clusters the published targets are forgotten (and published again with the next plans). */
  private static final int TARGETS_CLUSTERS = 4096;

  PlanPublisher(BusProducer producer) {
    this.producer = producer;
  }

  /**
   * A presence event of the host: whether its gateway fills in shared connectivity targets. Kept in memory: after a
   * restart, or when a cluster's partition moves here, its hosts get their targets in full until their next check-in.
   */
  void gatewayOf(HostKey host, boolean fillsTargets) {
    if (fillsTargets) {
      targetFillers.add(host);
    } else {
      targetFillers.remove(host);
    }
  }

  /** Whether the host's gateway fills in shared connectivity targets. */
  boolean fillsTargets(HostSnapshot host) {
    return !targetFillers.isEmpty() && targetFillers.contains(HostKey.of(host));
  }

  /** What the host was last sent, or null. */
  PushMark last(HostSnapshot host) {
    return pushed.get(HostKey.of(host));
  }

  /** The key's next unit looks at every host, as after a lost push. */
  void markLost(WorkKey key) {
    lost.add(key);
  }

  /** Whether a push of the key was lost since this was last asked (asking clears it). */
  boolean lostPushes(WorkKey key) {
    return !lost.isEmpty() && lost.remove(key);
  }

  /**
   * Plan text encoded per event-loop turn, at most (one plan more may pass it). A 1,000-host cluster's plan lists 999
   * peers (~150 KB); a unit that pushed to hundreds of its hosts encoded them all in one turn and blocked its event
   * loop for seconds (the websockets and units of every other cluster on it waited).
   */
  static final long TURN_CHARS = 2L << 20;

  /**
   * Publishes the work's plans in order (the bootstrap's last), without waiting for the broker: a failed one is
   * pushed again. Done when every plan is handed to the producer; past {@link #TURN_CHARS} of plan text the rest
   * follows in later turns of the caller's context, and the key's next unit waits for that (a newer plan of a host
   * must never be sent before an older one).
   */
  Future<Void> publish(Work w) {
    List<Work.Push> pushes = new ArrayList<>(w.pushes());
    pushes.sort(Comparator.comparing((Work.Push p) -> p.host().bootstrap()));
    for (Work.Push p : pushes) {
      pushed.put(HostKey.of(p.host()), PushMark.of(p, w.now));
    }
    if (w.checkTargets() != null && w.cluster() != null) {
      publishTargets(w.cluster().id(), w.checkTargets(), w.now, w.base.key());
    }
    Promise<Void> done = Promise.promise();
    publishFrom(pushes, 0, w.base.key(), Vertx.currentContext(), done);
    return done.future();
  }

  private void publishFrom(List<Work.Push> pushes, int from, WorkKey workKey, Context ctx, Promise<Void> done) {
    long chars = 0;
    for (int i = from; i < pushes.size(); i++) {
      if (chars >= TURN_CHARS && ctx != null) {
        int next = i;
        ctx.runOnContext(v -> publishFrom(pushes, next, workKey, ctx, done));
        return;
      }
      chars += publishOne(pushes.get(i), workKey);
    }
    done.complete();
  }

  /**
   * The cluster's connectivity targets, before the plans that leave them to the gateway (same key, same partition, so
   * a gateway reads them first): when they differ from the last published or are older than
   * {@link #TARGETS_REPUBLISH}.
   */
  private void publishTargets(UUID clusterId, List<NextStepPlanner.CheckTarget> targets, Instant now, WorkKey workKey) {
    PublishedTargets last = publishedTargets.get(clusterId);
    if (last != null && last.targets().equals(targets) && now.isBefore(last.at().plus(TARGETS_REPUBLISH))) {
      return;
    }
    if (publishedTargets.size() > TARGETS_CLUSTERS) {
      publishedTargets.clear();
    }
    PublishedTargets mark = new PublishedTargets(targets, now);
    publishedTargets.put(clusterId, mark);
    List<StepsToDeliver.Target> out = new ArrayList<>(targets.size());
    for (NextStepPlanner.CheckTarget t : targets) {
      out.add(new StepsToDeliver.Target(t.hostId().toString(), t.entry()));
    }
    producer.publish(Topics.STEPS, BusEvent.of(clusterId.toString(), null, null, StepsToDeliver.targets(out)))
        .whenComplete((md, err) -> {
          if (err != null) {
            LOG.atWarn().addKeyValue("cluster_id", clusterId).setCause(err)
                .log("publishing connectivity targets failed; published again with the next plans");
            publishedTargets.remove(clusterId, mark);
            lost.add(workKey);
          }
        });
  }

  /** Hands one plan to the producer; returns the length of its steps' arguments. */
  private long publishOne(Work.Push p, WorkKey workKey) {
    HostSnapshot h = p.host();
    HostKey key = HostKey.of(h);
    Steps s = p.plan().steps();
    long chars = 0;
    List<StepsToDeliver.Step> steps = new ArrayList<>(s.instructions().size());
    for (Step st : s.instructions()) {
      boolean shared = p.sharedTargets() && st.stepType() == StepType.CONNECTIVITY_CHECK;
      steps.add(new StepsToDeliver.Step(st.stepType().wire(), st.stepId(), st.args(), shared ? Boolean.TRUE : null));
      for (String a : st.args()) {
        chars += a.length();
      }
    }
    BusEvent out = BusEvent.of(h.clusterId() == null ? null : h.clusterId().toString(), h.infraEnvId().toString(),
        h.id().toString(), new StepsToDeliver(s.nextInstructionSeconds(), s.postStepAction(), steps));
    producer.publish(Topics.STEPS, out).whenComplete((md, err) -> {
      if (err != null) {
        LOG.atWarn().addKeyValue("host_id", h.id()).setCause(err).log("publishing next steps failed; pushed again later");
        pushed.remove(key);
        lost.add(workKey);
      }
    });
    return chars;
  }

  /**
   * A digest of a plan without its step ids and without the connectivity check's targets: equal plans need no new
   * push. The targets move whenever a peer arrives; they are counted beside the digest ({@link PushMark})
   * and sent again by a debounced targets pass or with the next due plan, not on every change of every peer (a
   * 300-host cluster booting over 30 s had each host re-check all its peers every 3 s). Two CRCs (over the plan and over
   * it reversed) make a 64-bit value; a collision only delays a push until the plan is due again. Neither the host's
   * status nor the steps' order is in it: known and insufficient plan the same steps (in upstream's two orders), and a
   * push for the status alone had every host of a 1,000-host cluster re-run all its checks (a 300 KB connectivity
   * report each) as the majority groups made it known.
   */
  static String signature(Steps s) {
    java.util.zip.CRC32C forward = new java.util.zip.CRC32C();
    java.util.zip.CRC32C seeded = new java.util.zip.CRC32C();
    seeded.update(0x5a);
    java.util.function.Consumer<String> add = text -> {
      byte[] b = text.getBytes(StandardCharsets.UTF_8);
      forward.update(b);
      forward.update(1);
      seeded.update(b.length >>> 8);
      seeded.update(b.length);
      seeded.update(b);
    };
    add.accept(s.nextInstructionSeconds() + "|" + s.postStepAction());
    List<Step> steps = new ArrayList<>(s.instructions());
    steps.sort(Comparator.comparing(st -> st.stepType().wire()));
    for (Step st : steps) {
      add.accept(st.stepType().wire());
      if (st.stepType() != StepType.CONNECTIVITY_CHECK) {
        st.args().forEach(add);
      }
    }
    return Long.toHexString(forward.getValue()) + Long.toHexString(seeded.getValue());
  }
}
