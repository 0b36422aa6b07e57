package dev.rendezvous.agentbased.cli;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code --name=value} or {@code --name value} flags of one command; unknown ones are refused by name. */
record Flags(Map<String, String> values, Set<String> allowed) {

  static Flags parse(List<String> args, Set<String> allowed) {
    Map<String, String> v = new HashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + a + "'");
      }
      int eq = a.indexOf('=');
      String name = eq < 0 ? a.substring(2) : a.substring(2, eq);
      if (!allowed.contains(name)) {
        throw new IllegalArgumentException("unknown flag --" + name + " (known: --" + String.join(", --", allowed) + ")");
      }
      if (eq >= 0) {
        v.put(name, a.substring(eq + 1));
      } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
        v.put(name, args.get(++i));
      } else {
        v.put(name, "true");
      }
    }
    return new Flags(Map.copyOf(v), new HashSet<>(allowed));
  }

  String value(String name, String dflt) {
    String s = values.get(name);
    return s == null || s.isBlank() ? dflt : s;
  }

  Path dir() {
    String d = values.get("dir");
    return Path.of(d == null ? "." : d).toAbsolutePath().normalize();
  }
}
