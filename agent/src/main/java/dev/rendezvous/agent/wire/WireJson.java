package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;

/**
 * The agent's one JSON mapper. Field names are fixed per record with {@code @JsonNaming(SnakeCase)} or
 * {@code @JsonProperty}, so they do not depend on this mapper's settings; unknown fields are ignored
 * (newer gateways may add some), absent optional fields are left out (as upstream's omitempty).
 */
public final class WireJson {
  public static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .serializationInclusion(JsonInclude.Include.NON_NULL)
          .build();

  private WireJson() {}

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes a websocket message with its {@code type} discriminator. */
  public static String writeWs(WsMessage message) {
    try {
      return MAPPER.writerFor(WsMessage.class).writeValueAsString(message);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses {@code json}; a malformed document is an {@link IllegalArgumentException} naming the type. */
  public static <T> T read(String json, Class<T> type) {
    try {
      return MAPPER.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "invalid " + type.getSimpleName() + " JSON: " + e.getOriginalMessage(), e);
    }
  }

  public static <T> T read(String json, JavaType type) {
    try {
      return MAPPER.readValue(json, type);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("invalid " + type + " JSON: " + e.getOriginalMessage(), e);
    }
  }

  public static JavaType listOf(Class<?> element) {
    return MAPPER.getTypeFactory().constructCollectionType(java.util.List.class, element);
  }
}
