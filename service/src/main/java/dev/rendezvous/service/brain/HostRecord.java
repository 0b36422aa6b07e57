package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.host.HostSnapshot;


/**
 * A host as the brain keeps it: the domain's snapshot plus what only the adapter needs. {@code spec} is the
 * user-settable extras document (node_labels, machine_config_pool_name, disks_skip_formatting, ...);
 * {@code otherResults} the step_results entries the domain does not model (free_addresses, ...), both
 * as JSON text.
 */
public record HostRecord(
    HostSnapshot snapshot,
    long rowVersion,
    String spec,
    String otherResults) {

  public HostRecord {
    spec = spec == null ? "{}" : spec;
    otherResults = otherResults == null ? "{}" : otherResults;
  }

  public HostRecord withSnapshot(HostSnapshot s) {
    return new HostRecord(s, rowVersion, spec, otherResults);
  }

  public HostRecord withVersion(long v) {
    return new HostRecord(snapshot, v, spec, otherResults);
  }

  /** With one more (or replaced) step_results entry the domain does not model; {@code json} is its raw JSON. */
  public HostRecord withOtherResult(String key, String json) {
    com.fasterxml.jackson.databind.node.ObjectNode o = StoredJson.object(otherResults);
    try {
      o.set(key, dev.rendezvous.service.domain.planning.StepOutputs.JSON.readTree(json));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
    return new HostRecord(snapshot, rowVersion, spec, StoredJson.canonical(o));
  }

  /** Same content (the row version aside). */
  public boolean sameContent(HostRecord o) {
    return (snapshot == o.snapshot || snapshot.equals(o.snapshot)) && spec.equals(o.spec)
        && otherResults.equals(o.otherResults);
  }
}
