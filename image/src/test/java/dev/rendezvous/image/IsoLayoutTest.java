package dev.rendezvous.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.image.IsoLayout.KargsArea;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Embed areas located in the real CoreOS fixtures; expected offsets measured with xxd/isoinfo (reference). */
class IsoLayoutTest {

  @TempDir
  Path dir;

  @Test
  void igninfoAndKargsJsonOf2023Fixture() throws Exception {
    IsoLayout l = IsoLayout.read(TestIsos.fixture("embed-areas-2023-07.x86_64", dir));
    assertEquals("fedora-coreos-38.20230718.dev.0", l.volumeId());
    assertEquals(new IsoLayout.EmbedArea(139264, 262144), l.ignitionArea().orElseThrow());
    var k = l.kargs().orElseThrow();
    assertEquals(1139, k.size());
    assertEquals(List.of(408522L, 137037L), k.areas().stream().map(KargsArea::offset).toList());
    assertEquals("mitigations=auto,nosmt coreos.liveiso=fedora-coreos-38.20230718.dev.0 ignition.firstboot "
        + "ignition.platform.id=metal", k.current());
    assertEquals(k.defaultKargs(), k.current());
    assertTrue(l.rootfs().isPresent() && l.initrd().isPresent() && l.kernel().isPresent());
  }

  @Test
  void legacyHeadersOf2021Fixture() throws Exception {
    IsoLayout l = IsoLayout.read(TestIsos.fixture("embed-areas-2021-01", dir));
    assertEquals(new IsoLayout.EmbedArea(96256, 262144), l.ignitionArea().orElseThrow());
    var k = l.kargs().orElseThrow(); // from the coreKarg header: no kargs.json here
    assertEquals(1131, k.size());
    assertEquals(List.of(94026L, 365415L), k.areas().stream().map(KargsArea::offset).toList());
    assertEquals("random.trust_cpu=on coreos.liveiso=rhcos-47.84.202112162337-0 ignition.firstboot "
        + "ignition.platform.id=metal", k.defaultKargs());
  }

  @Test
  void kargsJsonWithoutPadAndEndOf2022Fixture() throws Exception {
    Path iso = TestIsos.fixture("embed-areas-2022-09", dir);
    IsoLayout l = IsoLayout.read(iso);
    IsoFileSystem fs = IsoFileSystem.read(iso);
    // no igninfo.json: the whole of images/ignition.img, found by its Rock Ridge and its 8.3 name alike
    var img = fs.find("images/ignition.img").orElseThrow();
    assertEquals(img, fs.find("IMAGES/IGNITION.IMG").orElseThrow());
    assertEquals(fs.find("coreos/kargs.json").orElseThrow(), fs.find("/COREOS/KARGS.JSO").orElseThrow());
    assertEquals(new IsoLayout.EmbedArea(img.offset(), 262144), l.ignitionArea().orElseThrow());
    var k = l.kargs().orElseThrow();
    assertEquals(fs.find("EFI/fedora/grub.cfg").orElseThrow().offset() + 970, k.areas().get(0).offset());
    assertEquals(fs.find("isolinux/isolinux.cfg").orElseThrow().offset() + 1870, k.areas().get(1).offset());
    assertEquals((byte) '#', k.areas().get(0).pad());
    assertTrue(k.current().endsWith("ignition.platform.id=metal"), k.current());
  }

  @Test
  void legacyHeadersAreTheLastResort() throws Exception {
    // no igninfo.json, no kargs.json, no images/ignition.img: only coreiso+ and coreKarg locate the areas
    Path iso = TestIsos.buildCoreosLike(dir,
        new TestIsos.Spec("rhcos-legacy-0", 100_000, false, false, true, "ignarea.bin"));
    IsoLayout l = IsoLayout.read(iso);
    long ign = IsoFileSystem.read(iso).find("images/ignarea.bin").orElseThrow().offset();
    assertEquals(new IsoLayout.EmbedArea(ign, 262144), l.ignitionArea().orElseThrow());
    assertEquals(TestIsos.KARGS, l.kargs().orElseThrow().current());
    assertEquals(2, l.kargs().orElseThrow().areas().size());
  }

  @Test
  void noAreasAtAll() throws Exception {
    Path iso = TestIsos.buildCoreosLike(dir,
        new TestIsos.Spec("rhcos-bare-0", 100_000, false, false, false, "ignarea.bin"));
    IsoLayout l = IsoLayout.read(iso);
    assertTrue(l.ignitionArea().isEmpty());
    assertTrue(l.kargs().isEmpty());
  }
}
