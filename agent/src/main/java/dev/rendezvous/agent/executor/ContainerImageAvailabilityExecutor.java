package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code container-image-availability}: args[0] = {"images": [...], "timeout": seconds}. Pulls each image
 * with podman (docker when podman is absent and its engine answers) under one shared deadline; a newly
 * pulled image reports its size ({@code image inspect --format {{.Size}}}), the pull time and rate (MB/s,
 * 10^6). With no working container runtime every image is a failure and the error says why. Any
 * failure makes exit code 2, as upstream.
 */
public final class ContainerImageAvailabilityExecutor implements StepExecutor {
  static final int FAILED = 2;
  private final CommandRunner commands;

  public ContainerImageAvailabilityExecutor(CommandRunner commands) {
    this.commands = commands;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("container-image-availability: args[0] ({\"images\":[...]}) is missing");
    }
    StepModels.ImageAvailabilityRequest req = WireJson.read(step.arg(0), StepModels.ImageAvailabilityRequest.class);
    List<String> images = req.images() == null ? List.of() : req.images();
    long timeoutSeconds = req.timeout() == null || req.timeout() <= 0 ? 960 : req.timeout();
    StringBuilder why = new StringBuilder();
    String runtime = runtime(why);
    List<StepModels.ImageAvailability> results = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
    for (String image : images) {
      if (runtime == null) {
        results.add(failure(image));
        continue;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        results.add(failure(image));
        errors.add(image + ": no time left of " + timeoutSeconds + " s");
        continue;
      }
      boolean local = commands.run(List.of(runtime, "image", "exists", image), Duration.ofSeconds(30)).ok();
      long t0 = System.nanoTime();
      CommandResult pull = commands.run(List.of(runtime, "pull", image), Duration.ofNanos(left));
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!pull.ok()) {
        results.add(failure(image));
        errors.add(image + ": " + (pull.timedOut() ? "pull timed out" : pull.failureText()));
        continue;
      }
      if (local) {
        results.add(new StepModels.ImageAvailability(image, "success", null, null, null));
        continue;
      }
      CommandResult inspect =
          commands.run(List.of(runtime, "image", "inspect", "--format", "{{.Size}}", image), Duration.ofSeconds(30));
      Long size = null;
      try {
        size = Long.parseLong(inspect.stdout().trim());
      } catch (NumberFormatException e) {
        // size unknown: reported without it
      }
      Double rate = size == null || seconds <= 0 ? null : size / 1e6 / seconds;
      results.add(new StepModels.ImageAvailability(image, "success", size, seconds, rate));
    }
    String output = WireJson.write(new StepModels.ImageAvailabilityResponse(results));
    if (runtime == null) {
      return new StepOutcome(FAILED, output, "container-image-availability: no container runtime: " + why);
    }
    return new StepOutcome(errors.isEmpty() ? 0 : FAILED, output, String.join("; ", errors));
  }

  private static StepModels.ImageAvailability failure(String image) {
    return new StepModels.ImageAvailability(image, "failure", null, null, null);
  }

  /** "podman", or "docker" when its engine answers; null with the reason in {@code why}. */
  private String runtime(StringBuilder why) throws Exception {
    if (commands.available("podman")) {
      return "podman";
    }
    why.append("podman is not installed");
    if (!commands.available("docker")) {
      why.append(", docker is not installed");
      return null;
    }
    CommandResult info = commands.run(List.of("docker", "info", "--format", "{{.ServerVersion}}"), Duration.ofSeconds(15));
    if (info.ok() && !info.stdout().isBlank()) {
      return "docker";
    }
    why.append(", docker has no engine (").append(info.failureText().lines().findFirst().orElse("docker info failed"))
        .append(')');
    return null;
  }
}
