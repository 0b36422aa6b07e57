package dev.rendezvous.service.domain;

/**
 * One copy of texts that repeat across hosts: every host's connectivity report names its peers' addresses, MACs and
 * NIC names, and most validation messages are the same for every host. The brain keeps all of a cluster's hosts
 * parsed in memory, so without this the same few strings are held hundreds of thousands of times (measured: 53 % of
 * the strings of 1,000 idle hosts were connectivity entries). JVM-interned strings are collected once unused.
 */
public final class SharedText {
  private SharedText() {}

  public static String of(String s) {
    return s == null ? null : s.intern();
  }
}
