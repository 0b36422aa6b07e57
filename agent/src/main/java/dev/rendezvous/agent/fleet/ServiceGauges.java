package dev.rendezvous.agent.fleet;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the service's gauges of one label out of its Prometheus text: the non-zero ones, by label value. */
final class ServiceGauges {
  private ServiceGauges() {}

  static Map<String, Long> byLabel(String exposition, String metric, String label) {
    Pattern sample = Pattern.compile("^" + Pattern.quote(metric) + "\\{(.*)\\} ([0-9.eE+-]+)$");
    Pattern value = Pattern.compile("(?:^|,)" + Pattern.quote(label) + "=\"([^\"]*)\"");
    Map<String, Long> out = new TreeMap<>();
    for (String line : exposition.split("\n")) {
      Matcher m = sample.matcher(line);
      if (!m.matches()) {
        continue;
      }
      Matcher l = value.matcher(m.group(1));
      long n = (long) Double.parseDouble(m.group(2));
      if (l.find() && n > 0) {
        out.merge(l.group(1), n, Long::sum);
      }
    }
    return out;
  }

  /** An unlabelled gauge's value, or null when the exposition has none. */
  static Double value(String exposition, String metric) {
    Pattern sample = Pattern.compile("^" + Pattern.quote(metric) + " ([0-9.eE+-]+)$");
    for (String line : exposition.split("\n")) {
      Matcher m = sample.matcher(line);
      if (m.matches()) {
        return Double.parseDouble(m.group(1));
      }
    }
    return null;
  }
}
