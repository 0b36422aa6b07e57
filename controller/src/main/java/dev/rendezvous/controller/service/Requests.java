package dev.rendezvous.controller.service;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** Bodies the controller sends, named as upstream's swagger names them. */
public final class Requests {
  private Requests() {
  }

  /** {@code host-progress}: PUT /v2/infra-envs/{ie}/hosts/{h}/progress. */
  public record HostProgress(
      @JsonProperty("current_stage") HostStage currentStage,
      @JsonProperty("progress_info") String progressInfo) {
  }

  /** {@code cluster-progress}: PUT /v2/clusters/{id}/progress. */
  public record FinalizingProgress(@JsonProperty("finalizing_stage") FinalizingStage finalizingStage) {
  }

  /** {@code operator-monitor-report}: PUT /v2/clusters/{id}/monitored-operators (and the operators report). */
  public record OperatorReport(
      @JsonProperty("name") String name,
      @JsonProperty("status") OperatorStatus status,
      @JsonProperty("status_info") String statusInfo,
      @JsonProperty("version") String version) {
  }

  /** {@code logs-progress-params}: PUT /v2/clusters/{id}/logs-progress. */
  public record LogsProgress(@JsonProperty("logs_state") LogsState logsState) {
  }

  /** {@code completion-params}: POST /v2/clusters/{id}/actions/complete-installation. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Completion(
      @JsonProperty("is_success") boolean isSuccess,
      @JsonProperty("error_info") String errorInfo,
      @JsonProperty("data") Map<String, Object> data) {
  }

  /** {@code event}: POST /v2/events. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Event(
      @JsonProperty("name") String name,
      @JsonProperty("category") String category,
      @JsonProperty("severity") String severity,
      @JsonProperty("message") String message,
      @JsonProperty("cluster_id") String clusterId,
      @JsonProperty("host_id") String hostId,
      @JsonProperty("infra_env_id") String infraEnvId,
      @JsonProperty("event_time") String eventTime) {
  }
}
