#!/usr/bin/env bash
# server.sh sN ACTION - poke one server of fleet FLEET_ID from a test (root):
#   server.sh s1 exec CMD...          run CMD inside s1's namespaces (its /etc, /opt, /tmp, /run, hostname, network)
#   server.sh s1 stop-docker          stop s1's dockerd (like `systemctl stop docker`)
#   server.sh s1 start-docker         start it again with the same flags
#   server.sh s1 stop-ssh | start-ssh take the server's sshd down / up (an unreachable host)
#   server.sh s1 rotate-hostkey       new sshd host key + sshd restart; prints the new fingerprint
# Chaos faults (bench/chaos/faults/), each undone by its pair; the undo is idempotent:
#   server.sh s1 link-down | link-up  the server's link (host side of its veth) down: established
#                                     connections stall, new ones time out; up restores it
#   server.sh s1 netem DELAY_MS JITTER_MS LOSS_PCT   tc netem on the link (host -> server)
#   server.sh s1 netem-clear          removes it
#   server.sh s1 loop-disk MB | loop-disk-off   restart dockerd on a fresh loop-mounted ext4 of MB
#                                     megabytes as its Docker root (lib/disk.sh) / back on the plain dir
#   server.sh s1 disk-fill | disk-unfill        fill that loop disk to the last block (prints the
#                                     bytes written) / remove the filling
set -Eeuo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
source "$(dirname "$0")/common.sh"
name=${1:?server name, e.g. s1}; action=${2:?action}; shift 2
case $name in s[0-9]|s[0-9][0-9]) ;; *) die "bad server name: $name" ;; esac
dir=$FLEET_ROOT/$name; [ -d "$dir" ] || die "no such server: $name (fleet $FLEET_ID)"
# the namespaces are pinned by the longest-lived process we started there
anchor() {
  local p
  for p in $(cat "$dir/sshd.pid" 2>/dev/null) $(cat "$dir/dockerd.pid" 2>/dev/null); do
    pid_alive "$p" && { echo "$p"; return; }
  done
  # scanning every process is slow on a busy machine: only when both daemons are gone
  for p in $(pids_in_mntns "$(cat "$dir/mntns")"); do
    pid_alive "$p" && { echo "$p"; return; }
  done
  die "$name has no live process left to enter"
}
enter() { nsenter -t "$(anchor)" -m -u -n -- "$@"; }
start_ssh() {
  pid_alive "$(cat "$dir/sshd.pid" 2>/dev/null || true)" && return 0
  enter /usr/sbin/sshd -f "$dir/sshd_config" -E "$dir/sshd.log" 9>&-   # daemonizes, writes $dir/sshd.pid
  wait_for 10 bash -c "exec 3<>/dev/tcp/$(server_ip "${name#s}")/22" || die "sshd $name did not come back"
}
# like a host going away: the listener AND the per-connection sshd children, so established
# connections drop too (killing only the listener would leave pooled connections working)
stop_ssh() {
  local p mntns; mntns=$(cat "$dir/mntns")
  stop_pid "$(cat "$dir/sshd.pid" 2>/dev/null || true)" 10
  for p in $(pids_in_mntns "$mntns"); do
    [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = /usr/sbin/sshd ] && kill -KILL "$p" 2>/dev/null
  done
  return 0
}
# the veth's host end: a bridge port of sd<ID>br
link() {
  local l; l=$(veth_name "${name#s}")
  ip link show "$l" >/dev/null 2>&1 || die "$name has no link $l"
  echo "$l"
}
# runs one of lib/disk.sh's functions in the server's mount namespace. The functions go in on
# stdin, not as a path: the server has a /tmp of its own, so a checkout under /tmp (a CI clone)
# is not there to read.
inside() {
  local fn=$1; shift
  case $fn in loop_disk_attach | loop_disk_detach | disk_fill | disk_unfill) ;; *) die "inside: unknown $fn" ;; esac
  { declare -p FLEET_ID _T0; declare -f log die elapsed; cat "$FLEET_DIR/lib/disk.sh"; echo '"$@"'; } \
    | enter bash -s -- "$fn" "$dir" "$@"
}
stop_docker() { stop_pid "$(cat "$dir/dockerd.pid" 2>/dev/null || true)" 30; }
start_docker() {
  pid_alive "$(cat "$dir/dockerd.pid" 2>/dev/null || true)" && return 0
  mapfile -t args <"$dir/dockerd.args"
  enter setsid dockerd "${args[@]}" </dev/null >>"$dir/dockerd.log" 2>&1 9>&- &
  wait_for 30 curl -fsS --unix-socket "$dir/docker.sock" http://docker/_ping || die "dockerd $name did not come back"
}
whole() { case $1 in '' | *[!0-9]*) die "$2 must be a whole number (got '$1')" ;; esac; }
case $action in
  exec) enter "$@" ;;
  link-down) ip link set "$(link)" down ;;
  link-up) ip link set "$(link)" up ;;
  netem)
    [ $# = 3 ] || die "usage: server.sh $name netem DELAY_MS JITTER_MS LOSS_PCT"
    whole "$1" DELAY_MS; whole "$2" JITTER_MS; whole "$3" LOSS_PCT
    [ "$1" -le 10000 ] && [ "$2" -le "$1" ] && [ "$3" -le 100 ] || die "netem: delay <= 10000 ms, jitter <= delay, loss <= 100 %"
    tc qdisc replace dev "$(link)" root netem delay "${1}ms" "${2}ms" loss "${3}%"
    ;;
  netem-clear)
    l=$(link)
    if tc qdisc show dev "$l" root | grep -q netem; then tc qdisc del dev "$l" root; fi
    ;;
  loop-disk)
    [ $# = 1 ] || die "usage: server.sh $name loop-disk MB"
    stop_docker
    inside loop_disk_attach "$1" || { inside loop_disk_detach || true; start_docker; die "could not attach a loop disk to $name"; }
    start_docker
    ;;
  loop-disk-off)
    [ -e "$dir/disk.img" ] || exit 0
    stop_docker
    rc=0; inside loop_disk_detach || rc=$?
    start_docker   # back on the plain directory, or still on the disk if it could not be detached
    exit "$rc"
    ;;
  disk-fill) inside disk_fill ;;
  disk-unfill) inside disk_unfill ;;
  stop-docker) stop_docker ;;
  start-docker) start_docker ;;
  stop-ssh) stop_ssh ;;
  start-ssh) start_ssh ;;
  rotate-hostkey)
    # a live process must pin the namespaces while sshd is down: anchor() enters through it
    pid_alive "$(cat "$dir/dockerd.pid" 2>/dev/null || true)" || die "rotate-hostkey needs $name's dockerd running"
    rm -f "$dir/ssh_host_ed25519_key" "$dir/ssh_host_ed25519_key.pub"
    ssh-keygen -q -t ed25519 -N '' -C "stevedore-fleet$FLEET_ID-$name-rotated" -f "$dir/ssh_host_ed25519_key"
    stop_ssh; start_ssh
    # keep fleet.json / known_hosts truthful so later test runs pin the new key
    new=$(ssh-keygen -lf "$dir/ssh_host_ed25519_key.pub" | awk '{print $2}')
    ip_=$(server_ip "${name#s}")
    sed -i "/\"name\": \"$name\"/s#\"hostKeyFingerprint\": \"[^\"]*\"#\"hostKeyFingerprint\": \"$new\"#" "$FLEET_ROOT/fleet.json"
    sed -i "s#^$ip_ .*#$ip_ $(cut -d' ' -f1,2 "$dir/ssh_host_ed25519_key.pub")#" "$FLEET_ROOT/known_hosts"
    echo "$new"
    ;;
  *) die "unknown action $action" ;;
esac
