package dev.rendezvous.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The minimal ISO is written in Java (no xorriso at run time); what it wrote is read back with tools that know ISO
 * 9660 independently of our reader (xorriso and isoinfo, test tools only): every file of the full ISO but the rootfs
 * byte for byte, the placeholder, Rock Ridge and 8.3 names, and the El Torito boot setup replayed with the boot
 * images' new locations, isolinux's boot-info table rewritten for where it now is.
 */
class MinimalIsoBuilderTest {

  @TempDir
  static Path dir;
  static Path coreosLike;
  static Path fixture;

  @BeforeAll
  static void isos() throws Exception {
    TestIsos.requireTool("isoinfo", "genisoimage");
    coreosLike = TestIsos.buildCoreosLike(dir, TestIsos.defaultSpec());
    fixture = TestIsos.fixture("embed-areas-2023-07.x86_64", dir);
  }

  @Test
  void everyFileButTheRootfsIsCopiedAndTheBootSetupReplayed() throws Exception {
    for (Path full : List.of(coreosLike, fixture)) {
      Path minimal = dir.resolve("minimal-" + full.getFileName());
      MinimalIsoBuilder.build(full, minimal, "http://images.example/boot-artifacts/rootfs?arch=x86_64&version=1");

      Map<String, Long> fullFiles = lbas(full);
      Map<String, Long> minFiles = lbas(minimal);
      Set<String> expected = new HashSet<>(fullFiles.keySet());
      expected.remove("/images/pxeboot/rootfs.img");
      expected.add("/images/assisted_installer_custom.img");
      assertEquals(expected, minFiles.keySet(), full + ": the files as xorriso reads them");
      Set<String> edited = Set.of("/coreos/kargs.json", "/isolinux/isolinux.cfg", "/EFI/redhat/grub.cfg",
          "/EFI/fedora/grub.cfg", "/images/assisted_installer_custom.img", "/isolinux/isolinux.bin");
      for (String f : minFiles.keySet()) {
        if (!edited.contains(f)) {
          assertArrayEquals(extract(full, f), extract(minimal, f), full + ": " + f + " copied byte for byte");
        }
      }
      assertArrayEquals(new byte[MinimalIsoBuilder.CUSTOM_INITRD_SIZE],
          extract(minimal, "/images/assisted_installer_custom.img"));
      assertTrue(Files.size(minimal) < Files.size(full) - Files.size(full) / 10 || full == fixture,
          "the rootfs is gone: " + Files.size(minimal) + " of " + Files.size(full));

      // El Torito: BIOS isolinux.bin then EFI efiboot.img, each at the sector xorriso reports for the file
      String torito = text(TestIsos.sh(dir, "xorriso -indev " + minimal + " -report_el_torito plain 2>&1"));
      assertTrue(torito.contains("El Torito img path :   1  /isolinux/isolinux.bin"), torito);
      assertTrue(torito.contains("El Torito img opts :   1  boot-info-table"), torito);
      assertTrue(torito.contains("El Torito img path :   2  /images/efiboot.img"), torito);
      String info = text(TestIsos.sh(dir, "isoinfo -d -i " + minimal));
      assertTrue(info.contains("Volume id: " + IsoFileSystem.read(full).volumeId()), info);
      assertTrue(info.contains("Rock Ridge signatures version 1 found"), info);
      Matcher m = Pattern.compile("Bootoff ([0-9A-F]+) (\\d+)").matcher(info);
      assertTrue(m.find(), info);
      assertEquals(minFiles.get("/isolinux/isolinux.bin"), Long.parseLong(m.group(2)), "the default entry's image");

      // isolinux's boot-info table: the descriptor's sector, its own sector and length, the checksum past 64
      byte[] bin = extract(minimal, "/isolinux/isolinux.bin");
      ByteBuffer b = ByteBuffer.wrap(bin).order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(16, b.getInt(8));
      assertEquals((long) minFiles.get("/isolinux/isolinux.bin"), b.getInt(12));
      assertEquals(bin.length, b.getInt(16));
      int sum = 0;
      for (int i = 64; i + 4 <= bin.length; i += 4) {
        sum += b.getInt(i);
      }
      assertEquals(sum, b.getInt(20));
      byte[] original = extract(full, "/isolinux/isolinux.bin");
      assertArrayEquals(Arrays.copyOfRange(original, 64, original.length), Arrays.copyOfRange(bin, 64, bin.length));

      // the path tables (what some readers walk instead of the directories): little- and big-endian alike, every
      // directory at a real sector, the root where the primary descriptor's root record says
      byte[] iso = Files.readAllBytes(minimal);
      ByteBuffer pvd = ByteBuffer.wrap(iso, 16 * 2048, 2048).slice().order(ByteOrder.LITTLE_ENDIAN);
      int tableSize = pvd.getInt(132);
      ByteBuffer l = ByteBuffer.wrap(iso, pvd.getInt(140) * 2048, tableSize).slice().order(ByteOrder.LITTLE_ENDIAN);
      ByteBuffer mTable = ByteBuffer.wrap(iso, pvd.order(ByteOrder.BIG_ENDIAN).getInt(148) * 2048, tableSize).slice()
          .order(ByteOrder.BIG_ENDIAN);
      pvd.order(ByteOrder.LITTLE_ENDIAN);
      int directories = 0;
      for (int at = 0; at < tableSize; directories++) {
        int idLen = l.get(at) & 0xff;
        assertEquals(idLen, mTable.get(at) & 0xff);
        assertEquals(mTable.getInt(at + 2), l.getInt(at + 2), "directory " + directories + "'s sector in both tables");
        assertTrue(l.getInt(at + 2) > 18, "directory " + directories + " at a real sector");
        if (directories == 0) {
          assertEquals(pvd.getInt(156 + 2), l.getInt(at + 2), "the root");
        }
        at += 8 + idLen + (idLen % 2);
      }
      assertTrue(directories >= 6, "root, coreos, EFI, EFI/<vendor>, images, images/pxeboot, isolinux: " + directories);

      // coreos-installer's 8.3 lookups and ours still find what the image service customizes
      String primary = text(TestIsos.sh(dir, "isoinfo -i " + minimal + " -f"));
      assertTrue(primary.contains("/COREOS/KARGS.JSO;1"), primary);
      assertTrue(primary.contains("/IMAGES/IGNITION.IMG;1"), primary);
      assertFalse(primary.contains("ROOTFS"), primary);
      IsoLayout layout = IsoLayout.read(minimal);
      assertEquals(262144, layout.ignitionArea().orElseThrow().length());
      assertTrue(layout.kargs().orElseThrow().current().contains("coreos.live.rootfs_url=\"http://images.example/"));
      assertEquals(MinimalIsoBuilder.CUSTOM_INITRD_SIZE, layout.customInitrdArea().orElseThrow().length());
    }
  }

  @Test
  void primaryNamesAreEightDotThreeAndUnique() {
    Set<String> taken = new HashSet<>();
    assertEquals("IGNINFO.JSO;1", IsoWriter.primaryId("igninfo.json", false, taken));
    assertEquals("_CMDLINE.;1", IsoWriter.primaryId(".cmdline", false, taken));
    assertEquals("VMLINUZ.;1", IsoWriter.primaryId("vmlinuz", false, taken));
    assertEquals("ASSISTED.IMG;1", IsoWriter.primaryId("assisted_installer_custom.img", false, taken));
    assertEquals("ASSISTE1.IMG;1", IsoWriter.primaryId("assisted_other.img", false, taken));
    assertEquals("EFI", IsoWriter.primaryId("EFI", true, taken));
    assertEquals("A_B_C.TX_;1", IsoWriter.primaryId("a-b.c.tx~", false, taken));
  }

  private static Map<String, Long> lbas(Path iso) throws Exception {
    String out = text(TestIsos.sh(dir, "xorriso -indev " + iso + " -find / -type f -exec report_lba 2>/dev/null"));
    Map<String, Long> files = new TreeMap<>();
    Matcher m = Pattern.compile("File data lba:\\s+0 ,\\s+(\\d+) ,\\s+\\d+ ,\\s+\\d+ , '([^']+)'").matcher(out);
    while (m.find()) {
      files.put(m.group(2), Long.parseLong(m.group(1)));
    }
    return files;
  }

  private static byte[] extract(Path iso, String file) throws Exception {
    return TestIsos.sh(dir, "isoinfo -i " + iso + " -R -x " + file);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
