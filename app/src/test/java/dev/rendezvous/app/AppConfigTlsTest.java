package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.tls.TlsConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the TLS flags and the public URLs decide together (no servers started). */
class AppConfigTlsTest {
  private static AppConfig config(String... flags) {
    return AppConfig.from(List.of(flags), Map.of());
  }

  @Test
  void offByDefaultOnLoopbackWithHttpUrls() {
    AppConfig c = config("--data-dir=/tmp/rdv-cfg");
    assertEquals(TlsConfig.Mode.OFF, c.tls().mode());
    assertEquals("http://127.0.0.1:8090", c.service().publicUrl());
    assertEquals("http://127.0.0.1:8080", c.service().imagePublicUrl());
  }

  @Test
  void autoMakesEveryUrlHttpsAndItsCertificateNamesTheirHosts() {
    AppConfig c = config("--data-dir=/tmp/rdv-cfg", "--tls=auto");
    assertEquals(TlsConfig.Mode.AUTO, c.tls().mode());
    assertEquals("https://127.0.0.1:8090", c.service().publicUrl());
    assertEquals("https://127.0.0.1:8080", c.service().imagePublicUrl());
    assertEquals(java.nio.file.Path.of("/tmp/rdv-cfg/tls"), c.tls().dir());
    assertTrue(c.tls().names().containsAll(List.of("localhost", "127.0.0.1")), c.tls().names().toString());
  }

  @Test
  void anHttpsPublicUrlTurnsTlsOnAndTheImageServiceFollowsItsHost() {
    AppConfig c = config("--data-dir=/tmp/rdv-cfg", "--public-url=https://hub.example.test:8090");
    assertEquals(TlsConfig.Mode.AUTO, c.tls().mode());
    assertEquals("https://hub.example.test:8080", c.service().imagePublicUrl());
    assertTrue(c.tls().names().contains("hub.example.test"), c.tls().names().toString());
  }

  @Test
  void theOperatorsFilesAreTakenAndHalfAPairIsRefusedNamingWhatIsMissing() {
    AppConfig c = config("--data-dir=/tmp/rdv-cfg", "--tls-cert=/etc/pki/hub.pem", "--tls-key=/etc/pki/hub-key.pem",
        "--tls-ca=/etc/pki/ca.pem");
    assertEquals(TlsConfig.Mode.FILES, c.tls().mode());
    assertEquals(java.nio.file.Path.of("/etc/pki/ca.pem"), c.tls().caFile());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> config("--tls-cert=/x.pem")).getMessage()
        .contains("tls-key"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> config("--tls=auto", "--tls-cert=/x.pem",
        "--tls-key=/y.pem")).getMessage().contains("auto"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> config("--tls=yes")).getMessage().contains("tls"));
  }
}
