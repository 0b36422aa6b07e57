package dev.rendezvous.agent.installer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bootstrap's rendering of the controller's Job into the new cluster's manifests (upstream's PrepareController). */
class ControllerLauncherTest {
  @TempDir Path root;

  private String render(Boolean checkCvo, Integer controlPlaneCount) throws Exception {
    InstallRequest r = new InstallRequest("c-1", "ie-1", "h-1", "bootstrap", "/dev/loop3", controlPlaneCount, checkCvo,
        "4.18", List.of(), List.of(), null, null, null);
    ControllerLauncher.manifests(root, "rendezvous-controller:latest").launch(r, "http://10.0.0.1:8090", "tok-1");
    return Files.readString(root.resolve("opt/openshift/manifests/assisted-installer-controller.yaml"));
  }

  @Test
  void theJobCarriesTheServicesSettingsAndTakesTheTokenFromItsSecret() throws Exception {
    String yaml = render(true, 3);
    for (String line : List.of("- {name: CLUSTER_ID, value: \"c-1\"}", "- {name: INVENTORY_URL, value: \"http://10.0.0.1:8090\"}",
        "- {name: OPENSHIFT_VERSION, value: \"4.18\"}", "- {name: CONTROL_PLANE_COUNT, value: \"3\"}",
        "- {name: CHECK_CLUSTER_VERSION, value: \"true\"}", "pull-secret-token: \"tok-1\"", "kind: Job", "kind: Secret",
        "key: pull-secret-token")) {
      assertTrue(yaml.contains(line), line + " in\n" + yaml);
    }
  }

  @Test
  void withoutCheckCvoTheControllerDoesNotWaitForTheClusterVersion() throws Exception {
    String yaml = render(null, 1);
    assertTrue(yaml.contains("- {name: CHECK_CLUSTER_VERSION, value: \"false\"}"), yaml);
    assertTrue(yaml.contains("- {name: CONTROL_PLANE_COUNT, value: \"1\"}"), yaml);
  }
}
