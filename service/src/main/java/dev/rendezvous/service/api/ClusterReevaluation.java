package dev.rendezvous.service.api;

import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.brain.WorkKey;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After a user changed what a cluster's rules read (its settings, its custom manifests), the brain evaluates it at once,
 * as upstream's does, so the answer's validations and status already say what the change did. A failure is logged and
 * the answer goes out anyway: the monitor's next pass catches up.
 */
final class ClusterReevaluation {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterReevaluation.class);

  private ClusterReevaluation() {}

  /** Completes on {@code ctx} (the request's) once the cluster was evaluated, or its evaluation failed. */
  static Future<Void> now(Brain brain, UUID clusterId, Context ctx) {
    if (brain == null) {
      return Future.succeededFuture();
    }
    return Future.fromCompletionStage(brain.settingsChanged(WorkKey.cluster(clusterId)).toCompletionStage(), ctx)
        .<Void>mapEmpty().recover(e -> {
          LOG.atWarn().setCause(e).addKeyValue("cluster_id", clusterId)
              .log("evaluating the cluster after a change failed; the monitor retries");
          return Future.succeededFuture();
        });
  }
}
