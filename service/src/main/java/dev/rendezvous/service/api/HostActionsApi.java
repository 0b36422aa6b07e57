package dev.rendezvous.service.api;

import static dev.rendezvous.service.api.ClusterActionsApi.domain;
import static dev.rendezvous.service.api.ClusterActionsApi.reply;

import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.brain.UserActions;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import dev.rendezvous.service.repo.InfraEnvRepository;
import dev.rendezvous.service.repo.InfraEnvRepository.InfraEnvRow;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Host actions under {@code /v2/infra-envs/{infra_env_id}/hosts/{host_id}}: late binding (bind, unbind), day-2 reset
 * and install, reset of a persisted validation, and extra coreos-installer arguments. Every status change goes
 * through the host state machine in the brain ({@link UserActions}); this class checks the request and ownership.
 */
public final class HostActionsApi {
  /** coreos-installer flags upstream accepts (pkg/validations allowedFlags). */
  static final List<String> ALLOWED_FLAGS = List.of("--append-karg", "--delete-karg", "-n", "--copy-network",
      "--network-dir", "--save-partlabel", "--save-partindex", "--image-url", "--image-file");
  private static final Pattern FLAG = Pattern.compile("^-+.*");
  private static final Pattern VALUE = Pattern.compile("^[A-Za-z0-9@!#$%*()_+\\-=/.,\";':{}\\[\\]]+$");

  private final Pool db;
  private final UserActions actions;
  private final Function<InfraEnvRow, String> bootArtifacts;

  /** {@code bootArtifacts}: a reclaimed host's download-boot-artifacts request for its infra-env (null: no reclaim). */
  public HostActionsApi(Pool db, UserActions actions, Function<InfraEnvRow, String> bootArtifacts) {
    this.db = db;
    this.actions = actions;
    this.bootArtifacts = bootArtifacts;
  }

  /** Mount after the user auth handler. */
  public void mount(Router router) {
    String h = ApiViews.BASE + "/infra-envs/:infra_env_id/hosts/:host_id";
    router.post(h + "/actions/bind").handler(this::bind);
    router.post(h + "/actions/unbind").handler(this::unbind);
    router.post(h + "/actions/reset").handler(this::reset);
    router.post(h + "/actions/install").handler(this::install);
    router.patch(h + "/actions/reset-validation/:validation_id").handler(this::resetValidation);
    router.patch(h + "/installer-args").handler(this::installerArgs);
  }

  private void bind(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      JsonObject body = Requests.body(ctx);
      Object raw = body.getValue("cluster_id");
      if (raw == null) {
        throw new InvalidInputException("cluster_id", "is required");
      }
      UUID clusterId;
      try {
        clusterId = UUID.fromString(String.valueOf(raw));
      } catch (IllegalArgumentException e) {
        throw new InvalidInputException("cluster_id", "'" + raw + "' is not a UUID");
      }
      return host(t, ie, id).compose(h -> {
        if (h.clusterId() != null) {
          throw ApiError.conflict("Host " + id + " is already bound to cluster " + h.clusterId());
        }
        return ClusterRepository.get(db, t.name(), clusterId).compose(c -> {
          if (c.isEmpty()) {
            throw new ApiError(400, "cluster_id", "Failed to find cluster " + clusterId);
          }
          return infraEnv(t, ie).map(e -> {
            String ieArch = e.spec().getString("cpu_architecture", "x86_64");
            String clArch = c.get().spec().getString("cpu_architecture", "x86_64");
            if (!clArch.equals("multi") && !normalArch(ieArch).equals(normalArch(clArch))) {
              throw new ApiError(400, "cluster_id", "InfraEnv's CPU architecture (" + ieArch
                  + ") doesn't match the cluster (" + clArch + ")");
            }
            return e;
          });
        });
      }).compose(e -> domain(actions.hostAction(ie, id, new HostEvent.Bind(clusterId))))
          .compose(v -> host(t, ie, id)).map(ApiViews::host);
    });
  }

  private static String normalArch(String a) {
    return "aarch64".equals(a) ? "arm64" : a;
  }

  /**
   * Unbinds the host from its cluster. {@code ?reclaim=true} (ours; upstream reclaims only from its kube-API face,
   * which our hub reconciler calls this for) also reclaims an installed host for reuse: its agent is given the
   * discovery image as a boot entry and reboots into it, and the host comes back as discovering-unbound.
   */
  private void unbind(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      boolean reclaim = Requests.queryBool(ctx, "reclaim", false);
      if (reclaim && bootArtifacts == null) {
        throw ApiError.conflict("Host " + id + " cannot be reclaimed: this service has no discovery image to give it");
      }
      return host(t, ie, id).compose(h -> {
        if (h.clusterId() == null) {
          throw ApiError.conflict("Host " + id + " is already unbound");
        }
        return infraEnv(t, ie);
      }).compose(e -> {
        if (e.clusterId() != null) {
          throw ApiError.conflict("Cannot unbind Host " + id + ". InfraEnv " + ie + " is bound to Cluster " + e.clusterId());
        }
        return domain(actions.hostAction(ie, id, reclaim ? new HostEvent.Reclaim(bootArtifacts.apply(e))
            : new HostEvent.Unbind()));
      }).compose(v -> host(t, ie, id)).map(ApiViews::host);
    });
  }

  /** Day-2 hosts only, as upstream: a failed host added to an existing cluster goes back to discovery. */
  private void reset(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      return host(t, ie, id).compose(h -> {
        requireDay2(h);
        return domain(actions.hostAction(ie, id, new HostEvent.ResetPendingUserAction()));
      }).compose(v -> host(t, ie, id)).map(ApiViews::host);
    });
  }

  private void install(RoutingContext ctx) {
    reply(ctx, 202, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      return host(t, ie, id).compose(h -> {
        if (h.clusterId() == null) {
          throw new ApiError(404, null, "host " + id + " is not bound to any cluster");
        }
        requireDay2(h);
        if (!"known".equals(h.status())) {
          throw ApiError.conflict("cannot install host in state " + h.status());
        }
        return domain(actions.hostAction(ie, id, new HostEvent.InstallHost()));
      }).compose(v -> host(t, ie, id)).map(ApiViews::host);
    });
  }

  private static void requireDay2(HostRow h) {
    boolean day2 = h.state() != null && h.state().getBoolean("day2", false);
    if (!day2) {
      throw ApiError.conflict("method only allowed when adding hosts to an existing cluster");
    }
    if (h.clusterId() == null) {
      throw ApiError.conflict("method only allowed when host assigned to an existing cluster");
    }
  }

  private void resetValidation(RoutingContext ctx) {
    reply(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      String validation = ctx.pathParam("validation_id");
      return host(t, ie, id).compose(h -> domain(actions.resetValidation(ie, id, validation))).map(v -> null);
    });
  }

  private void installerArgs(RoutingContext ctx) {
    reply(ctx, 201, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID ie = Requests.pathUuid(ctx, "infra_env_id");
      UUID id = Requests.pathUuid(ctx, "host_id");
      List<String> args = args(Requests.body(ctx));
      return host(t, ie, id).compose(h -> domain(actions.installerArgs(ie, id, args)))
          .compose(v -> host(t, ie, id)).map(ApiViews::host);
    });
  }

  /** installer-args-params: {@code args} strings, flags from upstream's allowed list, values of its charset. */
  static List<String> args(JsonObject body) {
    Object raw = body.getValue("args");
    if (raw == null) {
      throw new InvalidInputException("args", "is required");
    }
    if (!(raw instanceof JsonArray a)) {
      throw new InvalidInputException("args", "must be a list of strings");
    }
    if (a.size() > 256) {
      throw new InvalidInputException("args", "has more than 256 entries");
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      if (!(a.getValue(i) instanceof String s) || s.length() > 4096) {
        throw new InvalidInputException("args[" + i + "]", "must be a string of at most 4096 characters");
      }
      if (FLAG.matcher(s).matches()) {
        if (!ALLOWED_FLAGS.contains(s)) {
          throw new InvalidInputException("args[" + i + "]", "found unexpected flag " + s
              + " for installer - allowed flags are " + ALLOWED_FLAGS);
        }
      } else if (!VALUE.matcher(s).matches()) {
        throw new InvalidInputException("args[" + i + "]", "found unexpected chars in value " + s + " for installer");
      }
      out.add(s);
    }
    return out;
  }

  private Future<HostRow> host(Tenant t, UUID ie, UUID id) {
    return HostRepository.get(db, t.name(), ie, id).map(o -> o.orElseThrow(() -> ApiError.notFound("host", id)));
  }

  private Future<InfraEnvRow> infraEnv(Tenant t, UUID id) {
    return InfraEnvRepository.get(db, t.name(), id).map(o -> o.orElseThrow(() -> ApiError.notFound("infra-env", id)));
  }
}
