package dev.rendezvous.image;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class HttpRangeTest {

  static HttpRange.Result p(long s, long e) {
    return new HttpRange.Partial(new HttpRange(s, e));
  }

  @Test
  void singleRanges() {
    assertEquals(p(0, 99), HttpRange.parse("bytes=0-99", 1000));
    assertEquals(p(500, 999), HttpRange.parse("bytes=500-", 1000));
    assertEquals(p(900, 999), HttpRange.parse("bytes=-100", 1000));
    assertEquals(p(0, 999), HttpRange.parse("bytes=-5000", 1000));
    assertEquals(p(990, 999), HttpRange.parse("bytes=990-5000", 1000));
    assertEquals(new HttpRange.Unsatisfiable(), HttpRange.parse("bytes=1000-", 1000));
    assertEquals(new HttpRange.Unsatisfiable(), HttpRange.parse("bytes=-0", 1000));
  }

  @Test
  void ignoredHeaders() {
    for (String h : new String[] {null, "items=0-1", "bytes=0-1,5-6", "bytes=abc", "bytes=5-1", "bytes=-", "bytes=1-x"}) {
      assertEquals(new HttpRange.Whole(), HttpRange.parse(h, 1000), h);
    }
  }
}
