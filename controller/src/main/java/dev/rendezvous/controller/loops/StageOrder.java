package dev.rendezvous.controller.loops;

import static dev.rendezvous.controller.service.HostStage.COPYING_REGISTRY_DATA_TO_DISK;
import static dev.rendezvous.controller.service.HostStage.CONFIGURING;
import static dev.rendezvous.controller.service.HostStage.DONE;
import static dev.rendezvous.controller.service.HostStage.INSTALLING;
import static dev.rendezvous.controller.service.HostStage.JOINED;
import static dev.rendezvous.controller.service.HostStage.REBOOTING;
import static dev.rendezvous.controller.service.HostStage.STARTING_INSTALLATION;
import static dev.rendezvous.controller.service.HostStage.WAITING_FOR_BOOTKUBE;
import static dev.rendezvous.controller.service.HostStage.WAITING_FOR_CONTROLLER;
import static dev.rendezvous.controller.service.HostStage.WAITING_FOR_CONTROL_PLANE;
import static dev.rendezvous.controller.service.HostStage.WAITING_FOR_IGNITION;
import static dev.rendezvous.controller.service.HostStage.WRITING_IMAGE_TO_DISK;

import dev.rendezvous.controller.service.Host;
import dev.rendezvous.controller.service.HostRole;
import dev.rendezvous.controller.service.HostStage;
import java.util.List;

/**
 * The service's stage sequence per role (assisted-service's host progress stages). The controller reports a stage
 * only when it lies after the host's current one in its role's sequence: never twice, never backwards.
 */
public final class StageOrder {
  public static final List<HostStage> BOOTSTRAP = List.of(STARTING_INSTALLATION, INSTALLING, WRITING_IMAGE_TO_DISK,
      COPYING_REGISTRY_DATA_TO_DISK, WAITING_FOR_CONTROL_PLANE, WAITING_FOR_BOOTKUBE, WAITING_FOR_CONTROLLER, REBOOTING,
      CONFIGURING, JOINED, DONE);
  public static final List<HostStage> MASTER = List.of(STARTING_INSTALLATION, INSTALLING, WRITING_IMAGE_TO_DISK,
      COPYING_REGISTRY_DATA_TO_DISK, REBOOTING, CONFIGURING, JOINED, DONE);
  public static final List<HostStage> WORKER = List.of(STARTING_INSTALLATION, INSTALLING, WRITING_IMAGE_TO_DISK,
      WAITING_FOR_CONTROL_PLANE, REBOOTING, WAITING_FOR_IGNITION, CONFIGURING, JOINED, DONE);
  public static final List<HostStage> SINGLE_NODE = List.of(STARTING_INSTALLATION, INSTALLING, WAITING_FOR_BOOTKUBE,
      WRITING_IMAGE_TO_DISK, COPYING_REGISTRY_DATA_TO_DISK, REBOOTING, JOINED, DONE);

  private StageOrder() {
  }

  /** The sequence the service holds this host to. */
  public static List<HostStage> of(Host host, boolean singleNode) {
    if (singleNode) {
      return SINGLE_NODE;
    }
    if (host.isBootstrap()) {
      return BOOTSTRAP;
    }
    HostRole role = host.effectiveRole();
    return role == HostRole.WORKER ? WORKER : MASTER;
  }

  /**
   * Whether moving from {@code current} to {@code target} goes forward in {@code order}. A host that failed never
   * moves; an unknown or absent current stage counts as before the first one; a target outside the sequence is
   * never reported.
   */
  public static boolean isForward(List<HostStage> order, HostStage current, HostStage target) {
    if (current == HostStage.FAILED || target == null) {
      return false;
    }
    int to = order.indexOf(target);
    if (to < 0) {
      return false;
    }
    int from = current == null ? -1 : order.indexOf(current);
    return to > from;
  }
}
