package dev.rendezvous.agent;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import dev.rendezvous.agent.transport.HostAgent;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;

/**
 * {@code rendezvous-agent}: one agent for this host, or with {@code --swarm N --dry-run} N simulated hosts.
 * Exit codes: 0 when the gateway said {@code post_step_action: exit}; 2 on bad flags.
 */
public final class AgentMain {
  static final String USAGE = """
      usage: rendezvous-agent --url URL --infra-env-id UUID [--token-file PATH] [options]
        token: --token-file, else env RDV_AGENT_TOKEN, else env PULL_SECRET_TOKEN
        --insecure                   do not verify the gateway's TLS certificate
        --cacert PATH                extra PEM roots for the gateway's certificate
        --transport auto|websocket|http   (default auto: websocket, HTTP long-poll when refused)
        --host-id UUID               override the discovered host id
        --hostname NAME              override the reported hostname
        --dry-run                    answer every step with canned data (no host access)
        --swarm N                    with --dry-run: run N simulated agents in this process (one told to exit starts
                                     again, as systemd restarts a real one; runs until stopped)
        --dry-run-cidr CIDR          network of simulated hosts (default 10.200.0.0/16)
        --log-file PATH              also log to this file (collected by the logs-gather step)
        --step-timeout-seconds N     default time limit of one step (600)
        --step-threads N             step worker threads (4)
        --long-poll-wait-seconds N   wait_seconds asked on GET instructions (30)
        --host-root PATH             read /proc, /sys, /dev, /etc below PATH (default /)
      every flag also reads from env RDV_AGENT_<FLAG> (e.g. RDV_AGENT_URL, RDV_AGENT_INFRA_ENV_ID)
      """;

  private AgentMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
      System.out.print(USAGE);
      return;
    }
    AgentConfig config;
    try {
      config = AgentConfig.parse(args, System.getenv());
    } catch (ConfigException e) {
      System.err.println("rendezvous-agent: " + e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
      return;
    }
    config.logFile().ifPresent(AgentMain::logTo);
    org.slf4j.Logger log = LoggerFactory.getLogger(AgentMain.class);
    log.info("starting rendezvous-agent {}: {}", AgentVersion.VERSION, config);

    Vertx vertx = Vertx.vertx();
    int count = config.swarm() > 0 ? config.swarm() : 1;
    CountDownLatch ended = new CountDownLatch(1);
    Future<Void> done;
    Runnable stop;
    if (config.swarm() > 0) {
      AgentSwarm swarm = AgentSwarm.start(vertx, config, count);
      long stats = vertx.setPeriodic(10_000, t -> log.info("swarm: {}", swarm.stats()));
      done = swarm.allEnded().onComplete(x -> vertx.cancelTimer(stats));
      stop = swarm::stop;
    } else {
      AgentRuntime runtime = AgentRuntime.create(vertx, config, 1);
      HostAgent agent = runtime.agent(config);
      log.info("host id {}", agent.hostId());
      done = agent.start();
      stop = agent::stop;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "rdv-agent-shutdown"));
    done.onComplete(x -> ended.countDown());
    ended.await();
    vertx.close().toCompletionStage().toCompletableFuture().join();
    System.exit(0);
  }

  private static void logTo(Path file) {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(ctx);
    encoder.setPattern("%d{ISO8601} %-5level [%thread] %logger{36} - %msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> appender = new FileAppender<>();
    appender.setContext(ctx);
    appender.setName("agent-file");
    appender.setFile(file.toString());
    appender.setEncoder(encoder);
    appender.start();
    ctx.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
  }
}
