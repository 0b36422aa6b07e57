package dev.rendezvous.service.feed;

import io.vertx.core.json.JsonObject;
import java.util.UUID;

/**
 * One recorded event as the live feed carries it: its position ({@code seq}, the events table's key, which is also
 * the stream's event id), what filters look at, and the JSON a client receives (the shape of {@code GET /v2/events}).
 */
public record FeedEvent(long seq, String tenant, UUID clusterId, UUID hostId, UUID infraEnvId, String severity,
    String category, JsonObject json) {}
