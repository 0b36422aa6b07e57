package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which controller image the install step names: a flag, else the build's image by digest, else upstream's. */
class AppConfigControllerImageTest {
  static final String DIGEST = "rendezvous-controller@sha256:" + "0123456789abcdef".repeat(4);

  @Test
  void theBuiltControllerImageByDigestWhenImagesTxtIsThere(@TempDir Path dir) throws Exception {
    Path txt = dir.resolve("images.txt");
    assertNull(AppConfig.defaultControllerImage(txt), "no images built: upstream's default stays");
    Files.writeString(txt, "rendezvous-agent 0.1.0 rendezvous-agent@sha256:" + "a".repeat(64) + "\n"
        + "rendezvous-controller 0.1.0 " + DIGEST + "\n");
    assertEquals(DIGEST, AppConfig.defaultControllerImage(txt));
  }

  @Test
  void aFlagOrItsVariableWinsAndTheDomainNamesIt() {
    // the tests run in app/, where no containers/target/images.txt is: upstream's default
    assertEquals("quay.io/edge-infrastructure/assisted-installer-controller:latest",
        AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg"), Map.of()).service().domainConfig().controllerImage());
    assertEquals("registry.example.test/rdv/rendezvous-controller@sha256:" + "b".repeat(64),
        AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg",
            "--controller-image=registry.example.test/rdv/rendezvous-controller@sha256:" + "b".repeat(64)), Map.of())
            .service().domainConfig().controllerImage());
    assertEquals(DIGEST, AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg"), Map.of("RDV_CONTROLLER_IMAGE", DIGEST))
        .service().domainConfig().controllerImage());
  }
}
