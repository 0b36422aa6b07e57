package dev.rendezvous.kube.mapping;

/** How applying a spec went: {@code SpecSynced} True/SyncOK, or False with InputError or BackendError. */
public record SyncResult(boolean ok, String reason, String message) {
  public static final SyncResult OK = new SyncResult(true, "SyncOK", "The Spec has been successfully applied");

  public static SyncResult inputError(String detail) {
    return new SyncResult(false, "InputError", "The Spec could not be synced due to an input error: " + detail);
  }

  public static SyncResult backendError(String detail) {
    return new SyncResult(false, "BackendError", "The Spec could not be synced due to backend error: " + detail);
  }
}
