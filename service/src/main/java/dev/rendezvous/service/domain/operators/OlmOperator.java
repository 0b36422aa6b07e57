package dev.rendezvous.service.domain.operators;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The OLM operators a cluster may ask for, as upstream's operator manager lists them: the name used in
 * {@code olm_operators}, the name users read, the operators it needs installed with it, the oldest release it
 * supports, and how OLM installs it (its {@link Subscription}) and how long the installation waits for it. Their
 * hardware needs and checks are in {@link dev.rendezvous.service.domain.validation.OperatorRequirements}, their
 * manifests in {@link OperatorManifests}.
 */
public enum OlmOperator {
  LSO("lso", "Local Storage Operator", List.of(), null,
      new Subscription("openshift-local-storage", "local-storage-operator", "local-storage-operator", null), 70),
  LVM("lvm", "Logical Volume Manager Storage", List.of(), "4.12",
      new Subscription("openshift-storage", "lvms-operator", "lvms-operator", null), 30),
  ODF("odf", "OpenShift Data Foundation", List.of("lso"), null,
      new Subscription("openshift-storage", "odf-operator", "odf-operator", null), 30),
  CNV("cnv", "OpenShift Virtualization", List.of(), null, // no dependency in upstream's current operator
      new Subscription("openshift-cnv", "hco-operatorhub", "kubevirt-hyperconverged", "stable"), 60),
  MCE("mce", "multicluster engine", List.of(), "4.10",
      new Subscription("multicluster-engine", "multicluster-engine", "multicluster-engine", null), 60),
  MTV("mtv", "Migration Toolkit for Virtualization", List.of("cnv"), "4.14",
      new Subscription("openshift-mtv", "mtv-operator", "mtv-operator", null), 60),
  NMSTATE("nmstate", "Kubernetes NMState Operator", List.of(), "4.12",
      new Subscription("openshift-nmstate", "kubernetes-nmstate-operator", "kubernetes-nmstate-operator", "stable"), 60);

  /**
   * Where and what OLM installs, as upstream's subscriptions say: the namespace, the Subscription's name (what the
   * controller follows), the package in the {@code redhat-operators} catalog, and the channel when upstream pins
   * one (null: the package's default channel, for every release we offer).
   */
  public record Subscription(String namespace, String name, String packageName, String channel) {
    public static final String SOURCE = "redhat-operators";
    public static final String SOURCE_NAMESPACE = "openshift-marketplace";
  }

  private final String wire;
  private final String fullName;
  private final List<String> dependencies;
  private final String minVersion;
  private final Subscription subscription;
  private final long timeoutSeconds;

  OlmOperator(String wire, String fullName, List<String> dependencies, String minVersion, Subscription subscription,
      int timeoutMinutes) {
    this.wire = wire;
    this.fullName = fullName;
    this.dependencies = dependencies;
    this.minVersion = minVersion;
    this.subscription = subscription;
    this.timeoutSeconds = timeoutMinutes * 60L;
  }

  public Subscription subscription() {
    return subscription;
  }

  /** How long the installation waits for its CSV (upstream's per-operator timeout). */
  public long timeoutSeconds() {
    return timeoutSeconds;
  }

  public String wire() {
    return wire;
  }

  public String fullName() {
    return fullName;
  }

  public List<String> dependencies() {
    return dependencies;
  }

  /** The oldest {@code major.minor} release it installs on, or null when every offered release will do. */
  public String minVersion() {
    return minVersion;
  }

  public static Optional<OlmOperator> parse(String name) {
    if (name == null) {
      return Optional.empty();
    }
    String n = name.toLowerCase(Locale.ROOT);
    for (OlmOperator o : values()) {
      if (o.wire.equals(n)) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }

  public static List<String> names() {
    List<String> out = new ArrayList<>();
    for (OlmOperator o : values()) {
      out.add(o.wire);
    }
    return out;
  }

  /**
   * The operators asked for with everything they depend on (upstream adds dependencies itself: asking for ODF
   * installs LSO too), dependencies first, each once. Unknown names are kept as given: callers refuse them.
   */
  public static List<String> withDependencies(List<String> asked) {
    Set<String> out = new LinkedHashSet<>();
    for (String name : asked) {
      add(name, out, 0);
    }
    return List.copyOf(out);
  }

  private static void add(String name, Set<String> out, int depth) {
    Optional<OlmOperator> op = parse(name);
    if (op.isPresent() && depth < values().length) {
      for (String d : op.get().dependencies) {
        add(d, out, depth + 1);
      }
    }
    out.add(op.map(OlmOperator::wire).orElse(name));
  }
}
