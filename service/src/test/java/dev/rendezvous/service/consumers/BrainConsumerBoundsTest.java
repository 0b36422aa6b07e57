package dev.rendezvous.service.consumers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How far the brain fetches ahead of its lanes, for the gateway's backlog bound. */
class BrainConsumerBoundsTest {
  @Test
  void theBrainFetchesAheadOfTheGatewaysBoundAndNeverLessThanItsOwnDefault() {
    assertEquals(BrainConsumer.MAX_BUFFERED, BrainConsumer.maxBuffered(0), "no bound given: the brain's own");
    assertEquals(BrainConsumer.MAX_BUFFERED, BrainConsumer.maxBuffered(2000), "the default bound: twice it is the default");
    assertEquals(24_000, BrainConsumer.maxBuffered(12_000), "a bound set higher: twice it, not paused under it");
    assertEquals(Integer.MAX_VALUE / 2, BrainConsumer.maxBuffered(Long.MAX_VALUE / 4), "capped, not overflowed");
  }
}
