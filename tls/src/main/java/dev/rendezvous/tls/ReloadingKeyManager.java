package dev.rendezvous.tls;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The server's certificate and key, replaceable while serving: every TLS handshake asks this key manager, which
 * answers from the identity last {@link #use}d. A new certificate therefore reaches new connections at once, and
 * connections already open (agents' websockets) keep theirs.
 */
public final class ReloadingKeyManager extends X509ExtendedKeyManager {
  /** One identity; its generation prefixes the aliases it hands out, so a handshake that began under it ends under it. */
  private record Generation(int number, X509ExtendedKeyManager keys, X509Certificate leaf) {}

  private volatile Generation current;
  private volatile Generation previous;

  public ReloadingKeyManager(List<X509Certificate> chain, PrivateKey key) throws GeneralSecurityException {
    use(chain, key);
  }

  /** From now on, handshakes present this chain; refuses a key that does not belong to the chain's first certificate. */
  public void use(List<X509Certificate> chain, PrivateKey key) throws GeneralSecurityException {
    if (chain.isEmpty()) {
      throw new GeneralSecurityException("no certificate");
    }
    if (!chain.get(0).getPublicKey().getAlgorithm().equals(key.getAlgorithm())) {
      throw new GeneralSecurityException("the key (" + key.getAlgorithm() + ") is not the certificate's ("
          + chain.get(0).getPublicKey().getAlgorithm() + ")");
    }
    matches(chain.get(0), key);
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try {
      ks.load(null, null);
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException(e);
    }
    ks.setKeyEntry("server", key, new char[0], chain.toArray(X509Certificate[]::new));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance("NewSunX509");
    kmf.init(ks, new char[0]);
    for (KeyManager km : kmf.getKeyManagers()) {
      if (km instanceof X509ExtendedKeyManager x) {
        synchronized (this) {
          Generation before = current;
          previous = before;
          current = new Generation(before == null ? 1 : before.number() + 1, x, chain.get(0));
        }
        return;
      }
    }
    throw new GeneralSecurityException("no X509 key manager");
  }

  /** The certificate handshakes present now. */
  public X509Certificate certificate() {
    return current.leaf();
  }

  /** Signs with the key and checks with the certificate: a key of another certificate is refused before use. */
  private static void matches(X509Certificate cert, PrivateKey key) throws GeneralSecurityException {
    String alg = key.getAlgorithm().equals("EC") ? "SHA256withECDSA"
        : key.getAlgorithm().equals("RSA") ? "SHA256withRSA" : null;
    if (alg == null) {
      return; // other key types: the handshake itself will tell
    }
    byte[] probe = "rendezvous".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    java.security.Signature s = java.security.Signature.getInstance(alg);
    s.initSign(key);
    s.update(probe);
    byte[] sig = s.sign();
    java.security.Signature v = java.security.Signature.getInstance(alg);
    v.initVerify(cert.getPublicKey());
    v.update(probe);
    if (!v.verify(sig)) {
      throw new GeneralSecurityException("the private key does not belong to the certificate");
    }
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    Generation g = current;
    return tag(g, g.keys().chooseEngineServerAlias(keyType, issuers, engine));
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    Generation g = current;
    return tag(g, g.keys().chooseServerAlias(keyType, issuers, socket));
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Generation g = of(alias);
    return g == null ? null : g.keys().getCertificateChain(untag(alias));
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Generation g = of(alias);
    return g == null ? null : g.keys().getPrivateKey(untag(alias));
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    Generation g = current;
    String[] aliases = g.keys().getServerAliases(keyType, issuers);
    if (aliases == null) {
      return null;
    }
    return java.util.Arrays.stream(aliases).map(a -> tag(g, a)).toArray(String[]::new);
  }

  private static String tag(Generation g, String alias) {
    return alias == null ? null : g.number() + "/" + alias;
  }

  private static String untag(String alias) {
    return alias.substring(alias.indexOf('/') + 1);
  }

  /** The generation an alias was handed out by: the current one or the one before (a handshake under way). */
  private Generation of(String alias) {
    if (alias == null || alias.indexOf('/') < 0) {
      return null;
    }
    String number = alias.substring(0, alias.indexOf('/'));
    for (Generation g : new Generation[] {current, previous}) {
      if (g != null && Integer.toString(g.number()).equals(number)) {
        return g;
      }
    }
    return null;
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return null;
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return null;
  }
}
