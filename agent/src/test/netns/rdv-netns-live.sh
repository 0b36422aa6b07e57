#!/usr/bin/env bash
# Boots one host of the rig (rdv-netns.sh) as the agent-based ISO's live system would, as far as a network
# namespace can: the ISO's files are where CoreOS mounts its boot medium (/run/media/iso, read-only), the Ignition's
# files are laid down at their paths and its units started in the order given (the caller orders them as their
# After= would), each run as systemd runs it as far as these units need: Environment=, EnvironmentFile=,
# ConditionPathExists=, ExecStart= with $VAR split on blanks (bash's eval; these ExecStart lines have no globs or
# quotes for it to treat otherwise); Type=oneshot is waited for. No Restart=: a unit that ends stays ended.
#
#   ip netns exec rdv-nsI unshare -m rdv-netns-live.sh WORK MEDIA UNIT...
#
# WORK  this host's own directory: WORK/ignition holds the Ignition's files and units at their paths (written by
#       the test from the Ignition read back from ISO); WORK/etc, WORK/usr-local, WORK/opt, WORK/root receive what
#       the host writes there; /var/lib/rendezvous is an empty tmpfs (RAM, as on a live system).
# MEDIA the agent-based ISO's files (xorriso -osirrox on -extract / MEDIA: this machine's kernel may have no iso9660
#       to loop-mount it with), bind-mounted read-only at /run/media/iso.
# UNIT  unit names under WORK/ignition/etc/systemd/system, started in this order.
#
# Environment given to this script (the test's RDV_AGENT_* settings for what a namespace cannot give each host: its
# own machine id and disks) reaches every unit. The script ends when the units' processes end or on SIGTERM.
set -euo pipefail
work=${1:?usage: rdv-netns-live.sh WORK MEDIA UNIT...}
media=${2:?usage: rdv-netns-live.sh WORK MEDIA UNIT...}
shift 2

overlay() { # DIR NAME: writes under DIR go to WORK/NAME
  mkdir -p "$work/$2" "$work/$2-work"
  mount -t overlay "rdv-$2" -o "lowerdir=$1,upperdir=$work/$2,workdir=$work/$2-work" "$1"
}
mount --make-rprivate /
overlay /etc etc
overlay /usr/local usr-local
overlay /opt opt
overlay /root root
mkdir -p /run/media /var/lib/rendezvous
mount -t tmpfs rdv-media /run/media
mkdir -p /run/media/iso
mount --bind "$media" /run/media/iso
mount -o remount,bind,ro /run/media/iso
mount -t tmpfs rdv-var-lib-rendezvous /var/lib/rendezvous
cp -a "$work/ignition/." /

pids=()
trap '[[ ${#pids[@]} -eq 0 ]] || kill "${pids[@]}" 2>/dev/null; wait; exit 0' TERM INT
for unit in "$@"; do
  file=/etc/systemd/system/$unit
  [[ -f $file ]] || { echo "rdv-netns-live: no unit $unit" >&2; exit 1; }
  (
    set -a
    while IFS= read -r line; do
      case $line in
        Environment=*) v=${line#Environment=}; v=${v#\"}; v=${v%\"}; export "${v%%=*}=${v#*=}" ;;
        EnvironmentFile=*) f=${line#EnvironmentFile=}; f=${f#-}; [[ -f $f ]] && . "$f" ;;
      esac
    done < "$file"
    cond=$(sed -n 's/^ConditionPathExists=//p' "$file")
    if [[ -n $cond && ! -e $cond ]]; then
      echo "rdv-netns-live: $unit: condition $cond not met, not started"
      exit 0
    fi
    exec_start=$(sed -n 's/^ExecStart=//p' "$file")
    echo "rdv-netns-live: $unit: $exec_start"
    eval "exec $exec_start"
  ) > "$work/$unit.log" 2>&1 &
  pid=$!
  if grep -q '^Type=oneshot' "/etc/systemd/system/$unit"; then
    wait "$pid" || { echo "rdv-netns-live: $unit failed" >&2; exit 1; }
  else
    pids+=("$pid")
  fi
done
echo "rdv-netns-live: started $*"
wait
