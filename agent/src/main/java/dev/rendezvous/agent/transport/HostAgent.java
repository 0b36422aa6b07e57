package dev.rendezvous.agent.transport;

import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.TransportMode;
import dev.rendezvous.agent.step.StepRunner;
import dev.rendezvous.agent.wire.PostStepAction;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepReply;
import dev.rendezvous.agent.wire.Steps;
import dev.rendezvous.agent.wire.WsMessage;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocketConnectOptions;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One agent's life with the gateway: register (retrying with back-off), then hold the websocket and run
 * the steps it brings, or — when the upgrade is refused (404, 426, connection refused) in {@code auto}
 * mode, or in {@code http} mode — poll for steps over upstream's HTTP API. Reconnects with jittered
 * exponential back-off. A poll answered 404, or a websocket closed with {@code host-unknown}, means the service does
 * not have the host (deleted): the agent then stops asking and waits, as upstream's freezes, until it is stopped (a
 * reboot into discovery registers the host again). Ends when the gateway says {@code post_step_action: exit} or on
 * {@link #stop()}.
 *
 * <p>Replies: each finished step is sent at once (steps run concurrently, as upstream); a successful
 * reply identical to the last delivered one of its type is dropped ({@link ReplyCache}); over the
 * websocket a reply stays pending until acked, is resent after {@code bus-unavailable}, after a
 * reconnect, and goes over HTTP when larger than the gateway's {@code max_frame_bytes}.
 *
 * <p>Everything runs on one Vert.x context (an event loop); step executors run on the step pool.
 */
public final class HostAgent {
  private static final Logger LOG = LoggerFactory.getLogger(HostAgent.class);
  /** In auto mode after a fallback, the websocket is tried again this often. */
  static final long WEBSOCKET_RETRY_MS = 300_000;
  private static final int MAX_REPLY_ATTEMPTS = 10;

  private final Vertx vertx;
  private final AgentConfig config;
  private final String hostId;
  private final GatewayClient http;
  private final AgentClients clients;
  private final StepRunner steps;
  private final AgentStats stats;
  private final Backoff backoff;
  private final SplittableRandom random;
  private final ReplyCache cache = new ReplyCache(System::currentTimeMillis);
  private final Map<String, StepReply> unacked = new LinkedHashMap<>();
  private final Promise<Void> done = Promise.promise();
  private Context context;
  private WebSocketSession session;
  private boolean polling;
  private long pollingSince;
  private boolean stopped;
  /** The service does not have the host: nothing more is asked (stopped is set too), until {@link #stop()}. */
  private boolean frozen;
  private final java.util.Set<Long> timers = new java.util.HashSet<>();
  /** The version this agent was upgraded to (upgrade-agent answered success): it ends once that reply is delivered. */
  private String upgradedTo;
  private String upgradeStepId;

  public HostAgent(
      Vertx vertx, AgentConfig config, String hostId, AgentClients clients, StepRunner steps, AgentStats stats) {
    this.vertx = vertx;
    this.config = config;
    this.hostId = hostId;
    this.clients = clients;
    this.http = new GatewayClient(clients.web(), config.url(), config.token(), config.agentVersion());
    this.steps = steps;
    this.stats = stats;
    this.random = new SplittableRandom(hostId.hashCode() ^ System.nanoTime());
    this.backoff = new Backoff(config.backoffBase(), config.backoffCap(), random);
  }

  public String hostId() {
    return hostId;
  }

  public GatewayClient gateway() {
    return http;
  }

  /** Starts on a context of its own; the future completes when the agent ends (exit or stop). */
  public Future<Void> start() {
    context = vertx.getOrCreateContext();
    context.runOnContext(v -> register());
    return done.future();
  }

  public Future<Void> stop() {
    if (context == null) {
      return Future.succeededFuture();
    }
    context.runOnContext(v -> finish("stopped"));
    return done.future();
  }

  /** True while a websocket session is established (for tests and swarm statistics). */
  public boolean websocketOpen() {
    WebSocketSession s = session;
    return s != null && s.isOpen();
  }

  public boolean polling() {
    return polling;
  }

  /** True once the service said it does not have this host or its infra-env: the agent waits idle until stopped. */
  public boolean frozen() {
    return frozen;
  }

  // ---------------------------------------------------------------- registration and transport choice

  private void register() {
    if (stopped) {
      return;
    }
    http.register(config.infraEnvId(), hostId).onComplete(ar -> {
      if (stopped) {
        return;
      }
      if (ar.succeeded()) {
        stats.registrations.increment();
        backoff.reset();
        LOG.info("host {} registered with infra-env {}", hostId, config.infraEnvId());
        connect();
      } else {
        stats.registrationFailures.increment();
        if (ar.cause() instanceof GatewayException g && g.status() == 404 && g.fromService()) {
          // the infra-env was deleted: upstream's agent blocks forever here, asking again cannot change the answer
          // (a reboot into discovery starts over). A refused token (401, 403) is still asked again, with backoff:
          // an instance with another secret behind a load balancer is a misconfiguration that can be mended; so is
          // a 404 that is not the service's (a proxy's page, a wrong base path).
          freeze("registration of " + hostId + " refused: " + ar.cause().getMessage());
          return;
        }
        long delay = backoff.nextDelayMs();
        LOG.warn("registration of {} failed ({}); retrying in {} ms", hostId, ar.cause().getMessage(), delay);
        later(delay, this::register);
      }
    });
  }

  private void connect() {
    if (config.transport() == TransportMode.HTTP) {
      startPolling();
    } else {
      openWebSocket();
    }
  }

  private void openWebSocket() {
    if (stopped) {
      return;
    }
    URI u = config.url();
    String path = (u.getRawPath() == null ? "" : u.getRawPath().replaceAll("/+$", ""))
        + "/api/rendezvous/v1/infra-envs/" + config.infraEnvId() + "/hosts/" + hostId + "/ws";
    WebSocketConnectOptions options = new WebSocketConnectOptions()
        .setHost(u.getHost())
        .setPort(u.getPort() > 0 ? u.getPort() : config.tls() ? 443 : 80)
        .setSsl(config.tls())
        .setURI(path)
        .setConnectTimeout(10_000)
        .putHeader("X-Secret-Key", config.token());
    clients.webSocket().connect(options).onComplete(ar -> {
      if (stopped) {
        if (ar.succeeded()) {
          ar.result().close();
        }
        return;
      }
      if (ar.succeeded()) {
        WebSocketSession s = new WebSocketSession(vertx, ar.result(), config.agentVersion(), listener, stats);
        session = s;
        s.start().onComplete(end -> sessionEnded(s, end.result()));
        return;
      }
      Throwable t = ar.cause();
      int status = t instanceof UpgradeRejectedException u2 ? u2.getStatus() : -1;
      // a gateway without websockets answers the upgrade 404 or 426; a refused connection is a service that is down
      // for a while (restarting, upgraded): back off and come back to the websocket, not to minute-long polls
      boolean refused = status == 404 || status == 426;
      if (refused && config.transport() == TransportMode.AUTO) {
        LOG.info("websocket refused ({}); falling back to HTTP long-poll", status > 0 ? "HTTP " + status : t.toString());
        stats.httpFallbacks.increment();
        startPolling();
        return;
      }
      long delay = backoff.nextDelayMs();
      LOG.warn("websocket connect failed ({}); retrying in {} ms", t.toString(), delay);
      later(delay, status == 404 ? this::register : this::openWebSocket);
    });
  }

  private void sessionEnded(WebSocketSession s, WebSocketSession.End end) {
    if (session == s) {
      session = null;
    }
    if (stopped) {
      return;
    }
    switch (end) {
      case EXIT -> finish("post_step_action exit");
      case HOST_UNKNOWN -> freeze("the service does not have host " + hostId + " (deleted?)");
      case UNSUPPORTED_VERSION -> {
        if (config.transport() == TransportMode.AUTO) {
          LOG.warn("gateway speaks no websocket protocol version of ours; falling back to HTTP long-poll");
          stats.httpFallbacks.increment();
          startPolling();
        } else {
          later(backoff.nextDelayMs(), this::openWebSocket);
        }
      }
      case CLOSED -> {
        stats.reconnects.increment();
        cache.clear();
        long delay = backoff.nextDelayMs();
        LOG.info("websocket closed; reconnecting in {} ms", delay);
        later(delay, this::openWebSocket);
      }
    }
  }

  private final WebSocketSession.Listener listener = new WebSocketSession.Listener() {
    @Override
    public void established(WebSocketSession s, WsMessage.Welcome welcome) {
      stats.websocketSessions.increment();
      backoff.reset();
      cache.clear();
      LOG.info("websocket session up (protocol v{}, heartbeat {} s)", welcome.version(), welcome.heartbeatSeconds());
      for (StepReply r : List.copyOf(unacked.values())) {
        stats.repliesResent.increment();
        deliver(r);
      }
    }

    @Override
    public void steps(WebSocketSession s, Steps batch) {
      List<Future<Void>> replies = runAll(batch);
      if (batch.postStepAction() == PostStepAction.EXIT) {
        Future.join(replies).onComplete(x -> later(Math.max(1, batch.nextInstructionSeconds() * 1000L), () -> {
          WebSocketSession current = session;
          if (current != null) {
            current.closeForExit();
          } else {
            finish("post_step_action exit");
          }
        }));
      }
    }

    @Override
    public void ack(String stepId) {
      StepReply r = unacked.remove(stepId);
      if (r != null) {
        stats.repliesDelivered.increment();
        cache.delivered(r);
        delivered(r);
      }
    }

    @Override
    public void error(WebSocketSession s, WsMessage.Error e) {
      StepReply r = e.stepId() == null ? null : unacked.get(e.stepId());
      LOG.info("gateway error {}: {} (step {})", e.code(), e.reason(), e.stepId());
      if (r == null) {
        return;
      }
      if ("frame-too-large".equals(e.code())) {
        postReply(r, 0);
      } else if (e.isRetryable()) {
        long delay = config.backoffBase().toMillis() + random.nextLong(4 * config.backoffBase().toMillis() + 1);
        later(delay, () -> {
          if (unacked.containsKey(r.stepId())) {
            stats.repliesResent.increment();
            deliver(r);
          }
        });
      } else {
        unacked.remove(e.stepId());
      }
    }
  };

  // ---------------------------------------------------------------- HTTP long-poll

  private void startPolling() {
    polling = true;
    pollingSince = System.currentTimeMillis();
    for (StepReply r : List.copyOf(unacked.values())) {
      unacked.remove(r.stepId());
      postReply(r, 0);
    }
    poll();
  }

  private void poll() {
    if (stopped) {
      return;
    }
    if (config.transport() == TransportMode.AUTO && System.currentTimeMillis() - pollingSince > WEBSOCKET_RETRY_MS) {
      polling = false;
      openWebSocket();
      return;
    }
    long t0 = System.currentTimeMillis();
    http.nextSteps(config.infraEnvId(), hostId, config.longPollWaitSeconds()).onComplete(ar -> {
      if (stopped) {
        return;
      }
      if (ar.failed()) {
        cache.clear();
        if (ar.cause() instanceof GatewayException g && g.status() == 404 && g.fromService()) {
          freeze("the service does not have host " + hostId + " (deleted?)");
          return;
        }
        long delay = backoff.nextDelayMs();
        LOG.warn("polling for steps failed ({}); retrying in {} ms", ar.cause().getMessage(), delay);
        later(delay, this::poll);
        return;
      }
      backoff.reset();
      Steps batch = ar.result();
      runAll(batch);
      long delay = batch.nextInstructionSeconds() * 1000L;
      if (delay == 0 && batch.instructions().isEmpty() && System.currentTimeMillis() - t0 < 1000) {
        delay = 1000; // a gateway answering "nothing" at once must not make us spin
      }
      if (batch.postStepAction() == PostStepAction.EXIT) {
        later(Math.max(1, delay), () -> finish("post_step_action exit"));
      } else {
        later(delay, this::poll);
      }
    });
  }

  // ---------------------------------------------------------------- steps and replies

  private List<Future<Void>> runAll(Steps batch) {
    List<Future<Void>> replies = new ArrayList<>();
    for (Step step : batch.instructions()) {
      stats.stepsReceived.increment();
      replies.add(steps.run(step).map(reply -> {
        dev.rendezvous.agent.executor.UpgradeAgentExecutor.upgradedTo(reply.stepType(), reply.exitCode(), reply.output())
            .ifPresent(v -> {
              upgradedTo = v;
              upgradeStepId = reply.stepId();
              later(10_000, () -> finish("upgraded to " + v + " (its reply not confirmed)")); // not forever
            });
        deliver(reply);
        return (Void) null;
      }));
    }
    return replies;
  }

  private void deliver(StepReply reply) {
    if (stopped) {
      return;
    }
    if (cache.isDuplicate(reply)) {
      stats.repliesDeduplicated.increment();
      unacked.remove(reply.stepId());
      return;
    }
    WebSocketSession s = session;
    if (s != null && s.isOpen()) {
      unacked.put(reply.stepId(), reply);
      switch (s.send(reply)) {
        case SENT -> stats.repliesSent.increment();
        case TOO_LARGE -> {
          unacked.remove(reply.stepId());
          postReply(reply, 0);
        }
        case NOT_OPEN -> { /* stays pending; sent again when a session is up */ }
      }
    } else if (polling) {
      postReply(reply, 0);
    } else {
      unacked.put(reply.stepId(), reply); // between sessions: sent once connected
    }
  }

  /** The service has a reply: after the one saying this agent was upgraded, it ends to start again as the new one. */
  private void delivered(StepReply reply) {
    if (upgradedTo != null && reply.stepId().equals(upgradeStepId)) {
      finish("upgraded to " + upgradedTo + "; starting again as it");
    }
  }

  /** The version an upgrade-agent step made this agent, once it ended for it; empty otherwise. */
  public java.util.Optional<String> upgradedTo() {
    return stopped ? java.util.Optional.ofNullable(upgradedTo) : java.util.Optional.empty();
  }

  /** POST with retries: 503 after Retry-After, other 5xx and network errors with back-off. */
  private void postReply(StepReply reply, int attempt) {
    if (stopped) {
      return;
    }
    stats.repliesSent.increment();
    http.postReply(config.infraEnvId(), hostId, reply).onComplete(ar -> {
      if (ar.succeeded()) {
        stats.repliesDelivered.increment();
        cache.delivered(reply);
        delivered(reply);
        return;
      }
      Throwable t = ar.cause();
      int status = t instanceof GatewayException g ? g.status() : -1;
      boolean retryable = status < 0 || status >= 500 || status == 429 || status == 408;
      if (!retryable || attempt + 1 >= MAX_REPLY_ATTEMPTS) {
        LOG.warn("reply to step {} dropped: {}", reply.stepId(), t.getMessage());
        return;
      }
      long delay;
      if (t instanceof GatewayException g && g.retryAfterSeconds() >= 0) {
        delay = Math.min(60, g.retryAfterSeconds()) * 1000L + 1;
      } else {
        long base = config.backoffBase().toMillis();
        delay = base + random.nextLong(Math.min(config.backoffCap().toMillis(), base << Math.min(attempt + 1, 20)));
      }
      stats.repliesResent.increment();
      later(delay, () -> postReply(reply, attempt + 1));
    });
  }

  // ---------------------------------------------------------------- plumbing

  private void later(long delayMs, Runnable action) {
    if (stopped) {
      return;
    }
    if (delayMs <= 0) {
      context.runOnContext(v -> action.run());
      return;
    }
    long[] id = new long[1];
    id[0] = vertx.setTimer(delayMs, t -> {
      timers.remove(id[0]);
      action.run();
    });
    timers.add(id[0]);
  }

  /**
   * Upstream's "404 -> freeze forever" (and its registration's "log and block forever"): the agent stops asking, so
   * a deletion holds.
   */
  private void freeze(String why) {
    if (stopped) {
      return;
    }
    stopped = true;
    frozen = true;
    polling = false;
    timers.forEach(vertx::cancelTimer);
    timers.clear();
    LOG.warn("{}; waiting idle until stopped (reboot to discover the host again)", why);
  }

  private void finish(String why) {
    if (stopped && !frozen) {
      return;
    }
    stopped = true;
    polling = false;
    timers.forEach(vertx::cancelTimer);
    timers.clear();
    WebSocketSession s = session;
    if (s != null) {
      s.close((short) 1000, "agent exiting");
    }
    LOG.info("agent {} ends: {}", hostId, why);
    done.tryComplete();
  }
}
