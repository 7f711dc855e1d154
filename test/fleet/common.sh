# common.sh - shared settings and helpers for the test fleet scripts (source it, do not run it).
# Every name, address and port derives from FLEET_ID (0..9) so several fleets can run side by
# side on one machine (parallel engineers / CI jobs). Each FLEET_* setting may still be overridden.
FLEET_ID=${FLEET_ID:-0}
case $FLEET_ID in [0-9]) ;; *) echo "FLEET_ID must be a single digit 0..9 (got '$FLEET_ID')" >&2; exit 2 ;; esac
FLEET_ROOT=${FLEET_ROOT:-/tmp/stevedore-fleet-$FLEET_ID}   # all state lives here (wiped by down.sh)
FLEET_SERVERS=${FLEET_SERVERS:-3}
FLEET_PREFIX=${FLEET_PREFIX:-sd$FLEET_ID}           # netns / interface names; short: IFNAMSIZ is 15
FLEET_NET=${FLEET_NET:-10.250.$FLEET_ID}            # /24 on our bridge; .1 = host, .(10+i) = server i
# Every path a deploy, a config sync or a test writes on a server is private to that server (a bind
# mount of $FLEET_ROOT/sN/fs<path> in its mount namespace), so a file written "on s2" is not on s3
# nor on the host. /etc starts as a copy of the host's (sshd, users, CA certs); the others start
# empty (the host's /opt is huge). /tmp is private too; $FLEET_ROOT is bound back inside it.
FLEET_PRIVATE_DIRS=${FLEET_PRIVATE_DIRS:-/etc /root /srv /opt /var/lib/stevedore /tmp}
FLEET_COPIED_DIRS=${FLEET_COPIED_DIRS:-/etc}        # private dirs that start as a copy of the host's
FLEET_REGISTRY_PORT=${FLEET_REGISTRY_PORT:-$((5000 + FLEET_ID))}
FLEET_REGISTRY_AUTH=${FLEET_REGISTRY_AUTH:-0}       # 1 = htpasswd basic auth
FLEET_REGISTRY_USER=${FLEET_REGISTRY_USER:-stevedore}
FLEET_REGISTRY_PASSWORD=${FLEET_REGISTRY_PASSWORD:-stevedore-registry-pw}
# a second front of the same registry storage that always asks for basic auth (private-registry tests)
FLEET_AUTH_REGISTRY_PORT=${FLEET_AUTH_REGISTRY_PORT:-$((5100 + FLEET_ID))}
FLEET_AUTH_REGISTRY_USER=${FLEET_AUTH_REGISTRY_USER:-deployer}
FLEET_AUTH_REGISTRY_PASSWORD=${FLEET_AUTH_REGISTRY_PASSWORD:-private-registry-pw}
# a third front that asks for a bearer token from the fleet's token server (same user and password)
FLEET_TOKEN_REGISTRY_PORT=${FLEET_TOKEN_REGISTRY_PORT:-$((5200 + FLEET_ID))}
FLEET_TOKEN_SERVER_PORT=${FLEET_TOKEN_SERVER_PORT:-$((5300 + FLEET_ID))}
# an address the dockerds trust as a plain-HTTP registry where nothing listens: a test may put a
# misbehaving front there (test/support/stalling-registry.ts)
FLEET_SPARE_REGISTRY_PORT=${FLEET_SPARE_REGISTRY_PORT:-$((5400 + FLEET_ID))}
FLEET_IMAGES=${FLEET_IMAGES:-1}                     # build + push the stevedore-test/* images
FLEET_PG=${FLEET_PG:-1}                             # start a throw-away PostgreSQL
FLEET_PG_PORT=${FLEET_PG_PORT:-$((25432 + FLEET_ID))}   # below the ephemeral port range (32768-60999), so no outgoing connection can hold it
FLEET_PG_USER=${FLEET_PG_USER:-stevedore}
FLEET_PG_PASSWORD=${FLEET_PG_PASSWORD:-stevedore}
FLEET_PG_DB=${FLEET_PG_DB:-stevedore_test}
FLEET_PG_OS_USER=${FLEET_PG_OS_USER:-postgres}      # postgres refuses to run as root
# N > 0: each server's Docker root is a loop-mounted ext4 of N MB (a disk that can fill up, for the
# chaos faults: lib/disk.sh); 0 = the plain directory $FLEET_ROOT/sN/data
FLEET_LOOP_DISK_MB=${FLEET_LOOP_DISK_MB:-0}
FLEET_DOCKER_SHUTDOWN_TIMEOUT=${FLEET_DOCKER_SHUTDOWN_TIMEOUT:-3}
FLEET_LOCK=${FLEET_LOCK:-${FLEET_ROOT}.lock}        # one lock per fleet id, sibling of FLEET_ROOT
# host dirs a fleet had to create (/run/netns, /srv, ...) are shared by all ids: one list for all
# fleets, emptied by whichever fleet goes down last
FLEET_CREATED_DIRS=${FLEET_CREATED_DIRS:-/tmp/stevedore-fleet.created-dirs}
FLEET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

log() { printf '[%s fleet%s %6ss] %s\n' "$(basename "$0")" "$FLEET_ID" "$(elapsed)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
_T0=${_T0:-$EPOCHREALTIME}
elapsed() { awk -v a="$EPOCHREALTIME" -v b="$_T0" 'BEGIN{printf "%.2f", a-b}'; }

server_name() { echo "s$1"; }
netns_name() { echo "${FLEET_PREFIX}-s$1"; }
veth_name() { echo "${FLEET_PREFIX}-s$1"; }     # host side of the veth pair
host_bridge() { echo "${FLEET_PREFIX}br"; }
server_ip() { echo "$FLEET_NET.$((10 + $1))"; }
registry_host() { echo "$FLEET_NET.1"; }
registry_addr() { echo "$(registry_host):$FLEET_REGISTRY_PORT"; }
auth_registry_addr() { echo "$(registry_host):$FLEET_AUTH_REGISTRY_PORT"; }
token_registry_addr() { echo "$(registry_host):$FLEET_TOKEN_REGISTRY_PORT"; }
token_server_addr() { echo "$(registry_host):$FLEET_TOKEN_SERVER_PORT"; }
spare_registry_addr() { echo "$(registry_host):$FLEET_SPARE_REGISTRY_PORT"; }
cgroup_parent() { echo "stevedore-fleet$FLEET_ID-s$1"; }
# links/netns names that belong to THIS fleet only (sd1 must never match sd10-like names)
own_link_re() { echo "^${FLEET_PREFIX}(br|-s[0-9]+)$"; }

# pid_alive PID: true if the process exists and is not a zombie (PID 1 here reaps late)
pid_alive() {
  local pid=$1 st
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || return 1
  st=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
wait_gone() {   # wait_gone PID SECONDS
  local pid=$1 t=$(( $2 * 20 ))
  while pid_alive "$pid"; do t=$((t - 1)); [ $t -le 0 ] && return 1; sleep 0.05; done
}
stop_pid() {    # stop_pid PID [SECONDS]: TERM, wait, KILL (only for PIDs we started)
  local pid=$1 secs=${2:-10}
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait_gone "$pid" "$secs" || { log "pid $pid did not stop in ${secs}s, SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; wait_gone "$pid" 5 || true; }
}
wait_for() {    # wait_for SECONDS cmd...: retry until the command succeeds
  local t=$(( $1 * 20 )); shift
  until "$@" >/dev/null 2>&1; do t=$((t - 1)); [ $t -le 0 ] && return 1; sleep 0.05; done
}
pids_in_mntns() {   # pids whose mount namespace is $1 (e.g. "mnt:[4026532301]"); one find, not a fork per process
  local ns=$1 p
  [[ $ns =~ ^mnt:\[[0-9]+\]$ ]] || return 0
  for p in $(find /proc/[0-9]*/ns/mnt -maxdepth 0 -lname "mnt:\[${ns//[^0-9]/}\]" 2>/dev/null); do
    p=${p#/proc/}; echo "${p%/ns/mnt}"
  done
  return 0
}
pg_bindir() {
  if [ -n "${FLEET_PG_BIN:-}" ]; then echo "$FLEET_PG_BIN"; return; fi
  local d; d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  [ -n "$d" ] && { echo "$d"; return; }
  command -v pg_config >/dev/null && pg_config --bindir
}
# other fleets (any id) currently up: shared host dirs must not be removed under them
other_fleets_up() { local f; for f in /tmp/stevedore-fleet-[0-9]/servers; do [ -e "$f" ] && [ "${f%/servers}" != "$FLEET_ROOT" ] && return 0; done; return 1; }
take_lock() {
  if [ -z "${FLEET_LOCK_HELD:-}" ]; then
    exec 9>"$FLEET_LOCK"; flock -w 300 9 || die "could not take $FLEET_LOCK"; export FLEET_LOCK_HELD=1
  fi
}
