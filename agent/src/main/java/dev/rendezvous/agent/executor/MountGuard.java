package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.step.HostRoot;
import java.io.IOException;
import java.nio.file.Path;

/** Whether a block device (or one of its partitions, or a device-mapper volume on it) is in use. */
final class MountGuard {
  private MountGuard() {}

  /** A description of the use (e.g. "/dev/vda is mounted on /"), or null when the device is free. */
  static String mountedUse(HostRoot root, Path device) throws IOException {
    String name = device.toRealPath().getFileName().toString();
    String mounts = root.readRaw("/proc/mounts").orElse("");
    return mountedUse(mounts, name, root.list("/sys/block/" + name), root.list("/sys/block/" + name + "/holders"));
  }

  /** Pure part: {@code children} = entries of /sys/block/NAME (partitions are named NAME*). */
  static String mountedUse(String procMounts, String name, java.util.List<String> children,
      java.util.List<String> holders) {
    if (!holders.isEmpty()) {
      return "/dev/" + name + " is held by " + String.join(",", holders);
    }
    for (String line : procMounts.split("\n")) {
      String[] f = line.split("\\s+");
      if (f.length < 2 || !f[0].startsWith("/dev/")) {
        continue;
      }
      String src = f[0].substring(5);
      if (src.equals(name) || (src.startsWith(name) && children.contains(src))) {
        return f[0] + " is mounted on " + f[1];
      }
    }
    return null;
  }
}
