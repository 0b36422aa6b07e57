package dev.rendezvous.agent;

import dev.rendezvous.agent.transport.AgentStats;
import dev.rendezvous.agent.transport.HostAgent;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * N dry-run agents in one JVM sharing one Vert.x, one HTTP client pool, one websocket client and one
 * step pool: the load generator for the gateway. Agent i has host id
 * {@code UUID.nameUUIDFromBytes("rdv-swarm:<infra-env>:<i>")} (stable across runs, distinct per infra-env)
 * and the i-th address of {@code --dry-run-cidr}.
 *
 * <pre>{@code
 * AgentSwarm swarm = AgentSwarm.start(vertx, AgentConfig.parse(args, env), 1000);
 * ... swarm.stats() ...
 * swarm.stop();
 * }</pre>
 */
public final class AgentSwarm {
  private final AgentRuntime runtime;
  /** False when the runtime is shared with other swarms: its owner closes it. */
  private final boolean ownsRuntime;
  private final List<HostAgent> agents;
  private final List<Future<Void>> ended;
  /** Set by {@link #stop}: an agent whose boot was still to come never starts. */
  private final java.util.concurrent.atomic.AtomicBoolean stopped;

  private AgentSwarm(AgentRuntime runtime, boolean ownsRuntime, List<HostAgent> agents, List<Future<Void>> ended,
      java.util.concurrent.atomic.AtomicBoolean stopped) {
    this.runtime = runtime;
    this.ownsRuntime = ownsRuntime;
    this.agents = agents;
    this.ended = ended;
    this.stopped = stopped;
  }

  /** Starts {@code count} dry-run agents from {@code base} (its URL, infra-env, token, transport). */
  public static AgentSwarm start(Vertx vertx, AgentConfig base, int count) {
    return start(vertx, base, count, java.time.Duration.ZERO);
  }

  /**
   * As {@link #start(Vertx, AgentConfig, int)}, agent i booting {@code i/count} of {@code bootSpread} after the first:
   * machines of a site rarely boot the discovery image in the same second, and what the service does while a
   * cluster's hosts trickle in (peers that arrive after a host's first connectivity check) differs from a burst.
   */
  public static AgentSwarm start(Vertx vertx, AgentConfig base, int count, java.time.Duration bootSpread) {
    return start(vertx, AgentRuntime.create(vertx, base, count), true, base, count, bootSpread);
  }

  /**
   * As {@link #start(Vertx, AgentConfig, int, java.time.Duration)} on {@code shared}, a runtime that many swarms of one
   * process use (one step pool, one set of installer timers and HTTP client, one websocket client) and that its owner
   * closes: a swarm process of thousands of sites had a runtime per site, ~4 threads each (their HTTP clients' selector
   * and workers, the installers' timers), and reached the machine's task limit (issue 40).
   */
  public static AgentSwarm start(Vertx vertx, AgentRuntime shared, AgentConfig base, int count,
      java.time.Duration bootSpread) {
    return start(vertx, shared, false, base, count, bootSpread);
  }

  private static AgentSwarm start(Vertx vertx, AgentRuntime runtime, boolean owns, AgentConfig base, int count,
      java.time.Duration bootSpread) {
    List<HostAgent> agents = new ArrayList<>(count);
    List<Future<Void>> ended = new ArrayList<>(count);
    java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
    for (int i = 0; i < count; i++) {
      AgentConfig member = base.forSwarmMember(i, memberHostId(base.infraEnvId(), i));
      HostAgent a = runtime.dryRunAgent(member);
      agents.add(a);
      long delayMs = count <= 1 ? 0 : bootSpread.toMillis() * i / count;
      io.vertx.core.Promise<Void> end = io.vertx.core.Promise.promise();
      ended.add(end.future());
      int index = i;
      vertx.setTimer(Math.max(1, delayMs), t -> {
        if (stopped.get()) {
          end.tryComplete();
        } else {
          runUntilStopped(vertx, runtime, member, a, index, agents, stopped, end);
        }
      });
    }
    return new AgentSwarm(runtime, owns, agents, ended, stopped);
  }

  /**
   * Runs a member's agent; when the service tells it to exit (binding or unbinding a host: upstream's agent exits so
   * that it registers again) a new one starts a second later, as systemd's {@code Restart=always} on a real host does.
   * {@code end} completes once the swarm is stopped.
   */
  private static void runUntilStopped(Vertx vertx, AgentRuntime runtime, AgentConfig member, HostAgent agent,
      int index, List<HostAgent> agents, java.util.concurrent.atomic.AtomicBoolean stopped,
      io.vertx.core.Promise<Void> end) {
    agent.start().onComplete(ar -> {
      if (stopped.get() || agent.frozen()) {
        end.tryComplete();
        return;
      }
      vertx.setTimer(1000, t -> {
        HostAgent next;
        AgentConfig restarted;
        synchronized (agents) { // stop() takes its snapshot under the same lock: a new agent is seen or never made
          if (stopped.get()) {
            end.tryComplete();
            return;
          }
          // an upgraded agent starts again as the version it became (a real one: the jar it put in its place)
          AgentConfig as = agent.upgradedTo().map(member::withAgentVersion).orElse(member);
          next = runtime.dryRunAgent(as);
          agents.set(index, next);
          restarted = as;
        }
        runUntilStopped(vertx, runtime, restarted, next, index, agents, stopped, end);
      });
    });
  }

  public static String memberHostId(String infraEnvId, int index) {
    return UUID.nameUUIDFromBytes(("rdv-swarm:" + infraEnvId + ":" + index).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  /** Each member's current agent (a restarted member has a new one). */
  public List<HostAgent> agents() {
    synchronized (agents) {
      return List.copyOf(agents);
    }
  }

  public AgentStats stats() {
    return runtime.stats();
  }

  /** Completes when every member has ended: stopped, or frozen (the service does not have its host). */
  public Future<Void> allEnded() {
    return Future.join(ended).mapEmpty();
  }

  /**
   * After {@link #stop()}: its controllers finished their last reports, or were closed after the grace period (a
   * shared runtime's controllers: once its owner closed it).
   */
  public java.util.concurrent.CompletableFuture<Void> controllersClosed() {
    return ownsRuntime ? runtime.controllersClosed() : java.util.concurrent.CompletableFuture.completedFuture(null);
  }

  public Future<Void> stop() {
    List<Future<Void>> stops = new ArrayList<>();
    synchronized (agents) {
      stopped.set(true);
      for (HostAgent a : agents) {
        stops.add(a.stop());
      }
    }
    for (Future<Void> e : ended) {
      stops.add(e);
    }
    return Future.join(stops).compose(v -> ownsRuntime ? runtime.close() : Future.<Void>succeededFuture()).mapEmpty();
  }
}
