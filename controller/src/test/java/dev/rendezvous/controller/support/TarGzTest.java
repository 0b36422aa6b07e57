package dev.rendezvous.controller.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.controller.testing.TarGzReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TarGzTest {
  @Test
  void anIndependentReaderGetsTheFilesBack() {
    byte[] big = new byte[70_000];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) i;
    }
    String longName = "must-gather/namespaces/assisted-installer/pods/assisted-installer-controller-abcde/"
        + "assisted-installer-controller-container.log";
    byte[] tgz = TarGz.write(List.of(new TarGz.Entry("a.logs", "hello\n".getBytes(StandardCharsets.UTF_8)),
        new TarGz.Entry("dir/big.bin", big), new TarGz.Entry(longName, new byte[0])), 1_700_000_000L);
    Map<String, byte[]> files = TarGzReader.read(tgz);
    assertEquals(List.of("a.logs", "dir/big.bin", longName), List.copyOf(files.keySet()));
    assertEquals("hello\n", new String(files.get("a.logs"), StandardCharsets.UTF_8));
    assertArrayEquals(big, files.get("dir/big.bin"));
  }
}
