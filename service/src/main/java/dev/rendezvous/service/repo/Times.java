package dev.rendezvous.service.repo;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** Timestamps as upstream writes them: UTC, RFC 3339 with milliseconds. */
public final class Times {
  private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");
  /** Upstream's Go zero time, returned for timestamps never set. */
  public static final String ZERO = "0001-01-01T00:00:00.000Z";

  private Times() {}

  public static OffsetDateTime now() {
    return OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
  }

  public static String format(OffsetDateTime t) {
    return t == null ? ZERO : FORMAT.format(t.withOffsetSameInstant(ZoneOffset.UTC));
  }

  public static OffsetDateTime of(Instant i) {
    return i.atOffset(ZoneOffset.UTC);
  }
}
