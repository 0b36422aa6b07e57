package dev.rendezvous.service.ignition;

import dev.rendezvous.service.ignition.NmStateKeyfiles.GeneratedFile;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What puts a host's static network profiles ({@link NmStateKeyfiles}) in place on a discovery host before
 * NetworkManager starts, and upstream's {@code static-network-config} archive of them.
 */
public final class PreNetworkManagerConfig {
  public static final String SCRIPT_PATH = "/usr/local/bin/pre-network-manager-config.sh";
  public static final String UNIT_NAME = "pre-network-manager-config.service";

  private PreNetworkManagerConfig() {}

  /**
   * The files as upstream's {@code static-network-config} download: a tar of the absolute paths,
   * each mode 0600 (mtime 0, owner root, so the same config gives the same bytes).
   */
  public static byte[] archive(List<GeneratedFile> files) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (org.apache.commons.compress.archivers.tar.TarArchiveOutputStream tar =
        new org.apache.commons.compress.archivers.tar.TarArchiveOutputStream(bytes)) {
      tar.setLongFileMode(org.apache.commons.compress.archivers.tar.TarArchiveOutputStream.LONGFILE_POSIX);
      for (GeneratedFile f : files) {
        byte[] content = f.content().getBytes(StandardCharsets.UTF_8);
        org.apache.commons.compress.archivers.tar.TarArchiveEntry e =
            new org.apache.commons.compress.archivers.tar.TarArchiveEntry(f.path(), true);
        e.setMode(0100000 | f.mode());
        e.setSize(content.length);
        e.setModTime(0);
        tar.putArchiveEntry(e);
        tar.write(content);
        tar.closeArchiveEntry();
      }
      tar.finish();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** The script that picks this machine's host directory by MAC and installs its profiles. */
  public static String script() {
    return """
        #!/bin/bash
        # Rendezvous: install the static network profiles of the host whose mac_interface.ini lists
        # a MAC address of this machine (the profiles are bound to their NICs by MAC address).
        set -eu
        shopt -s nullglob
        network_dir=%s
        target=/etc/NetworkManager/system-connections
        lower() { tr '[:upper:]' '[:lower:]'; }
        for dir in "$network_dir"/host*; do
          [ -f "$dir/mac_interface.ini" ] || continue
          found=""
          while IFS='=' read -r mac nic || [ -n "$mac" ]; do
            [ -n "$mac" ] || continue
            want=$(printf '%%s' "$mac" | lower)
            for address in /sys/class/net/*/address; do
              if [ "$(lower < "$address")" = "$want" ]; then
                device=$(basename "$(dirname "$address")")
                echo "static network: $nic ($mac) is $device"
                found=yes
              fi
            done
          done < "$dir/mac_interface.ini"
          if [ -n "$found" ]; then
            mkdir -p "$target"
            for f in "$dir"/*.nmconnection; do
              install -m 0600 "$f" "$target/$(basename "$f")"
            done
            echo "static network: installed the profiles of $(basename "$dir")"
            exit 0
          fi
        done
        echo "static network: no host configuration lists a MAC address of this machine"
        """.formatted(NmStateKeyfiles.NETWORK_DIR);
  }

  /** Runs {@link #script()} once the NICs are known and before NetworkManager reads its profiles. */
  public static String unit() {
    return """
        [Unit]
        Description=Install this host's static network configuration (Rendezvous)
        Wants=systemd-udev-settle.service network-pre.target
        After=systemd-udev-settle.service
        Before=network-pre.target NetworkManager.service
        ConditionPathExists=%s

        [Service]
        Type=oneshot
        RemainAfterExit=yes
        ExecStart=%s

        [Install]
        WantedBy=multi-user.target
        """.formatted(NmStateKeyfiles.NETWORK_DIR, SCRIPT_PATH);
  }
}
