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
  private final List<HostAgent> agents;
  private final List<Future<Void>> ended;
  /** Set by {@link #stop}: an agent whose boot was still to come never starts. */
  private final java.util.concurrent.atomic.AtomicBoolean stopped;

  private AgentSwarm(AgentRuntime runtime, List<HostAgent> agents, List<Future<Void>> ended,
      java.util.concurrent.atomic.AtomicBoolean stopped) {
    this.runtime = runtime;
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
    AgentRuntime runtime = AgentRuntime.create(vertx, base, count);
    List<HostAgent> agents = new ArrayList<>(count);
    List<Future<Void>> ended = new ArrayList<>(count);
    java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
    for (int i = 0; i < count; i++) {
      HostAgent a = runtime.dryRunAgent(base.forSwarmMember(i, memberHostId(base.infraEnvId(), i)));
      agents.add(a);
      long delayMs = count <= 1 ? 0 : bootSpread.toMillis() * i / count;
      if (delayMs == 0) {
        ended.add(a.start());
      } else {
        io.vertx.core.Promise<Void> end = io.vertx.core.Promise.promise();
        ended.add(end.future());
        vertx.setTimer(delayMs, t -> {
          if (stopped.get()) {
            end.tryComplete();
          } else {
            a.start().onComplete(end);
          }
        });
      }
    }
    return new AgentSwarm(runtime, agents, ended, stopped);
  }

  public static String memberHostId(String infraEnvId, int index) {
    return UUID.nameUUIDFromBytes(("rdv-swarm:" + infraEnvId + ":" + index).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  public List<HostAgent> agents() {
    return List.copyOf(agents);
  }

  public AgentStats stats() {
    return runtime.stats();
  }

  /** Completes when every agent has ended (each got post_step_action exit, or stop). */
  public Future<Void> allEnded() {
    return Future.join(ended).mapEmpty();
  }

  public Future<Void> stop() {
    stopped.set(true);
    List<Future<Void>> stops = new ArrayList<>();
    for (HostAgent a : agents) {
      stops.add(a.stop());
    }
    return Future.join(stops).compose(v -> runtime.close()).mapEmpty();
  }
}
