package dev.rendezvous.service.brain;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * The columns of a host row the brain reads and writes, JSON documents as their text (null for SQL NULL).
 * {@code staticNetworking} is not a host column: it comes from the infra-env's static_network_config.
 */
public record StoredHost(
    UUID id,
    UUID infraEnvId,
    UUID clusterId,
    String status,
    String statusInfo,
    OffsetDateTime statusUpdatedAt,
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
    OffsetDateTime checkedInAt,
    OffsetDateTime registeredAt,
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

  static String fingerprint(String text) {
    if (text == null || text.length() < KEEP_WHOLE_BELOW || text.startsWith(FINGERPRINT)) {
      return text;
    }
    // two independent 64-bit multiply-mix lanes over the chars: not a cryptographic hash (none is needed: a collision
    // only skips rewriting a host's own document), but ~10x cheaper than SHA-256, which made reading a 1,000-host
    // cluster (300 MB of connectivity reports) cost seconds of an event loop
    long a = 0x9E3779B97F4A7C15L;
    long b = 0xC2B2AE3D27D4EB4FL;
    for (int i = 0, n = text.length(); i < n; i++) {
      char c = text.charAt(i);
      a = (a ^ c) * 0x100000001B3L;
      b = Long.rotateLeft(b + c * 0x9E3779B97F4A7C15L, 31) * 0xC2B2AE3D27D4EB4FL;
    }
    return FINGERPRINT + Long.toHexString(mix(a)) + Long.toHexString(mix(b ^ a)) + ":" + text.length();
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
    z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
    return z ^ (z >>> 33);
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
