package dev.rendezvous.tls;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The servers' TLS settings (read by the launcher from {@code --tls}, {@code --tls-cert}, {@code --tls-key},
 * {@code --tls-ca} and their {@code RDV_TLS_*} variables).
 *
 * @param mode off, auto (a CA and server certificate made once in {@code dir}), or files (the operator's PEM files)
 * @param certFile files mode: the server certificate chain, PEM
 * @param keyFile files mode: its private key, PEM (PKCS#8, or the traditional EC/RSA forms)
 * @param caFile files mode, optional: the CA clients should trust, put into every image; null when the server's
 *     certificate chains to a root the hosts trust already
 * @param dir auto mode: where the CA and the server certificate live ({@code <data-dir>/tls})
 * @param names auto mode: the DNS names and IP addresses the server certificate must carry
 * @param reloadInterval how often the files are looked at for a change
 */
public record TlsConfig(Mode mode, Path certFile, Path keyFile, Path caFile, Path dir, List<String> names,
    Duration reloadInterval) {

  public enum Mode { OFF, AUTO, FILES }

  public static final TlsConfig OFF = new TlsConfig(Mode.OFF, null, null, null, null, List.of(), Duration.ofSeconds(5));

  public TlsConfig {
    names = names == null ? List.of() : List.copyOf(names);
    reloadInterval = reloadInterval == null ? Duration.ofSeconds(5) : reloadInterval;
    if (mode == Mode.FILES && (certFile == null || keyFile == null)) {
      throw new IllegalArgumentException("tls-cert and tls-key go together: give both PEM files");
    }
    if (mode == Mode.AUTO && dir == null) {
      throw new IllegalArgumentException("tls=auto needs a directory for its CA");
    }
  }

  public boolean enabled() {
    return mode != Mode.OFF;
  }
}
