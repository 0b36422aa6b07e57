package dev.rendezvous.service.api;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.repo.InfraEnvRepository;
import dev.rendezvous.service.repo.InfraEnvRepository.InfraEnvRow;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.Optional;
import java.util.UUID;

/**
 * An infra-env's discovery files: the Ignition (with the infra-env's agent token in it) and the iPXE
 * script, at upstream's {@code GET /v2/infra-envs/{id}/downloads/files}; also what the image service
 * patches into ISOs.
 */
public final class InfraEnvDownloads {
  /** Renders the iPXE script (the image service's format) for an infra-env and a download credential. */
  @FunctionalInterface
  public interface IpxeRenderer {
    String render(InfraEnvRow infraEnv, String credential);
  }

  /** An infra-env with its discovery Ignition and agent token. */
  public record Discovery(InfraEnvRow infraEnv, String ignition, String agentToken) {}

  private final Pool db;
  private final String serviceUrl;
  private final String agentTokenSecret;
  private final IpxeRenderer ipxe;
  private volatile dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors mirrors;
  private volatile java.util.function.Supplier<String> serviceCa = () -> null;

  public InfraEnvDownloads(Pool db, String serviceUrl, String agentTokenSecret, IpxeRenderer ipxe) {
    this.db = db;
    this.serviceUrl = serviceUrl;
    this.agentTokenSecret = agentTokenSecret;
    this.ipxe = ipxe;
  }

  /** The site's mirror registries, written into every discovery Ignition (null: none). */
  public InfraEnvDownloads mirrors(dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors m) {
    this.mirrors = m;
    return this;
  }

  /**
   * The CA of the service's TLS certificate (PEM, or null), written into every discovery Ignition where upstream's
   * agent reads it; asked per Ignition, so a CA file the operator replaces reaches the next download.
   */
  public InfraEnvDownloads serviceCa(java.util.function.Supplier<String> ca) {
    this.serviceCa = ca;
    return this;
  }

  /** Mount after the user auth handler (RestApi.mount). */
  public void mount(Router router) {
    router.get(ApiViews.BASE + "/infra-envs/:infra_env_id/downloads/files").handler(this::files);
    new PresignedUrls(db, serviceUrl, agentTokenSecret, this::agentToken).mount(router);
  }

  /** The infra-env's agent token: issued at its creation, so the discovery Ignition is stable between downloads. */
  public String agentToken(InfraEnvRow e) {
    return AgentTokens.issue(agentTokenSecret, e.id().toString(), e.clusterId() == null ? null : e.clusterId().toString(),
        e.signingKeyGeneration(), e.createdAt() == null ? java.time.Instant.now() : e.createdAt().toInstant());
  }

  /** Any tenant's infra-env: for callers that authorised the request themselves (the image service). */
  public Future<Optional<Discovery>> discovery(UUID infraEnvId) {
    return InfraEnvRepository.getAnyTenant(db, infraEnvId).compose(o -> {
      if (o.isEmpty()) {
        return Future.succeededFuture(Optional.<Discovery>empty());
      }
      return discoveryOf(o.get()).map(Optional::of);
    });
  }

  private Future<Discovery> discoveryOf(InfraEnvRow e) {
    return InfraEnvRepository.pullSecret(db, e.id()).map(ps -> {
      String token = agentToken(e);
      String ignition = DiscoveryInputs.ignition(e.spec(), ps.orElse(null), serviceUrl, e.id().toString(), token, mirrors,
          serviceCa.get());
      return new Discovery(e, ignition, token);
    });
  }

  private void files(RoutingContext ctx) {
    Future<?> answer;
    try {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "infra_env_id");
      String name = ctx.request().getParam("file_name");
      if (name == null || name.isEmpty()) {
        throw new InvalidInputException("file_name", "is required (discovery.ign, ipxe-script or static-network-config)");
      }
      if (!name.equals("discovery.ign") && !name.equals("ipxe-script") && !name.equals("static-network-config")) {
        throw new InvalidInputException("file_name",
            "'" + name + "' must be discovery.ign, ipxe-script or static-network-config");
      }
      Future<InfraEnvRow> infraEnv = InfraEnvRepository.get(db, t.name(), id)
          .map(o -> o.orElseThrow(() -> ApiError.notFound("infra-env", id)));
      if (name.equals("static-network-config")) {
        answer = infraEnv.onSuccess(e -> ctx.response()
            .putHeader("Content-Type", "application/octet-stream")
            .putHeader("Content-Disposition", "attachment; filename=" + name)
            .end(io.vertx.core.buffer.Buffer.buffer(DiscoveryInputs.staticNetworkArchive(e.spec()))));
        answer.onFailure(ctx::fail);
        return;
      }
      answer = infraEnv
          .compose(this::discoveryOf)
          .onSuccess(d -> ctx.response()
              .putHeader("Content-Type", "application/octet-stream")
              .putHeader("Content-Disposition", "attachment; filename=" + name)
              .end(name.equals("discovery.ign") ? d.ignition() : ipxe.render(d.infraEnv(), d.agentToken())));
    } catch (RuntimeException e) {
      ctx.fail(e);
      return;
    }
    answer.onFailure(ctx::fail);
  }
}
