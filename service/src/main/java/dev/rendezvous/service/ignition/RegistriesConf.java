package dev.rendezvous.service.ignition;

import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.Mirror;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors;
import java.util.ArrayList;
import java.util.List;

/**
 * A disconnected site's mirror configuration as upstream takes it (its {@code MIRROR_REGISTRY} config map): a
 * containers-registries.conf v2 file and the mirror registry's CA. Only what mirroring needs is read: each
 * {@code [[registry]]} table's {@code location} (or {@code prefix}) and {@code mirror-by-digest-only}, and the
 * {@code location} of its {@code [[registry.mirror]]} tables; other keys are ignored, anything unreadable is refused
 * with its line.
 */
public final class RegistriesConf {
  private RegistriesConf() {}

  public static RegistryMirrors parse(String toml, String caBundle) {
    List<Mirror> out = new ArrayList<>();
    String source = null;
    boolean digestOnly = false;
    List<String> mirrors = new ArrayList<>();
    boolean inMirror = false;
    boolean inRegistry = false;
    String[] lines = toml.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = stripComment(lines[i]).strip();
      if (line.isEmpty()) {
        continue;
      }
      if (line.equals("[[registry]]")) {
        if (inRegistry) {
          out.add(mirror(source, mirrors, digestOnly, i));
        }
        inRegistry = true;
        inMirror = false;
        source = null;
        digestOnly = false;
        mirrors = new ArrayList<>();
        continue;
      }
      if (line.equals("[[registry.mirror]]")) {
        if (!inRegistry) {
          throw bad(i, "[[registry.mirror]] outside a [[registry]]");
        }
        inMirror = true;
        continue;
      }
      if (line.startsWith("[")) {
        inRegistry = closeIfOpen(out, inRegistry, source, mirrors, digestOnly, i);
        inMirror = false;
        continue; // another table: not about mirrors
      }
      int eq = line.indexOf('=');
      if (eq < 0) {
        throw bad(i, "expected key = value");
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      if (!inRegistry) {
        continue; // top-level keys (unqualified-search-registries, ...) do not concern mirrors
      }
      if (inMirror && key.equals("location")) {
        mirrors.add(string(value, i));
      } else if (!inMirror && (key.equals("location") || (key.equals("prefix") && source == null))) {
        source = string(value, i);
      } else if (!inMirror && key.equals("mirror-by-digest-only")) {
        if (!value.equals("true") && !value.equals("false")) {
          throw bad(i, "mirror-by-digest-only must be true or false");
        }
        digestOnly = value.equals("true");
      }
    }
    closeIfOpen(out, inRegistry, source, mirrors, digestOnly, lines.length);
    if (out.isEmpty()) {
      throw new IllegalArgumentException("registries.conf: no [[registry]] with a [[registry.mirror]]");
    }
    return new RegistryMirrors(out, caBundle == null || caBundle.isBlank() ? null : caBundle);
  }

  private static boolean closeIfOpen(List<Mirror> out, boolean open, String source, List<String> mirrors,
      boolean digestOnly, int line) {
    if (open) {
      out.add(mirror(source, mirrors, digestOnly, line));
    }
    return false;
  }

  private static Mirror mirror(String source, List<String> mirrors, boolean digestOnly, int line) {
    if (source == null || source.isEmpty()) {
      throw bad(line - 1, "a [[registry]] without location or prefix");
    }
    if (mirrors.isEmpty()) {
      throw bad(line - 1, "registry " + source + " has no [[registry.mirror]] location");
    }
    return new Mirror(source, mirrors, digestOnly);
  }

  private static String string(String value, int line) {
    if (value.length() < 2 || !(value.startsWith("\"") && value.endsWith("\"")
        || value.startsWith("'") && value.endsWith("'"))) {
      throw bad(line, "expected a quoted string, got " + value);
    }
    return value.substring(1, value.length() - 1);
  }

  private static String stripComment(String line) {
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == '#' && !quoted) {
        return line.substring(0, i);
      }
    }
    return line;
  }

  private static IllegalArgumentException bad(int zeroBasedLine, String why) {
    return new IllegalArgumentException("registries.conf line " + (zeroBasedLine + 1) + ": " + why);
  }
}
