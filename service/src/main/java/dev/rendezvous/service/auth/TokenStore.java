package dev.rendezvous.service.auth;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

/** API tokens: random, shown once, stored only as a SHA-256 hash. */
public final class TokenStore {
  private static final SecureRandom RANDOM = new SecureRandom();
  private final Pool pool;

  public TokenStore(Pool pool) {
    this.pool = pool;
  }

  public static String newToken() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return "rdv_" + HexFormat.of().formatHex(b);
  }

  public static String hash(String token) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Creates a token for a tenant and returns it; the caller shows it once. */
  public Future<String> create(String tenant, String name, boolean admin) {
    String token = newToken();
    return pool.preparedQuery("INSERT INTO api_tokens (token_hash, tenant, name, is_admin) VALUES ($1, $2, $3, $4)")
        .execute(Tuple.of(hash(token), tenant, name, admin))
        .map(r -> token);
  }

  /**
   * Stores a token made elsewhere (the agent-based installer makes the site's admin token with its ISO, so that
   * {@code agent wait-for} knows it); nothing changes when it is stored already.
   */
  public Future<Void> adopt(String tenant, String name, String token, boolean admin) {
    return pool.preparedQuery("INSERT INTO api_tokens (token_hash, tenant, name, is_admin) VALUES ($1, $2, $3, $4)"
        + " ON CONFLICT DO NOTHING").execute(Tuple.of(hash(token), tenant, name, admin)).mapEmpty();
  }

  public Future<Optional<Tenant>> lookup(String token) {
    return pool.preparedQuery("SELECT tenant, is_admin FROM api_tokens WHERE token_hash = $1")
        .execute(Tuple.of(hash(token)))
        .map(rows -> rows.size() == 0 ? Optional.<Tenant>empty()
            : Optional.of(new Tenant(rows.iterator().next().getString(0), rows.iterator().next().getBoolean(1))));
  }

  public Future<Boolean> anyAdmin() {
    return pool.query("SELECT 1 FROM api_tokens WHERE is_admin LIMIT 1").execute().map(r -> r.size() > 0);
  }
}
