package dev.rendezvous.service.validation;

import java.util.regex.Pattern;

/** DNS-shaped names: cluster names, base domains, host names (upstream's rules). */
public final class Names {
  private static final Pattern CLUSTER_NAME = Pattern.compile("^[a-z]([-a-z0-9]*[a-z0-9])?$");
  private static final Pattern LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  private static final Pattern TLD = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");

  private Names() {}

  /** Returns null when valid, else the reason. */
  public static String clusterNameProblem(String s) {
    if (s.isEmpty() || s.length() > 54) {
      return "must be 1 to 54 characters long";
    }
    if (!CLUSTER_NAME.matcher(s).matches()) {
      return "must consist of lower-case letters, numbers and hyphens, start with a letter and end with a letter or number";
    }
    return null;
  }

  public static String baseDomainProblem(String s) {
    if (s.isEmpty() || s.length() > 253) {
      return "must be 1 to 253 characters long";
    }
    String[] labels = s.split("\\.", -1);
    if (labels.length < 2) {
      return "must have at least two labels (e.g. example.com)";
    }
    for (int i = 0; i < labels.length; i++) {
      String l = labels[i];
      if (l.isEmpty() || l.length() > 63) {
        return "label '" + l + "' must be 1 to 63 characters long";
      }
      Pattern p = i == labels.length - 1 ? TLD : LABEL;
      if (!p.matcher(l).matches()) {
        return "label '" + l + "' must be lower-case letters, digits and inner hyphens";
      }
    }
    return null;
  }

  public static String hostnameProblem(String s) {
    if (s.isEmpty() || s.length() > 63) {
      return "must be 1 to 63 characters long";
    }
    if (s.equals("localhost") || s.equals("localhost.localdomain")) {
      return "'" + s + "' is a forbidden host name";
    }
    for (String l : s.split("\\.", -1)) {
      if (l.isEmpty() || !LABEL.matcher(l).matches()) {
        return "must be lower-case letters, digits, '-' and '.', starting and ending with a letter or digit";
      }
    }
    return null;
  }
}
