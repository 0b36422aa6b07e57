package dev.rendezvous.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GatewayConfigTest {
    @Test
    void configRefusesAShortOrMissingSecretAndHidesIt() {
        assertThrows(IllegalArgumentException.class, () -> GatewayConfig.withSecret("short"));
        assertThrows(IllegalArgumentException.class,
                () -> GatewayConfig.fromSources(java.util.Map.of(), new String[0]));
        GatewayConfig config = GatewayConfig.fromSources(java.util.Map.of("RDV_AGENT_TOKEN_SECRET", "s3cr3t-s3cr3t-s3cr3t",
                "RDV_GATEWAY_PORT", "7000"), new String[] {"--gateway-port=7001", "--gateway-heartbeat-seconds=5"});
        assertEquals(7001, config.port());
        assertEquals(5, config.heartbeat().toSeconds());
        assertEquals(4 * 1024 * 1024, config.maxBodyBytes());
        assertTrue(!config.toString().contains("s3cr3t"));
    }
}
