package dev.rendezvous.app;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.image.ImageCredential;
import dev.rendezvous.image.ImageRequestException;
import dev.rendezvous.image.ImageType;
import dev.rendezvous.image.ImageUrlTokens;
import dev.rendezvous.image.InfraEnvImage;
import dev.rendezvous.image.InfraEnvImageSource;
import dev.rendezvous.service.api.InfraEnvDownloads;
import dev.rendezvous.service.auth.TokenStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The image service's view of infra-envs, over the service: who may download (the ISO URL's expiring image token or
 * the infra-env's agent token as {@code api_key}/{@code image_token}, or a user bearer token of the owning tenant) and
 * what to patch in (the discovery Ignition).
 */
final class InfraEnvImages implements InfraEnvImageSource {
  private final InfraEnvDownloads downloads;
  private final TokenStore users;
  private final byte[] agentTokenSecret;
  private final boolean authDisabled;
  private final java.time.Clock clock;

  InfraEnvImages(InfraEnvDownloads downloads, TokenStore users, String agentTokenSecret, boolean authDisabled) {
    this(downloads, users, agentTokenSecret, authDisabled, java.time.Clock.systemUTC());
  }

  InfraEnvImages(InfraEnvDownloads downloads, TokenStore users, String agentTokenSecret, boolean authDisabled,
      java.time.Clock clock) {
    this.clock = clock;
    this.downloads = downloads;
    this.users = users;
    this.agentTokenSecret = agentTokenSecret.getBytes(StandardCharsets.UTF_8);
    this.authDisabled = authDisabled;
  }

  @Override
  public Future<Optional<InfraEnvImage>> lookup(String infraEnvId, ImageCredential credential, Optional<ImageType> type) {
    UUID id;
    try {
      id = UUID.fromString(infraEnvId);
    } catch (IllegalArgumentException e) {
      return Future.succeededFuture(Optional.empty());
    }
    return downloads.discovery(id).compose(found -> {
      if (found.isEmpty()) {
        return Future.succeededFuture(Optional.<InfraEnvImage>empty());
      }
      InfraEnvDownloads.Discovery d = found.get();
      return authorised(d, credential).map(ok -> Optional.of(image(d)));
    });
  }

  private Future<Void> authorised(InfraEnvDownloads.Discovery d, ImageCredential c) {
    if (authDisabled) {
      return Future.succeededFuture();
    }
    switch (c.kind()) {
      case API_KEY, IMAGE_TOKEN -> {
        String param = c.kind() == ImageCredential.Kind.API_KEY ? "api_key" : "image_token";
        if (ImageUrlTokens.looksLikeOne(c.value())) {
          return imageUrlToken(d, c.value(), param);
        }
        // the infra-env's agent token (what the discovery Ignition and presigned files carry) also downloads
        Optional<AgentTokens.AgentClaims> claims = AgentTokens.verify(agentTokenSecret, c.value());
        return claims.isEmpty() ? Future.failedFuture(new ImageRequestException(401, param, "is not a valid token"))
            : sameInfraEnvAndKey(d, claims.get().infraEnvId(), claims.get().generation(), param);
      }
      case AUTHORIZATION -> {
        String v = c.value() == null ? "" : c.value().strip();
        String token = v.regionMatches(true, 0, "Bearer ", 0, 7) ? v.substring(7).strip() : v;
        return users.lookup(token).compose(t -> {
          if (t.isEmpty()) {
            return Future.failedFuture(new ImageRequestException(401, "Authorization", "unknown or revoked token"));
          }
          if (!t.get().name().equals(d.infraEnv().tenant())) {
            // Another tenant's infra-env looks unknown, as on the API.
            return Future.failedFuture(ImageRequestException.notFound("infra-env " + d.infraEnv().id() + " not found"));
          }
          return Future.succeededFuture();
        });
      }
      default -> {
        return Future.failedFuture(new ImageRequestException(401, "api_key",
            "a download credential is required (the infra-env's download_url carries one)"));
      }
    }
  }

  /** An ISO URL's own credential: this infra-env's, under its current signing key, not expired. */
  private Future<Void> imageUrlToken(InfraEnvDownloads.Discovery d, String token, String param) {
    Optional<ImageUrlTokens.Claims> claims = ImageUrlTokens.verify(agentTokenSecret, token);
    if (claims.isEmpty()) {
      return Future.failedFuture(new ImageRequestException(401, param, "is not a valid token"));
    }
    if (claims.get().expired(clock.instant())) {
      return Future.failedFuture(new ImageRequestException(401, param, "has expired at "
          + java.time.Instant.ofEpochSecond(claims.get().expiresAtEpochSecond()) + "; get a new URL (downloads/image-url)"));
    }
    return sameInfraEnvAndKey(d, claims.get().infraEnvId(), claims.get().generation(), param);
  }

  /** A token of another infra-env is a 403; one signed under a since regenerated key a 401. */
  private static Future<Void> sameInfraEnvAndKey(InfraEnvDownloads.Discovery d, String infraEnvId, int generation,
      String param) {
    if (!infraEnvId.equals(d.infraEnv().id().toString())) {
      return Future.failedFuture(new ImageRequestException(403, param, "belongs to another infra-env"));
    }
    if (generation != d.infraEnv().signingKeyGeneration()) {
      return Future.failedFuture(new ImageRequestException(401, param,
          "was signed with a key that has been regenerated; get a new URL (downloads/image-url)"));
    }
    return Future.succeededFuture();
  }

  private static InfraEnvImage image(InfraEnvDownloads.Discovery d) {
    JsonObject spec = d.infraEnv().spec();
    List<String> append = new ArrayList<>();
    for (Object o : spec.getJsonArray("kernel_arguments", new JsonArray())) {
      JsonObject k = (JsonObject) o;
      if ("append".equals(k.getString("operation"))) {
        append.add(k.getString("value"));
      }
    }
    return new InfraEnvImage(d.infraEnv().id().toString(), d.ignition().getBytes(StandardCharsets.UTF_8),
        spec.getString("openshift_version"), spec.getString("cpu_architecture"),
        ImageType.parse(spec.getString("image_type", "full-iso")).orElse(ImageType.FULL_ISO), append,
        d.infraEnv().updatedAt().toInstant(), null);
  }
}
