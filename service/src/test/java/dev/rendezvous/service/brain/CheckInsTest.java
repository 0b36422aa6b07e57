package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CheckInsTest {
  static final UUID IE = UUID.randomUUID();
  static final WorkKey KEY = WorkKey.unbound(IE);
  static final Instant T = Instant.parse("2026-11-26T10:00:00Z");

  static Loaded loaded(UUID... ids) {
    Map<UUID, HostRecord> hosts = new LinkedHashMap<>();
    Map<UUID, StoredHost> stored = new LinkedHashMap<>();
    for (UUID id : ids) {
      HostSnapshot s = HostSnapshot.builder(id, IE).status(HostStatus.KNOWN_UNBOUND).checkedInAt(T)
          .hostTimestamp(T.getEpochSecond()).build();
      HostRecord r = new HostRecord(s, 3, null, null);
      hosts.put(id, r);
      stored.put(id, SnapshotMapper.stored(r));
    }
    return new Loaded(KEY, "tenant", null, hosts, Map.of(), stored, 0);
  }

  @Test
  void aNewerCheckInIsFoldedOnceAndTheRowsAsStoredAreKept() {
    UUID a = UUID.randomUUID();
    UUID b = UUID.randomUUID();
    Loaded l = loaded(a, b);
    CheckIns c = new CheckIns();
    c.record(KEY, a, T.plusSeconds(30));
    c.record(KEY, a, T.plusSeconds(10)); // an older one arriving late does not move it back
    assertEquals(T.plusSeconds(30), c.latest(KEY));

    Loaded folded = c.foldInto(l);
    HostSnapshot s = folded.hosts().get(a).snapshot();
    assertEquals(T.plusSeconds(30), s.checkedInAt());
    assertEquals(T.getEpochSecond() + 30, s.hostTimestamp());
    assertEquals(3, folded.hosts().get(a).rowVersion());
    assertSame(l.hosts().get(b), folded.hosts().get(b));
    // the rows as stored stay known: the next write of a host sends only its changed columns
    assertEquals(l.stored().keySet(), folded.stored().keySet());
    assertEquals(l.stored().get(a).inventory(), folded.stored().get(a).inventory());

    assertNull(c.of(KEY, a), "consumed");
    assertSame(folded, c.foldInto(folded), "nothing left to fold");
  }

  @Test
  void anOlderCheckInOrAnUnknownHostChangesNothing() {
    UUID a = UUID.randomUUID();
    Loaded l = loaded(a);
    CheckIns c = new CheckIns();
    c.record(KEY, a, T.minusSeconds(5));
    c.record(KEY, UUID.randomUUID(), T.plusSeconds(5));
    assertSame(l, c.foldInto(l));
    assertNull(c.latest(KEY));
  }
}
