package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;

/**
 * {@code installation-disk-speed-check}: args = [{"path": "/dev/sdX"}, "<timeout seconds>"]. Measures what
 * upstream measures with {@code fio --rw=write --ioengine=sync --bs=2300 --size=22m --fdatasync=1}: the
 * latency of each 2300-byte write followed by fdatasync ({@link FileChannel#force(boolean) force(false)}),
 * sequentially from offset 0, and reports the 99th percentile in ms. Like upstream it writes over the
 * start of the target (the install disk), so it refuses a device that is mounted (or whose partitions are):
 * that would be the running system. A regular file (file-backed disk) works the same way.
 */
public final class DiskSpeedCheckExecutor implements StepExecutor {
  static final int BLOCK = 2300;
  static final long UPSTREAM_SIZE = 22L * 1024 * 1024;
  private static final int MIN_SAMPLES = 100;

  private final HostRoot root;
  private final long totalBytes;

  public DiskSpeedCheckExecutor(HostRoot root, long totalBytes) {
    this.root = root;
    this.totalBytes = totalBytes;
  }

  @Override
  public Duration timeout(Step step, Duration dflt) {
    return argTimeout(step).map(t -> t.plusSeconds(5)).orElse(dflt);
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("installation-disk-speed-check: args[0] ({\"path\":...}) is missing");
    }
    String path = WireJson.read(step.arg(0), StepModels.DiskSpeedRequest.class).path();
    if (path == null || path.isBlank()) {
      throw new IllegalArgumentException("installation-disk-speed-check: path is missing");
    }
    Path target = Path.of(path);
    if (!Files.exists(target)) {
      return StepOutcome.failure(StepOutcome.AGENT_ERROR, "installation-disk-speed-check: " + path + " does not exist");
    }
    if (!Files.isRegularFile(target)) {
      String mounted = MountGuard.mountedUse(root, target);
      if (mounted != null) {
        return StepOutcome.failure(StepOutcome.AGENT_ERROR,
            "installation-disk-speed-check: refusing to write to " + path + ": " + mounted);
      }
    }
    long deadline = System.nanoTime() + argTimeout(step).orElse(Duration.ofMinutes(5)).toNanos();
    long[] samples = measure(target, totalBytes, deadline);
    if (samples.length < MIN_SAMPLES && samples.length * (long) BLOCK < totalBytes) {
      return StepOutcome.failure(StepOutcome.TIMED_OUT,
          "installation-disk-speed-check: only " + samples.length + " writes finished before the time limit");
    }
    long p99ms = Math.round(percentile(samples, 99.0) / 1_000_000.0);
    return StepOutcome.ok(WireJson.write(new StepModels.DiskSpeedResponse(p99ms, path)));
  }

  /** Latency in ns of each write+fdatasync until {@code total} bytes or the deadline. */
  static long[] measure(Path target, long total, long deadlineNanos) throws IOException {
    byte[] data = new byte[BLOCK];
    Arrays.fill(data, (byte) 0x5a);
    int n = (int) ((total + BLOCK - 1) / BLOCK);
    long[] lat = new long[n];
    int done = 0;
    try (FileChannel ch = FileChannel.open(target, StandardOpenOption.WRITE)) {
      long pos = 0;
      for (; done < n && System.nanoTime() < deadlineNanos; done++) {
        ByteBuffer buf = ByteBuffer.wrap(data);
        long t0 = System.nanoTime();
        while (buf.hasRemaining()) {
          pos += ch.write(buf, pos);
        }
        ch.force(false);
        lat[done] = System.nanoTime() - t0;
        if (Thread.currentThread().isInterrupted()) {
          break;
        }
      }
    }
    return Arrays.copyOf(lat, done);
  }

  /** Nearest-rank percentile (fio reports the same kind). */
  static double percentile(long[] values, double p) {
    if (values.length == 0) {
      return 0;
    }
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static java.util.Optional<Duration> argTimeout(Step step) {
    String t = step.arg(1);
    if (t == null) {
      return java.util.Optional.empty();
    }
    try {
      return java.util.Optional.of(Duration.ofMillis((long) (Double.parseDouble(t.trim()) * 1000)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("installation-disk-speed-check: args[1] is not a number of seconds: " + t);
    }
  }
}
