package dev.rendezvous.service.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.rendezvous.service.domain.cluster.ClusterContext.DiskEncryption;
import dev.rendezvous.service.domain.operators.OperatorManifests;
import java.util.List;
import org.junit.jupiter.api.Test;

class DiskEncryptionManifestsTest {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final String TANG = "[{\"url\":\"http://tang.example.com:7500\",\"thumbprint\":\"PLjNyRdGw03zlRoGjQYMahSZGu9\"}]";

  static List<String> names(List<OperatorManifests.File> files) {
    return files.stream().map(f -> f.folder() + "/" + f.fileName()).toList();
  }

  @Test
  void tpmOnTheMastersIsOneMachineConfigBindingTheRootToTheTpm() throws Exception {
    List<OperatorManifests.File> files = DiskEncryptionManifests.render(new DiskEncryption("masters", "tpmv2", null), false);
    assertEquals(List.of("openshift/99-openshift-master-tpm-encryption.yaml"), names(files));
    JsonNode mc = YAML.readTree(files.get(0).content());
    assertEquals("MachineConfig", mc.path("kind").asText());
    assertEquals("master-tpm", mc.path("metadata").path("name").asText());
    assertEquals("master", mc.path("metadata").path("labels").path("machineconfiguration.openshift.io/role").asText());
    assertEquals("3.2.0", mc.at("/spec/config/ignition/version").asText());
    JsonNode luks = mc.at("/spec/config/storage/luks/0");
    assertEquals("root", luks.path("name").asText());
    assertEquals("luks-root", luks.path("label").asText());
    assertEquals("/dev/disk/by-partlabel/root", luks.path("device").asText());
    assertTrue(luks.at("/clevis/tpm2").asBoolean());
    assertEquals("[\"--cipher\",\"aes-cbc-essiv:sha256\"]", luks.path("options").toString());
    assertTrue(luks.path("wipeVolume").asBoolean());
    JsonNode fs = mc.at("/spec/config/storage/filesystems/0");
    assertEquals("/dev/mapper/root xfs root true", fs.path("device").asText() + " " + fs.path("format").asText() + " "
        + fs.path("label").asText() + " " + fs.path("wipeFilesystem").asBoolean());
    assertTrue(mc.at("/spec/kernelArguments").isMissingNode(), "TPM needs no network in the initramfs");
  }

  @Test
  void tangEverywhereBindsToTheServersWithTheNetworkUpEarly() throws Exception {
    List<OperatorManifests.File> files = DiskEncryptionManifests.render(new DiskEncryption("all", "tang", TANG), false);
    assertEquals(List.of("openshift/99-openshift-master-tang-encryption.yaml",
        "openshift/99-openshift-worker-tang-encryption.yaml"), names(files), "an arbiter's only with arbiters");
    JsonNode mc = YAML.readTree(files.get(1).content());
    assertEquals("worker-tang", mc.path("metadata").path("name").asText());
    assertEquals("http://tang.example.com:7500", mc.at("/spec/config/storage/luks/0/clevis/tang/0/url").asText());
    assertEquals("PLjNyRdGw03zlRoGjQYMahSZGu9", mc.at("/spec/config/storage/luks/0/clevis/tang/0/thumbprint").asText());
    assertTrue(mc.at("/spec/config/storage/luks/0/clevis/tpm2").isMissingNode());
    assertEquals("[\"rd.neednet=1\"]", mc.at("/spec/kernelArguments").toString());
    assertEquals(List.of("openshift/99-openshift-master-tang-encryption.yaml",
        "openshift/99-openshift-arbiter-tang-encryption.yaml", "openshift/99-openshift-worker-tang-encryption.yaml"),
        names(DiskEncryptionManifests.render(new DiskEncryption("all", "tang", TANG), true)));
  }

  @Test
  void nothingWhenOffAndOnlyTheRolesAsked() {
    assertEquals(List.of(), DiskEncryptionManifests.render(new DiskEncryption("none", "tpmv2", null), true));
    assertEquals(List.of(), DiskEncryptionManifests.render(DiskEncryption.NONE, true));
    assertEquals(List.of("openshift/99-openshift-worker-tpm-encryption.yaml"),
        names(DiskEncryptionManifests.render(new DiskEncryption("workers", "tpmv2", null), true)));
    assertEquals(List.of("openshift/99-openshift-arbiter-tpm-encryption.yaml"),
        names(DiskEncryptionManifests.render(new DiskEncryption("arbiters", "tpmv2", null), true)));
  }
}
