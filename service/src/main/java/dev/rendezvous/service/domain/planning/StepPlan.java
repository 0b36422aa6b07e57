package dev.rendezvous.service.domain.planning;

import dev.rendezvous.service.domain.DomainEvent;
import java.util.List;

/** Planner output: the steps to send and the events planning produced (quick-format notices). */
public record StepPlan(Steps steps, List<DomainEvent> events) {
  public StepPlan {
    events = List.copyOf(events);
  }
}
