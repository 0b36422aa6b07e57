package dev.rendezvous.service.brain;

import java.time.Instant;
import java.util.UUID;

/**
 * The columns of a host row the brain reads and writes, JSON documents as their text (null for SQL NULL).
 * {@code staticNetworking} is not a host column: it comes from the infra-env's static_network_config. Times are
 * instants (24 bytes each, an OffsetDateTime is four objects and 96), turned into timestamps when bound.
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
    boolean staticNetworking) {

  /** Marks a document kept only as its fingerprint (never valid JSON, so never mistaken for one). */
  static final String FINGERPRINT = "\u0001fp:";
  private static final int KEEP_WHOLE_BELOW = 64;

  /**
   * This row as the brain's cache keeps it: the JSON documents (an inventory is 5-6 KB, a large cluster's
   * connectivity tens of KB) replaced by a 128-bit fingerprint; the parsed snapshot beside it is what the domain
   * reads, this only tells a unit which columns changed.
   */
  StoredHost compact() {
    if (compact(inventory) && compact(connectivity) && compact(validationsInfo) && compact(progress)
        && compact(stepResults) && compact(spec) && compact(state)) {
      return this; // already as cached: a unit's copy of its key's cache allocates nothing per host
    }
    return new StoredHost(id, infraEnvId, clusterId, status, statusInfo, statusUpdatedAt, role, suggestedRole,
        bootstrap, requestedHostname, installationDiskId, installationDiskPath, discoveryAgentVersion,
        fingerprint(inventory), fingerprint(connectivity), fingerprint(validationsInfo), fingerprint(progress),
        fingerprint(stepResults), fingerprint(spec), fingerprint(state), checkedInAt, registeredAt, rowVersion,
        staticNetworking);
  }

  private static boolean compact(String text) {
    return text == null || text.length() < KEEP_WHOLE_BELOW || text.startsWith(FINGERPRINT);
  }

  /**
   * The last few documents this thread fingerprinted, by identity: a unit's commit compares a new document with the
   * cached fingerprint, then caches the new one's; a 1,000-host cluster's connectivity report (~300 KB) was hashed twice.
   */
  private static final ThreadLocal<Object[]> RECENT = ThreadLocal.withInitial(() -> new Object[8]);

  static String fingerprint(String text) {
    if (text == null || text.length() < KEEP_WHOLE_BELOW || text.startsWith(FINGERPRINT)) {
      return text;
    }
    Object[] recent = RECENT.get();
    for (int i = 0; i < recent.length; i += 2) {
      if (recent[i] == text) {
        return (String) recent[i + 1];
      }
    }
    String fp = digest(text);
    System.arraycopy(recent, 0, recent, 2, recent.length - 2);
    recent[0] = text;
    recent[1] = fp;
    return fp;
  }

  private static String digest(String text) {
    try {
      byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return FINGERPRINT + java.util.Base64.getEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(d, 16))
          + ":" + text.length();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether a document to write equals the one stored (kept whole or as its fingerprint). */
  static boolean sameDoc(String now, String was) {
    if (java.util.Objects.equals(now, was)) {
      return true;
    }
    return now != null && was != null && was.startsWith(FINGERPRINT) && fingerprint(now).equals(was);
  }

  /** A document about to be written: never a fingerprint (that would be a bug in the caller). */
  static String whole(String doc) {
    if (doc != null && doc.startsWith(FINGERPRINT)) {
      throw new IllegalStateException("a cached fingerprint was about to be written as a document");
    }
    return doc;
  }
}
