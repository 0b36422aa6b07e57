package dev.rendezvous.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hub Deployment names the images the build made by digest (containers/target/images.txt). */
class KubeManifestsMainTest {
  static final String SERVICE = "rendezvous@sha256:" + "1".repeat(64);
  static final String CONTROLLER = "rendezvous-controller@sha256:" + "2".repeat(64);

  static String template() throws Exception {
    try (var in = KubeManifestsMain.class.getClassLoader().getResourceAsStream("deploy/deployment.yaml")) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  @Test
  void theDeploymentNamesTheServiceImageByDigestAndHandsTheServiceTheControllers() throws Exception {
    String yaml = KubeManifestsMain.deployment(template(), new ContainerImages(Map.of(
        ContainerImages.SERVICE, SERVICE, ContainerImages.CONTROLLER, CONTROLLER)));
    assertTrue(yaml.contains("\n        image: " + SERVICE + "\n"), yaml);
    assertTrue(!yaml.contains("image: rendezvous:latest"), yaml);
    assertTrue(yaml.contains("        env:\n        - {name: RDV_CONTROLLER_IMAGE, value: \"" + CONTROLLER + "\"}\n"), yaml);
    assertTrue(yaml.contains("runAsUser: 65532") && yaml.contains("fsGroup: 65532"), "the image's user owns the volume");
  }

  @Test
  void withoutBuiltImagesTheTemplateIsPrintedAsItIs() throws Exception {
    assertEquals(template(), KubeManifestsMain.deployment(template(), new ContainerImages(Map.of())));
  }

  @Test
  void imagesTxtIsReadByNameWithoutRegistryAndAMalformedLineIsRefused(@TempDir Path dir) throws Exception {
    assertTrue(ContainerImages.read(dir.resolve("missing.txt")).byDigest().isEmpty());
    Path txt = dir.resolve("images.txt");
    Files.writeString(txt, "registry.example.test:5000/rdv/rendezvous 0.1.0 registry.example.test:5000/rdv/rendezvous@"
        + SERVICE.substring(SERVICE.indexOf('@') + 1) + "\n" + CONTROLLER.replace("@", " 0.1.0 rendezvous-controller@")
        + "\n");
    ContainerImages images = ContainerImages.read(txt);
    assertEquals("registry.example.test:5000/rdv/" + SERVICE, images.byDigest(ContainerImages.SERVICE).orElseThrow());
    assertEquals(CONTROLLER, images.byDigest(ContainerImages.CONTROLLER).orElseThrow());
    Files.writeString(txt, "rendezvous 0.1.0 rendezvous:0.1.0\n");
    assertThrows(IllegalArgumentException.class, () -> ContainerImages.read(txt));
  }
}
