package dev.rendezvous.agentbased.config;

/**
 * A site's install-config.yaml or agent-config.yaml is missing, unreadable or wrong. The message names the file, the
 * field (a path such as {@code hosts[1].interfaces[0].macAddress}; empty when the whole file is at fault) and the
 * problem, so the user can go straight to the line to fix.
 */
public final class SiteConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String file;
  private final String field;
  private final String problem;

  public SiteConfigException(String file, String field, String problem) {
    super(field == null || field.isEmpty() ? file + ": " + problem : file + ": " + field + ": " + problem);
    this.file = file;
    this.field = field == null ? "" : field;
    this.problem = problem;
  }

  /** The file at fault, e.g. {@code agent-config.yaml}. */
  public String file() {
    return file;
  }

  /** The field at fault, e.g. {@code rendezvousIP}; empty when the file as a whole is. */
  public String field() {
    return field;
  }

  /** The problem alone, without file and field. */
  public String problem() {
    return problem;
  }
}
