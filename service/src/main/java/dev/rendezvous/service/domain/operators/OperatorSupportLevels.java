package dev.rendezvous.service.domain.operators;

import dev.rendezvous.service.domain.validation.HardwareRequirements;
import java.util.Locale;
import java.util.Set;

/**
 * An OLM operator's support level as upstream's feature support decides it (internal/featuresupport): unavailable
 * on the CPU architectures and platforms the operator is incompatible with and below its oldest release, otherwise
 * supported (CNV on arm64: dev-preview). Now that their subscriptions are rendered into the installation and the
 * controller follows their CSVs, nothing here is short of upstream's.
 */
public final class OperatorSupportLevels {
  public static final String SUPPORTED = "supported";
  public static final String DEV_PREVIEW = "dev-preview";
  public static final String UNAVAILABLE = "unavailable";

  private OperatorSupportLevels() {}

  /**
   * @param cpuArchitecture as the API takes it ({@code x86_64}, {@code arm64}/{@code aarch64}, {@code ppc64le},
   *     {@code s390x}, {@code multi}); null is upstream's default, x86_64
   * @param platformType {@code baremetal}, {@code none}, {@code nutanix}, {@code vsphere}, {@code external}, or null
   * @param externalPlatformName for {@code external}: {@code oci} or another
   */
  public static String level(OlmOperator op, String openshiftVersion, String cpuArchitecture, String platformType,
      String externalPlatformName) {
    String arch = cpuArchitecture == null ? "x86_64" : cpuArchitecture.toLowerCase(Locale.ROOT);
    arch = arch.equals("aarch64") ? "arm64" : arch;
    if (incompatibleArchitectures(op, openshiftVersion).contains(arch)) {
      return UNAVAILABLE;
    }
    if (op.minVersion() != null && !atLeast(openshiftVersion, op.minVersion())) {
      return UNAVAILABLE;
    }
    String platform = platformType == null ? "" : platformType.toLowerCase(Locale.ROOT);
    boolean oci = platform.equals("external") && "oci".equalsIgnoreCase(externalPlatformName);
    boolean incompatiblePlatform = switch (op) {
      case LVM, CNV, MTV -> platform.equals("vsphere") || platform.equals("nutanix");
      case MCE -> platform.equals("nutanix");
      case NMSTATE -> platform.equals("nutanix") || platform.equals("external");
      case ODF -> oci;
      case LSO -> false;
    };
    if (incompatiblePlatform) {
      return UNAVAILABLE;
    }
    return op == OlmOperator.CNV && arch.equals("arm64") ? DEV_PREVIEW : SUPPORTED;
  }

  static Set<String> incompatibleArchitectures(OlmOperator op, String openshiftVersion) {
    return switch (op) {
      case LSO, ODF -> Set.of("arm64");
      case LVM -> Set.of("s390x", "ppc64le");
      case CNV -> atLeast(openshiftVersion, "4.14") ? Set.of("s390x", "ppc64le") : Set.of("s390x", "ppc64le", "arm64");
      case MCE -> Set.of();
      case MTV, NMSTATE -> Set.of("arm64", "s390x", "ppc64le");
    };
  }

  private static boolean atLeast(String version, String min) {
    String[] p = min.split("\\.");
    return HardwareRequirements.versionAtLeast(version, Integer.parseInt(p[0]), Integer.parseInt(p[1]));
  }
}
