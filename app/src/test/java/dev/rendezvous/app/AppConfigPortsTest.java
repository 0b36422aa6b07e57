package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The API and the image service on one port would share it (Vert.x takes turns between servers of one port): half the
 * API's requests would be answered by the image service's 404. Refused, naming both.
 */
class AppConfigPortsTest {
  @Test
  void theImageServiceOnTheApisPortIsRefusedFromFlagsOrVariables() {
    IllegalArgumentException flags = assertThrows(IllegalArgumentException.class, () -> AppConfig.from(
        List.of("--data-dir=/tmp/rdv-cfg", "--api-port=9000", "--image-port=9000"), Map.of()));
    assertEquals("image-port must differ from api-port (both 9000)", flags.getMessage());
    IllegalArgumentException env = assertThrows(IllegalArgumentException.class, () -> AppConfig.from(
        List.of("--data-dir=/tmp/rdv-cfg"), Map.of("RDV_API_PORT", "9000", "RDV_IMAGE_PORT", "9000")));
    assertEquals("image-port must differ from api-port (both 9000)", env.getMessage());
    IllegalArgumentException onTheDefault = assertThrows(IllegalArgumentException.class, () -> AppConfig.from(
        List.of("--data-dir=/tmp/rdv-cfg", "--api-port=8080"), Map.of()));
    assertEquals("image-port must differ from api-port (both 8080)", onTheDefault.getMessage(),
        "the image port's default");
    AppConfig apart = AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg"), Map.of("RDV_API_PORT", "9000",
        "RDV_IMAGE_PORT", "9001"));
    assertEquals(9000, apart.apiPort());
    assertEquals(9001, apart.imagePort());
  }
}
