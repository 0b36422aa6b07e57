package dev.rendezvous.agent.netcheck;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the MAC addresses that answered {@code arping}: iputils prints
 * {@code Unicast reply from 192.0.2.1 [02:FC:00:00:00:05]  0.671ms}; Habets' arping prints
 * {@code 60 bytes from 02:fc:00:00:00:05 (192.0.2.1): ...}. MACs come back lower-case, in answer order.
 */
public final class ArpingParser {
  private static final Pattern IPUTILS = Pattern.compile("reply from \\S+ \\[([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5})\\]");
  private static final Pattern HABETS = Pattern.compile("bytes from ([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5})");

  private ArpingParser() {}

  public static Set<String> replyingMacs(String output) {
    Set<String> macs = new LinkedHashSet<>();
    for (Pattern p : new Pattern[] {IPUTILS, HABETS}) {
      Matcher m = p.matcher(output);
      while (m.find()) {
        macs.add(m.group(1).toLowerCase(Locale.ROOT));
      }
    }
    return macs;
  }
}
