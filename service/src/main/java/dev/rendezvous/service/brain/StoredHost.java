package dev.rendezvous.service.brain;

import java.time.Instant;
import java.util.UUID;

/**
 * The columns of a host row the brain reads and writes, JSON documents as their text (null for SQL NULL).
 * {@code staticNetworking} is not a host column: it comes from the infra-env's static_network_config. Times are
 * instants (24 bytes each, an OffsetDateTime is four objects and 96), turned into timestamps when bound.
 * {@code tokens} is null while no document is held by a token: in the cache's form ({@link #compact()}) a large
 * document is the marker {@link #BY_TOKEN} and its token one long of {@code tokens}, in column order, and a row to
 * write holds the markers of the documents it carries over unchanged. A compacted document gets a new token, and a row
 * written next carries it only where its content is unchanged ({@link SnapshotMapper}): equal tokens mean the brain
 * has not changed that document since it was read or written (the database's own forward-only merges aside: a
 * check-in moves the host clock in {@code state}, {@code BrainStore.TOUCH}); a new text is taken as changed.
 */
public record StoredHost(
    UUID id,
    UUID infraEnvId,
    UUID clusterId,
    String status,
    String statusInfo,
    Instant statusUpdatedAt,
    String role,
    String suggestedRole,
    boolean bootstrap,
    String requestedHostname,
    String installationDiskId,
    String installationDiskPath,
    String discoveryAgentVersion,
    String inventory,
    String connectivity,
    String validationsInfo,
    String progress,
    String stepResults,
    String spec,
    String state,
    Instant checkedInAt,
    Instant registeredAt,
    long rowVersion,
    boolean staticNetworking,
    long[] tokens) {

  public StoredHost {
    id = dev.rendezvous.service.domain.SharedText.id(id); // the snapshot's and the peers' reports' instance
    infraEnvId = dev.rendezvous.service.domain.SharedText.id(infraEnvId);
    clusterId = dev.rendezvous.service.domain.SharedText.id(clusterId);
    int byToken = 0;
    for (String doc : new String[] {inventory, connectivity, validationsInfo, progress, stepResults, spec, state}) {
      if (doc == BY_TOKEN) {
        byToken++;
      }
    }
    if (byToken != (tokens == null ? 0 : tokens.length)) {
      throw new IllegalStateException("a cached row's tokens do not match its documents");
    }
  }

  /** A row as read or about to be written: its documents whole. */
  public StoredHost(UUID id, UUID infraEnvId, UUID clusterId, String status, String statusInfo,
      Instant statusUpdatedAt, String role, String suggestedRole, boolean bootstrap, String requestedHostname,
      String installationDiskId, String installationDiskPath, String discoveryAgentVersion, String inventory,
      String connectivity, String validationsInfo, String progress, String stepResults, String spec, String state,
      Instant checkedInAt, Instant registeredAt, long rowVersion, boolean staticNetworking) {
    this(id, infraEnvId, clusterId, status, statusInfo, statusUpdatedAt, role, suggestedRole, bootstrap,
        requestedHostname, installationDiskId, installationDiskPath, discoveryAgentVersion, inventory, connectivity,
        validationsInfo, progress, stepResults, spec, state, checkedInAt, registeredAt, rowVersion, staticNetworking,
        null);
  }

  /**
   * Stands for a document kept only as its token (never valid JSON, so never mistaken for one). One shared instance:
   * with the tokens in one long array a cached row's five large documents cost ~60 bytes.
   */
  static final String BY_TOKEN = "\u0001tk";
  private static final int KEEP_WHOLE_BELOW = 64;

  static final int INVENTORY = 0;
  static final int CONNECTIVITY = 1;
  static final int VALIDATIONS_INFO = 2;
  static final int PROGRESS = 3;
  static final int STEP_RESULTS = 4;
  static final int SPEC = 5;
  static final int STATE = 6;

  /** The document column {@code doc} ({@link #INVENTORY} ... {@link #STATE}) as held. */
  String document(int doc) {
    return switch (doc) {
      case INVENTORY -> inventory;
      case CONNECTIVITY -> connectivity;
      case VALIDATIONS_INFO -> validationsInfo;
      case PROGRESS -> progress;
      case STEP_RESULTS -> stepResults;
      case SPEC -> spec;
      case STATE -> state;
      default -> throw new IllegalArgumentException("no document column " + doc);
    };
  }

  /**
   * This row as the brain's cache keeps it: the JSON documents (an inventory is 5-6 KB, a large cluster's
   * connectivity tens of KB) replaced by tokens; the parsed snapshot beside it is what the domain reads, this only
   * tells a unit which columns changed. Tokens, not hashes of the texts: SHA-256 of every new document, on the lane,
   * was 1.5 % of a one-cluster burst's samples, and a 1,000-host cluster's connectivity report (~300 KB) took ~0.6 ms.
   */
  StoredHost compact() {
    int large = 0;
    for (int doc = INVENTORY; doc <= STATE; doc++) {
      if (!keptWhole(document(doc))) {
        large++;
      }
    }
    if (large == 0) {
      return this; // already as cached: a unit's copy of its key's cache allocates nothing per host
    }
    int held = tokens == null ? 0 : tokens.length;
    long[] t = java.util.Arrays.copyOf(tokens == null ? new long[0] : tokens, held + large);
    String[] docs = new String[STATE + 1];
    int slot = 0;
    for (int doc = INVENTORY; doc <= STATE; doc++) {
      String text = document(doc);
      docs[doc] = text;
      if (text == BY_TOKEN) {
        slot++;
      } else if (!keptWhole(text)) {
        // shift the tokens after this slot one place on: tokens stay in column order
        System.arraycopy(t, slot, t, slot + 1, t.length - slot - 1);
        t[slot] = NEXT_TOKEN.incrementAndGet();
        docs[doc] = BY_TOKEN;
        slot++;
      }
    }
    return new StoredHost(id, infraEnvId, clusterId, status, statusInfo, statusUpdatedAt, role, suggestedRole,
        bootstrap, requestedHostname, installationDiskId, installationDiskPath, discoveryAgentVersion,
        docs[INVENTORY], docs[CONNECTIVITY], docs[VALIDATIONS_INFO], docs[PROGRESS], docs[STEP_RESULTS], docs[SPEC],
        docs[STATE], checkedInAt, registeredAt, rowVersion, staticNetworking, t);
  }

  /** Tokens are unique within the JVM, whose cache alone holds them. */
  private static final java.util.concurrent.atomic.AtomicLong NEXT_TOKEN = new java.util.concurrent.atomic.AtomicLong();

  /** Whether a document is held as it is in the cache: absent, short, or a token already. */
  private static boolean keptWhole(String text) {
    return text == null || text == BY_TOKEN || text.length() < KEEP_WHOLE_BELOW;
  }

  /** This row at another row version (a unit's write, as its key's cache then holds it). */
  StoredHost withRowVersion(long version) {
    return new StoredHost(id, infraEnvId, clusterId, status, statusInfo, statusUpdatedAt, role, suggestedRole,
        bootstrap, requestedHostname, installationDiskId, installationDiskPath, discoveryAgentVersion, inventory,
        connectivity, validationsInfo, progress, stepResults, spec, state, checkedInAt, registeredAt, version,
        staticNetworking, tokens);
  }

  /**
   * Whether document {@code doc} ({@link #INVENTORY} ... {@link #STATE}) of this row, as cached, equals that of
   * {@code other}, a row to write: short texts by their text, large ones by their tokens (a document carried over
   * holds the cached row's). A whole large text is not known to equal a token, so it counts as changed.
   */
  boolean sameDocument(int doc, StoredHost other) {
    String mine = document(doc);
    String theirs = other.document(doc);
    if (mine != BY_TOKEN && theirs != BY_TOKEN) {
      return java.util.Objects.equals(mine, theirs);
    }
    return mine == BY_TOKEN && theirs == BY_TOKEN && tokens[slot(doc)] == other.tokens[other.slot(doc)];
  }

  /** Where the token of document {@code doc}, held by its token, is. */
  private int slot(int doc) {
    int slot = 0;
    for (int d = INVENTORY; d < doc; d++) {
      if (document(d) == BY_TOKEN) {
        slot++;
      }
    }
    return slot;
  }

  /**
   * The tokens a row of these documents needs when those that are {@link #BY_TOKEN} were carried over from
   * {@code from} (unchanged documents are not serialised again): theirs, in column order; null when none is.
   */
  static long[] carried(StoredHost from, String... docs) {
    int n = 0;
    for (String d : docs) {
      if (d == BY_TOKEN) {
        n++;
      }
    }
    if (n == 0) {
      return null;
    }
    long[] out = new long[n];
    int k = 0;
    for (int doc = INVENTORY; doc <= STATE; doc++) {
      if (docs[doc] == BY_TOKEN) {
        if (from == null || from.document(doc) != BY_TOKEN) {
          throw new IllegalStateException("a token carried from a row that does not hold one");
        }
        out[k++] = from.tokens[from.slot(doc)];
      }
    }
    return out;
  }

  /** A document about to be written: never a token (that would be a bug in the caller). */
  static String whole(String doc) {
    if (doc == BY_TOKEN || doc != null && doc.startsWith(BY_TOKEN)) {
      throw new IllegalStateException("a cached token was about to be written as a document");
    }
    return doc;
  }
}
