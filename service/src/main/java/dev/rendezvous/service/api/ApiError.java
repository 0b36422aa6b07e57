package dev.rendezvous.service.api;

/** An answer other than success, with upstream's status code semantics; never a 500 for client input. */
public class ApiError extends RuntimeException {
  private final int status;
  private final String field;
  private final io.vertx.core.json.JsonObject extra;

  public ApiError(int status, String reason) {
    this(status, null, reason);
  }

  public ApiError(int status, String field, String reason) {
    this(status, field, reason, null);
  }

  /** With extra members for the error body (e.g. the cluster's validations_info on a refused install). */
  public ApiError(int status, String field, String reason, io.vertx.core.json.JsonObject extra) {
    super(reason, null, false, false);
    this.status = status;
    this.field = field;
    this.extra = extra;
  }

  public io.vertx.core.json.JsonObject extra() {
    return extra;
  }

  public int status() {
    return status;
  }

  public String field() {
    return field;
  }

  public static ApiError notFound(String what, Object id) {
    return new ApiError(404, what + " " + id + " not found");
  }

  public static ApiError conflict(String reason) {
    return new ApiError(409, reason);
  }
}
