package dev.rendezvous.service.domain;

import java.time.Duration;
import java.util.Locale;

/** Number/duration renderings that upstream messages use (Go's conversions, go-humanize, time.Duration). */
public final class Formats {
  private Formats() {}

  /** IEC bytes like upstream conversions.BytesToString: "16.00 GiB". */
  public static String iecBytes(long b) {
    if (b < 1024) {
      return b + " bytes";
    }
    double v = b;
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int i = -1;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return String.format(Locale.ROOT, "%.2f %s", v, units[i]);
  }

  /** SI bytes like go-humanize Bytes: "128 GB", "1.1 GB". */
  public static String siBytes(long b) {
    if (b < 10) {
      return b + " B";
    }
    String[] units = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    double e = Math.floor(Math.log(b) / Math.log(1000));
    int idx = (int) Math.min(e, units.length - 1);
    double val = Math.floor(b / Math.pow(1000, idx) * 10 + 0.5) / 10;
    String f = val < 10 ? "%.1f %s" : "%.0f %s";
    return String.format(Locale.ROOT, f, val, units[idx]);
  }

  /** Go time.Duration.String(): "1h0m0s", "30m0s", "24h0m0s". */
  public static String goDuration(Duration d) {
    long s = d.getSeconds();
    if (s == 0) {
      return "0s";
    }
    long h = s / 3600;
    long m = (s % 3600) / 60;
    long sec = s % 60;
    if (h > 0) {
      return h + "h" + m + "m" + sec + "s";
    }
    if (m > 0) {
      return m + "m" + sec + "s";
    }
    return sec + "s";
  }
}
