package dev.rendezvous.service.brain;

import java.time.Instant;
import java.util.UUID;

/**
 * The columns of a host row the brain reads and writes, JSON documents as their text (null for SQL NULL).
 * {@code staticNetworking} is not a host column: it comes from the infra-env's static_network_config. Times are
 * instants (24 bytes each, an OffsetDateTime is four objects and 96), turned into timestamps when bound.
 * {@code digests} is null but in the cache's form ({@link #compact()}): there a large document is the marker
 * {@link #FINGERPRINTED} and its 128-bit fingerprint two longs of {@code digests}, in column order.
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
    long[] digests) {

  public StoredHost {
    id = dev.rendezvous.service.domain.SharedText.id(id); // the snapshot's and the peers' reports' instance
    infraEnvId = dev.rendezvous.service.domain.SharedText.id(infraEnvId);
    clusterId = dev.rendezvous.service.domain.SharedText.id(clusterId);
    int fingerprinted = 0;
    for (String doc : new String[] {inventory, connectivity, validationsInfo, progress, stepResults, spec, state}) {
      if (doc == FINGERPRINTED) {
        fingerprinted++;
      }
    }
    if (2 * fingerprinted != (digests == null ? 0 : digests.length)) {
      throw new IllegalStateException("a cached row's fingerprints do not match its documents");
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
   * Stands for a document kept only as its fingerprint (never valid JSON, so never mistaken for one). One shared
   * instance: with the digests in one long array a cached row's five large documents cost ~100 bytes, not ~360 as
   * five fingerprint strings.
   */
  static final String FINGERPRINTED = "\u0001fp";
  static final int KEEP_WHOLE_BELOW = 64;

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
   * connectivity tens of KB) replaced by a 128-bit fingerprint; the parsed snapshot beside it is what the domain
   * reads, this only tells a unit which columns changed.
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
    int held = digests == null ? 0 : digests.length / 2;
    long[] d = java.util.Arrays.copyOf(digests == null ? new long[0] : digests, 2 * (held + large));
    String[] docs = new String[STATE + 1];
    int slot = 0;
    for (int doc = INVENTORY; doc <= STATE; doc++) {
      String text = document(doc);
      docs[doc] = text;
      if (text == FINGERPRINTED) {
        slot++;
      } else if (!keptWhole(text)) {
        // shift the digests after this slot one place on: digests stay in column order
        System.arraycopy(d, 2 * slot, d, 2 * slot + 2, d.length - 2 * slot - 2);
        long[] fp = fingerprint(text);
        d[2 * slot] = fp[0];
        d[2 * slot + 1] = fp[1];
        docs[doc] = FINGERPRINTED;
        slot++;
      }
    }
    return new StoredHost(id, infraEnvId, clusterId, status, statusInfo, statusUpdatedAt, role, suggestedRole,
        bootstrap, requestedHostname, installationDiskId, installationDiskPath, discoveryAgentVersion,
        docs[INVENTORY], docs[CONNECTIVITY], docs[VALIDATIONS_INFO], docs[PROGRESS], docs[STEP_RESULTS], docs[SPEC],
        docs[STATE], checkedInAt, registeredAt, rowVersion, staticNetworking, d);
  }

  /** Whether a document is held as it is in the cache: absent, short, or a fingerprint already. */
  private static boolean keptWhole(String text) {
    return text == null || text == FINGERPRINTED || text.length() < KEEP_WHOLE_BELOW;
  }

  /** This row at another row version (a unit's write, as its key's cache then holds it). */
  StoredHost withRowVersion(long version) {
    return new StoredHost(id, infraEnvId, clusterId, status, statusInfo, statusUpdatedAt, role, suggestedRole,
        bootstrap, requestedHostname, installationDiskId, installationDiskPath, discoveryAgentVersion, inventory,
        connectivity, validationsInfo, progress, stepResults, spec, state, checkedInAt, registeredAt, version,
        staticNetworking, digests);
  }

  private static final java.util.concurrent.atomic.LongAdder HASHED = new java.util.concurrent.atomic.LongAdder();

  /** The first 128 bits of the text's SHA-256, as two longs. */
  static long[] fingerprint(String text) {
    HASHED.increment();
    return digest(text);
  }

  /** How many documents were fingerprinted in this JVM: a unit's commit hashes each changed one once (its test). */
  static long documentsHashed() {
    return HASHED.sum();
  }

  /** One SHA-256 per thread: looking the algorithm up per document showed in a registration burst's profile. */
  private static final ThreadLocal<java.security.MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return java.security.MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  });

  private static long[] digest(String text) {
    java.nio.ByteBuffer d = java.nio.ByteBuffer.wrap(SHA256.get().digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    return new long[] {d.getLong(), d.getLong()};
  }

  /**
   * Whether document {@code doc} ({@link #INVENTORY} ... {@link #STATE}) of this row, whole or a fingerprint, equals
   * that of {@code other} (a row to write against the row as cached).
   */
  boolean sameDocument(int doc, StoredHost other) {
    String mine = document(doc);
    String theirs = other.document(doc);
    if (mine != FINGERPRINTED && theirs != FINGERPRINTED) {
      return java.util.Objects.equals(mine, theirs);
    }
    if (mine == null || theirs == null) {
      return false;
    }
    long[] a = mine == FINGERPRINTED ? digests : fingerprint(mine);
    int i = mine == FINGERPRINTED ? 2 * slot(doc) : 0;
    long[] b = theirs == FINGERPRINTED ? other.digests : fingerprint(theirs);
    int j = theirs == FINGERPRINTED ? 2 * other.slot(doc) : 0;
    return a[i] == b[j] && a[i + 1] == b[j + 1];
  }

  /** Where the digest of fingerprinted document {@code doc} is, in pairs. */
  private int slot(int doc) {
    int slot = 0;
    for (int d = INVENTORY; d < doc; d++) {
      if (document(d) == FINGERPRINTED) {
        slot++;
      }
    }
    return slot;
  }

  /**
   * The digests a row of these documents needs when those that are {@link #FINGERPRINTED} were carried over from
   * {@code from} (unchanged documents are not serialised again): theirs, in column order; null when none is.
   */
  static long[] carried(StoredHost from, String... docs) {
    int n = 0;
    for (String d : docs) {
      if (d == FINGERPRINTED) {
        n++;
      }
    }
    if (n == 0) {
      return null;
    }
    long[] out = new long[2 * n];
    int k = 0;
    for (int doc = INVENTORY; doc <= STATE; doc++) {
      if (docs[doc] == FINGERPRINTED) {
        if (from == null || from.document(doc) != FINGERPRINTED) {
          throw new IllegalStateException("a fingerprint carried from a row that does not hold one");
        }
        int at = 2 * from.slot(doc);
        out[k++] = from.digests[at];
        out[k++] = from.digests[at + 1];
      }
    }
    return out;
  }

  /** A document about to be written: never a fingerprint (that would be a bug in the caller). */
  static String whole(String doc) {
    if (doc == FINGERPRINTED || doc != null && doc.startsWith(FINGERPRINTED)) {
      throw new IllegalStateException("a cached fingerprint was about to be written as a document");
    }
    return doc;
  }
}
