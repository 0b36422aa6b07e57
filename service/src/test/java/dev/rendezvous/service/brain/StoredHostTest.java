package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The cache keeps tokens for a host row's documents; writes still see what changed, and never a token. */
class StoredHostTest {
  private static final String INVENTORY = "{\"cpu\":{\"count\":8},\"disks\":[" + "{\"id\":\"/dev/sda\"},".repeat(50) + "{}]}";
  private static final String VALIDATIONS = "{\"hardware\":[" + "{\"id\":\"has-cpu\",\"status\":\"success\"},".repeat(5) + "{}]}";

  private static StoredHost row(String inventory, String validations, String progress) {
    return new StoredHost(UUID.randomUUID(), UUID.randomUUID(), null, "known", "", null, "auto-assign", null, false,
        null, null, null, "v1", inventory, null, validations, progress, "{}", "{}", "{}", null, null, 3, false);
  }

  /** A row to write after {@code cached}: its documents carried (as SnapshotMapper carries unchanged ones) or new. */
  private static StoredHost next(StoredHost cached, String inventory, String validations, String progress) {
    String[] docs = {inventory, null, validations, progress, "{}", "{}", "{}"};
    return new StoredHost(cached.id(), cached.infraEnvId(), null, "known", "", null, "auto-assign", null, false, null,
        null, null, "v1", docs[0], docs[1], docs[2], docs[3], docs[4], docs[5], docs[6], null, null, 3, false,
        StoredHost.carried(cached, docs));
  }

  @Test
  void largeDocumentsAreKeptAsTokensSmallOnesWhole() {
    StoredHost c = row(INVENTORY, VALIDATIONS, "{\"current_stage\":\"\"}").compact();
    assertSame(StoredHost.BY_TOKEN, c.inventory());
    assertSame(StoredHost.BY_TOKEN, c.validationsInfo());
    assertEquals(2, c.tokens().length, "one long per large document");
    assertNotEquals(c.tokens()[0], c.tokens()[1]);
    assertEquals("{\"current_stage\":\"\"}", c.progress(), "short documents stay whole");
    assertSame(c, c.compact(), "compacting twice changes nothing");
    assertSame(c.tokens(), c.withRowVersion(4).tokens());
    assertEquals(4, c.withRowVersion(4).rowVersion());
  }

  @Test
  void aCarriedDocumentIsTheSameANewOneIsAChange() {
    StoredHost cached = row(INVENTORY, VALIDATIONS, "{}").compact();
    StoredHost write = next(cached, cached.inventory(), VALIDATIONS + " ", "{}").compact();
    assertTrue(cached.sameDocument(StoredHost.INVENTORY, write), "the inventory carried over is unchanged");
    assertTrue(write.sameDocument(StoredHost.INVENTORY, cached));
    assertFalse(cached.sameDocument(StoredHost.VALIDATIONS_INFO, write), "new validations are a change");
    assertTrue(cached.sameDocument(StoredHost.PROGRESS, write), "a short document compares as text");
    assertFalse(cached.sameDocument(StoredHost.PROGRESS, next(cached, cached.inventory(), VALIDATIONS,
        "{\"current_stage\":\"x\"}").compact()));
    assertFalse(cached.sameDocument(StoredHost.INVENTORY, next(cached, null, VALIDATIONS, "{}").compact()),
        "an inventory gone is a change");
    assertThrows(IllegalStateException.class, () -> StoredHost.whole(cached.inventory()), "a token is never written");
    assertEquals(INVENTORY, StoredHost.whole(INVENTORY));
  }

  /**
   * What a token cannot tell: a text made again, equal to the one stored, counts as changed and is written again. So
   * SnapshotMapper carries every document whose content is the same; this is the price of not hashing them.
   */
  @Test
  void aTextMadeAgainCountsAsChangedEvenWhenEqual() {
    StoredHost cached = row(INVENTORY, VALIDATIONS, "{}").compact();
    StoredHost again = next(cached, new String(INVENTORY.toCharArray()), cached.validationsInfo(), "{}").compact();
    assertFalse(cached.sameDocument(StoredHost.INVENTORY, again));
    assertTrue(cached.sameDocument(StoredHost.VALIDATIONS_INFO, again));
    assertFalse(cached.sameDocument(StoredHost.INVENTORY, row(INVENTORY, VALIDATIONS, "{}")),
        "a whole text is not known to equal a token");
  }

  @Test
  void aRowCompactedAgainAfterAChangeKeepsEveryTokenInItsColumn() {
    StoredHost c = row(null, VALIDATIONS, "{}").compact();
    assertEquals(1, c.tokens().length);
    // the inventory arrives: a row with the cached validations and a whole inventory, compacted
    StoredHost again = next(c, INVENTORY, c.validationsInfo(), "{}").compact();
    assertEquals(2, again.tokens().length);
    assertTrue(c.sameDocument(StoredHost.VALIDATIONS_INFO, again), "the validations' token moved one place on");
    assertFalse(c.sameDocument(StoredHost.INVENTORY, again));
    StoredHost third = next(again, again.inventory(), VALIDATIONS, "{}").compact();
    assertTrue(again.sameDocument(StoredHost.INVENTORY, third));
    assertFalse(again.sameDocument(StoredHost.VALIDATIONS_INFO, third));
  }

  @Test
  void tokensThatDoNotMatchTheDocumentsAreRefused() {
    StoredHost c = row(INVENTORY, null, "{}").compact();
    assertThrows(IllegalStateException.class, () -> new StoredHost(c.id(), c.infraEnvId(), null, "known", "", null,
        null, null, false, null, null, null, "v1", c.inventory(), null, null, "{}", "{}", "{}", "{}", null, null, 3,
        false), "a document held by a token without its token");
    assertThrows(IllegalStateException.class, () -> StoredHost.carried(row(null, null, "{}"),
        StoredHost.BY_TOKEN, null, null, "{}", "{}", "{}", "{}"), "a token carried from a row without one");
  }
}
