package dev.rendezvous.image;

import dev.rendezvous.image.ImageBody.FilePart;
import dev.rendezvous.image.ImageBody.MemoryPart;
import dev.rendezvous.image.ImageBody.Patch;
import dev.rendezvous.image.IsoFileSystem.IsoFile;
import dev.rendezvous.image.IsoLayout.EmbedArea;
import dev.rendezvous.image.IsoLayout.KargsArea;
import dev.rendezvous.image.IsoLayout.KargsLayout;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Computes, once per request, the bytes that differ from the base image and the body made of
 * base stretches and those bytes, plus a strong ETag over everything that shapes the body.
 */
public final class IsoOverlay {

  /** A body to serve and its validator. */
  public record Served(ImageBody body, String etag) {}

  private IsoOverlay() {}

  /**
   * The base ISO with the Ignition area holding a compressed cpio of {@code config.ign} (rest
   * zero-filled), the karg areas extended with the infra-env's kernel arguments and, for the
   * minimal ISO, the infra-env's ramdisk in the custom initrd area.
   */
  public static Served iso(BaseImageFile base, InfraEnvImage img, String arch, boolean minimal) {
    IsoLayout layout = base.layout();
    EmbedArea area = layout.ignitionArea().orElseThrow(
        () -> new ImageRequestException(500, null, "base image has no Ignition embed area"));
    byte[] archive = NewcArchive.ignitionArchive(img.ignition());
    if (archive.length > area.length()) {
      throw new ImageRequestException(400, "ignition_config_override", "compressed discovery Ignition ("
          + archive.length + " bytes) exceeds the ISO's Ignition embed area (" + area.length() + " bytes)");
    }
    List<Patch> patches = new ArrayList<>(ImageBody.zeroFilled(area.offset(), area.length(), archive));
    if (!img.kernelArguments().isEmpty()) {
      if ("s390x".equals(arch)) {
        throw ImageRequestException.badRequest("kernel_arguments",
            "kargs cannot be modified in s390x architecture ISOs");
      }
      KargsLayout kargs = layout.kargs().orElseThrow(() -> ImageRequestException.badRequest(
          "kernel_arguments", "the base ISO has no kernel-argument embed areas"));
      for (KargsArea a : kargs.areas()) {
        patches.add(new Patch(a.offset(),
            Buffer.buffer(KernelArguments.render(kargs, a, kargs.current(), img.kernelArguments()))));
      }
    }
    byte[] ramdisk = img.minimalInitrd();
    if (minimal && ramdisk.length > 0) {
      IsoFile custom = layout.customInitrdArea().orElseThrow(
          () -> new ImageRequestException(500, null, "minimal ISO has no custom initrd area"));
      if (ramdisk.length > custom.length()) {
        throw new ImageRequestException(400, "static_network_config", "minimal ISO ramdisk ("
            + ramdisk.length + " bytes) exceeds its area (" + custom.length() + " bytes)");
      }
      patches.addAll(ImageBody.zeroFilled(custom.offset(), custom.length(), ramdisk));
    }
    ImageBody body = ImageBody.overlay(base.path(), layout.size(), patches);
    return new Served(body, etag(base.fingerprint(), minimal ? "minimal-iso" : "full-iso", img.ignition(),
        String.join("\n", img.kernelArguments()).getBytes(StandardCharsets.UTF_8), minimal ? ramdisk : new byte[0]));
  }

  /** The ISO's initrd with the Ignition archive (and the ramdisk, if any) appended, as upstream. */
  public static Served pxeInitrd(BaseImageFile full, InfraEnvImage img) {
    IsoFile initrd = full.layout().initrd().orElseThrow(
        () -> new ImageRequestException(500, null, "base image has no images/pxeboot/initrd.img"));
    List<ImageBody.Part> parts = new ArrayList<>();
    parts.add(new FilePart(initrd.offset(), initrd.length()));
    parts.add(new MemoryPart(Buffer.buffer(NewcArchive.ignitionArchive(img.ignition()))));
    byte[] ramdisk = img.minimalInitrd();
    if (ramdisk.length > 0) {
      parts.add(new MemoryPart(Buffer.buffer(ramdisk)));
    }
    return new Served(new ImageBody(full.path(), parts),
        etag(full.fingerprint(), "pxe-initrd", img.ignition(), ramdisk));
  }

  /** A file of the base ISO, unchanged. */
  public static Served artifact(BaseImageFile full, IsoFile file) {
    return new Served(new ImageBody(full.path(), List.of(new FilePart(file.offset(), file.length()))),
        etag(full.fingerprint(), file.path()));
  }

  static String etag(String fingerprint, String kind, byte[]... inputs) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update((fingerprint + "\0" + kind).getBytes(StandardCharsets.UTF_8));
      for (byte[] in : inputs) {
        md.update(("\0" + in.length + "\0").getBytes(StandardCharsets.US_ASCII));
        md.update(in);
      }
      return "\"" + HexFormat.of().formatHex(md.digest(), 0, 16) + "\"";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
