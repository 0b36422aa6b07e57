package dev.rendezvous.service.consumers;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.ClusterActionRequested;
import dev.rendezvous.bus.event.ClusterPreparationFinished;
import dev.rendezvous.bus.event.FinalizingStageReported;
import dev.rendezvous.bus.event.InstallationCompletionReported;
import dev.rendezvous.bus.event.KubeconfigStored;
import dev.rendezvous.bus.event.LogsReported;
import dev.rendezvous.bus.event.OperatorStatusReported;
import dev.rendezvous.bus.event.HostProgressReported;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.service.ServiceConfig;
import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.brain.BrainMonitor;
import dev.rendezvous.service.domain.cluster.InstallReports;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's consumer group on the agent-facing topics and the cluster actions, feeding the
 * {@link Brain}. Keyed by cluster id, so one instance handles a cluster's events in order; every handler
 * is idempotent (bus event ids are claimed in the unit of work's transaction). Also runs the clock-driven
 * {@link BrainMonitor} over the clusters of the partitions this instance owns.
 */
public final class BrainConsumer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BrainConsumer.class);
  public static final String GROUP = "rdv-service-brain";
  static final List<String> TOPICS = List.of(Topics.HOST_REGISTRATIONS, Topics.AGENT_PRESENCE, Topics.STEP_REPLIES,
      Topics.INSTALL_PROGRESS, Topics.CLUSTER_ACTIONS);

  private final Brain brain;
  private final BusConsumer consumer;
  private final BrainMonitor monitor;

  public BrainConsumer(Vertx vertx, Pool pool, BusProducer producer, String bootstrap, ServiceConfig config) {
    this(vertx, pool, producer, bootstrap, config, Clock.systemUTC());
  }

  public BrainConsumer(Vertx vertx, Pool pool, BusProducer producer, String bootstrap, ServiceConfig config,
      Clock clock) {
    this(new Brain(vertx, pool, producer, config.domainConfig(), clock), vertx, bootstrap,
        config.brain().monitorInterval().toMillis());
  }

  /** Around a given brain (shared with the REST API, or built by a benchmark). */
  public BrainConsumer(Brain brain, Vertx vertx, String bootstrap, long monitorIntervalMillis) {
    this.brain = brain;
    // One cluster's events are handled one at a time across all these topics: a single writer per cluster.
    this.consumer = BusConsumer.builder(bootstrap).groupId(GROUP).clientId("rdv-brain")
        .topics(TOPICS)
        .orderAcrossTopics()
        .handler(this::dispatch)
        .start();
    this.monitor = new BrainMonitor(vertx, brain, consumer, bootstrap, Topics.HOST_REGISTRATIONS);
    monitor.start(monitorIntervalMillis);
  }

  public Brain brain() {
    return brain;
  }

  public CompletableFuture<Void> started() {
    return consumer.started();
  }

  /** Records handled and skipped so far (tests, benchmarks). */
  public long handledCount() {
    return consumer.handledCount();
  }

  private CompletionStage<Void> dispatch(BusEvent event) {
    Future<?> f;
    try {
      if (event.payload() instanceof HostRegistered reg) {
        f = brain.hostRegistered(event, reg);
      } else if (event.payload() instanceof StepReplyReceived reply) {
        f = brain.stepReply(event, reply);
      } else if (event.payload() instanceof AgentPresence p) {
        f = brain.presence(event, p);
      } else if (event.payload() instanceof HostProgressReported p) {
        f = brain.progress(event, p);
      } else if (event.payload() instanceof ClusterActionRequested a) {
        f = brain.clusterAction(event, a);
      } else if (event.payload() instanceof ClusterPreparationFinished p) {
        f = brain.preparationFinished(event, p);
      } else if (event.payload() instanceof FinalizingStageReported p) {
        f = brain.clusterReport(event, (c, now) -> InstallReports.finalizingStage(c, p.finalizingStage(), now));
      } else if (event.payload() instanceof OperatorStatusReported p) {
        f = brain.clusterReport(event, (c, now) -> InstallReports.operatorStatus(c, p.name(), p.status(), p.statusInfo(),
            p.version(), now));
      } else if (event.payload() instanceof KubeconfigStored) {
        f = brain.clusterReport(event, (c, now) -> InstallReports.kubeconfigStored(c));
      } else if (event.payload() instanceof InstallationCompletionReported p) {
        f = brain.clusterReport(event, (c, now) -> InstallReports.completionReported(c, p.isSuccess(), p.errorInfo(),
            p.operatorsReport()));
      } else if (event.payload() instanceof LogsReported l) {
        f = brain.logs(event, l);
      } else {
        f = Future.succeededFuture();
      }
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    f.onComplete(ar -> {
      if (ar.succeeded()) {
        done.complete(null);
      } else {
        LOG.atWarn().setCause(ar.cause()).addKeyValue("event_id", event.eventId()).addKeyValue("type", event.type())
            .log("brain handler failed");
        done.completeExceptionally(ar.cause());
      }
    });
    return done;
  }

  @Override
  public void close() {
    monitor.stop();
    consumer.close();
  }
}
