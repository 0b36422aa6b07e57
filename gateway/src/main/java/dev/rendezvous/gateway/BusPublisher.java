package dev.rendezvous.gateway;

import dev.rendezvous.bus.BusEvent;
import java.util.concurrent.CompletionStage;

/**
 * Where the gateway's events go: the bus producer ({@code BusProducer}) in every real assembly. The stage completes
 * when the broker acknowledged the record and fails when it did not (the failure reaches the agent as a retryable
 * error).
 */
@FunctionalInterface
public interface BusPublisher {
    CompletionStage<?> publish(BusEvent event);
}
