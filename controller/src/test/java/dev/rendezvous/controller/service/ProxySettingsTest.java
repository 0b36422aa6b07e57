package dev.rendezvous.controller.service;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import org.junit.jupiter.api.Test;

class ProxySettingsTest {
  @Test
  void noProxyExemptsDomainsAddressesAndNetworks() {
    var sel = new ProxySettings("http://proxy:3128", "http://sproxy:3129", ".svc,example.com,10.0.0.0/8,127.0.0.1")
        .selector();
    assertEquals(Proxy.NO_PROXY, sel.select(URI.create("https://api.example.com/x")).get(0));
    assertEquals(Proxy.NO_PROXY, sel.select(URI.create("http://a.b.svc/x")).get(0));
    assertEquals(Proxy.NO_PROXY, sel.select(URI.create("http://10.1.2.3:8090/x")).get(0));
    assertEquals(Proxy.NO_PROXY, sel.select(URI.create("http://127.0.0.1/x")).get(0));
    InetSocketAddress https = (InetSocketAddress) sel.select(URI.create("https://service.example.org/x")).get(0).address();
    assertEquals("sproxy:3129", https.getHostString() + ":" + https.getPort());
    InetSocketAddress http = (InetSocketAddress) sel.select(URI.create("http://11.0.0.1/x")).get(0).address();
    assertEquals("proxy:3128", http.getHostString() + ":" + http.getPort());
  }
}
