package dev.rendezvous.service.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The openshift-install adapter against a stand-in binary (no OpenShift release can be pulled here): a script that
 * behaves like openshift-install's targets (writes their files into --dir), so the adapter's commands, environment,
 * manifests and file names are checked; the real binary works the same way.
 */
class OpenshiftInstallGeneratorTest {
  @TempDir
  Path dir;

  /** A fake openshift-install: records each call, writes the files of each target. */
  Path fake(String extraOnIgnition) throws Exception {
    Path bin = dir.resolve("openshift-install");
    Files.writeString(bin, """
        #!/bin/sh
        set -e
        target="$2"; d="$4"
        echo "$target $OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE" >> "%s/calls"
        case "$target" in
          manifests) test -f "$d/install-config.yaml"; mkdir -p "$d/manifests" "$d/openshift" ;;
          ignition-configs)
            %s
            ls "$d/openshift" > "%s/seen-manifests"
            for r in bootstrap master worker; do echo "{\\"ignition\\":{\\"version\\":\\"3.2.0\\"},\\"r\\":\\"$r\\"}" > "$d/$r.ign"; done
            mkdir -p "$d/auth"; echo "kubeconfig: real" > "$d/auth/kubeconfig"; echo "aaaaa-bbbbb-ccccc-ddddd" > "$d/auth/kubeadmin-password"
            echo '{"clusterName":"edge1"}' > "$d/metadata.json" ;;
          single-node-ignition-config)
            echo '{"ignition":{"version":"3.2.0"},"r":"bip"}' > "$d/bootstrap-in-place-for-live-iso.ign"
            mkdir -p "$d/auth"; echo "kubeconfig: sno" > "$d/auth/kubeconfig"; echo "eeeee-fffff-ggggg-hhhhh" > "$d/auth/kubeadmin-password"
            echo '{"clusterName":"sno1"}' > "$d/metadata.json" ;;
        esac
        """.formatted(dir, extraOnIgnition, dir), StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
    return bin;
  }

  static GenerationRequest request(InstallConfigInput in) {
    return new GenerationRequest(UUID.randomUUID(), "4.18", "quay.io/ocp-release:4.18.1", in, InstallConfigRenderer.render(in),
        List.of(new GenerationRequest.Manifest("openshift", "99-extra.yaml", "kind: ConfigMap\n")));
  }

  @Test
  void runsManifestsThenIgnitionConfigsWithTheReleaseAndTheCustomManifests() throws Exception {
    OpenshiftInstallGenerator g = new OpenshiftInstallGenerator(OpenshiftInstallGenerator.path(fake("")), dir.resolve("work"),
        Duration.ofSeconds(30));
    ClusterArtifacts a = g.generate(request(InstallConfigRendererTest.ha(null)));
    assertTrue(a.realPayload());
    assertEquals("manifests quay.io/ocp-release:4.18.1\nignition-configs quay.io/ocp-release:4.18.1\n",
        Files.readString(dir.resolve("calls")));
    assertEquals("99-extra.yaml\n", Files.readString(dir.resolve("seen-manifests")),
        "the custom manifests are in place when the Ignition configs are made");
    assertEquals("{\"ignition\":{\"version\":\"3.2.0\"},\"r\":\"worker\"}\n", new String(a.files().get("worker.ign"), StandardCharsets.UTF_8));
    assertEquals("kubeconfig: real\n", new String(a.files().get("kubeconfig-noingress"), StandardCharsets.UTF_8));
    assertTrue(new String(a.files().get("install-config.yaml"), StandardCharsets.UTF_8).contains("name: edge1"));
    try (var left = Files.list(dir.resolve("work"))) {
      assertEquals(0, left.count(), "the work directory is removed");
    }
  }

  @Test
  void aSingleNodeUsesTheBootstrapInPlaceConfig() throws Exception {
    OpenshiftInstallGenerator g = new OpenshiftInstallGenerator(OpenshiftInstallGenerator.path(fake("")), dir.resolve("work"),
        Duration.ofSeconds(30));
    ClusterArtifacts a = g.generate(request(InstallConfigRendererTest.sno()));
    assertTrue(new String(a.files().get("bootstrap.ign"), StandardCharsets.UTF_8).contains("\"bip\""));
    assertEquals("{\"ignition\":{\"version\":\"3.2.0\"}}", new String(a.files().get("master.ign"), StandardCharsets.UTF_8),
        "the host's Ignition is merged over what bootkube renders");
    assertTrue(Files.readString(dir.resolve("calls")).contains("single-node-ignition-config"));
  }

  @Test
  void aFailingRunSaysWhyAndAMissingBinaryToo() throws Exception {
    OpenshiftInstallGenerator g = new OpenshiftInstallGenerator(OpenshiftInstallGenerator.path(
        fake("echo 'level=fatal msg=failed to fetch Master Machines: invalid install-config' >&2; exit 3")),
        dir.resolve("work"), Duration.ofSeconds(30));
    var e = assertThrows(ClusterArtifactsGenerator.GenerationException.class,
        () -> g.generate(request(InstallConfigRendererTest.ha(null))));
    assertTrue(e.getMessage().contains("exited 3"), e.getMessage());
    assertTrue(e.getMessage().contains("invalid install-config"), e.getMessage());
    var missing = assertThrows(ClusterArtifactsGenerator.GenerationException.class, () -> new OpenshiftInstallGenerator(
        OpenshiftInstallGenerator.path(dir.resolve("nope")), dir, Duration.ofSeconds(5)).generate(request(InstallConfigRendererTest.ha(null))));
    assertTrue(missing.getMessage().contains("is not an executable file"), missing.getMessage());
  }
}
