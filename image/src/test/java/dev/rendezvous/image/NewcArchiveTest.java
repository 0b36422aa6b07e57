package dev.rendezvous.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Our cpio archives read back by GNU cpio and gzip. */
class NewcArchiveTest {

  @TempDir
  Path dir;

  @Test
  void gnuCpioReadsIt() throws Exception {
    TestIsos.requireTool("cpio", "cpio");
    byte[] config = "{\"ignition\":{\"version\":\"3.1.0\"}}".getBytes(StandardCharsets.UTF_8);
    byte[] gz = NewcArchive.ignitionArchive(config);
    assertEquals(0, gz.length % 4);
    Files.write(dir.resolve("a.gz"), gz);
    String listing = new String(TestIsos.sh(dir, "gzip -dc < a.gz 2>/dev/null | cpio -itv --quiet"), StandardCharsets.UTF_8);
    assertEquals(true, listing.startsWith("-rw-r--r--"), listing);
    assertEquals(true, listing.strip().endsWith("config.ign"), listing);
    assertArrayEquals(config, TestIsos.sh(dir, "gzip -dc < a.gz 2>/dev/null | cpio -i --quiet --to-stdout config.ign"));
    byte[] raw = new NewcArchive().add("etc", NewcArchive.MODE_DIR_755, new byte[0])
        .add("etc/x.conf", NewcArchive.MODE_FILE_600, "abc".getBytes(StandardCharsets.UTF_8)).finish();
    Files.write(dir.resolve("b.cpio"), raw);
    assertEquals("etc\netc/x.conf\n", new String(TestIsos.sh(dir, "cpio -it --quiet < b.cpio"), StandardCharsets.UTF_8));
  }
}
