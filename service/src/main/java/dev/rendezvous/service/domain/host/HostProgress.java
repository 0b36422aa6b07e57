package dev.rendezvous.service.domain.host;

import java.time.Instant;

/** Stored installation progress of a host (upstream host-progress-info). */
public record HostProgress(
    HostStage currentStage, String progressInfo, Instant stageStartedAt, Instant stageUpdatedAt, int installationPercentage) {

  public static final HostProgress NONE = new HostProgress(null, "", null, null, 0);

  public HostProgress {
    progressInfo = progressInfo == null ? "" : progressInfo;
  }
}
