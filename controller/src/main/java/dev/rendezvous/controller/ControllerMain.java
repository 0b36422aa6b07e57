package dev.rendezvous.controller;

import dev.rendezvous.controller.config.ConfigException;
import dev.rendezvous.controller.config.ConfigLoader;

/**
 * {@code rendezvous-controller}: runs one controller until the installation ends. Settings come from upstream's
 * environment variables (the Job's ConfigMap and Secret), flags {@code --name=value} override them.
 *
 * <p>Exit status as upstream's: 0 when the run ended (installed, failed, cluster gone: the Job must not restart),
 * 1 when it could not get going (no service or cluster within WaitTimeout: the Job retries), 2 for bad settings.
 */
public final class ControllerMain {
  private ControllerMain() {
  }

  public static void main(String[] args) {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "rendezvous-controller-logback.xml");
    }
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        System.out.println("usage: rendezvous-controller [--name=value ...]");
        System.out.println("flags (environment variables in the README): --" + String.join(" --", ConfigLoader.flagNames()));
        return;
      }
    }
    Controller controller;
    try {
      controller = Controller.start(System.getenv(), args);
    } catch (ConfigException e) {
      System.err.println("rendezvous-controller: " + e.getMessage());
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(controller::close, "rdv-controller-shutdown"));
    Controller.Outcome outcome = controller.finished().join();
    boolean neverReady = controller.ready().isCompletedExceptionally() && outcome == Controller.Outcome.FAILED;
    System.exit(neverReady ? 1 : 0);
  }
}
