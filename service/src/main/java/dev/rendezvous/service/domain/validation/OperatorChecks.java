package dev.rendezvous.service.domain.validation;

import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.operators.OlmOperator;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A host's operator validations (the "operators" category), one per operator of {@link HostValidationId#OPERATORS}.
 * What does not change between refreshes is made once: each id, its parsed operator, its "is disabled" result and its
 * place in the category (sorted by id); a refresh wrote ~30 ids and messages and sorted them again.
 */
final class OperatorChecks {
  static final int COUNT = HostValidationId.OPERATORS.size();
  private static final OlmOperator[] KNOWN = new OlmOperator[COUNT];
  private static final ValidationResult[] DISABLED = new ValidationResult[COUNT];
  /** Where each operator's result goes in the category, which lists them sorted by id. */
  private static final int[] POSITION = new int[COUNT];

  static {
    List<String> ids = HostValidation.OPERATOR_IDS;
    for (int i = 0; i < COUNT; i++) {
      String op = HostValidationId.OPERATORS.get(i);
      KNOWN[i] = OlmOperator.parse(op).orElse(null);
      DISABLED[i] = new ValidationResult(ids.get(i), ValidationStatus.SUCCESS, op + " is disabled");
    }
    int[] sorted = IntStream.range(0, COUNT).boxed().sorted(Comparator.comparing(ids::get)).mapToInt(i -> i).toArray();
    for (int at = 0; at < COUNT; at++) {
      POSITION[sorted[at]] = at;
    }
  }

  private OperatorChecks() {}

  /** The {@code i}-th operator's result for a host of a cluster: its requirements when the cluster has it. */
  static ValidationResult result(int i, ClusterContext cluster, HostSnapshot host, Inventory inv) {
    String op = HostValidationId.OPERATORS.get(i);
    if (KNOWN[i] == null || !cluster.olmOperators().contains(op)) {
      return DISABLED[i];
    }
    OperatorRequirements.Check check = OperatorRequirements.validateHost(KNOWN[i], cluster, host, inv);
    return new ValidationResult(DISABLED[i].id(), check.status(), check.message());
  }

  /** The place of the {@code i}-th operator's result in the category. */
  static int position(int i) {
    return POSITION[i];
  }
}
