package dev.rendezvous.service.domain.planning;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/** Makes step ids of upstream's shape {@code <step_type>-<8 hex>}; injectable so tests are deterministic. */
@FunctionalInterface
public interface StepIdGenerator {
  String next(StepType type);

  static StepIdGenerator random() {
    SecureRandom rnd = new SecureRandom();
    return type -> {
      byte[] b = new byte[4];
      rnd.nextBytes(b);
      return type.wire() + "-" + HexFormat.of().formatHex(b);
    };
  }

  /** 00000001, 00000002, ... in call order. */
  static StepIdGenerator sequential() {
    AtomicLong n = new AtomicLong();
    return type -> type.wire() + "-" + String.format("%08x", n.incrementAndGet());
  }
}
