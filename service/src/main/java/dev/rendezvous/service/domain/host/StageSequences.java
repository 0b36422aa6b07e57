package dev.rendezvous.service.domain.host;

import static dev.rendezvous.service.domain.host.HostStage.CONFIGURING;
import static dev.rendezvous.service.domain.host.HostStage.COPYING_REGISTRY_DATA_TO_DISK;
import static dev.rendezvous.service.domain.host.HostStage.DONE;
import static dev.rendezvous.service.domain.host.HostStage.INSTALLING;
import static dev.rendezvous.service.domain.host.HostStage.JOINED;
import static dev.rendezvous.service.domain.host.HostStage.REBOOTING;
import static dev.rendezvous.service.domain.host.HostStage.STARTING_INSTALLATION;
import static dev.rendezvous.service.domain.host.HostStage.WAITING_FOR_BOOTKUBE;
import static dev.rendezvous.service.domain.host.HostStage.WAITING_FOR_CONTROLLER;
import static dev.rendezvous.service.domain.host.HostStage.WAITING_FOR_CONTROL_PLANE;
import static dev.rendezvous.service.domain.host.HostStage.WAITING_FOR_IGNITION;
import static dev.rendezvous.service.domain.host.HostStage.WRITING_IMAGE_TO_DISK;

import java.util.List;

/** The installation stage list per role (ordering + percentage), as upstream. */
public final class StageSequences {
  private StageSequences() {}

  public static final List<HostStage> BOOTSTRAP = List.of(STARTING_INSTALLATION, INSTALLING, WRITING_IMAGE_TO_DISK,
      COPYING_REGISTRY_DATA_TO_DISK, WAITING_FOR_CONTROL_PLANE, WAITING_FOR_BOOTKUBE, WAITING_FOR_CONTROLLER,
      REBOOTING, CONFIGURING, JOINED, DONE);
  public static final List<HostStage> MASTER = List.of(STARTING_INSTALLATION, INSTALLING, WRITING_IMAGE_TO_DISK,
      COPYING_REGISTRY_DATA_TO_DISK, REBOOTING, CONFIGURING, JOINED, DONE);
  public static final List<HostStage> WORKER = List.of(STARTING_INSTALLATION, INSTALLING, WRITING_IMAGE_TO_DISK,
      WAITING_FOR_CONTROL_PLANE, REBOOTING, WAITING_FOR_IGNITION, CONFIGURING, JOINED, DONE);
  public static final List<HostStage> SNO = List.of(STARTING_INSTALLATION, INSTALLING, WAITING_FOR_BOOTKUBE,
      WRITING_IMAGE_TO_DISK, COPYING_REGISTRY_DATA_TO_DISK, REBOOTING, JOINED, DONE);
  /** Day-2 without kube-API: Rebooting is the last stage the service hears of; it counts as Done. */
  public static final List<HostStage> DAY2 = List.of(STARTING_INSTALLATION, INSTALLING, WRITING_IMAGE_TO_DISK,
      WAITING_FOR_CONTROL_PLANE, REBOOTING, DONE);

  public static List<HostStage> forHost(HostSnapshot h, boolean singleNode) {
    if (h.day2()) {
      return DAY2;
    }
    if (h.bootstrap() || h.effectiveRole() == HostRole.BOOTSTRAP) {
      return singleNode ? SNO : BOOTSTRAP;
    }
    return switch (h.effectiveRole()) {
      case MASTER, ARBITER -> singleNode ? SNO : MASTER;
      case WORKER -> WORKER;
      default -> List.of();
    };
  }

  /** (index + 1) / length × 100, truncated; 0 for a stage outside the list. */
  public static int percentage(HostStage stage, List<HostStage> stages) {
    int i = stages.indexOf(stage);
    return i < 0 ? 0 : (int) ((i + 1) * 100L / stages.size());
  }
}
