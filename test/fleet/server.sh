#!/usr/bin/env bash
# server.sh sN ACTION - poke one server of fleet FLEET_ID from a test (root):
#   server.sh s1 exec CMD...          run CMD inside s1's namespaces (its /etc, /opt, /tmp, /run, hostname, network)
#   server.sh s1 stop-docker          stop s1's dockerd (like `systemctl stop docker`)
#   server.sh s1 start-docker         start it again with the same flags
#   server.sh s1 stop-ssh | start-ssh take the server's sshd down / up (an unreachable host)
#   server.sh s1 rotate-hostkey       new sshd host key + sshd restart; prints the new fingerprint
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
case $action in
  exec) enter "$@" ;;
  stop-docker) stop_pid "$(cat "$dir/dockerd.pid" 2>/dev/null || true)" 30 ;;
  start-docker)
    pid_alive "$(cat "$dir/dockerd.pid" 2>/dev/null || true)" && exit 0
    mapfile -t args <"$dir/dockerd.args"
    enter setsid dockerd "${args[@]}" </dev/null >>"$dir/dockerd.log" 2>&1 9>&- &
    wait_for 30 curl -fsS --unix-socket "$dir/docker.sock" http://docker/_ping || die "dockerd $name did not come back"
    ;;
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
