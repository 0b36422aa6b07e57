package dev.rendezvous.service.domain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.rendezvous.service.domain.planning.StepOutputs;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import org.junit.jupiter.api.Test;

/** What the brain keeps of many hosts shares one copy of what they have in common. */
class SharedTextTest {

  private static String inventory(String hostname) {
    return inventory(hostname, "uefi");
  }

  private static String inventory(String hostname, String bootMode) {
    return "{\"hostname\":\"" + hostname + "\",\"cpu\":{\"count\":4,\"flags\":[\"fpu\",\"vme\"],"
        + "\"model_name\":\"Intel Xeon\",\"architecture\":\"x86_64\"},\"boot\":{\"current_boot_mode\":\"" + bootMode
        + "\",\"command_line\":\"" + "x".repeat(300) + "\"},\"routes\":[{\"interface\":\"eth0\",\"gateway\":\"10.0.0.1\","
        + "\"destination\":\"0.0.0.0\",\"family\":2}]}";
  }

  @Test
  void twoInventoriesShareTheirCommonTexts() {
    var a = StepOutputs.inventory(inventory(new String("host-a")));
    var b = StepOutputs.inventory(inventory("host-b", "bios"));
    assertSame(a.cpu().modelName(), b.cpu().modelName());
    assertSame(a.cpu().flags().get(1), b.cpu().flags().get(1));
    assertEquals("host-a", a.hostname());
    // long texts are not looked up: rarely shared, not worth it
    assertEquals(a.boot().commandLine(), b.boot().commandLine());
    assertNotSame(a.boot().commandLine(), b.boot().commandLine());
    // parts the hosts of a site have alike are one instance: routes, CPU, boot when equal
    assertSame(a.routes(), b.routes());
    assertSame(a.cpu(), b.cpu());
    var c = StepOutputs.inventory(inventory("host-c"));
    assertSame(a.boot(), c.boot());
    assertNotSame(a.boot(), b.boot());
  }

  @Test
  void aTextIsTheJvmsSharedInstanceFoundFirstOrAgain() {
    String first = SharedText.of(new String("ens3f0-shared"));
    assertSame("ens3f0-shared", first); // a literal is the JVM's interned instance
    assertSame(first, SharedText.of(new String("ens3f0-shared")));
    for (int i = 0; i < 100_000; i++) { // every slot taken by other texts since
      SharedText.of("text-" + i);
    }
    assertSame(first, SharedText.of(new String("ens3f0-shared")));
    assertNull(SharedText.of(null));
  }

  @Test
  void equalValidationResultsAreOneInstance() {
    String json = "{\"hardware\":[{\"id\":\"has-inventory\",\"status\":\"success\",\"message\":\"Valid inventory exists for the host\"}]}";
    ValidationsInfo a = ValidationsInfo.parse(json);
    ValidationsInfo b = ValidationsInfo.parse(json);
    assertSame(a.find("has-inventory").orElseThrow(), b.find("has-inventory").orElseThrow());
    ValidationsInfo c = ValidationsInfo.parse(json.replace("success", "failure"));
    assertNotSame(a.find("has-inventory").orElseThrow(), c.find("has-inventory").orElseThrow());
    assertEquals(a, b);
  }
}
