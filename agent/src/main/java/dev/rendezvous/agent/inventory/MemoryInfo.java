package dev.rendezvous.agent.inventory;

import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.wire.Inventory;
import java.util.OptionalLong;

/**
 * Memory: usable = /proc/meminfo MemTotal (as upstream). Physical, in upstream's order of methods:
 * memory modules from DMI (OSHI reads them with dmidecode; method {@code dmidecode}), else the online
 * memory blocks in /sys/devices/system/memory × block size (what ghw does; method {@code ghw}), else MemTotal
 * (method {@code meminfo}). MemTotal alone under-reports installed RAM by the kernel's reserve.
 */
public final class MemoryInfo {
  private MemoryInfo() {}

  public static long memTotalBytes(String meminfo) {
    for (String line : meminfo.split("\n")) {
      if (line.startsWith("MemTotal:")) {
        String[] parts = line.substring(9).trim().split("\\s+");
        long v = Long.parseLong(parts[0]);
        return parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? v * 1024 : v;
      }
    }
    throw new IllegalArgumentException("/proc/meminfo has no MemTotal line");
  }

  /** Online memory blocks × block_size_bytes (hex), empty when sysfs has no memory blocks. */
  public static OptionalLong sysfsOnlineBytes(HostRoot root) {
    var blockSize = root.read("/sys/devices/system/memory/block_size_bytes");
    if (blockSize.isEmpty()) {
      return OptionalLong.empty();
    }
    long size = Long.parseLong(blockSize.get(), 16);
    long online = 0;
    for (String name : root.list("/sys/devices/system/memory")) {
      if (name.startsWith("memory") && root.read("/sys/devices/system/memory/" + name + "/online").orElse("0").equals("1")) {
        online++;
      }
    }
    return online == 0 ? OptionalLong.empty() : OptionalLong.of(online * size);
  }

  public static Inventory.Memory of(long memTotal, OptionalLong dmiModules, OptionalLong sysfsOnline) {
    if (dmiModules.isPresent() && dmiModules.getAsLong() > 0) {
      return new Inventory.Memory(dmiModules.getAsLong(), memTotal, "dmidecode");
    }
    if (sysfsOnline.isPresent() && sysfsOnline.getAsLong() >= memTotal) {
      return new Inventory.Memory(sysfsOnline.getAsLong(), memTotal, "ghw");
    }
    return new Inventory.Memory(memTotal, memTotal, "meminfo");
  }
}
