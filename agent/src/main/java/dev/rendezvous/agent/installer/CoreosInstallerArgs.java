package dev.rendezvous.agent.installer;

import java.util.ArrayList;
import java.util.List;

/**
 * The user's coreos-installer arguments of the install step ({@code installer_args}: the flags upstream's service
 * allows, each value its own item or {@code --flag=value}), as this installer applies them: kernel arguments
 * appended to / deleted from the default boot entry, the discovery host's NetworkManager profiles copied for the first
 * boot ({@code --copy-network}, from {@code --network-dir}), the OS image from {@code --image-url} or
 * {@code --image-file} instead of the service's. {@code --save-partlabel}/{@code --save-partindex} are refused: this
 * writer does not keep partitions, and overwriting ones the user asked to keep would lose data.
 */
public record CoreosInstallerArgs(List<String> appendKargs, List<String> deleteKargs, boolean copyNetwork,
    String networkDir, String imageUrl, String imageFile) {
  /** coreos-installer's default {@code --network-dir}. */
  public static final String NETWORK_DIR = "/etc/NetworkManager/system-connections";

  public static CoreosInstallerArgs parse(List<String> args) {
    List<String> append = new ArrayList<>();
    List<String> delete = new ArrayList<>();
    boolean copy = false;
    String networkDir = NETWORK_DIR;
    String imageUrl = null;
    String imageFile = null;
    List<String> a = args == null ? List.of() : args;
    for (int i = 0; i < a.size(); i++) {
      String arg = a.get(i);
      String flag = arg.contains("=") && arg.startsWith("--") ? arg.substring(0, arg.indexOf('=')) : arg;
      switch (flag) {
        case "-n", "--copy-network" -> copy = true;
        case "--append-karg", "--delete-karg", "--network-dir", "--image-url", "--image-file" -> {
          String value;
          if (!flag.equals(arg)) {
            value = arg.substring(flag.length() + 1);
          } else if (i + 1 < a.size()) {
            value = a.get(++i);
          } else {
            throw new IllegalArgumentException("installer argument " + flag + " needs a value");
          }
          switch (flag) {
            case "--append-karg" -> append.add(value);
            case "--delete-karg" -> delete.add(value);
            case "--network-dir" -> networkDir = value;
            case "--image-url" -> imageUrl = value;
            default -> imageFile = value;
          }
        }
        case "--save-partlabel", "--save-partindex" -> throw new IllegalArgumentException("installer argument " + flag
            + " is not supported by this installer: it writes the whole disk and would not keep those partitions");
        default -> throw new IllegalArgumentException("installer argument " + arg + " is not one this installer knows");
      }
    }
    return new CoreosInstallerArgs(List.copyOf(append), List.copyOf(delete), copy, networkDir, imageUrl, imageFile);
  }

  /** coreos-installer's edit of a boot entry's {@code options}: the deletions (exact words) first, then the additions. */
  public String applyTo(String options) {
    List<String> words = new ArrayList<>();
    for (String w : options.strip().split("\\s+")) {
      if (!w.isEmpty() && !deleteKargs.contains(w)) {
        words.add(w);
      }
    }
    words.addAll(appendKargs);
    return String.join(" ", words);
  }

  public boolean editsKargs() {
    return !appendKargs.isEmpty() || !deleteKargs.isEmpty();
  }
}
