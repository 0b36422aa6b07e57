package dev.rendezvous.app;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How the tests start a JVM of their own (a child Rendezvous, an agent, the new cluster's API): this JVM's java, with
 * a heap cap and C1 only. The test run is CPU-bound on two cores, and a child lives for seconds to minutes under light
 * load: C2's compilations cost it more than they give back (a fresh {@code rendezvous run} to /ready: 14.2 CPU s with
 * C2, 7.8 s without; 30 s idle after it: 6.2 against 3.7 CPU s). The product's own launchers keep C2.
 */
final class ChildJvm {
  /** The options every child JVM gets besides its heap, also for launchers that take them from the environment. */
  static final String OPTIONS = "-XX:TieredStopAtLevel=1";

  private ChildJvm() {}

  /** {@code -Xmx<maxHeap> <OPTIONS>}, as one string (a launcher's options variable). */
  static String options(String maxHeap) {
    return "-Xmx" + maxHeap + " " + OPTIONS;
  }

  /** {@code java <options(maxHeap)> <rest>}, a list the caller may add to. */
  static List<String> command(String maxHeap, String... rest) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of(options(maxHeap).split(" ")));
    cmd.addAll(List.of(rest));
    return cmd;
  }
}
