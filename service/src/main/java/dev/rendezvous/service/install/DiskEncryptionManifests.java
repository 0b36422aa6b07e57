package dev.rendezvous.service.install;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.rendezvous.service.domain.cluster.ClusterContext.DiskEncryption;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.operators.OperatorManifests;
import java.util.ArrayList;
import java.util.List;

/**
 * A cluster's disk encryption as its nodes get it, as upstream renders it: per role it is enabled for, a MachineConfig
 * {@code openshift/99-openshift-<role>-<tpm|tang>-encryption.yaml} whose Ignition (3.2.0) puts the root partition in
 * LUKS bound by clevis to the TPM 2.0 or to the Tang servers (then with {@code rd.neednet=1}, so the initramfs has the
 * network to reach them), and makes an xfs root on it. openshift-install turns it into the role's machine config;
 * day-2 hosts get it from the cluster's machine-config server. An arbiter's only in a cluster with arbiters.
 * The cipher is upstream's default, {@code aes-cbc-essiv:sha256} (upstream takes aes-xts-plain64 when its own host
 * runs in FIPS mode, or an environment override; neither is here). Pure: no I/O.
 */
public final class DiskEncryptionManifests {
  static final String CIPHER = "aes-cbc-essiv:sha256";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private DiskEncryptionManifests() {}

  /** The manifests, master then arbiter then worker; none when encryption is off. */
  public static List<OperatorManifests.File> render(DiskEncryption e, boolean arbiters) {
    List<OperatorManifests.File> out = new ArrayList<>();
    if (e == null || e.enableOn() == null || e.enableOn().isBlank() || e.enableOn().equals("none")) {
      return out;
    }
    boolean tang = "tang".equals(e.mode());
    String mode = tang ? "tang" : "tpm";
    JsonNode servers = tang ? tangServers(e.tangServers()) : null;
    for (HostRole role : List.of(HostRole.MASTER, HostRole.ARBITER, HostRole.WORKER)) {
      if (!e.enabledFor(role) || (role == HostRole.ARBITER && !arbiters)) {
        continue;
      }
      String name = role.wire();
      out.add(new OperatorManifests.File("openshift", "99-openshift-" + name + "-" + mode + "-encryption.yaml",
          machineConfig(name, mode, servers)));
    }
    return out;
  }

  private static String machineConfig(String role, String mode, JsonNode tangServers) {
    ObjectNode mc = JSON.createObjectNode();
    mc.put("apiVersion", "machineconfiguration.openshift.io/v1").put("kind", "MachineConfig");
    ObjectNode meta = mc.putObject("metadata");
    meta.put("name", role + "-" + mode);
    meta.putObject("labels").put("machineconfiguration.openshift.io/role", role);
    ObjectNode spec = mc.putObject("spec");
    ObjectNode config = spec.putObject("config");
    config.putObject("ignition").put("version", "3.2.0");
    ObjectNode storage = config.putObject("storage");
    ObjectNode luks = storage.putArray("luks").addObject();
    luks.put("name", "root").put("label", "luks-root").put("device", "/dev/disk/by-partlabel/root");
    ObjectNode clevis = luks.putObject("clevis");
    if (tangServers == null) {
      clevis.put("tpm2", true);
    } else {
      ArrayNode tang = clevis.putArray("tang");
      for (JsonNode s : tangServers) {
        tang.addObject().put("url", s.path("url").asText()).put("thumbprint", s.path("thumbprint").asText());
      }
    }
    luks.putArray("options").add("--cipher").add(CIPHER);
    luks.put("wipeVolume", true);
    storage.putArray("filesystems").addObject().put("device", "/dev/mapper/root").put("format", "xfs")
        .put("wipeFilesystem", true).put("label", "root");
    if (tangServers != null) {
      spec.putArray("kernelArguments").add("rd.neednet=1");
    }
    try {
      return YAML.writeValueAsString(mc);
    } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
      throw new IllegalStateException(ex);
    }
  }

  /** tang_servers, a JSON string of [{url, thumbprint}] (checked when the cluster was set); unreadable: none. */
  private static JsonNode tangServers(String text) {
    try {
      JsonNode n = text == null || text.isBlank() ? null : JSON.readTree(text);
      return n != null && n.isArray() ? n : JSON.createArrayNode();
    } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
      return JSON.createArrayNode();
    }
  }
}
