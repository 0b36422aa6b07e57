package dev.rendezvous.bus.auth;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
 * The per-infra-env agent token sent in {@code X-Secret-Key}: {@code rdv1.<payload>.<signature>}, where payload is
 * base64url (no padding) of {@code {"infra_env_id": uuid, "cluster_id": uuid?, "iat": epoch seconds}} and signature
 * is base64url of HMAC-SHA256(secret, {@code "rdv1." + payload}). The service issues one when it creates an
 * infra-env (it is baked into the discovery Ignition); every gateway verifies it with the same secret.
 * No expiry: the token lives as long as the ISO that carries it.
 */
public final class AgentTokens {

    static final String PREFIX = "rdv1.";
    private static final String HMAC = "HmacSHA256";
    private static final int MAX_TOKEN_CHARS = 1024;
    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();

    private AgentTokens() {
    }

    /**
     * What a valid token says: the infra-env it is for and, when the infra-env is bound, the cluster; and the
     * generation of the infra-env's signing key it was issued under (0 until the key is first regenerated).
     */
    public record AgentClaims(String infraEnvId, String clusterId, int generation) {
        public AgentClaims(String infraEnvId, String clusterId) {
            this(infraEnvId, clusterId, 0);
        }

        /** The bus partition key of this agent's events: the cluster id, else the infra-env id. */
        public String partitionKey() {
            return clusterId == null ? infraEnvId : clusterId;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    private record Payload(@JsonProperty("infra_env_id") String infraEnvId,
                           @JsonProperty("cluster_id") String clusterId,
                           @JsonProperty("iat") Long issuedAt,
                           @JsonProperty("gen") Integer generation) {
    }

    /**
     * A token for the agents of one infra-env. {@code clusterId} may be null (unbound infra-env).
     * Both ids must be UUIDs.
     */
    public static String issue(byte[] secret, String infraEnvId, String clusterId) {
        return issue(secret, infraEnvId, clusterId, 0);
    }

    /**
     * A token under generation {@code generation} of the infra-env's signing key (upstream's regenerate-signing-key:
     * the service refuses tokens of an older generation). Generation 0 leaves the claim out.
     */
    public static String issue(byte[] secret, String infraEnvId, String clusterId, int generation) {
        return issue(secret, infraEnvId, clusterId, generation, Instant.now());
    }

    /**
     * The same with the issue time given: an infra-env's token issued at a fixed time (its creation) is the same text
     * on every call, so its discovery Ignition and ISO are the same bytes on every download.
     */
    public static String issue(byte[] secret, String infraEnvId, String clusterId, int generation, Instant issuedAt) {
        requireUuid(infraEnvId, "infra_env_id");
        if (clusterId != null) {
            requireUuid(clusterId, "cluster_id");
        }
        try {
            String payload = B64.encodeToString(JSON.writeValueAsBytes(
                    new Payload(infraEnvId, clusterId, issuedAt.getEpochSecond(),
                            generation == 0 ? null : generation)));
            return PREFIX + payload + "." + B64.encodeToString(sign(secret, PREFIX + payload));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot encode token payload", e);
        }
    }

    /** Same as {@link #issue(byte[], String, String)} with a text secret (UTF-8 bytes). */
    public static String issue(String secret, String infraEnvId, String clusterId) {
        return issue(secret.getBytes(StandardCharsets.UTF_8), infraEnvId, clusterId);
    }

    /** Same as {@link #issue(byte[], String, String, int)} with a text secret (UTF-8 bytes). */
    public static String issue(String secret, String infraEnvId, String clusterId, int generation) {
        return issue(secret.getBytes(StandardCharsets.UTF_8), infraEnvId, clusterId, generation);
    }

    /** Same as {@link #issue(byte[], String, String, int, Instant)} with a text secret (UTF-8 bytes). */
    public static String issue(String secret, String infraEnvId, String clusterId, int generation, Instant issuedAt) {
        return issue(secret.getBytes(StandardCharsets.UTF_8), infraEnvId, clusterId, generation, issuedAt);
    }

    /**
     * The claims of a token signed with {@code secret}, or empty for anything else (missing, malformed,
     * wrong signature). The signature is compared in constant time.
     */
    public static Optional<AgentClaims> verify(byte[] secret, String token) {
        if (token == null || token.length() > MAX_TOKEN_CHARS || !token.startsWith(PREFIX)) {
            return Optional.empty();
        }
        int dot = token.indexOf('.', PREFIX.length());
        if (dot < 0 || token.indexOf('.', dot + 1) >= 0) {
            return Optional.empty();
        }
        String payload = token.substring(PREFIX.length(), dot);
        try {
            byte[] given = B64D.decode(token.substring(dot + 1));
            byte[] expected = sign(secret, token.substring(0, dot));
            if (!MessageDigest.isEqual(expected, given)) {
                return Optional.empty();
            }
            Payload claims = JSON.readValue(B64D.decode(payload), Payload.class);
            if (claims == null || !isUuid(claims.infraEnvId())
                    || (claims.clusterId() != null && !isUuid(claims.clusterId()))) {
                return Optional.empty();
            }
            return Optional.of(new AgentClaims(claims.infraEnvId(), claims.clusterId(),
                    claims.generation() == null ? 0 : claims.generation()));
        } catch (IllegalArgumentException | java.io.IOException e) {
            return Optional.empty();
        }
    }

    public static boolean isUuid(String value) {
        if (value == null || value.length() != 36) {
            return false;
        }
        try {
            UUID.fromString(value);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static void requireUuid(String value, String field) {
        if (!isUuid(value)) {
            throw new IllegalArgumentException(field + " must be a UUID");
        }
    }

    private static byte[] sign(byte[] secret, String data) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(secret, HMAC));
            return mac.doFinal(data.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
