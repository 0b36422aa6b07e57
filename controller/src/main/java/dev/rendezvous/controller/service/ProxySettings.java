package dev.rendezvous.controller.service;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The cluster-wide proxy ({@code proxies.config.openshift.io/cluster} status), which upstream exports as
 * HTTP_PROXY/HTTPS_PROXY/NO_PROXY before creating its service client. Empty strings mean "not set".
 */
public record ProxySettings(String httpProxy, String httpsProxy, String noProxy) {

  public static final ProxySettings NONE = new ProxySettings("", "", "");

  public ProxySettings {
    httpProxy = httpProxy == null ? "" : httpProxy.trim();
    httpsProxy = httpsProxy == null ? "" : httpsProxy.trim();
    noProxy = noProxy == null ? "" : noProxy.trim();
  }

  public boolean isNone() {
    return httpProxy.isEmpty() && httpsProxy.isEmpty();
  }

  /** A selector that sends each request to the proxy of its scheme unless NO_PROXY exempts the host. */
  public ProxySelector selector() {
    List<String> exemptions = new ArrayList<>();
    for (String entry : noProxy.split(",")) {
      if (!entry.isBlank()) {
        exemptions.add(entry.trim().toLowerCase(Locale.ROOT));
      }
    }
    Proxy http = toProxy(httpProxy);
    Proxy https = toProxy(httpsProxy);
    return new ProxySelector() {
      @Override
      public List<Proxy> select(URI uri) {
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        if (exempt(host, exemptions)) {
          return List.of(Proxy.NO_PROXY);
        }
        Proxy p = "https".equalsIgnoreCase(uri.getScheme()) ? https : http;
        return List.of(p == null ? Proxy.NO_PROXY : p);
      }

      @Override
      public void connectFailed(URI uri, SocketAddress sa, IOException ioe) {
      }
    };
  }

  private static Proxy toProxy(String url) {
    if (url.isEmpty()) {
      return null;
    }
    URI u = URI.create(url.contains("://") ? url : "http://" + url);
    int port = u.getPort() > 0 ? u.getPort() : ("https".equalsIgnoreCase(u.getScheme()) ? 443 : 80);
    return new Proxy(Proxy.Type.HTTP, InetSocketAddress.createUnresolved(u.getHost(), port));
  }

  /** NO_PROXY matching as Go's httpproxy does it: "*", domain suffixes (with or without a dot), IPs and CIDRs. */
  static boolean exempt(String host, List<String> exemptions) {
    for (String e : exemptions) {
      if (e.equals("*") || e.equals(host)) {
        return true;
      }
      if (e.contains("/") && inCidr(host, e)) {
        return true;
      }
      String suffix = e.startsWith(".") ? e : "." + e;
      if (host.endsWith(suffix)) {
        return true;
      }
    }
    return false;
  }

  private static boolean inCidr(String host, String cidr) {
    try {
      if (!host.matches("[0-9a-f:.]+")) {
        return false;
      }
      int slash = cidr.indexOf('/');
      byte[] net = InetAddress.getByName(cidr.substring(0, slash)).getAddress();
      byte[] ip = InetAddress.getByName(host).getAddress();
      int bits = Integer.parseInt(cidr.substring(slash + 1));
      if (net.length != ip.length) {
        return false;
      }
      for (int i = 0; i < bits; i++) {
        int mask = 0x80 >> (i % 8);
        if ((net[i / 8] & mask) != (ip[i / 8] & mask)) {
          return false;
        }
      }
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
