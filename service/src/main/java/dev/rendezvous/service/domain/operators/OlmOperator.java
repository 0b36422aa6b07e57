package dev.rendezvous.service.domain.operators;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The OLM operators a cluster may ask for, as upstream's operator manager lists them: the name used in
 * {@code olm_operators}, the name users read, the operators it needs installed with it, and the oldest release it
 * supports. Their hardware needs and checks are in {@link OperatorRequirements}.
 */
public enum OlmOperator {
  LSO("lso", "Local Storage Operator", List.of(), null),
  LVM("lvm", "Logical Volume Manager Storage", List.of(), "4.12"),
  ODF("odf", "OpenShift Data Foundation", List.of("lso"), null),
  CNV("cnv", "OpenShift Virtualization", List.of("lso"), null),
  MCE("mce", "multicluster engine", List.of(), "4.10"),
  MTV("mtv", "Migration Toolkit for Virtualization", List.of("cnv"), "4.14"),
  NMSTATE("nmstate", "Kubernetes NMState Operator", List.of(), "4.12");

  private final String wire;
  private final String fullName;
  private final List<String> dependencies;
  private final String minVersion;

  OlmOperator(String wire, String fullName, List<String> dependencies, String minVersion) {
    this.wire = wire;
    this.fullName = fullName;
    this.dependencies = dependencies;
    this.minVersion = minVersion;
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
