package dev.rendezvous.service.domain.validation;

import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A host's validations once its installation started. Its refresh rules then read only whether it is still connected
 * (and its boot media); everything else was decided when the installation began. So only those few are evaluated
 * again and the rest keep their last results: recomputing them checked every peer's latency, packet loss, MTU and
 * hostname on every refresh, O(hosts²) per pass, which is what made a 1,000-host install fall behind its own
 * progress reports. Our choice, where upstream re-evaluates all of them: the results shown are the same, since their
 * inputs (inventories, connectivity reports) no longer change during an installation.
 */
final class FrozenValidations {
  /** The statuses whose validations are frozen: a host writing its disk, or done. */
  static final Set<HostStatus> STATUSES = EnumSet.of(HostStatus.INSTALLING, HostStatus.INSTALLING_IN_PROGRESS,
      HostStatus.INSTALLING_PENDING_USER_ACTION, HostStatus.INSTALLED, HostStatus.ADDED_TO_EXISTING_CLUSTER);

  /** The validations still evaluated: the ones the install-state rules read. */
  static final List<HostValidationId> LIVE = List.of(HostValidationId.CONNECTED, HostValidationId.MEDIA_CONNECTED);

  private FrozenValidations() {}

  static boolean apply(HostSnapshot host) {
    return STATUSES.contains(host.status()) && host.validationsInfo() != null
        && !host.validationsInfo().categories().isEmpty();
  }

  /** One live validation's fresh result, and whether it is shown (some are hidden in some stages). */
  record Fresh(HostValidationId id, ValidationResult result, boolean shown) {}

  /**
   * The last results with the live ones replaced in place (or added at the end of their category, or removed when
   * now hidden); statuses and conditions as a full validation would give them.
   */
  static HostValidation merge(HostSnapshot host, List<Fresh> fresh, Set<String> ignored, boolean diskSpeedOk,
      boolean imagesOk) {
    Map<String, List<ValidationResult>> out = new LinkedHashMap<>();
    host.validationsInfo().categories().forEach((k, v) -> out.put(k, new ArrayList<>(v)));
    for (Fresh f : fresh) {
      List<ValidationResult> category = out.computeIfAbsent(f.id().category(), k -> new ArrayList<>());
      int at = -1;
      for (int i = 0; i < category.size(); i++) {
        if (category.get(i).id().equals(f.id().id())) {
          at = i;
          break;
        }
      }
      if (!f.shown()) {
        if (at >= 0) {
          category.remove(at);
        }
      } else if (at >= 0) {
        category.set(at, f.result());
      } else {
        category.add(f.result());
      }
    }
    HostValidation.Slots slots = new HostValidation.Slots();
    for (List<ValidationResult> l : out.values()) {
      for (ValidationResult r : l) {
        put(r, ignored, slots);
      }
    }
    for (Fresh f : fresh) {
      put(f.result(), ignored, slots);
    }
    out.values().removeIf(List::isEmpty);
    return slots.build(new ValidationsInfo(out), diskSpeedOk, imagesOk);
  }

  private static void put(ValidationResult r, Set<String> ignored, HostValidation.Slots slots) {
    boolean isIgnored = !HostValidationId.NON_IGNORABLE.contains(r.id()) && (ignored.contains(r.id())
        || ignored.contains("all"));
    slots.put(r.id(), r.status(), r.status().passes() || isIgnored);
  }
}
