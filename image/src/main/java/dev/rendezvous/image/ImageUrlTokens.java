package dev.rendezvous.image;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The credential an ISO download URL carries (upstream's presigned image URL, {@code expires_at} 4 h after it was
 * made): {@code rdvi1.<base64url {"sub": infra-env id, "gen": signing-key generation, "exp": epoch seconds}>.<base64url
 * HMAC-SHA256>}. JWT-shaped, so {@link ImageServer#idFromJwt} finds the infra-env in it as it does in upstream's
 * tokens. An {@code exp} of 0 never expires (lifetime 0 in the configuration). Unlike the agent token, it grants
 * nothing but the download, and only until it expires.
 */
public final class ImageUrlTokens {
  static final String PREFIX = "rdvi1.";
  private static final int MAX_CHARS = 512;
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  /** What a token says once its signature checks. */
  public record Claims(String infraEnvId, int generation, long expiresAtEpochSecond) {
    public boolean expired(Instant now) {
      return expiresAtEpochSecond > 0 && now.getEpochSecond() >= expiresAtEpochSecond;
    }
  }

  private ImageUrlTokens() {}

  public static String issue(byte[] secret, UUID infraEnvId, int generation, long expiresAtEpochSecond) {
    String payload = "{\"sub\":\"" + infraEnvId + "\",\"gen\":" + generation + ",\"exp\":" + expiresAtEpochSecond + "}";
    String signed = PREFIX + B64.encodeToString(payload.getBytes(StandardCharsets.UTF_8));
    return signed + "." + B64.encodeToString(sign(secret, signed));
  }

  /** The claims of a token signed with {@code secret}, or empty for anything else; expiry is the caller's to judge. */
  public static Optional<Claims> verify(byte[] secret, String token) {
    if (token == null || token.length() > MAX_CHARS || !token.startsWith(PREFIX)) {
      return Optional.empty();
    }
    int dot = token.indexOf('.', PREFIX.length());
    if (dot < 0 || token.indexOf('.', dot + 1) >= 0) {
      return Optional.empty();
    }
    try {
      if (!MessageDigest.isEqual(sign(secret, token.substring(0, dot)), B64D.decode(token.substring(dot + 1)))) {
        return Optional.empty();
      }
      var claims = JSON.readTree(B64D.decode(token.substring(PREFIX.length(), dot)));
      String sub = claims.path("sub").asText("");
      UUID.fromString(sub);
      return Optional.of(new Claims(sub, claims.path("gen").asInt(0), claims.path("exp").asLong(0)));
    } catch (IllegalArgumentException | java.io.IOException e) {
      return Optional.empty();
    }
  }

  public static boolean looksLikeOne(String token) {
    return token != null && token.startsWith(PREFIX);
  }

  private static byte[] sign(byte[] secret, String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
