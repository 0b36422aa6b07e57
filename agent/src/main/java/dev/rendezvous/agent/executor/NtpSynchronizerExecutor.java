package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code ntp-synchronizer}: args[0] = {"ntp_source": "a,b,c"}. With chrony: every requested source not
 * yet known to chronyd (by name or resolved address) is added with {@code chronyc add server S iburst}
 * (failures are reported in the error text, not fatal), then {@code chronyc -c -n sources} is read:
 * rows of mode '^' with state * synced, + combined, - not_combined, ? unreachable, x error, ~ variable.
 * Without chronyc, or when chronyd does not answer, the step fails (exit 1) saying so.
 */
public final class NtpSynchronizerExecutor implements StepExecutor {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private final CommandRunner commands;

  public NtpSynchronizerExecutor(CommandRunner commands) {
    this.commands = commands;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    String sourcesArg = "";
    if (step.arg(0) != null && !step.arg(0).isBlank()) {
      StepModels.NtpRequest req = WireJson.read(step.arg(0), StepModels.NtpRequest.class);
      sourcesArg = req.ntpSource() == null ? "" : req.ntpSource();
    }
    if (!commands.available("chronyc")) {
      return new StepOutcome(1, WireJson.write(new StepModels.NtpResponse(List.of())),
          "ntp-synchronizer: not available: chronyc is not installed on this host (Debian package chrony)");
    }
    CommandResult before = commands.run(List.of("chronyc", "-c", "-n", "sources"), TIMEOUT);
    if (!before.ok()) {
      return new StepOutcome(before.timedOut() ? StepOutcome.TIMED_OUT : before.exitCode(),
          WireJson.write(new StepModels.NtpResponse(List.of())),
          "ntp-synchronizer: not available: chronyc sources failed: " + before.failureText());
    }
    Set<String> known = new TreeSet<>();
    for (StepModels.NtpSource s : parseSources(before.stdout())) {
      known.add(s.sourceName());
    }
    List<String> errors = new ArrayList<>();
    for (String source : sourcesArg.split(",")) {
      String src = source.trim();
      if (src.isEmpty() || known.contains(src) || resolvesToKnown(src, known)) {
        continue;
      }
      CommandResult add = commands.run(List.of("chronyc", "add", "server", src, "iburst"), TIMEOUT);
      if (!add.ok()) {
        errors.add("chronyc add server " + src + ": " + add.failureText());
      }
    }
    CommandResult after = commands.run(List.of("chronyc", "-c", "-n", "sources"), TIMEOUT);
    if (!after.ok()) {
      return new StepOutcome(after.timedOut() ? StepOutcome.TIMED_OUT : after.exitCode(), "",
          "ntp-synchronizer: chronyc sources failed: " + after.failureText());
    }
    return new StepOutcome(0, WireJson.write(new StepModels.NtpResponse(parseSources(after.stdout()))),
        String.join("; ", errors));
  }

  /** chronyc -c sources: "mode,state,name,stratum,poll,reach,lastRx,...", one source per line. */
  public static List<StepModels.NtpSource> parseSources(String csv) {
    List<StepModels.NtpSource> sources = new ArrayList<>();
    for (String line : csv.split("\n")) {
      String[] f = line.trim().split(",");
      if (f.length < 3 || !f[0].equals("^")) {
        continue;
      }
      String state = switch (f[1]) {
        case "*" -> "synced";
        case "+" -> "combined";
        case "-" -> "not_combined";
        case "?" -> "unreachable";
        case "x" -> "error";
        case "~" -> "variable";
        default -> "error";
      };
      sources.add(new StepModels.NtpSource(f[2], state));
    }
    return sources;
  }

  private static boolean resolvesToKnown(String name, Set<String> known) {
    try {
      for (InetAddress a : InetAddress.getAllByName(name)) {
        if (known.contains(a.getHostAddress())) {
          return true;
        }
      }
    } catch (java.net.UnknownHostException e) {
      // an unresolvable source is still handed to chronyd, which reports it
    }
    return false;
  }
}
