package dev.rendezvous.service.bench;

import java.util.Arrays;

/** Latency samples (nanoseconds) and their percentiles. */
final class BenchStats {
  private BenchStats() {}

  static final class Latencies {
    private long[] samples = new long[1024];
    private int n;

    synchronized void add(long nanos) {
      if (n == samples.length) {
        samples = Arrays.copyOf(samples, n * 2);
      }
      samples[n++] = nanos;
    }

    synchronized String summary() {
      if (n == 0) {
        return "(no samples)";
      }
      long[] s = Arrays.copyOf(samples, n);
      Arrays.sort(s);
      return String.format("n=%,d p50 %.1f ms, p99 %.1f ms, max %.1f ms", n, ms(s, 0.50), ms(s, 0.99), s[n - 1] / 1e6);
    }

    private static double ms(long[] sorted, double q) {
      return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
    }
  }
}
