package dev.rendezvous.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LogFormatTest {
  @Test
  void aTerminalGetsReadableLinesAnythingElseJsonUnlessTold() {
    assertEquals("CONSOLE", LogFormat.choose(Map.of(), true));
    assertEquals("JSON", LogFormat.choose(Map.of(), false));
    assertEquals("JSON", LogFormat.choose(Map.of("RDV_LOG_FORMAT", "json"), true));
    assertEquals("CONSOLE", LogFormat.choose(Map.of("RDV_LOG_FORMAT", "Console"), false));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LogFormat.choose(Map.of("RDV_LOG_FORMAT", "xml"), false));
    assertEquals("RDV_LOG_FORMAT must be 'json' or 'console', got 'xml'", e.getMessage());
  }
}
