package dev.rendezvous.service.domain;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.util.WeakHashMap;

/**
 * One copy of texts that repeat across hosts: every host's connectivity report names its peers' addresses, MACs and
 * NIC names, every inventory the same CPU flags, vendors and drive types, and most validation messages are the same
 * for every host. The brain keeps all of a cluster's hosts parsed in memory, so without this the same few strings
 * are held hundreds of thousands of times (measured: 53 % of the strings of 1,000 idle hosts were connectivity
 * entries). JVM-interned strings are collected once unused.
 */
public final class SharedText {
  /** Longer texts (a kernel command line, a log) are rarely shared and not worth a lookup. */
  static final int MAX_SHARED_LENGTH = 256;

  private SharedText() {}

  /**
   * The texts shared last, by hash: nearly every lookup repeats one (a host's next inventory, the next host's same NIC
   * driver), and {@link String#intern} is a native table behind a JNI call: asked for each of an inventory's texts it
   * was half of the brain's parse of it (service InventoryParseBench: 60–71 µs a parse, 35–44 µs with these slots).
   * A slot holds the interned instance, so what is shared is what intern shares; a slot lost to another text costs one
   * intern, and at most 16,384 texts are held longer than their users. Racy on purpose: a String is immutable and
   * safely published, a lost write only means a later miss.
   */
  private static final String[] RECENT = new String[1 << 14];

  public static String of(String s) {
    if (s == null) {
      return null;
    }
    int h = s.hashCode();
    int slot = (h ^ (h >>> 14)) & (RECENT.length - 1);
    String recent = RECENT[slot];
    if (recent != null && recent.hashCode() == h && recent.equals(s)) {
      return recent;
    }
    String shared = s.intern();
    RECENT[slot] = shared;
    return shared;
  }

  private static final Values<java.util.UUID> IDS = new Values<>();

  /**
   * One instance of an id (a host, cluster or infra-env): a host's id is held by its row, its snapshot and by every
   * peer's connectivity report, a cluster's by each of its hosts; each read or decoded on its own otherwise.
   */
  public static java.util.UUID id(java.util.UUID id) {
    return id == null ? null : IDS.of(id);
  }

  /** Jackson's String deserializer, with short texts interned: what the step-output parsers read with. */
  public static final class Deserializer extends StdScalarDeserializer<String> {
    public Deserializer() {
      super(String.class);
    }

    @Override
    public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.hasToken(JsonToken.VALUE_STRING)) {
        String s = p.getText();
        return s.length() <= MAX_SHARED_LENGTH ? of(s) : s;
      }
      return StringDeserializer.instance.deserialize(p, ctxt);
    }
  }

  /**
   * Canonical instances of equal immutable values (validation results: the same ~60 per host on most hosts),
   * held weakly: a value no host uses any more is collected.
   */
  public static final class Values<T> {
    private final WeakHashMap<T, WeakReference<T>> canonical = new WeakHashMap<>();

    public synchronized T of(T value) {
      WeakReference<T> ref = canonical.get(value);
      T known = ref == null ? null : ref.get();
      if (known != null) {
        return known;
      }
      canonical.put(value, new WeakReference<>(value));
      return value;
    }
  }
}
