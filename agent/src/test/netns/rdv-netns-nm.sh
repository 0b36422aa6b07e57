#!/usr/bin/env bash
# Runs a real NetworkManager confined to one network namespace of the rig (rdv-netns.sh), on the network
# files of a discovery Ignition, as a discovery host's boot would: the Ignition's files are laid down, its
# pre-network-manager-config unit's command runs, then NetworkManager starts and configures the host's NIC.
#
#   ip netns exec rdv-nsI unshare -m rdv-netns-nm.sh WORK 'EXEC_START'
#
# WORK      a directory of this host's own: WORK/ignition holds the Ignition's files at their paths
#           (WORK/ignition/etc/..., WORK/ignition/usr/local/...); WORK/bus.sock, WORK/bus.conf, WORK/etc and
#           WORK/usr-local are made here. NetworkManager's resolv.conf ends up as WORK/etc/resolv.conf.
# EXEC_START the unit's ExecStart, run after the files are in place and before NetworkManager starts.
#
# In the private mount namespace (unshare -m) nothing reaches the machine: /etc and /usr/local are overlays
# whose writes go to WORK, /run and /var/lib/NetworkManager are empty tmpfs, and the machine's own
# connection profiles and NetworkManager drop-ins are hidden. D-Bus is a private system bus on WORK/bus.sock.
# /sys (the namespace's own, mounted by ip netns exec) is made read-only: NetworkManager then does without
# udev, which this machine does not run (with /sys writable it waits for udev to initialize every device,
# and leaves them unmanaged), as it does in a container. The process ends up being NetworkManager itself
# (exec), D-Bus its child; ending the namespace's processes (rdv-netns.sh down) ends both.
set -euo pipefail
work=${1:?usage: rdv-netns-nm.sh WORK EXEC_START}
exec_start=${2:?usage: rdv-netns-nm.sh WORK EXEC_START}

mkdir -p "$work/etc" "$work/etc-work" "$work/usr-local" "$work/usr-local-work"
mount --make-rprivate /
mount -t overlay rdv-etc -o "lowerdir=/etc,upperdir=$work/etc,workdir=$work/etc-work" /etc
mount -t overlay rdv-usr-local -o "lowerdir=/usr/local,upperdir=$work/usr-local,workdir=$work/usr-local-work" /usr/local
mount -t tmpfs rdv-run /run
mount -t tmpfs rdv-nm-state /var/lib/NetworkManager
mount -o remount,bind,ro /sys

# a fresh host: no profiles or drop-ins but the Ignition's
rm -rf /etc/NetworkManager/system-connections /etc/NetworkManager/conf.d
mkdir -p /etc/NetworkManager/system-connections /etc/NetworkManager/conf.d
cp -a "$work/ignition/." /
cat >/etc/NetworkManager/NetworkManager.conf <<'EOF'
# as on a discovery host: keyfiles only; resolv.conf written as a file (into the /etc overlay); its log
# (--debug: on stderr) at the level of a host's journal
[main]
plugins=keyfile
rc-manager=file
[logging]
level=INFO
EOF

echo "rdv-netns-nm: running $exec_start"
$exec_start
echo "rdv-netns-nm: profiles: $(ls /etc/NetworkManager/system-connections)"

cat >"$work/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$work/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
dbus-daemon --nofork --nopidfile --config-file="$work/bus.conf" &
for _ in $(seq 100); do [[ -S $work/bus.sock ]] && break; sleep 0.05; done
[[ -S $work/bus.sock ]] || { echo "rdv-netns-nm: the private D-Bus did not start" >&2; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus.sock"
exec NetworkManager --no-daemon --debug
