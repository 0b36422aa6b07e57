package dev.rendezvous.agentbased.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * {@code ./rendezvous agent ...}, openshift-install's agent commands:
 * <pre>
 *   agent create image --dir DIR [--base-iso=PATH | --os-images-from-catalog=V[/x86_64]] [--openshift-version=V]
 *       [--service-args="--flag=v ..."]
 *   agent wait-for bootstrap-complete|install-complete --dir DIR [--kubeconfig=PATH] [--timeout-minutes=N]
 *       [--host-timeout-minutes=N] [--rendezvous-url=URL]
 * </pre>
 */
public final class AgentCli {
  static final Set<String> CREATE_FLAGS = Set.of("dir", "base-iso", "os-images-from-catalog", "openshift-version",
      "service-args", "runtime-classpath", "agent-jar");
  static final Set<String> WAIT_FLAGS = Set.of("dir", "kubeconfig", "timeout-minutes", "host-timeout-minutes",
      "poll-seconds", "rendezvous-url");

  private AgentCli() {}

  public static void main(String[] args) {
    System.exit(run(Arrays.asList(args), System.out, System.err));
  }

  /** The command's exit status: 0 done, 1 failed (the reason printed), 2 bad usage. */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    try {
      if (args.size() >= 2 && args.get(0).equals("create") && args.get(1).equals("image")) {
        return new CreateImageCommand(out, err).run(Flags.parse(args.subList(2, args.size()), CREATE_FLAGS));
      }
      if (args.size() >= 2 && args.get(0).equals("wait-for")
          && (args.get(1).equals("bootstrap-complete") || args.get(1).equals("install-complete"))) {
        return new WaitForCommand(out, err).run(args.get(1).equals("install-complete"),
            Flags.parse(args.subList(2, args.size()), WAIT_FLAGS));
      }
      err.println("""
          usage: ./rendezvous agent create image --dir DIR [--base-iso=PATH | --os-images-from-catalog=V]
                                                [--openshift-version=V]
                                                [--service-args="--flag=value ..."]
                 ./rendezvous agent wait-for bootstrap-complete|install-complete --dir DIR [--kubeconfig=PATH]
          DIR holds openshift-install's install-config.yaml and agent-config.yaml (docs/agent-based.md)""");
      return 2;
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return 2;
    } catch (IOException | RuntimeException e) {
      // a kubeconfig that does not parse, a file that cannot be read, ...: said plainly, no stack trace
      err.println("error: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
      return 1;
    }
  }
}
