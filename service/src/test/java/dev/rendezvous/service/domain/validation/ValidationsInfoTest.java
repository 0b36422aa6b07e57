package dev.rendezvous.service.domain.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ValidationsInfoTest {

  /** A document with a message of its own (unique to this test run), as a host's own name makes it. */
  private static Map<String, List<ValidationResult>> document(String hostName) {
    return Map.of(
        "hardware", List.of(new ValidationResult("has-inventory", ValidationStatus.FAILURE, "Inventory not received yet " + hostName),
            new ValidationResult("has-min-cpu-cores", ValidationStatus.PENDING, "Missing inventory")),
        "network", List.of(new ValidationResult("connected", ValidationStatus.SUCCESS, "Host is connected")));
  }

  @Test
  void aSharedDocumentIsWrittenOnceAndItsTextKept() {
    String site = UUID.randomUUID().toString();
    ValidationsInfo first = new ValidationsInfo(document(site));
    String alone = first.toJson();
    // nothing equal made yet: written each time, nothing kept
    assertNotSame(alone, first.toJson());
    assertEquals(alone, first.toJson());

    ValidationsInfo second = new ValidationsInfo(document(site)); // another host's equal document
    String text = second.toJson();
    assertSame(text, first.toJson(), "the shared document's JSON is kept");
    assertSame(text, second.toJson());
    assertEquals(alone, text);
    // the kept text is the document: categories sorted by name, results in order
    assertEquals(first.categories(), ValidationsInfo.parse(text).categories());
    assertEquals(List.of("hardware", "network"), List.copyOf(ValidationsInfo.parse(text).categories().keySet()));

    ValidationsInfo own = new ValidationsInfo(document(UUID.randomUUID().toString()));
    assertNotSame(own.toJson(), own.toJson(), "a document of its own is not kept");
    assertEquals(own.toJson(), own.toJson());
  }

  @Test
  void aDocumentOfItsOwnIsWrittenAsJacksonWritesItWithItsSharedCategoriesTextKept() {
    String site = UUID.randomUUID().toString();
    Map<String, List<ValidationResult>> doc = new java.util.LinkedHashMap<>(document(site));
    doc.put("operators", List.of(new ValidationResult("odf-requirements-satisfied", ValidationStatus.SUCCESS,
        "odf is disabled \"quoted\" \u00e9")));
    doc.put("empty", List.of());
    ValidationsInfo own = new ValidationsInfo(doc);
    // what the document is, written by Jackson at once (names sorted, results in order)
    String whole = dev.rendezvous.service.domain.planning.StepOutputs.toJson(new java.util.TreeMap<>(own.categories()));
    assertEquals(whole, own.toJson());
    assertEquals(own.categories(), ValidationsInfo.parse(own.toJson()).categories());
    // another host, same site: its network category (no name in it) is the same list, written once for both
    Map<String, List<ValidationResult>> other = new java.util.LinkedHashMap<>(doc);
    other.put("hardware", document(UUID.randomUUID().toString()).get("hardware"));
    ValidationsInfo second = new ValidationsInfo(other);
    assertSame(own.categories().get("network"), second.categories().get("network"), "equal categories are one list");
    assertEquals(dev.rendezvous.service.domain.planning.StepOutputs.toJson(new java.util.TreeMap<>(second.categories())),
        second.toJson());
    assertEquals(List.copyOf(doc.get("network")), second.categories().get("network"), "still a list of its results");
  }
}
