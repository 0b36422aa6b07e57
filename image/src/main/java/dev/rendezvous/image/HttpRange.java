package dev.rendezvous.image;

import java.util.Optional;

/**
 * A single byte range of a body of known length (RFC 9110 section 14). Several ranges in one
 * header are not served as multipart: the whole body is sent instead, which the RFC allows.
 */
public record HttpRange(long start, long endInclusive) {

  /** Outcome of reading a Range header. */
  public sealed interface Result permits Whole, Partial, Unsatisfiable {}

  /** No usable Range: send everything (200). */
  public record Whole() implements Result {}

  /** Send this slice (206). */
  public record Partial(HttpRange range) implements Result {}

  /** The range lies outside the body (416). */
  public record Unsatisfiable() implements Result {}

  public long length() {
    return endInclusive - start + 1;
  }

  public String contentRange(long total) {
    return "bytes " + start + "-" + endInclusive + "/" + total;
  }

  public static Result parse(String header, long total) {
    if (header == null) {
      return new Whole();
    }
    String h = header.trim();
    if (!h.regionMatches(true, 0, "bytes=", 0, 6)) {
      return new Whole();
    }
    String spec = h.substring(6).trim();
    if (spec.contains(",")) {
      return new Whole();
    }
    int dash = spec.indexOf('-');
    if (dash < 0) {
      return new Whole();
    }
    Optional<Long> first = number(spec.substring(0, dash).trim());
    Optional<Long> last = number(spec.substring(dash + 1).trim());
    String firstText = spec.substring(0, dash).trim();
    String lastText = spec.substring(dash + 1).trim();
    if (firstText.isEmpty()) { // suffix: the last N bytes
      if (last.isEmpty()) {
        return new Whole();
      }
      if (last.get() == 0 || total == 0) {
        return new Unsatisfiable();
      }
      long n = Math.min(last.get(), total);
      return new Partial(new HttpRange(total - n, total - 1));
    }
    if (first.isEmpty() || (!lastText.isEmpty() && last.isEmpty())) {
      return new Whole();
    }
    long s = first.get();
    long e = last.map(v -> Math.min(v, total - 1)).orElse(total - 1);
    if (last.isPresent() && last.get() < s) {
      return new Whole(); // syntactically invalid: ignore
    }
    if (s >= total) {
      return new Unsatisfiable();
    }
    return new Partial(new HttpRange(s, e));
  }

  private static Optional<Long> number(String s) {
    if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(Character::isDigit)) {
      return Optional.empty();
    }
    return Optional.of(Long.parseLong(s));
  }
}
