package dev.rendezvous.service.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class Day2IgnitionTest {
  static final String PEM = "-----BEGIN CERTIFICATE-----\nMIIBmcs\n-----END CERTIFICATE-----\n";

  private static JsonObject ignition(JsonObject spec, String role) {
    return new JsonObject(new String(Day2Ignition.pointer(spec, "edge7", role), StandardCharsets.UTF_8))
        .getJsonObject("ignition");
  }

  @Test
  void withoutACaTheHostFetchesFromTheInsecureMcsPortOfTheApiName() {
    JsonObject ign = ignition(new JsonObject().put("api_vip_dns_name", "api.edge7.example.com"), "auto-assign");
    assertEquals("3.2.0", ign.getString("version"));
    assertEquals("http://api.edge7.example.com:22624/config/worker",
        ign.getJsonObject("config").getJsonArray("merge").getJsonObject(0).getString("source"));
    assertTrue(!ign.containsKey("security"));
  }

  @Test
  void withTheMcsCaItUsesApiIntOverHttpsAndTrustsIt() {
    JsonObject spec = new JsonObject().put("api_vip_dns_name", "api.edge7.example.com").put("ignition_endpoint",
        new JsonObject().put("ca_certificate", Base64.getEncoder().encodeToString(PEM.getBytes(StandardCharsets.UTF_8))));
    JsonObject ign = ignition(spec, "master");
    assertEquals("https://api-int.edge7.example.com:22623/config/master",
        ign.getJsonObject("config").getJsonArray("merge").getJsonObject(0).getString("source"));
    String ca = ign.getJsonObject("security").getJsonObject("tls").getJsonArray("certificateAuthorities")
        .getJsonObject(0).getString("source");
    assertEquals(PEM, new String(Base64.getDecoder().decode(ca.substring(ca.indexOf(',') + 1)), StandardCharsets.UTF_8));
  }

  @Test
  void anExplicitEndpointWinsAndABadCaIsRefused() {
    JsonObject spec = new JsonObject().put("ignition_endpoint", new JsonObject().put("url", "https://mcs.example:8443/config"));
    assertEquals("https://mcs.example:8443/config/worker", ignition(spec, "worker").getJsonObject("config")
        .getJsonArray("merge").getJsonObject(0).getString("source"));
    assertThrows(IllegalArgumentException.class, () -> Day2Ignition.caPem("not base64 !!"));
    assertThrows(IllegalArgumentException.class,
        () -> Day2Ignition.caPem(Base64.getEncoder().encodeToString("hello".getBytes(StandardCharsets.UTF_8))));
  }
}
