package dev.rendezvous.service.brain;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The columns of a host row the brain reads and writes, JSON documents as their text (null for SQL NULL).
 * {@code staticNetworking} is not a host column: it comes from the infra-env's static_network_config.
 */
public record StoredHost(
    UUID id,
    UUID infraEnvId,
    UUID clusterId,
    String status,
    String statusInfo,
    OffsetDateTime statusUpdatedAt,
    String role,
    String suggestedRole,
    boolean bootstrap,
    String requestedHostname,
    String installationDiskId,
    String installationDiskPath,
    String discoveryAgentVersion,
    String inventory,
    String connectivity,
    String validationsInfo,
    String progress,
    String stepResults,
    String spec,
    String state,
    OffsetDateTime checkedInAt,
    OffsetDateTime registeredAt,
    long rowVersion,
    boolean staticNetworking) {}
