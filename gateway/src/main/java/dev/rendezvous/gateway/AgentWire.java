package dev.rendezvous.gateway;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.rendezvous.bus.event.StepsToDeliver;
import java.time.Instant;
import java.util.List;

/** The JSON the agents send and receive (upstream model names and snake_case fields). */
public final class AgentWire {

    /** Unknown fields ignored, instants as ISO-8601, nulls left out. */
    public static final ObjectMapper JSON = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private AgentWire() {
    }

    public static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + value.getClass().getSimpleName(), e);
        }
    }

    /** Upstream {@code steps}: what GET instructions answers and what a websocket {@code steps} message carries. */
    @JsonPropertyOrder({"next_instruction_seconds", "post_step_action", "instructions"})
    public record Steps(
            @JsonProperty("next_instruction_seconds") int nextInstructionSeconds,
            @JsonProperty("post_step_action") String postStepAction,
            @JsonProperty("instructions") List<StepsToDeliver.Step> instructions) {

        public static Steps empty(int nextInstructionSeconds) {
            return new Steps(nextInstructionSeconds, StepsToDeliver.CONTINUE, List.of());
        }

        public static Steps of(StepsToDeliver planned) {
            return new Steps(planned.nextInstructionSeconds(), planned.postStepAction(), planned.instructions());
        }
    }

    /** Upstream {@code step-reply}; {@code exit_code} defaults to 0 as in upstream's Go model. */
    public record StepReply(
            @JsonProperty("step_type") String stepType,
            @JsonProperty("step_id") String stepId,
            @JsonProperty("exit_code") Integer exitCode,
            @JsonProperty("output") String output,
            @JsonProperty("error") String error) {
    }

    /** Upstream {@code host-create-params}. */
    public record HostCreateParams(
            @JsonProperty("host_id") String hostId,
            @JsonProperty("discovery_agent_version") String discoveryAgentVersion) {
    }

    /** Upstream {@code next_step_cmd_request}, the JSON in {@code next_step_runner_command.args[0]} (Go field order). */
    @JsonPropertyOrder({"agent_version", "host_id", "infra_env_id"})
    public record NextStepCmdRequest(
            @JsonProperty("agent_version") String agentVersion,
            @JsonProperty("host_id") String hostId,
            @JsonProperty("infra_env_id") String infraEnvId) {
    }

    public record NextStepRunnerCommand(
            @JsonProperty("command") String command,
            @JsonProperty("args") List<String> args,
            @JsonProperty("retry_seconds") int retrySeconds) {
    }

    /**
     * Upstream {@code host_registration_response}: the host as the gateway knows it at registration, plus the
     * next-step runner command. The service owns every later view of the host (GET host).
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record HostRegistrationResponse(
            @JsonProperty("kind") String kind,
            @JsonProperty("id") String id,
            @JsonProperty("href") String href,
            @JsonProperty("infra_env_id") String infraEnvId,
            @JsonProperty("cluster_id") String clusterId,
            @JsonProperty("status") String status,
            @JsonProperty("status_info") String statusInfo,
            @JsonProperty("role") String role,
            @JsonProperty("discovery_agent_version") String discoveryAgentVersion,
            @JsonProperty("registered_at") Instant registeredAt,
            @JsonProperty("checked_in_at") Instant checkedInAt,
            @JsonProperty("created_at") Instant createdAt,
            @JsonProperty("updated_at") Instant updatedAt,
            @JsonProperty("next_step_runner_command") NextStepRunnerCommand nextStepRunnerCommand) {
    }

    /** Upstream error body: {@code {"code":"400","href":"","id":400,"kind":"Error","reason":"..."}}. */
    @JsonPropertyOrder({"code", "href", "id", "kind", "reason"})
    public record ApiError(
            @JsonProperty("code") String code,
            @JsonProperty("href") String href,
            @JsonProperty("id") int id,
            @JsonProperty("kind") String kind,
            @JsonProperty("reason") String reason) {

        public static ApiError of(int status, String reason) {
            return new ApiError(Integer.toString(status), "", status, "Error", reason);
        }
    }
}
