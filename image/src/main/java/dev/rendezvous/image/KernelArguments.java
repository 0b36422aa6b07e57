package dev.rendezvous.image;

import dev.rendezvous.image.IsoLayout.KargsArea;
import dev.rendezvous.image.IsoLayout.KargsLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** Reads and renders CoreOS kernel-argument embed areas (coreos-installer's rules). */
public final class KernelArguments {

  private KernelArguments() {}

  /** Current kargs of an area: strip trailing pad chars, then end chars, then whitespace. */
  public static String parse(ByteBuffer area, byte pad, byte end) {
    byte[] b = new byte[area.remaining()];
    area.duplicate().get(b);
    int n = b.length;
    while (n > 0 && b[n - 1] == pad) {
      n--;
    }
    while (n > 0 && b[n - 1] == end) {
      n--;
    }
    String s = new String(b, 0, n, StandardCharsets.UTF_8);
    return s.stripTrailing();
  }

  /**
   * The bytes of one area holding {@code current} followed by the {@code extra} arguments.
   *
   * @throws ImageRequestException when the result does not fit in the area
   */
  public static byte[] render(KargsLayout layout, KargsArea area, String current, List<String> extra) {
    StringBuilder kargs = new StringBuilder(current);
    for (String e : extra) {
      if (e.isBlank() || e.chars().anyMatch(c -> c == '\n' || c == '\r' || c == 0)) {
        throw ImageRequestException.badRequest("kernel_arguments", "invalid kernel argument '" + e + "'");
      }
      kargs.append(' ').append(e.strip());
    }
    byte[] text = kargs.toString().getBytes(StandardCharsets.UTF_8);
    if (text.length + 1 > layout.size()) {
      throw ImageRequestException.badRequest("kernel_arguments", "kernel arguments (" + (text.length + 1)
          + " bytes) do not fit in the ISO's kernel-argument area (" + layout.size() + " bytes)");
    }
    byte[] out = new byte[layout.size()];
    Arrays.fill(out, area.pad());
    System.arraycopy(text, 0, out, 0, text.length);
    out[text.length] = area.end();
    return out;
  }
}
