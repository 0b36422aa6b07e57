package dev.rendezvous.bus.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AgentTokensTest {

    private static final byte[] SECRET = "0123456789abcdef0123".getBytes(StandardCharsets.UTF_8);

    @Test
    void aTokenCarriesItsInfraEnvAndCluster() {
        String infraEnv = UUID.randomUUID().toString();
        String cluster = UUID.randomUUID().toString();
        AgentClaims claims = AgentTokens.verify(SECRET, AgentTokens.issue(SECRET, infraEnv, cluster)).orElseThrow();
        assertEquals(infraEnv, claims.infraEnvId());
        assertEquals(cluster, claims.clusterId());
        assertEquals(cluster, claims.partitionKey());
    }

    @Test
    void anUnboundInfraEnvTokenHasNoClusterAndIsKeyedByInfraEnv() {
        String infraEnv = UUID.randomUUID().toString();
        AgentClaims claims = AgentTokens.verify(SECRET, AgentTokens.issue(SECRET, infraEnv, null)).orElseThrow();
        assertNull(claims.clusterId());
        assertEquals(infraEnv, claims.partitionKey());
    }

    @Test
    void anotherSecretATamperedPayloadOrGarbageIsRefused() {
        String infraEnv = UUID.randomUUID().toString();
        String token = AgentTokens.issue(SECRET, infraEnv, null);
        assertTrue(AgentTokens.verify("another-secret-0123456".getBytes(StandardCharsets.UTF_8), token).isEmpty());

        String[] parts = token.split("\\.");
        String forged = Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("{\"infra_env_id\":\"" + UUID.randomUUID() + "\"}").getBytes(StandardCharsets.UTF_8));
        assertTrue(AgentTokens.verify(SECRET, parts[0] + "." + forged + "." + parts[2]).isEmpty());
        assertTrue(AgentTokens.verify(SECRET, token + "x").isEmpty());
        assertTrue(AgentTokens.verify(SECRET, token.substring(0, token.length() - 2)).isEmpty());
        assertTrue(AgentTokens.verify(SECRET, token + ".extra").isEmpty());
        assertTrue(AgentTokens.verify(SECRET, null).isEmpty());
        assertTrue(AgentTokens.verify(SECRET, "").isEmpty());
        assertTrue(AgentTokens.verify(SECRET, "rdv1.!!!.???").isEmpty());
        assertTrue(AgentTokens.verify(SECRET, "Bearer " + token).isEmpty());
    }

    @Test
    void issuingRefusesIdsThatAreNotUuids() {
        assertThrows(IllegalArgumentException.class, () -> AgentTokens.issue(SECRET, "not-a-uuid", null));
        assertThrows(IllegalArgumentException.class,
                () -> AgentTokens.issue(SECRET, UUID.randomUUID().toString(), "nope"));
    }
}
