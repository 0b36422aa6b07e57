package dev.rendezvous.service.api;

import dev.rendezvous.service.auth.AgentOrUserAuth;
import dev.rendezvous.service.auth.InfraEnvTokenStates;
import dev.rendezvous.service.auth.Tenant;
import dev.rendezvous.service.auth.UserAuth;
import dev.rendezvous.service.repo.ClusterLogsRepository;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.InfraEnvRepository;
import dev.rendezvous.service.repo.InfraEnvRepository.InfraEnvRow;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Presigned download URLs (upstream's urlAuth: an {@code api_key} query parameter) and the infra-env's signing key.
 * An infra-env's files are signed as its ISO is, with its agent token (valid until the infra-env's signing key is
 * regenerated; {@code expires_at} is then the zero time, as for image-url). A cluster's files and credentials are
 * signed for that cluster and file only (its logs: all of them), for {@link #CLUSTER_URL_LIFETIME} (upstream's S3
 * presigning lasts 10 min):
 * {@code rdvp1.<base64url {"cluster_id","file_name","exp"}>.<base64url HMAC-SHA256>}. {@link AgentOrUserAuth} checks
 * both kinds on the download routes.
 */
public final class PresignedUrls {
  static final String PREFIX = "rdvp1.";
  /** The file name a presigned URL of a cluster's logs is signed for (and carries, for the check on download). */
  public static final String LOGS = "logs";
  public static final Duration CLUSTER_URL_LIFETIME = Duration.ofMinutes(10);
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();

  private final Pool db;
  private final String serviceUrl;
  private final byte[] secret;
  private final Function<InfraEnvRow, String> agentToken;

  public PresignedUrls(Pool db, String serviceUrl, String secret, Function<InfraEnvRow, String> agentToken) {
    this.db = db;
    this.serviceUrl = serviceUrl.endsWith("/") ? serviceUrl.substring(0, serviceUrl.length() - 1) : serviceUrl;
    this.secret = secret.getBytes(StandardCharsets.UTF_8);
    this.agentToken = agentToken;
  }

  /** Mount after the user auth handler. */
  public void mount(Router router) {
    String b = ApiViews.BASE;
    router.get(b + "/infra-envs/:infra_env_id/downloads/files-presigned").handler(this::infraEnvFile);
    router.get(b + "/infra-envs/:infra_env_id/downloads/minimal-initrd").handler(this::minimalInitrd);
    router.post(b + "/infra-envs/:infra_env_id/regenerate-signing-key").handler(this::regenerate);
    router.get(b + "/clusters/:cluster_id/downloads/files-presigned").handler(ctx -> {
      if (LOGS.equals(ctx.request().getParam("file_name"))) {
        clusterLogs(ctx);
      } else {
        clusterFile(ctx, "files", InstallFilesApi.FILE_NAMES);
      }
    });
    router.get(b + "/clusters/:cluster_id/downloads/credentials-presigned")
        .handler(ctx -> clusterFile(ctx, "credentials", InstallFilesApi.CREDENTIALS));
  }

  private void infraEnvFile(RoutingContext ctx) {
    ClusterActionsApi.reply(ctx, 200, () -> {
      UUID id = Requests.pathUuid(ctx, "infra_env_id");
      String name = ctx.request().getParam("file_name");
      if (name == null || !List.of("discovery.ign", "ipxe-script").contains(name)) {
        throw new InvalidInputException("file_name", "must be discovery.ign or ipxe-script");
      }
      String ipxeType = ctx.request().getParam("ipxe_script_type");
      if (ipxeType != null && !name.equals("ipxe-script")) {
        throw new InvalidInputException("ipxe_script_type", "can be set only for \"ipxe-script\"");
      }
      return infraEnv(ctx, id).map(e -> new JsonObject()
          .put("url", serviceUrl + ApiViews.BASE + "/infra-envs/" + id + "/downloads/files?file_name=" + enc(name)
              + (ipxeType == null ? "" : "&ipxe_script_type=" + enc(ipxeType)) + "&api_key=" + enc(agentToken.apply(e)))
          .put("expires_at", "0001-01-01T00:00:00.000Z"));
    });
  }

  /** The minimal ISO's extra initrd: Rendezvous carries network settings in the discovery Ignition, so there is none. */
  private void minimalInitrd(RoutingContext ctx) {
    ClusterActionsApi.reply(ctx, 204, () -> infraEnv(ctx, Requests.pathUuid(ctx, "infra_env_id")).map(e -> null));
  }

  private void regenerate(RoutingContext ctx) {
    ClusterActionsApi.reply(ctx, 204, () -> {
      UUID id = Requests.pathUuid(ctx, "infra_env_id");
      return InfraEnvRepository.regenerateSigningKey(db, UserAuth.tenant(ctx).name(), id).compose(ok -> {
        if (!ok) {
          throw ApiError.notFound("infra-env", id);
        }
        return infraEnv(ctx, id);
      }).map(e -> {
        InfraEnvTokenStates.regenerated(id, e.signingKeyGeneration());
        return null;
      });
    });
  }

  private void clusterFile(RoutingContext ctx, String route, List<String> names) {
    ClusterActionsApi.reply(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      String name = ctx.request().getParam("file_name");
      if (name == null || !names.contains(name)) {
        throw new InvalidInputException("file_name", "must be one of " + names);
      }
      return ClusterRepository.get(db, t.name(), id).map(o -> {
        var c = o.orElseThrow(() -> ApiError.notFound("cluster", id));
        if (!InstallFilesApi.DOWNLOAD_STATUSES.contains(c.status())) {
          throw ApiError.conflict("cluster " + id + " is " + c.status() + "; its files can be downloaded once the"
              + " installation started");
        }
        Instant exp = Instant.now().plus(CLUSTER_URL_LIFETIME);
        String token = sign(secret, id, name, exp.getEpochSecond());
        return new JsonObject()
            .put("url", serviceUrl + ApiViews.BASE + "/clusters/" + id + "/downloads/" + route + "?file_name=" + enc(name)
                + "&api_key=" + enc(token))
            .put("expires_at", exp.toString());
      });
    });
  }

  /**
   * The cluster's uploaded logs (upstream's file_name=logs, what its UI's "Download installation logs" asks for in
   * OCM): a URL of the logs download route, signed for that cluster's logs for {@link #CLUSTER_URL_LIFETIME}. As
   * upstream, {@code logs_type} defaults to host when a {@code host_id} is given, and no logs uploaded is a 404.
   */
  private void clusterLogs(RoutingContext ctx) {
    ClusterActionsApi.reply(ctx, 200, () -> {
      Tenant t = UserAuth.tenant(ctx);
      UUID id = Requests.pathUuid(ctx, "cluster_id");
      UUID hostId = Requests.queryUuid(ctx, "host_id");
      String asked = ctx.request().getParam("logs_type");
      String type = asked == null || asked.isEmpty() ? (hostId == null ? "all" : "host") : asked;
      if (!List.of("host", "controller", "all").contains(type)) {
        throw new InvalidInputException("logs_type", "must be one of host, controller, all");
      }
      return ClusterRepository.get(db, t.name(), id).compose(o -> {
        o.orElseThrow(() -> ApiError.notFound("cluster", id));
        return ClusterLogsRepository.list(db, id, type.equals("all") ? null : type, hostId);
      }).map(bundles -> {
        if (bundles.isEmpty()) {
          throw new ApiError(404, "logs_type", "no " + type + " logs were uploaded for cluster " + id);
        }
        Instant exp = Instant.now().plus(CLUSTER_URL_LIFETIME);
        return new JsonObject()
            .put("url", serviceUrl + ApiViews.BASE + "/clusters/" + id + "/logs?logs_type=" + enc(type)
                + (hostId == null ? "" : "&host_id=" + hostId) + "&file_name=" + LOGS + "&api_key="
                + enc(sign(secret, id, LOGS, exp.getEpochSecond())))
            .put("expires_at", exp.toString());
      });
    });
  }

  private Future<InfraEnvRow> infraEnv(RoutingContext ctx, UUID id) {
    return InfraEnvRepository.get(db, UserAuth.tenant(ctx).name(), id)
        .map(o -> o.orElseThrow(() -> ApiError.notFound("infra-env", id)));
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  // ---- cluster URL tokens

  /** What a cluster URL token grants. */
  public record ClusterGrant(UUID clusterId, String fileName, long expiresEpochSecond) {}

  public static boolean isClusterToken(String token) {
    return token != null && token.startsWith(PREFIX);
  }

  static String sign(byte[] secret, UUID clusterId, String fileName, long exp) {
    String payload = B64.encodeToString(new JsonObject().put("cluster_id", clusterId.toString())
        .put("file_name", fileName).put("exp", exp).encode().getBytes(StandardCharsets.UTF_8));
    return PREFIX + payload + "." + B64.encodeToString(hmac(secret, PREFIX + payload));
  }

  /** The grant of a well-signed, unexpired token; empty for anything else. */
  public static Optional<ClusterGrant> verify(byte[] secret, String token, Instant now) {
    if (!isClusterToken(token) || token.length() > 1024) {
      return Optional.empty();
    }
    int dot = token.indexOf('.', PREFIX.length());
    if (dot < 0 || token.indexOf('.', dot + 1) >= 0) {
      return Optional.empty();
    }
    try {
      if (!MessageDigest.isEqual(hmac(secret, token.substring(0, dot)), B64D.decode(token.substring(dot + 1)))) {
        return Optional.empty();
      }
      JsonObject p = new JsonObject(new String(B64D.decode(token.substring(PREFIX.length(), dot)), StandardCharsets.UTF_8));
      long exp = p.getLong("exp");
      if (now.getEpochSecond() > exp) {
        return Optional.empty();
      }
      return Optional.of(new ClusterGrant(UUID.fromString(p.getString("cluster_id")), p.getString("file_name"), exp));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static byte[] hmac(byte[] secret, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.US_ASCII));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
