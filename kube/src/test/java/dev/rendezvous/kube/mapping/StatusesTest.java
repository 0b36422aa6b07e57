package dev.rendezvous.kube.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class StatusesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T0 = Instant.parse("2026-11-28T07:00:00Z");
  private static final ClusterSpecs.Requirements SNO = new ClusterSpecs.Requirements(1, 0, 0);

  static ObjectNode cluster(String status) {
    return JSON.createObjectNode().put("id", "c1").put("status", status).put("status_info", "info of " + status)
        .put("validations_info", "{\"network\":[{\"id\":\"api-vips-defined\",\"status\":\"failure\",\"message\":\"API VIPs are undefined\"}]}");
  }

  static String reason(JsonNode status, String type) {
    return Conditions.find(status.path("conditions"), type).path("reason").asText();
  }

  @Test
  void theInstallationStartsOnlyWhenReadyEnoughApprovedAndNotHeld() {
    var one = new ClusterStatuses.AgentTally(1, 0, 0, 0, 0, 0);
    var ready = ClusterStatuses.evaluate(JSON.createObjectNode(), cluster("ready"), SyncResult.OK, one, SNO, false, "api", T0);
    assertTrue(ready.startInstall());
    assertEquals("ClusterIsReady", reason(ready.status(), "RequirementsMet"));
    var held = ClusterStatuses.evaluate(JSON.createObjectNode(), cluster("ready"), SyncResult.OK, one, SNO, true, "api", T0);
    assertFalse(held.startInstall());
    assertEquals("ClusterIsReady", reason(held.status(), "RequirementsMet"), "upstream: the hold is on Completed");
    assertEquals("InstallationOnHold", reason(held.status(), "Completed"));
    var notReady = ClusterStatuses.evaluate(JSON.createObjectNode(), cluster("insufficient"), SyncResult.OK,
        ClusterStatuses.AgentTally.NONE, SNO, false, "api", T0);
    assertEquals("ClusterNotReady", reason(notReady.status(), "RequirementsMet"), "agents are counted once ready");
    var unapproved = ClusterStatuses.evaluate(JSON.createObjectNode(), cluster("ready"), SyncResult.OK,
        new ClusterStatuses.AgentTally(1, 0, 0, 0, 1, 0), SNO, false, "api", T0);
    assertFalse(unapproved.startInstall());
    assertEquals("The installation is pending on the approval of 1 agents",
        Conditions.find(unapproved.status().path("conditions"), "RequirementsMet").path("message").asText());
    var missing = ClusterStatuses.evaluate(JSON.createObjectNode(), cluster("ready"), SyncResult.OK,
        ClusterStatuses.AgentTally.NONE, new ClusterSpecs.Requirements(3, 2, 0), false, "api", T0);
    assertFalse(missing.startInstall());
    assertEquals("InsufficientAgents", reason(missing.status(), "RequirementsMet"));
    var badSpec = ClusterStatuses.evaluate(JSON.createObjectNode(), cluster("ready"), SyncResult.inputError("x"), one,
        SNO, false, "api", T0);
    assertFalse(badSpec.startInstall(), "a spec that did not sync does not install");
  }

  @Test
  void conditionsFollowTheClusterWithUpstreamsReasons() {
    JsonNode insufficient = ClusterStatuses.evaluate(JSON.createObjectNode(), cluster("insufficient"), SyncResult.OK,
        ClusterStatuses.AgentTally.NONE, SNO, false, "api", T0).status();
    assertEquals("ValidationsFailing", reason(insufficient, "Validated"));
    assertTrue(Conditions.find(insufficient.path("conditions"), "Validated").path("message").asText()
        .endsWith("API VIPs are undefined"));
    assertEquals("InstallationNotStarted", reason(insufficient, "Completed"));
    JsonNode installing = ClusterStatuses.evaluate(insufficient, cluster("installing"), SyncResult.OK,
        ClusterStatuses.AgentTally.NONE, SNO, false, "api", T0.plusSeconds(60)).status();
    assertEquals("InstallationInProgress", reason(installing, "Completed"));
    assertEquals("ClusterAlreadyInstalling", reason(installing, "RequirementsMet"));
    JsonNode error = ClusterStatuses.evaluate(installing, cluster("error"), SyncResult.OK,
        ClusterStatuses.AgentTally.NONE, SNO, false, "api", T0).status();
    assertEquals("True", Conditions.find(error.path("conditions"), "Failed").path("status").asText());
    assertEquals("InstallationFailed", reason(error, "Stopped"));
    JsonNode installed = ClusterStatuses.evaluate(installing, cluster("installed"), SyncResult.OK,
        ClusterStatuses.AgentTally.NONE, SNO, false, "api", T0).status();
    assertEquals("InstallationCompleted", reason(installed, "Completed"));
    assertEquals("ClusterInstallationStopped", reason(installed, "RequirementsMet"));
    assertEquals("installed", installed.path("debugInfo").path("state").asText());
    assertEquals("api/events?cluster_id=c1", installed.path("debugInfo").path("eventsURL").asText());
  }

  @Test
  void anUnchangedSituationKeepsItsTimesSoNothingIsWritten() {
    JsonNode first = ClusterStatuses.evaluate(JSON.createObjectNode(), cluster("ready"), SyncResult.OK,
        ClusterStatuses.AgentTally.NONE, SNO, false, "api", T0).status();
    JsonNode later = ClusterStatuses.evaluate(first, cluster("ready"), SyncResult.OK,
        ClusterStatuses.AgentTally.NONE, SNO, false, "api", T0.plusSeconds(300)).status();
    assertEquals(first, later);
    JsonNode changed = ClusterStatuses.evaluate(first, cluster("installing"), SyncResult.OK,
        ClusterStatuses.AgentTally.NONE, SNO, false, "api", T0.plusSeconds(300)).status();
    assertEquals(T0.plusSeconds(300).toString(), Conditions.find(changed.path("conditions"), "RequirementsMet")
        .path("lastTransitionTime").asText(), "False to True: a transition");
    assertEquals("InstallationInProgress", reason(changed, "Completed"));
    assertEquals(T0.toString(), Conditions.find(changed.path("conditions"), "Completed").path("lastTransitionTime").asText(),
        "still False, another reason: no transition");
    assertEquals(T0.toString(), Conditions.find(changed.path("conditions"), "Failed").path("lastTransitionTime").asText(),
        "a condition whose status did not change keeps its transition time");
  }

  @Test
  void anAgentsStatusComesFromItsHost() {
    ObjectNode host = JSON.createObjectNode().put("id", "h1").put("infra_env_id", "ie1").put("status", "known")
        .put("status_info", "Host is ready to be installed").put("role", "master").put("cluster_id", "c1")
        .put("inventory", "{\"hostname\":\"node0\",\"cpu\":{\"count\":8},\"memory\":{\"physical_bytes\":17179869184},"
            + "\"interfaces\":[{\"name\":\"eth0\",\"mac_address\":\"52:54:00:00:00:01\",\"ipv4_addresses\":[\"10.0.0.2/24\"]}],"
            + "\"disks\":[{\"id\":\"/dev/disk/by-id/a\",\"name\":\"sda\",\"size_bytes\":120000000000,"
            + "\"installation_eligibility\":{\"eligible\":true}}]}");
    JsonNode s = AgentStatuses.status(JSON.createObjectNode(), host, false, SyncResult.OK, "api", T0);
    assertEquals("AgentIsNotApproved", reason(s, "RequirementsMet"));
    s = AgentStatuses.status(s, host, true, SyncResult.OK, "api", T0);
    assertEquals("AgentIsReady", reason(s, "RequirementsMet"));
    assertEquals("AgentIsConnected", reason(s, "Connected"));
    assertEquals("Bound", reason(s, "Bound"));
    assertEquals("node0", s.path("inventory").path("hostname").asText());
    assertEquals(8, s.path("inventory").path("cpu").path("count").asInt());
    assertEquals(17179869184L, s.path("inventory").path("memory").path("physicalBytes").asLong());
    assertEquals("52:54:00:00:00:01", s.path("inventory").path("interfaces").get(0).path("macAddress").asText());
    assertTrue(s.path("inventory").path("disks").get(0).path("installationEligibility").path("eligible").asBoolean());
    host.put("status", "disconnected-unbound").putNull("cluster_id");
    s = AgentStatuses.status(s, host, true, SyncResult.OK, "api", T0);
    assertEquals("AgentIsDisconnected", reason(s, "Connected"));
    assertEquals("Unbound", reason(s, "Bound"));
  }
}
