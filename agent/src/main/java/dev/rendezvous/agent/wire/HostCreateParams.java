package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/** Upstream {@code host-create-params}: the registration body. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record HostCreateParams(String hostId, String discoveryAgentVersion) {}
