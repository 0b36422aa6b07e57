package dev.rendezvous.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * How long each step of start-up took, logged with "rendezvous started": a replacement instance of a rolling upgrade
 * once took 34–39 s to start under load against 7 s for a first start, and nothing said where the time went.
 */
final class StartupPhases {
  private final LongSupplier nanos;
  private final List<String> names = new ArrayList<>();
  private final List<Long> durations = new ArrayList<>();
  private final long started;
  private long last;

  StartupPhases(LongSupplier nanos) {
    this.nanos = nanos;
    this.started = nanos.getAsLong();
    this.last = started;
  }

  /** From the start to now. */
  long elapsedMillis() {
    return (nanos.getAsLong() - started) / 1_000_000;
  }

  /** Ends the phase named {@code name}: the time since the previous mark (or the start) is its. */
  void mark(String name) {
    long now = nanos.getAsLong();
    names.add(name);
    durations.add(now - last);
    last = now;
  }

  /** "servers 3.1 s, topics 0.2 s, ...", in start-up order; phases under 50 ms are left out. */
  String summary() {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < names.size(); i++) {
      if (durations.get(i) < 50_000_000L) {
        continue;
      }
      if (out.length() > 0) {
        out.append(", ");
      }
      out.append(names.get(i)).append(' ').append(String.format(Locale.ROOT, "%.1f s", durations.get(i) / 1e9));
    }
    return out.toString();
  }
}
