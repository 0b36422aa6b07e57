package dev.rendezvous.agent.installer;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What coreos-installer leaves in a written image's partition labelled {@code boot} (ext4) for the first boot:
 * {@code ignition/config.ign} (directory 0700, file 0600) and the {@code ignition.firstboot} stamp, the kernel
 * arguments edited in the default boot entry (the last {@code loader/entries/*.conf} by name; its one
 * {@code options} line: deletions first, then additions), and with {@code --copy-network} the discovery host's
 * NetworkManager profiles in {@code coreos-firstboot-network/}, where CoreOS takes them on first boot. The
 * partition is copied out, edited with e2fsprogs' debugfs, and written back; blocking: run on a worker thread.
 */
final class BootPartition {
  static final String FIRSTBOOT_NETWORK = "/coreos-firstboot-network";
  static final String ENTRIES = "/loader/entries";

  /** What goes onto the boot partition: the host's Ignition, its installer arguments, the profiles to copy (name → bytes). */
  record Contents(byte[] ignition, CoreosInstallerArgs args, Map<String, byte[]> firstbootNetwork) {
    Contents {
      firstbootNetwork = new TreeMap<>(firstbootNetwork);
    }
  }

  private BootPartition() {}

  /**
   * The top-level regular files of the host's {@code --network-dir} (coreos-installer copies no more), read now,
   * on the live system, since that is the network the host reached the service through.
   */
  static Map<String, byte[]> networkProfiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IOException("--copy-network: " + dir + " is not a directory on this host");
    }
    Map<String, byte[]> out = new TreeMap<>();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        out.put(f.getFileName().toString(), Files.readAllBytes(f));
      }
    }
    return out;
  }

  /** Edits the partition named {@code boot} of the GPT on {@code device}. */
  static void customize(Path device, Contents contents) throws IOException, InterruptedException {
    long[] boot = ImageWriter.findPartition(device, "boot");
    Path part = Files.createTempFile("rdv-boot-", ".ext4");
    Path scratch = Files.createTempDirectory("rdv-boot-files-");
    try (FileChannel disk = FileChannel.open(device, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long offset = boot[0] * ImageWriter.SECTOR;
      long length = (boot[1] - boot[0] + 1) * ImageWriter.SECTOR;
      try (FileChannel out = FileChannel.open(part, StandardOpenOption.WRITE)) {
        for (long pos = 0; pos < length; ) {
          pos += disk.transferTo(offset + pos, length - pos, out.position(pos));
        }
      }
      Debugfs fs = new Debugfs(part, scratch);
      fs.mkdir("/ignition", 040700);
      fs.put("/ignition/config.ign", contents.ignition(), "rw-------");
      fs.put("/ignition.firstboot", new byte[0], "rw-r--r--");
      if (contents.args().editsKargs()) {
        editDefaultEntry(fs, contents.args());
      }
      if (!contents.firstbootNetwork().isEmpty()) {
        fs.mkdir(FIRSTBOOT_NETWORK, 040755);
        for (Map.Entry<String, byte[]> f : contents.firstbootNetwork().entrySet()) {
          fs.put(FIRSTBOOT_NETWORK + "/" + f.getKey(), f.getValue(), "rw-------");
        }
      }
      try (FileChannel in = FileChannel.open(part, StandardOpenOption.READ)) {
        for (long pos = 0; pos < length; ) {
          pos += in.transferTo(pos, length - pos, disk.position(offset + pos));
        }
      }
      disk.force(true);
    } finally {
      Files.deleteIfExists(part);
      ImageWriter.deleteTree(scratch);
    }
  }

  /** coreos-installer's rule: the last entry by name is the default one; it must have exactly one options line. */
  private static void editDefaultEntry(Debugfs fs, CoreosInstallerArgs args) throws IOException, InterruptedException {
    List<String> entries = fs.list(ENTRIES).stream().filter(n -> n.endsWith(".conf")).sorted().toList();
    if (entries.isEmpty()) {
      throw new IOException("the OS image has no boot entry in " + ENTRIES + " to put the kernel arguments in");
    }
    String path = ENTRIES + "/" + entries.get(entries.size() - 1);
    List<String> lines = new ArrayList<>(new String(fs.cat(path), StandardCharsets.UTF_8).lines().toList());
    List<Integer> options = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("options ")) {
        options.add(i);
      }
    }
    if (options.size() != 1) {
      throw new IOException(path + ": " + (options.isEmpty() ? "couldn't locate 'options' line"
          : "multiple 'options' lines found"));
    }
    int at = options.get(0);
    lines.set(at, "options " + args.applyTo(lines.get(at).substring("options ".length())));
    fs.put(path, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8), "rw-r--r--");
  }

  /** e2fsprogs' debugfs on an ext4 image file: files in and out, no mount needed (nor root). */
  private record Debugfs(Path fs, Path scratch) {
    void mkdir(String dir, int mode) throws IOException, InterruptedException {
      run(false, "mkdir " + dir); // an existing one: debugfs says so and goes on
      run(true, "sif " + dir + " mode 0" + Integer.toOctalString(mode));
    }

    /** Writes {@code path}, replacing what was there; the mode is the local file's (debugfs copies it). */
    void put(String path, byte[] content, String perms) throws IOException, InterruptedException {
      Path local = scratch.resolve(Integer.toHexString(path.hashCode()) + "-" + System.nanoTime());
      Files.write(local, content);
      Files.setPosixFilePermissions(local, PosixFilePermissions.fromString(perms));
      run(false, "rm " + path);
      run(true, "write " + local + " " + path);
    }

    byte[] cat(String path) throws IOException, InterruptedException {
      Process p = new ProcessBuilder("debugfs", "-R", "cat " + path, fs.toString())
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("debugfs cat " + path + " failed");
      }
      return out;
    }

    /** Names in a directory ({@code ls -p}: /inode/mode/uid/gid/name/size/ per line). */
    List<String> list(String dir) throws IOException, InterruptedException {
      List<String> names = new ArrayList<>();
      for (String line : run(true, "ls -p " + dir).lines().toList()) {
        String[] f = line.split("/", -1);
        if (f.length >= 7 && !f[5].equals(".") && !f[5].equals("..")) {
          names.add(f[5]);
        }
      }
      return names;
    }

    /** stdout; debugfs exits 0 whatever happens, so anything on stderr but its banner is the failure. */
    private String run(boolean mustWork, String request) throws IOException, InterruptedException {
      Path errors = scratch.resolve("debugfs-stderr");
      Process p = new ProcessBuilder("debugfs", "-w", "-R", request, fs.toString())
          .redirectError(ProcessBuilder.Redirect.to(errors.toFile())).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      boolean ended = p.waitFor(60, TimeUnit.SECONDS);
      String err = Files.readString(errors).lines().filter(l -> !l.isBlank() && !l.startsWith("debugfs "))
          .collect(java.util.stream.Collectors.joining("; "));
      if (!ended || p.exitValue() != 0 || (mustWork && !err.isEmpty())) {
        throw new IOException("debugfs " + request + " failed: " + err);
      }
      return out;
    }
  }
}
