package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The cache keeps fingerprints of a host row's documents; writes still see what changed, and never a fingerprint. */
class StoredHostTest {
  private static final String INVENTORY = "{\"cpu\":{\"count\":8},\"disks\":[" + "{\"id\":\"/dev/sda\"},".repeat(50) + "{}]}";

  private static StoredHost row(String inventory, String progress) {
    return new StoredHost(UUID.randomUUID(), UUID.randomUUID(), null, "known", "", null, "auto-assign", null, false,
        null, null, null, "v1", inventory, null, null, progress, "{}", "{}", "{}", null, null, 3, false);
  }

  @Test
  void largeDocumentsAreKeptAsFingerprintsSmallOnesWhole() {
    StoredHost c = row(INVENTORY, "{\"current_stage\":\"\"}").compact();
    assertTrue(c.inventory().startsWith(StoredHost.FINGERPRINT), c.inventory());
    assertTrue(c.inventory().length() < 50, "a fingerprint is small: " + c.inventory().length());
    assertEquals("{\"current_stage\":\"\"}", c.progress(), "short documents stay whole");
    assertSame(c.inventory(), c.compact().inventory(), "compacting twice changes nothing");
  }

  @Test
  void aWriteComparesWithTheFingerprint() {
    String fp = StoredHost.fingerprint(INVENTORY);
    assertTrue(StoredHost.sameDoc(INVENTORY, fp), "the same text is unchanged");
    assertTrue(StoredHost.sameDoc(fp, fp));
    assertFalse(StoredHost.sameDoc(INVENTORY.replace("8", "16"), fp), "another text is a change");
    assertFalse(StoredHost.sameDoc(null, fp));
    assertThrows(IllegalStateException.class, () -> StoredHost.whole(fp), "a fingerprint is never written");
    assertEquals(INVENTORY, StoredHost.whole(INVENTORY));
  }

  @Test
  void aDocumentJustFingerprintedIsNotHashedAgain() {
    String doc = INVENTORY + " ";
    String fp = StoredHost.fingerprint(doc);
    assertFalse(StoredHost.sameDoc(doc, StoredHost.fingerprint(INVENTORY)), "a changed document, hashed once");
    assertSame(fp, StoredHost.fingerprint(doc), "the commit's comparison and the cache's compaction share one hash");
    String equalText = new String(doc.toCharArray());
    assertEquals(fp, StoredHost.fingerprint(equalText), "an equal text (another instance) has the same fingerprint");
  }
}
