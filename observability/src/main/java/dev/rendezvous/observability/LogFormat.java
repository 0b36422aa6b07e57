package dev.rendezvous.observability;

import java.util.Locale;
import java.util.Map;

/**
 * How the process logs: short readable lines when a person watches a terminal, JSON lines otherwise (a file, a
 * pipe, a log collector), or as {@code RDV_LOG_FORMAT=json|console} says. logback.xml picks its appender from the
 * system property this sets, so {@link #apply} must run before anything logs (first thing in a main).
 */
public final class LogFormat {
  /** The system property logback.xml reads: the name of the appender to use. */
  public static final String PROPERTY = "rdv.log.appender";

  private LogFormat() {}

  /** The appender for this environment: {@code CONSOLE} or {@code JSON}. */
  public static String choose(Map<String, String> env, boolean terminal) {
    String asked = env.getOrDefault("RDV_LOG_FORMAT", "").trim().toLowerCase(Locale.ROOT);
    return switch (asked) {
      case "json" -> "JSON";
      case "console", "text" -> "CONSOLE";
      case "" -> terminal ? "CONSOLE" : "JSON";
      default -> throw new IllegalArgumentException("RDV_LOG_FORMAT must be 'json' or 'console', got '" + asked + "'");
    };
  }

  /** Sets the appender for this process unless a -D already did. A terminal: stdin and stdout both one (Java 17). */
  public static void apply() {
    if (System.getProperty(PROPERTY) == null) {
      System.setProperty(PROPERTY, choose(System.getenv(), System.console() != null));
    }
  }
}
