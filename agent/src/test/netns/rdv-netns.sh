#!/usr/bin/env bash
# Creates / removes N network namespaces on one bridge, for running N real agents as N "hosts" on one
# machine (the end-to-end test; each agent then runs as `ip netns exec rdvN rendezvous-agent ...`).
#
#   rdv-netns.sh up N [CIDR] [unaddressed]
#                              namespaces rdv-ns1..rdv-nsN, bridge rdv-br0 holding the first address
#                              of CIDR (default 10.250.0.0/24) as the hosts' gateway; host i gets .(i+1),
#                              unless "unaddressed": then each veth is left down, without address or
#                              route, for a NetworkManager in the namespace to configure (rdv-netns-nm.sh)
#   rdv-netns.sh down          ends the processes left in rdv-ns* namespaces, removes them and the bridge
#   rdv-netns.sh check         whether this machine can do it (root, ip netns, veth, bridge)
#   rdv-netns.sh list          namespaces and their addresses
#
# Each namespace gets: lo up, a veth (rdv-vethI in the namespace, rdv-vI-br on the bridge) with its
# address and a default route via the bridge, and its own MAC 02:52:44:56:00:II. The bridge side sits in
# the root namespace, so a gateway listening on the bridge address (or 0.0.0.0) is reachable from every
# namespace. Needs root and iproute2. UTS (hostname) is NOT separated: start agents with --hostname.
set -euo pipefail

BRIDGE=rdv-br0
PREFIX=rdv-ns

die() { echo "rdv-netns: $*" >&2; exit 1; }

ip4_add() { # ip4_add A.B.C.D N  -> address + N
  local IFS=. ; read -r a b c d <<<"$1"
  local v=$(( (a<<24 | b<<16 | c<<8 | d) + $2 ))
  echo "$(( v>>24 & 255 )).$(( v>>16 & 255 )).$(( v>>8 & 255 )).$(( v & 255 ))"
}

check() {
  [[ $(id -u) -eq 0 ]] || die "needs root"
  command -v ip >/dev/null || die "ip (iproute2) is not installed"
  local ns=rdv-check-$$
  ip netns add "$ns" || die "ip netns add failed"
  # the veth's root end first: deleted with its namespace, the kernel removes it later, after this returns
  trap 'ip link del rdv-chk-v 2>/dev/null || true; ip netns del '"$ns"' 2>/dev/null || true
        ip link del rdv-chk-br 2>/dev/null || true' RETURN
  ip link add rdv-chk-br type bridge || die "cannot create a bridge"
  ip link add rdv-chk-v type veth peer name rdv-chk-p || die "cannot create a veth pair"
  ip link set rdv-chk-p netns "$ns"
  ip link set rdv-chk-v master rdv-chk-br
  ip link set rdv-chk-v up; ip link set rdv-chk-br up
  ip addr add 10.251.255.1/30 dev rdv-chk-br
  ip -n "$ns" addr add 10.251.255.2/30 dev rdv-chk-p
  ip -n "$ns" link set rdv-chk-p up; ip -n "$ns" link set lo up
  if ip netns exec "$ns" ping -c 1 -W 2 10.251.255.1 >/dev/null 2>&1; then
    echo "ok: ip netns, veth and bridge work; a namespace reaches the bridge"
  else
    echo "partial: namespaces, veth and bridge were created but ping across failed (is ping installed?)"
  fi
}

up() {
  local n=${1:?usage: rdv-netns.sh up N [CIDR] [unaddressed]} cidr=${2:-10.250.0.0/24} mode=${3:-}
  [[ -z $mode || $mode == unaddressed ]] || die "unknown mode $mode"
  [[ $n =~ ^[0-9]+$ && $n -ge 1 && $n -le 250 ]] || die "N must be 1..250"
  local net=${cidr%/*} plen=${cidr#*/}
  local gw; gw=$(ip4_add "$net" 1)
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$gw/$plen" dev "$BRIDGE"
    ip link set "$BRIDGE" up
  fi
  for i in $(seq 1 "$n"); do
    local ns="$PREFIX$i" v="rdv-v$i-br" p="rdv-veth$i" addr; addr=$(ip4_add "$net" $((i + 1)))
    ip netns list | grep -qw "$ns" && continue
    ip netns add "$ns"
    # a namespace deleted by an earlier run is torn down by the kernel later: its veth's root end may still be there
    # ("RTNETLINK answers: File exists" in CI); deleting it removes both ends
    ip link del "$v" 2>/dev/null || true
    ip link add "$v" type veth peer name "$p"
    ip link set "$p" netns "$ns"
    ip -n "$ns" link set "$p" address "$(printf '02:52:44:56:%02x:%02x' $((i >> 8)) $((i & 255)))"
    ip link set "$v" master "$BRIDGE"
    ip link set "$v" up
    ip -n "$ns" link set lo up
    if [[ $mode == unaddressed ]]; then
      echo "$ns unaddressed"
      continue
    fi
    ip -n "$ns" addr add "$addr/$plen" dev "$p"
    ip -n "$ns" link set "$p" up
    ip -n "$ns" route add default via "$gw"
    echo "$ns $addr/$plen gw $gw"
  done
}

down() {
  for ns in $(ip netns list | awk '{print $1}' | grep "^$PREFIX" || true); do
    # what a test started there and did not end (an agent, a NetworkManager and its D-Bus): by process id
    local pids; pids=$(ip netns pids "$ns" 2>/dev/null || true)
    if [[ -n $pids ]]; then
      kill $pids 2>/dev/null || true
      sleep 1
      kill -9 $(ip netns pids "$ns" 2>/dev/null || true) 2>/dev/null || true
    fi
    # each veth's root end now, so both ends are gone when this returns: deleted with its namespace, the kernel
    # removes it later, and whatever runs next on the machine (Chromium) sees the interfaces still change
    local i=${ns#"$PREFIX"}
    ip link del "rdv-v$i-br" 2>/dev/null || true
    ip netns del "$ns"
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  echo "removed"
}

list() {
  for ns in $(ip netns list | awk '{print $1}' | grep "^$PREFIX" || true); do
    echo "$ns: $(ip -n "$ns" -br addr show | grep -v '^lo' | awk '{print $1, $3}')"
  done
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) down ;;
  check) check ;;
  list) list ;;
  *) sed -n '2,19p' "$0"; exit 2 ;;
esac
