package dev.rendezvous.service.ignition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.Mirror;
import java.util.List;
import org.junit.jupiter.api.Test;

class RegistriesConfTest {
  static final String CONF = String.join("\n",
      "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]",
      "",
      "[[registry]]",
      "  prefix = \"\"",
      "  location = \"quay.io/openshift-release-dev/ocp-release\"  # the release payload",
      "  mirror-by-digest-only = true",
      "",
      "  [[registry.mirror]]",
      "    location = \"mirror.edge.example:5000/ocp/release\"",
      "",
      "[[registry]]",
      "  location = \"quay.io/openshift-release-dev/ocp-v4.0-art-dev\"",
      "  [[registry.mirror]]",
      "    location = \"mirror.edge.example:5000/ocp/release\"",
      "  [[registry.mirror]]",
      "    location = 'backup.edge.example/ocp/release'",
      "");

  @Test
  void eachRegistryWithItsMirrorsInOrder() {
    var m = RegistriesConf.parse(CONF, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    assertEquals(List.of(
        new Mirror("quay.io/openshift-release-dev/ocp-release", List.of("mirror.edge.example:5000/ocp/release"), true),
        new Mirror("quay.io/openshift-release-dev/ocp-v4.0-art-dev",
            List.of("mirror.edge.example:5000/ocp/release", "backup.edge.example/ocp/release"), false)), m.mirrors());
    assertTrue(m.caBundle().contains("BEGIN CERTIFICATE"));
    // and the discovery Ignition's registries.conf says the same
    String ign = new DiscoveryIgnitionBuilder().build(new DiscoveryIgnitionInput("http://svc:8090",
        "0b1f4e4e-8a8c-4c53-9d7a-2a1b7a8f2c11", "rdv1.x", null, null, null, null, m, List.of(), List.of(), null, null));
    assertTrue(ign.contains("/etc/containers/registries.conf"), ign);
  }

  @Test
  void whatCannotBeReadIsRefusedWithItsLine() {
    IllegalArgumentException noMirror = assertThrows(IllegalArgumentException.class,
        () -> RegistriesConf.parse("[[registry]]\nlocation = \"quay.io/x\"\n", null));
    assertTrue(noMirror.getMessage().contains("has no [[registry.mirror]]"), noMirror.getMessage());
    IllegalArgumentException unquoted = assertThrows(IllegalArgumentException.class,
        () -> RegistriesConf.parse("[[registry]]\nlocation = quay.io/x\n", null));
    assertTrue(unquoted.getMessage().startsWith("registries.conf line 2:"), unquoted.getMessage());
    assertThrows(IllegalArgumentException.class, () -> RegistriesConf.parse("# nothing\n", null));
    assertThrows(IllegalArgumentException.class, () -> RegistriesConf.parse("[[registry.mirror]]\nlocation = \"a\"\n", null));
  }
}
