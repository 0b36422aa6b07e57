package dev.rendezvous.service.domain.operators;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.rendezvous.service.domain.host.HostRole;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What upstream's operator manager adds to an installation for the cluster's OLM operators (its
 * GenerateManifests), as a pure function of the cluster: for each operator the install manifests under
 * {@code openshift/} (Namespace, OperatorGroup, Subscription, ...), and the custom resources the controller applies
 * once OLM made the operator's CSV ({@code custom_manifests.json}); with any of them, also the ConfigMap
 * {@code olm_operator_manifests.yaml} carrying the same resources inside the cluster.
 */
public final class OperatorManifests {
  public static final String FOLDER = "openshift";
  /** The controller's file: {@code [{"Name": operator, "Content": base64 YAML}]}. */
  public static final String CONTROLLER_FILE = "custom_manifests.json";
  public static final String CONFIG_MAP_FILE = "olm_operator_manifests.yaml";
  // quoted numbers stay strings when written back ("3" CPUs is a quantity, not an int)
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS));
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A host as the manifests see it: its role (auto-assign resolved) and its disks ODF may use. */
  public record Host(HostRole role, long odfDisks) {}

  /** The cluster: its release, its OLM operators (dependencies included, as stored) and its hosts. */
  public record Target(String openshiftVersion, List<String> operators, List<Host> hosts) {
    public Target {
      operators = List.copyOf(operators);
      hosts = List.copyOf(hosts);
    }
  }

  /** An install manifest: folder, file name, YAML. */
  public record File(String folder, String fileName, String content) {}

  /** A custom resource the controller applies once {@code operator}'s CSV exists (one or more YAML documents). */
  public record PostInstall(String operator, String content) {}

  public record Rendered(List<File> files, List<PostInstall> postInstall) {
    public boolean isEmpty() {
      return files.isEmpty() && postInstall.isEmpty();
    }

    /** custom_manifests.json as the controller reads it; null when there is nothing to apply. */
    public byte[] controllerFile() {
      if (postInstall.isEmpty()) {
        return null;
      }
      ArrayNode a = JSON.createArrayNode();
      for (PostInstall p : postInstall) {
        a.addObject().put("Name", p.operator())
            .put("Content", Base64.getEncoder().encodeToString(p.content().getBytes(StandardCharsets.UTF_8)));
      }
      try {
        return JSON.writeValueAsBytes(a);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private OperatorManifests() {}

  /** Nothing for a cluster without OLM operators; names no {@link OlmOperator} knows are skipped. */
  public static Rendered render(Target t) {
    List<File> files = new ArrayList<>();
    List<PostInstall> post = new ArrayList<>();
    List<OlmOperator> ops = t.operators().stream().map(OlmOperator::parse).flatMap(Optional::stream).distinct().toList();
    for (OlmOperator op : ops) {
      OperatorTemplates.installManifests(op).forEach((name, yaml) -> files.add(new File(FOLDER, name, yaml)));
      post.add(new PostInstall(op.wire(), customResource(op, t)));
    }
    // MCE's own assisted service, on the cluster's storage (ODF first, as upstream prefers it)
    Optional<OlmOperator> storage = ops.contains(OlmOperator.ODF) ? Optional.of(OlmOperator.ODF)
        : ops.contains(OlmOperator.LVM) ? Optional.of(OlmOperator.LVM) : Optional.empty();
    if (ops.contains(OlmOperator.MCE) && storage.isPresent()) {
      String sc = storage.get() == OlmOperator.ODF ? OperatorTemplates.ODF_STORAGE_CLASS : OperatorTemplates.LVM_STORAGE_CLASS;
      // named after the storage operator: the controller applies it once that operator is ready
      post.add(new PostInstall(storage.get().wire(), OperatorTemplates.agentServiceConfig(sc)));
    }
    if (!post.isEmpty()) {
      files.add(new File(FOLDER, CONFIG_MAP_FILE, configMap(post)));
    }
    return new Rendered(List.copyOf(files), List.copyOf(post));
  }

  static String customResource(OlmOperator op, Target t) {
    return switch (op) {
      case LSO -> OperatorTemplates.localVolumeSet();
      case LVM -> OperatorTemplates.lvmCluster();
      case ODF -> odf(t);
      case CNV -> OperatorTemplates.hyperConverged();
      case MCE -> OperatorTemplates.multiClusterEngine();
      case MTV -> OperatorTemplates.forkliftController();
      case NMSTATE -> OperatorTemplates.nmState();
    };
  }

  /**
   * Compact mode (no workers: ODF on the masters) or standard (ODF on the workers), with one OSD per disk ODF may
   * use on those hosts, counted as the requirement checks count them (non-installation SSD/HDD of 25 GB or more).
   * Upstream counts the same from its host inventories; an unsettled layout (1 or 2 workers) renders as standard,
   * as upstream's does, though the ODF check keeps such a cluster from installing.
   */
  static String odf(Target t) {
    boolean compact = t.hosts().stream().noneMatch(h -> h.role() == HostRole.WORKER);
    long disks = t.hosts().stream().filter(h -> compact || h.role() == HostRole.WORKER).mapToLong(Host::odfDisks).sum();
    String cluster = OperatorTemplates.storageCluster(compact, disks);
    return versionBefore(t.openshiftVersion(), 4, 19) ? OperatorTemplates.storageSystem() + "---\n" + cluster : cluster;
  }

  /**
   * Upstream's ConfigMap {@code assisted-installer/olm-operator-manifests}: each resource document base64-encoded as
   * {@code <operator>-NN.yaml}, and per operator {@code <operator>.metadata.yaml} naming its namespace,
   * subscription and files, for a controller that cannot reach the service.
   */
  static String configMap(List<PostInstall> post) {
    Map<String, String> data = new TreeMap<>();
    Map<String, List<String>> filesByOperator = new LinkedHashMap<>();
    for (PostInstall p : post) {
      List<String> mine = filesByOperator.computeIfAbsent(p.operator(), k -> new ArrayList<>());
      for (JsonNode doc : documents(p.content())) {
        String name = "%s-%02d.yaml".formatted(p.operator(), mine.size() + 1);
        data.put(name, Base64.getEncoder().encodeToString(yaml(doc).strip().getBytes(StandardCharsets.UTF_8)));
        mine.add(name);
      }
    }
    filesByOperator.forEach((name, files) -> {
      OlmOperator.Subscription s = OlmOperator.parse(name).orElseThrow().subscription();
      ObjectNode meta = YAML.createObjectNode().put("namespace", s.namespace()).put("subscriptionName", s.name());
      files.forEach(meta.putArray("manifests")::add);
      data.put(name + ".metadata.yaml", yaml(meta));
    });
    ObjectNode cm = YAML.createObjectNode().put("apiVersion", "v1").put("kind", "ConfigMap");
    cm.putObject("metadata").put("name", "olm-operator-manifests").put("namespace", "assisted-installer");
    ObjectNode d = cm.putObject("data");
    data.forEach(d::put);
    return yaml(cm);
  }

  /** The non-empty documents of a YAML stream. */
  public static List<JsonNode> documents(String yaml) {
    List<JsonNode> out = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
      while (it.hasNext()) {
        JsonNode n = it.next();
        if (n != null && !n.isNull() && !n.isEmpty()) {
          out.add(n);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("an operator template is not YAML: " + e.getMessage(), e);
    }
    return out;
  }

  private static String yaml(JsonNode n) {
    try {
      return YAML.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean versionBefore(String version, int major, int minor) {
    return version != null && !dev.rendezvous.service.domain.validation.HardwareRequirements.versionAtLeast(version,
        major, minor);
  }
}
