package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The cache keeps fingerprints of a host row's documents; writes still see what changed, and never a fingerprint. */
class StoredHostTest {
  private static final String INVENTORY = "{\"cpu\":{\"count\":8},\"disks\":[" + "{\"id\":\"/dev/sda\"},".repeat(50) + "{}]}";
  private static final String VALIDATIONS = "{\"hardware\":[" + "{\"id\":\"has-cpu\",\"status\":\"success\"},".repeat(5) + "{}]}";

  /** Whether the cached row holds {@code doc} as column {@code column} of a row to write. */
  private static boolean holds(StoredHost cached, int column, String doc) {
    StoredHost write = row(column == StoredHost.INVENTORY ? doc : null,
        column == StoredHost.VALIDATIONS_INFO ? doc : null, column == StoredHost.PROGRESS ? doc : "{}");
    return cached.sameDocument(column, write) && write.sameDocument(column, cached);
  }

  private static StoredHost row(String inventory, String validations, String progress) {
    return new StoredHost(UUID.randomUUID(), UUID.randomUUID(), null, "known", "", null, "auto-assign", null, false,
        null, null, null, "v1", inventory, null, validations, progress, "{}", "{}", "{}", null, null, 3, false);
  }

  @Test
  void largeDocumentsAreKeptAsFingerprintsSmallOnesWhole() {
    StoredHost c = row(INVENTORY, VALIDATIONS, "{\"current_stage\":\"\"}").compact();
    assertSame(StoredHost.FINGERPRINTED, c.inventory());
    assertSame(StoredHost.FINGERPRINTED, c.validationsInfo());
    assertEquals(4, c.digests().length, "two longs per large document");
    assertEquals("{\"current_stage\":\"\"}", c.progress(), "short documents stay whole");
    assertSame(c, c.compact(), "compacting twice changes nothing");
    assertSame(c.digests(), c.withRowVersion(4).digests());
    assertEquals(4, c.withRowVersion(4).rowVersion());
  }

  @Test
  void aWriteComparesWithTheFingerprintOfItsOwnColumn() {
    StoredHost c = row(INVENTORY, VALIDATIONS, "{}").compact();
    assertTrue(holds(c, StoredHost.INVENTORY, new String(INVENTORY.toCharArray())), "the same text is unchanged");
    assertTrue(holds(c, StoredHost.VALIDATIONS_INFO, VALIDATIONS));
    assertFalse(holds(c, StoredHost.INVENTORY, VALIDATIONS), "another column's document is a change");
    assertFalse(holds(c, StoredHost.VALIDATIONS_INFO, INVENTORY));
    assertFalse(holds(c, StoredHost.INVENTORY, INVENTORY.replace("8", "16")), "another text is a change");
    assertFalse(holds(c, StoredHost.INVENTORY, null));
    assertTrue(holds(c, StoredHost.PROGRESS, "{}"), "a short document compares as text");
    assertFalse(holds(c, StoredHost.PROGRESS, "{\"current_stage\":\"x\"}"));
    assertThrows(IllegalStateException.class, () -> StoredHost.whole(c.inventory()), "a fingerprint is never written");
    assertEquals(INVENTORY, StoredHost.whole(INVENTORY));
  }

  @Test
  void aRowCompactedAgainAfterAChangeKeepsEveryDigestInItsColumn() {
    StoredHost c = row(null, VALIDATIONS, "{}").compact();
    assertEquals(2, c.digests().length);
    // the inventory arrives: a row with the cached validations and a whole inventory, compacted
    StoredHost mixed = new StoredHost(c.id(), c.infraEnvId(), c.clusterId(), c.status(), c.statusInfo(),
        c.statusUpdatedAt(), c.role(), c.suggestedRole(), c.bootstrap(), c.requestedHostname(), c.installationDiskId(),
        c.installationDiskPath(), c.discoveryAgentVersion(), INVENTORY, c.connectivity(), c.validationsInfo(),
        c.progress(), c.stepResults(), c.spec(), c.state(), c.checkedInAt(), c.registeredAt(), c.rowVersion(),
        c.staticNetworking(), c.digests());
    StoredHost again = mixed.compact();
    assertTrue(holds(again, StoredHost.INVENTORY, INVENTORY));
    assertTrue(holds(again, StoredHost.VALIDATIONS_INFO, VALIDATIONS));
    assertFalse(holds(again, StoredHost.INVENTORY, VALIDATIONS));
  }

  @Test
  void digestsThatDoNotMatchTheDocumentsAreRefused() {
    StoredHost c = row(INVENTORY, null, "{}").compact();
    assertThrows(IllegalStateException.class, () -> new StoredHost(c.id(), c.infraEnvId(), null, "known", "", null,
        null, null, false, null, null, null, "v1", c.inventory(), null, null, "{}", "{}", "{}", "{}", null, null, 3,
        false), "a fingerprint without its digest");
  }

  @Test
  void aDocumentCarriedOverFromTheCachedRowKeepsItsDigest() {
    StoredHost cached = row(INVENTORY, VALIDATIONS, "{}").compact();
    String[] docs = {cached.inventory(), null, VALIDATIONS + " ", "{}", "{}", "{}", "{}"};
    long[] carried = StoredHost.carried(cached, docs);
    StoredHost write = new StoredHost(cached.id(), cached.infraEnvId(), null, "known", "", null, "auto-assign", null,
        false, null, null, null, "v1", docs[0], docs[1], docs[2], docs[3], docs[4], docs[5], docs[6], null, null, 3,
        false, carried);
    assertTrue(cached.sameDocument(StoredHost.INVENTORY, write), "the inventory carried over is unchanged");
    assertFalse(cached.sameDocument(StoredHost.VALIDATIONS_INFO, write), "new validations are a change");
    assertTrue(write.compact().sameDocument(StoredHost.INVENTORY, cached));
    assertTrue(holds(write.compact(), StoredHost.VALIDATIONS_INFO, VALIDATIONS + " "));
    assertThrows(IllegalStateException.class, () -> StoredHost.carried(row(null, null, "{}"), docs),
        "a fingerprint carried from a row without one");
  }

  @Test
  void equalTextsHaveOneFingerprint() {
    String doc = INVENTORY + " ";
    long[] fp = StoredHost.fingerprint(doc);
    String equalText = new String(doc.toCharArray());
    assertArrayEquals(fp, StoredHost.fingerprint(equalText), "an equal text (another instance) has the same fingerprint");
    assertNotEquals(fp[0], StoredHost.fingerprint(INVENTORY)[0]);
  }
}
