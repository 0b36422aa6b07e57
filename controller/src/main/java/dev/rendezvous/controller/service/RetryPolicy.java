package dev.rendezvous.controller.service;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Upstream's client retry policy (rehttp): exponential back-off with full jitter between {@code baseDelay·2^n} capped
 * at {@code maxDelay} (2 s and 10 s upstream); 404, 423 and 425 are retried up to {@code minRetries} times (10),
 * 408, 429, 5xx and transport failures (refused, reset, timed out) up to {@code maxRetries} (15 for the controller).
 * Tests shrink the delays to milliseconds.
 */
public record RetryPolicy(Duration baseDelay, Duration maxDelay, int maxRetries, int minRetries) {

  /** What a call may safely retry. */
  public enum Mode {
    /** Everything the policy lists (reads, and writes the service applies idempotently). */
    FULL,
    /**
     * Only failures where the request cannot have reached the service (connection refused or not established).
     * Host stage reports use it: an ambiguous failure is not resent blindly, the loop re-reads the host's stage
     * in its next round and decides again, so a stage is never reported twice.
     */
    UNSENT_ONLY
  }

  public RetryPolicy {
    if (baseDelay.isNegative() || maxDelay.isNegative() || maxRetries < 0 || minRetries < 0) {
      throw new IllegalArgumentException("retry delays and counts must not be negative");
    }
  }

  public static RetryPolicy controllerDefault() {
    return new RetryPolicy(Duration.ofSeconds(2), Duration.ofSeconds(10), 15, 10);
  }

  /** Whether an answer with this status is retried after {@code retriesSoFar} retries. */
  public boolean retriesStatus(int status, int retriesSoFar, Mode mode) {
    if (mode == Mode.UNSENT_ONLY) {
      return false;
    }
    if (status == 404 || status == 423 || status == 425) {
      return retriesSoFar < Math.min(minRetries, maxRetries);
    }
    if (status == 408 || status == 429 || status >= 500) {
      return retriesSoFar < maxRetries;
    }
    return false;
  }

  /** Whether a transport failure is retried after {@code retriesSoFar} retries. */
  public boolean retriesFailure(Throwable failure, int retriesSoFar, Mode mode) {
    if (retriesSoFar >= maxRetries) {
      return false;
    }
    if (failure instanceof ConnectException || failure instanceof HttpConnectTimeoutException) {
      return true;
    }
    return mode == Mode.FULL && failure instanceof IOException;
  }

  /** Delay before retry number {@code retriesSoFar + 1}: uniform in [0, min(max, base·2^n)]. */
  public Duration delay(int retriesSoFar) {
    long base = baseDelay.toMillis();
    long cap = maxDelay.toMillis();
    long exp = retriesSoFar >= 30 ? cap : Math.min(cap, base << retriesSoFar);
    return Duration.ofMillis(exp <= 0 ? 0 : ThreadLocalRandom.current().nextLong(exp + 1));
  }
}
