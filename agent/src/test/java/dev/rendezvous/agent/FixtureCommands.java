package dev.rendezvous.agent;

import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * A {@link CommandRunner} answering with recorded outputs (captured on a real machine, see
 * fixtures/README.md) by command prefix, and recording what was asked. A command no rule matches fails
 * the test with the command line.
 */
public final class FixtureCommands implements CommandRunner {
  private record Rule(List<String> prefix, Function<List<String>, CommandResult> answer) {}

  private final List<Rule> rules = new ArrayList<>();
  private final Set<String> programs = new HashSet<>();
  private final List<List<String>> calls = Collections.synchronizedList(new ArrayList<>());

  /** Declares {@code program} installed. */
  public FixtureCommands installed(String... program) {
    programs.addAll(List.of(program));
    return this;
  }

  public FixtureCommands on(List<String> prefix, String stdout, int exitCode) {
    rules.add(new Rule(prefix, c -> new CommandResult(exitCode, stdout, "", false)));
    installed(prefix.get(0));
    return this;
  }

  public FixtureCommands on(List<String> prefix, Function<List<String>, CommandResult> answer) {
    rules.add(new Rule(prefix, answer));
    installed(prefix.get(0));
    return this;
  }

  /** Answers with fixture file {@code file} and the exit code in {@code file}'s .rc twin. */
  public FixtureCommands onFixture(List<String> prefix, String fixture, String file) {
    String rcFile = file.replaceAll("\\.(txt|json|csv)$", ".rc");
    return on(prefix, Fixtures.command(fixture, file), Fixtures.rc(fixture, rcFile));
  }

  public List<List<String>> calls() {
    return List.copyOf(calls);
  }

  @Override
  public CommandResult run(List<String> command, Duration timeout) throws IOException {
    calls.add(List.copyOf(command));
    for (Rule r : rules) {
      if (command.size() >= r.prefix.size() && command.subList(0, r.prefix.size()).equals(r.prefix)) {
        return r.answer.apply(command);
      }
    }
    if (!programs.contains(command.get(0))) {
      throw new IOException("Cannot run program \"" + command.get(0) + "\": error=2, No such file or directory");
    }
    throw new AssertionError("unexpected command: " + String.join(" ", command));
  }

  @Override
  public boolean available(String program) {
    return programs.contains(program);
  }
}
