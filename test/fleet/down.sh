#!/usr/bin/env bash
# down.sh - stop everything up.sh started for fleet FLEET_ID (by PID and by that fleet's own namespaces
# only; other ids' fleets are never touched), remove all state, and verify nothing leaked (processes,
# mounts, links, netns, iptables, cgroups). Idempotent. Exit code 0 = clean, 1 = something leaked.
set -Euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export _T0=${_T0:-$EPOCHREALTIME}
source "$(dirname "$0")/common.sh"
source "$FLEET_DIR/lib/disk.sh"
QUIET=0; [ "${1:-}" = --quiet ] && QUIET=1
say() { [ "$QUIET" = 1 ] || log "$@"; }

[ "$(id -u)" = 0 ] || die "must run as root"
case $FLEET_ROOT in /tmp/?*|/var/tmp/?*) ;; *) die "FLEET_ROOT must live under /tmp or /var/tmp" ;; esac
take_lock
HOST_MNTNS=$(readlink /proc/self/ns/mnt)
docker_ok() { curl -fsS --max-time 2 --unix-socket "$1" http://docker/_ping >/dev/null 2>&1; }
kill_list() { local p; for p in "$@"; do [ "$p" != "$$" ] && pid_alive "$p" && kill -KILL "$p" 2>/dev/null; done; return 0; }

# ---------------------------------------------------------------- servers (in parallel)
stop_server() {
  local dir=$1 name i sock ids dpid spid mntns left cid cg cgs k ns
  name=$(basename "$dir"); i=${name#s}
  sock=$dir/docker.sock
  if [ -S "$sock" ] && docker_ok "$sock"; then
    ids=$(DOCKER_HOST=unix://$sock docker ps -aq 2>/dev/null || true)
    [ -n "$ids" ] && DOCKER_HOST=unix://$sock timeout 60 docker rm -f -v $ids >/dev/null 2>&1
    # user-defined bridges (br-*) would outlive dockerd otherwise
    DOCKER_HOST=unix://$sock timeout 30 docker network prune -f >/dev/null 2>&1
  fi
  dpid=$(cat "$dir/dockerd.pid" 2>/dev/null || cat "$dir/dockerd.launch.pid" 2>/dev/null || true)
  stop_pid "$dpid" 20
  spid=$(cat "$dir/sshd.pid" 2>/dev/null || cat "$dir/sshd.launch.pid" 2>/dev/null || true)
  mntns=$(cat "$dir/mntns" 2>/dev/null || true)
  if [ -z "$mntns" ] && pid_alive "$spid"; then mntns=$(readlink "/proc/$spid/ns/mnt" 2>/dev/null || true); fi
  stop_pid "$spid" 5
  # whatever is left in this server's private mount namespace (ssh sessions, containerd, shims) is ours
  if [ -n "$mntns" ] && [ "$mntns" != "$HOST_MNTNS" ]; then
    left=$(pids_in_mntns "$mntns")
    [ -n "$left" ] && { say "killing leftovers in $name mount ns: $(echo $left)"; kill_list $left; sleep 0.2; }
  fi
  # containers whose dockerd died: their processes live in cgroups named after our container IDs
  # (and their cgroup dirs are never removed) -> kill by container ID, then rmdir those cgroups
  if [ -d "$dir/data/containers" ]; then
    for cid in $(ls "$dir/data/containers" 2>/dev/null); do
      cgs=$(find /sys/fs/cgroup -maxdepth 5 -type d \( -name "$cid" -o -name "docker-$cid.scope" \) 2>/dev/null | sort -r)
      [ -n "$cgs" ] || continue
      for cg in $cgs; do
        left=$(cat "$cg/cgroup.procs" 2>/dev/null || true)
        [ -n "$left" ] && { say "killing orphaned container ${cid:0:12}: $(echo $left)"; kill_list $left; }
      done
      for cg in $cgs; do
        for k in $(seq 1 40); do rmdir "$cg" 2>/dev/null && break; [ -d "$cg" ] || break; sleep 0.05; done
        [ -d "$cg" ] && say "LEAK: cgroup $cg could not be removed"
      done
    done
  fi
  # the container cgroups under this server's own --cgroup-parent (children first)
  for cg in $(find /sys/fs/cgroup -maxdepth 5 -type d \( -path "*/$(cgroup_parent "$i")" -o -path "*/$(cgroup_parent "$i")/*" \) 2>/dev/null | sort -r); do
    rmdir "$cg" 2>/dev/null || say "LEAK: cgroup $cg could not be removed"
  done
  ns=$(netns_name "$i")
  if ip netns list | awk '{print $1}' | grep -qx "$ns"; then
    left=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -n "$left" ] && { say "killing leftovers in netns $ns: $(echo $left)"; kill_list $left; sleep 0.2; }
    ip netns del "$ns" 2>/dev/null || say "could not delete netns $ns"
  fi
  # a loop disk (FLEET_LOOP_DISK_MB, server.sh loop-disk) was mounted in the server's namespace
  # only: with its processes gone, the device is free to detach
  loop_disk_free "$dir" || say "LEAK: loop device of $dir/disk.img still attached"
  say "$name stopped"
}
for dir in "$FLEET_ROOT"/s[0-9]*; do
  [ -d "$dir" ] && stop_server "$dir" &
done
wait

# ---------------------------------------------------------------- registry, postgres
for name in registry auth token token-server; do stop_pid "$(cat "$FLEET_ROOT/registry/$name.pid" 2>/dev/null || true)" 5; done
if [ -f "$FLEET_ROOT/pg/data/postmaster.pid" ]; then
  pgpid=$(head -1 "$FLEET_ROOT/pg/data/postmaster.pid")
  if pid_alive "$pgpid"; then
    runuser -u "$(cat "$FLEET_ROOT/pg/osuser")" -- "$(cat "$FLEET_ROOT/pg/bindir")/pg_ctl" -D "$FLEET_ROOT/pg/data" -m fast -w -t 20 stop >/dev/null 2>&1 \
      || stop_pid "$pgpid" 10
  fi
fi

# ---------------------------------------------------------------- network objects (only names/ranges we own)
for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "$(own_link_re)"); do
  ip link del "$l" 2>/dev/null && say "deleted link $l"
done
for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${FLEET_PREFIX}-s[0-9]+$"); do
  left=$(ip netns pids "$ns" 2>/dev/null || true); [ -n "$left" ] && kill_list $left
  ip netns del "$ns" && say "deleted netns $ns"
done

# ---------------------------------------------------------------- mounts + files
for m in $(awk -v r="$FLEET_ROOT" 'index($5, r) == 1 {print $5}' /proc/self/mountinfo | sort -r); do
  umount -l "$m" 2>/dev/null && say "unmounted $m"
done
# shared host dirs (/srv, /run/netns, ...) may be in use by another fleet id: leave them while one is up
if [ -f "$FLEET_CREATED_DIRS" ] && ! other_fleets_up; then
  while read -r d; do   # only if still empty (someone else may have started using it)
    [ -n "$d" ] && [ -d "$d" ] && [ -z "$(ls -A "$d" 2>/dev/null)" ] || continue
    mountpoint -q "$d" && umount "$d" 2>/dev/null
    rmdir "$d" 2>/dev/null && say "removed $d (created by up.sh)"
  done <"$FLEET_CREATED_DIRS"
  rm -f "$FLEET_CREATED_DIRS"
fi
rm -rf "$FLEET_ROOT"

# ---------------------------------------------------------------- leak check
leaks=0
leak() { log "LEAK: $*"; leaks=1; }
# one grep over every command line: a fork per process takes minutes on a busy machine
for c in $(grep -lsF "$FLEET_ROOT/" /proc/[0-9]*/cmdline); do
  p=${c%/cmdline}; pid=${p#/proc/}; [ "$pid" = "$$" ] && continue
  exe=$(basename "$(readlink "$p/exe" 2>/dev/null)" 2>/dev/null) || exe=
  case $exe in dockerd|containerd|containerd-shim*|docker-proxy|sshd|docker-registry|registry|postgres|runc)
    leak "process $pid ($exe) still running - killing"; kill -KILL "$pid" 2>/dev/null ;;
  esac
done
l=$(find /sys/fs/cgroup -maxdepth 5 -type d -name "stevedore-fleet$FLEET_ID-s*" 2>/dev/null || true); [ -n "$l" ] && leak "cgroups: $l"
grep -qF " $FLEET_ROOT" /proc/self/mountinfo && leak "mounts: $(grep -F " $FLEET_ROOT" /proc/self/mountinfo | awk '{print $5}' | tr '\n' ' ')"
l=$(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "$(own_link_re)" || true); [ -n "$l" ] && leak "links: $l"
l=$(ip netns list 2>/dev/null | grep -E "^${FLEET_PREFIX}-s[0-9]+( |$)" || true); [ -n "$l" ] && leak "netns: $l"
l=$(ip -o -4 addr show | grep -F " $FLEET_NET." || true); [ -n "$l" ] && leak "addresses: $l"
if command -v iptables-save >/dev/null; then
  l=$(iptables-save 2>/dev/null | grep -E "${FLEET_NET//./\\.}\.|${FLEET_PREFIX}br" || true)
  [ -n "$l" ] && leak "iptables: $l"
fi
l=$(losetup -n -O NAME,BACK-FILE 2>/dev/null | grep -F " $FLEET_ROOT/" || true); [ -n "$l" ] && leak "loop devices: $l"
[ -e "$FLEET_ROOT" ] && leak "$FLEET_ROOT still exists"
if [ "$leaks" = 0 ]; then say "DOWN in $(elapsed)s, nothing leaked"; else log "DOWN finished WITH LEAKS"; fi
exit "$leaks"
