package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.image.OsImage;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --os-images-from-catalog}: the base ISOs the image service fetches, taken from the release catalog. */
class OsImagesFromCatalogTest {
  @Test
  void namedVersionsAndArchitecturesBecomeTheImageServicesBaseIsos() {
    AppConfig c = AppConfig.from(List.of("--os-images-from-catalog=4.22/x86_64,4.21"), Map.of());
    List<OsImage> images = c.image().osImages();
    assertEquals(5, images.size(), "4.22 for x86_64 and 4.21 for its four architectures: " + images);
    OsImage first = images.get(0);
    assertEquals("4.22", first.openshiftVersion());
    assertEquals("x86_64", first.cpuArchitecture());
    assertTrue(first.url().startsWith("https://mirror.openshift.com/") && first.url().endsWith(".iso"), first.url());
    assertEquals(32, AppConfig.from(List.of("--os-images-from-catalog=all"), Map.of()).image().osImages().size());
    assertEquals(0, AppConfig.from(List.of(), Map.of()).image().osImages().size(), "none unless asked: each is ~1 GiB");
  }

  @Test
  void whatTheCatalogLacksOrAConflictIsRefusedByName() {
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> AppConfig.from(List.of("--os-images-from-catalog=3.11"), Map.of()));
    assertTrue(unknown.getMessage().contains("'3.11'"), unknown.getMessage());
    IllegalArgumentException both = assertThrows(IllegalArgumentException.class, () -> AppConfig.from(
        List.of("--os-images-from-catalog=4.22", "--os-images=[{\"openshift_version\":\"4.22\",\"cpu_architecture\":"
            + "\"x86_64\",\"url\":\"/tmp/x.iso\",\"version\":\"1\"}]"), Map.of()));
    assertTrue(both.getMessage().contains("not both"), both.getMessage());
  }
}
