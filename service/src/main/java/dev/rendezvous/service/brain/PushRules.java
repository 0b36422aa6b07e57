package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.planning.NextStepPlanner;
import dev.rendezvous.service.domain.planning.StepPlan;
import dev.rendezvous.service.domain.planning.StepType;
import dev.rendezvous.service.domain.planning.Steps;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * Which hosts of a unit get a new plan pushed, and when their connectivity targets are pushed again: the
 * plan-and-push half of the brain's rules ({@link BrainRules} settles the state first). No I/O.
 */
final class PushRules {
  /** The shortest next_instruction_seconds the planner gives: a pushed plan is never due earlier. */
  static final int SHORTEST_PLAN_SECONDS = 60;
  /**
   * The shortest time between two pushes of a host for its connectivity targets alone: each makes a new report of
   * every peer and a round of them costs O(hosts²), so the wait grows with the square of the cluster (2 s up to 150
   * hosts, 7 s at 300, 30 s from 600: a 1,000-host cluster's round of ~300 KB reports takes the brain ~20 s here).
   */
  static long targetsRefreshSeconds(int hosts) {
    return Math.max(2, Math.min(30, (long) hosts * hosts / 12_000));
  }

  /**
   * Whether a host's first connectivity check waits for the cluster's arrivals to settle: where a re-check must wait
   * longer than the shortest interval (from ~190 hosts), a first check made while peers still arrive lists only some
   * of them, and the full one follows only that much later (a 1,000-host cluster sent ~1,250 partial reports of up to
   * 300 KB in its registration burst, then waited 30 s for the full round). Its first plans carry the other steps
   * only; the targets pass after the burst pushes it the check with every peer.
   */
  static boolean firstCheckWaitsForArrivals(int hosts) {
    return targetsRefreshSeconds(hosts) > 2;
  }

  private final NextStepPlanner planner;

  PushRules(NextStepPlanner planner) {
    this.planner = planner;
  }

  /**
   * Plans every host's next steps and pushes a plan when it differs from the last one pushed (status or step
   * set), when it is due again (its next_instruction_seconds elapsed since the last push), or when forced
   * (a reconnected agent, a failed publish), or when its connectivity targets moved in a targets pass. Never on every
   * reply: an agent would loop on its steps. {@code pace} (1 = none) stretches how soon an unchanged plan is due again,
   * while the service is behind.
   */
  void plan(Work w, Function<HostSnapshot, PushMark> marks, double pace) {
    // Only hosts whose own state moved, forced ones and those due are planned (every host after a change of the
    // cluster's settings, which may add a step or move its arguments: vip_dhcp_allocation's lease step waited for the
    // hosts' next due plan, up to a minute, when no host's own state moved): another host's arrival changes
    // everyone's connectivity targets, which each host picks up at its next due plan (upstream's agents re-ask
    // every minute too), instead of one push to every host per arrival.
    // Before the key's plan floor no host it did not touch can be due: only the touched and forced ones are looked
    // at (a pass over a 1,000-host cluster's push marks per unit was ~6 % of the brain's CPU in a registration burst).
    // A pass over all of them finds the floor again.
    // A targets pass (debounced after hosts became or stopped being connectivity targets) also pushes, at most every
    // targetsRefreshSeconds per host, the hosts whose last plan listed another number of peers than there are now:
    // a cluster whose hosts arrived over a few seconds has every host check every peer soon after, not only at its
    // next due plan a minute later; and a host is no longer pushed new targets with every re-plan (the plan digest
    // leaves them out), which had each host of a 300-host cluster booting over 30 s re-check its peers every ~3 s.
    // In a big cluster a host's first check waits for that pass while peers arrive (firstCheckWaitsForArrivals).
    Instant floor = w.planFloor();
    boolean targetsPass = w.isTargetsPass();
    // peers still arriving (in this unit, or a targets pass pending): a host yet to check any waits for that pass
    boolean arriving = firstCheckWaitsForArrivals(w.hostCount()) && (w.targetsSettling() || w.targetsMoved());
    boolean settings = w.isSettingsPass(); // (its state, read again, has no floor either: kept for what it says)
    boolean all = targetsPass || settings || floor == null || !w.now.isBefore(floor);
    Instant nextFloor = null;
    Instant targetsRetry = null;
    NextStepPlanner.Memo memo = planMemo(w);
    int[] targets = {-1}; // the cluster's connectivity targets, counted when first needed
    for (UUID id : all ? w.hostIds() : w.touchedOrForced()) {
      HostSnapshot h = w.host(id);
      if (h == null || h.status() == null || (!h.unbound() && w.cluster() == null)) {
        continue;
      }
      PushMark last = marks.apply(h);
      boolean targetsDue = false;
      if (targetsPass && last != null && last.targets() >= 0) {
        int peers = peersToCheck(w, h, targets);
        if (peers >= 0 && peers != last.targets()) {
          if (last.targets() == 0) {
            targetsDue = !waitsForArrivals(w, h, last, arriving); // it has checked no peer yet: due at once
          } else {
            Instant again = last.pushedAt().plusSeconds(targetsRefreshSeconds(w.hostCount()));
            targetsDue = !w.now.isBefore(again);
            if (!targetsDue) {
              targetsRetry = earlier(targetsRetry, again);
            }
          }
        }
      }
      boolean mayBeDue = last == null || !w.now.isBefore(last.pushedAt().plusSeconds(SHORTEST_PLAN_SECONDS));
      if (!mayBeDue && !targetsDue && !settings && !w.forced(h.id()) && !w.hostChanged(h.id())) {
        nextFloor = earlier(nextFloor, last.pushedAt().plusSeconds(SHORTEST_PLAN_SECONDS));
        continue; // its own inputs did not move and it is not due: no need to plan it
      }
      // the digest leaves the targets out: they are written only for a plan that is pushed
      StepPlan p = planner.planWithoutTargets(h, w.cluster(), memo);
      String sig = PlanPublisher.signature(p.steps());
      int every = p.steps().nextInstructionSeconds();
      long dueAfter = (long) Math.ceil(every * Math.max(1.0, pace));
      boolean due = last == null || (every > 0 && !p.steps().instructions().isEmpty()
          && !w.now.isBefore(last.pushedAt().plusSeconds(dueAfter)));
      if (w.forced(h.id()) || due || targetsDue || !sig.equals(last.signature())) {
        if (upgrades(p.steps()) && (last == null || !last.upgrading())) {
          // once as the plans turn to it, not at each push (upstream rate-limits this event to one an hour)
          w.event(BrainRules.DomainEventFactory.host(h, "upgrade_agent_started", EventSeverity.INFO, "Host "
              + h.nameForMessages() + ": the agent " + h.discoveryAgentVersion() + " is being upgraded to "
              + planner.agentVersion()));
        }
        int peers = peersToCheck(w, h, targets);
        if (peers > 0 && waitsForArrivals(w, h, last, arriving)) {
          w.push(h, withoutConnectivityCheck(p), sig, 0); // 0 checked: the targets pass pushes it at once
        } else if (peers > 0 && w.fillsTargets(h)) {
          // its gateway fills in the targets from the cluster's one copy (published with the plans)
          if (w.checkTargets() == null) {
            w.checkTargets(NextStepPlanner.checkTargets(w.cluster(), memo));
          }
          w.push(h, p, sig, peers, true);
        } else {
          w.push(h, planner.plan(h, w.cluster(), memo), sig, peers);
        }
        nextFloor = earlier(nextFloor, w.now.plusSeconds(SHORTEST_PLAN_SECONDS));
      } else {
        nextFloor = earlier(nextFloor, last.pushedAt().plusSeconds(SHORTEST_PLAN_SECONDS));
      }
    }
    // a unit that looked at its touched hosts only keeps the floor: what it pushed is due later, not sooner
    w.planFloor(all ? (nextFloor == null ? w.now.plusSeconds(SHORTEST_PLAN_SECONDS) : nextFloor) : floor);
    w.targetsRetryAt(targetsRetry);
  }

  /**
   * Whether the host, which has checked no peer yet, waits with its connectivity check for the peers still arriving:
   * at most {@link #targetsRefreshSeconds} after it registered, so that a cluster whose hosts keep booting for minutes
   * still has its first ones check the peers there are.
   */
  private static boolean waitsForArrivals(Work w, HostSnapshot h, PushMark last, boolean arriving) {
    return arriving && (last == null || last.targets() <= 0) && h.registeredAt() != null
        && w.now.isBefore(h.registeredAt().plusSeconds(targetsRefreshSeconds(w.hostCount())));
  }

  private static StepPlan withoutConnectivityCheck(StepPlan p) {
    Steps s = p.steps();
    return new StepPlan(new Steps(s.nextInstructionSeconds(), s.postStepAction(),
        s.instructions().stream()
            .filter(st -> st.stepType() != StepType.CONNECTIVITY_CHECK)
            .toList()), p.events());
  }

  static boolean upgrades(Steps s) {
    return s.instructions().size() == 1
        && s.instructions().get(0).stepType() == StepType.UPGRADE_AGENT;
  }

  /** How many peers the host's connectivity check lists now; -1 when its status plans no connectivity check. */
  private static int peersToCheck(Work w, HostSnapshot h, int[] targets) {
    if (!NextStepPlanner.checksConnectivity(h, w.cluster())) {
      return -1;
    }
    if (targets[0] < 0) {
      int n = 0;
      for (UUID id : w.hostIds()) {
        if (NextStepPlanner.connectivityTarget(w.host(id))) {
          n++;
        }
      }
      targets[0] = n;
    }
    return targets[0] - (NextStepPlanner.connectivityTarget(h) ? 1 : 0);
  }

  private static Instant earlier(Instant a, Instant b) {
    return a == null || b.isBefore(a) ? b : a;
  }

  /** Each key's connectivity-check entries across its units ({@link NextStepPlanner.Memo}): a cache only. */
  private final Map<WorkKey, NextStepPlanner.Memo> planMemos = new java.util.concurrent.ConcurrentHashMap<>();

  /** Past this many keys the memos start over (deleted clusters' memos are not tracked otherwise). */
  private static final int PLAN_MEMO_KEYS = 4096;

  private NextStepPlanner.Memo planMemo(Work w) {
    if (w.cluster() == null || w.hostCount() < 3) {
      return new NextStepPlanner.Memo(); // one peer or none: nothing worth keeping (a single-node site keeps no memo)
    }
    if (planMemos.size() > PLAN_MEMO_KEYS) {
      planMemos.clear();
    }
    NextStepPlanner.Memo memo = planMemos.computeIfAbsent(w.base.key(), k -> new NextStepPlanner.Memo());
    if (memo.wantsPruning(w.hostCount())) {
      memo.prune(w.snapshots());
    }
    return memo;
  }
}
