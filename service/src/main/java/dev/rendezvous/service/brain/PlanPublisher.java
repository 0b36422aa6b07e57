package dev.rendezvous.service.brain;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.planning.Step;
import dev.rendezvous.service.domain.planning.Steps;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Publishes committed units' plans to the steps topic and remembers what each host was last sent. */
final class PlanPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(Brain.class);

  private final BusProducer producer;
  /** The plan last pushed per host (per infra-env: one machine may be a host in two); a failed publish removes it. */
  private final Map<HostKey, BrainRules.PushMark> pushed = new ConcurrentHashMap<>();

  /** Keys with a push lost since their last unit: their plan floor no longer holds (a host is due at once). */
  private final java.util.Set<WorkKey> lost = ConcurrentHashMap.newKeySet();

  PlanPublisher(BusProducer producer) {
    this.producer = producer;
  }

  /** What the host was last sent, or null. */
  BrainRules.PushMark last(HostSnapshot host) {
    return pushed.get(HostKey.of(host));
  }

  /** Whether a push of the key was lost since this was last asked (asking clears it). */
  boolean lostPushes(WorkKey key) {
    return !lost.isEmpty() && lost.remove(key);
  }

  /** Publishes the work's plans in order (the bootstrap's last), without waiting: a failed one is pushed again. */
  void publish(Work w) {
    WorkKey workKey = w.base.key();
    List<Work.Push> pushes = new ArrayList<>(w.pushes());
    pushes.sort(Comparator.comparing((Work.Push p) -> p.host().bootstrap()));
    for (Work.Push p : pushes) {
      HostSnapshot h = p.host();
      HostKey key = HostKey.of(h);
      pushed.put(key, new BrainRules.PushMark(p.signature(), w.now));
      Steps s = p.plan().steps();
      List<StepsToDeliver.Step> steps = new ArrayList<>(s.instructions().size());
      for (Step st : s.instructions()) {
        steps.add(new StepsToDeliver.Step(st.stepType().wire(), st.stepId(), st.args()));
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
    }
  }

  /**
   * A digest of a plan without its step ids: equal plans need no new push. Two CRCs (over the plan and over it
   * reversed) make a 64-bit value that is cheap on the large connectivity targets of big clusters; a collision only
   * delays a push until the plan is due again.
   */
  static String signature(HostSnapshot h, Steps s) {
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
    add.accept(h.status() == null ? "" : h.status().wire());
    add.accept(s.nextInstructionSeconds() + "|" + s.postStepAction());
    for (Step st : s.instructions()) {
      add.accept(st.stepType().wire());
      st.args().forEach(add);
    }
    return Long.toHexString(forward.getValue()) + Long.toHexString(seeded.getValue());
  }
}
