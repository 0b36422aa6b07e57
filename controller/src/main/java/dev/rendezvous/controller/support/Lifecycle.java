package dev.rendezvous.controller.support;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A controller's stop switch: cancels every task still registered, and tells retries to give up. */
public final class Lifecycle {
  private volatile boolean stopped;
  private final Set<RepeatingTask> tasks = ConcurrentHashMap.newKeySet();

  public boolean stopped() {
    return stopped;
  }

  void register(RepeatingTask task) {
    tasks.add(task);
    if (stopped) {
      task.cancel();
    }
  }

  void deregister(RepeatingTask task) {
    tasks.remove(task);
  }

  public void stop() {
    stopped = true;
    for (RepeatingTask t : tasks) {
      t.cancel();
    }
  }
}
