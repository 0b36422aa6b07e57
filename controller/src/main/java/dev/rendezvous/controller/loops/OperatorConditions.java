package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.OperatorStatus;
import java.util.List;

/** Upstream's MonitoredOperatorStatus and CsvStatusToOperatorStatus: how cluster-side state maps to the service's. */
public final class OperatorConditions {

  /** A status as the service wants it reported. */
  public record Reported(OperatorStatus status, String message, String version) {
  }

  private OperatorConditions() {
  }

  /**
   * First matching condition in the operator's order: Available=True → available; Progressing=True →
   * progressing; Degraded=True or Available=False → failed; none → progressing with no message.
   */
  public static Reported of(List<Views.Condition> conditions, String version) {
    for (Views.Condition c : conditions) {
      if ("Available".equals(c.type()) && "True".equals(c.status())) {
        return new Reported(OperatorStatus.AVAILABLE, c.message(), version);
      }
      if ("Progressing".equals(c.type()) && "True".equals(c.status())) {
        return new Reported(OperatorStatus.PROGRESSING, c.message(), version);
      }
      if (("Degraded".equals(c.type()) && "True".equals(c.status()))
          || ("Available".equals(c.type()) && "False".equals(c.status()))) {
        return new Reported(OperatorStatus.FAILED, c.message(), version);
      }
    }
    return new Reported(OperatorStatus.PROGRESSING, "", version);
  }

  /** CSV phase Succeeded → available, Failed → failed, anything else → progressing. */
  public static Reported ofCsv(Views.Csv csv) {
    OperatorStatus s = switch (csv.phase()) {
      case "Succeeded" -> OperatorStatus.AVAILABLE;
      case "Failed" -> OperatorStatus.FAILED;
      default -> OperatorStatus.PROGRESSING;
    };
    return new Reported(s, csv.message(), csv.version());
  }
}
