package dev.rendezvous.agent.netcheck;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the summary of iputils (or busybox) {@code ping}: packets sent/received, loss and average RTT. */
public final class PingParser {
  private static final Pattern SUMMARY =
      Pattern.compile("(\\d+) packets transmitted, (\\d+) (?:packets )?received.*?, ([\\d.]+)% packet loss");
  private static final Pattern RTT = Pattern.compile("(?:rtt|round-trip) min/avg/max(?:/mdev)? = [\\d.]+/([\\d.]+)/");

  /** {@code averageRttMs} is 0 when nothing answered. */
  public record PingStats(int transmitted, int received, double packetLossPercentage, double averageRttMs) {
    public boolean anyReply() {
      return received > 0;
    }
  }

  private PingParser() {}

  /** Empty when the output has no summary (ping could not run, unknown host...). */
  public static Optional<PingStats> parse(String output) {
    Matcher m = SUMMARY.matcher(output);
    if (!m.find()) {
      return Optional.empty();
    }
    int tx = Integer.parseInt(m.group(1));
    int rx = Integer.parseInt(m.group(2));
    double loss = Double.parseDouble(m.group(3));
    Matcher r = RTT.matcher(output);
    double avg = r.find() ? Double.parseDouble(r.group(1)) : 0.0;
    return Optional.of(new PingStats(tx, rx, loss, avg));
  }
}
