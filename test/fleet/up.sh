#!/usr/bin/env bash
# up.sh - start test fleet FLEET_ID (0..9, default 0) on this machine (root required):
#   * FLEET_SERVERS servers s1..sN: each an own dockerd + own sshd (key-only root login, own host key)
#     in private mount/UTS/net namespaces on bridge sd<ID>br; server i = 10.250.<ID>.(10+i):22
#   * a registry (Debian docker-registry) on 10.250.<ID>.1:(5000+ID) holding stevedore-test/* images
#   * a throw-away PostgreSQL (system binaries, fsync=off) on 127.0.0.1:(25432+ID)
# Idempotent: tears down a previous fleet with the same id first. Never touches other ids' fleets.
# Outputs in $FLEET_ROOT: fleet.env, fleet.json, ssh_config, known_hosts, keys/id_ed25519
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export _T0=$EPOCHREALTIME
source "$(dirname "$0")/common.sh"
UP_OK=0; STARTED=0
on_exit() {   # on failure keep the logs and tear down (FLEET_KEEP_ON_FAILURE=1 keeps it running)
  local rc=$?
  [ "$UP_OK" = 1 ] || [ "$STARTED" = 0 ] && return
  local keep=${FLEET_ROOT}.failed-logs
  rm -rf "$keep"; mkdir -p "$keep"
  (cd "$FLEET_ROOT" && find . -name '*.log' -exec cp --parents {} "$keep/" \;) 2>/dev/null || true
  log "FAILED (rc=$rc) - logs copied to $keep"
  [ "${FLEET_KEEP_ON_FAILURE:-0}" = 1 ] && { log "FLEET_KEEP_ON_FAILURE=1: fleet left running; run down.sh"; return; }
  "$FLEET_DIR/down.sh" --quiet || true
}
trap on_exit EXIT

[ "$(id -u)" = 0 ] || die "must run as root"
case $FLEET_ROOT in /tmp/?*|/var/tmp/?*) ;; *) die "FLEET_ROOT must live under /tmp or /var/tmp (down.sh rm -rf's it)" ;; esac
"$FLEET_DIR/install.sh" >/dev/null
REGISTRY_BIN=$(command -v docker-registry || command -v registry) || die "missing docker-registry"
take_lock

# ---------------------------------------------------------------- 0. clean slate (same id only)
"$FLEET_DIR/down.sh" --quiet
rm -rf "${FLEET_ROOT}.failed-logs"
STARTED=1

# ---------------------------------------------------------------- 1. pre-flight
[ -z "$(ip -4 route show root "$FLEET_NET.0/24")" ] || die "$FLEET_NET.0/24 already routed on this host; set FLEET_NET"
[ -z "$(ss -Hltn "sport = :$FLEET_REGISTRY_PORT" | grep -E "(127\.0\.0\.1|$(registry_host)|\*|0\.0\.0\.0|\[::\]):")" ] || die "port $FLEET_REGISTRY_PORT in use"
[ "$FLEET_PG" != 1 ] || [ -z "$(ss -Hltn "sport = :$FLEET_PG_PORT")" ] || die "port $FLEET_PG_PORT in use"
mkdir -p "$FLEET_ROOT/keys"; chmod 755 "$FLEET_ROOT"
echo "$FLEET_SERVERS" >"$FLEET_ROOT/servers"
HOST_MNTNS=$(readlink /proc/self/ns/mnt)
[ -d /run/mount ] || echo /run/mount >>"$FLEET_CREATED_DIRS"   # libmount creates it on the host
[ -d /run/netns ] || echo /run/netns >>"$FLEET_CREATED_DIRS"   # `ip netns add` creates + bind-mounts it

# ---------------------------------------------------------------- 2. client key
ssh-keygen -q -t ed25519 -N '' -C stevedore-fleet-client -f "$FLEET_ROOT/keys/id_ed25519"

# ---------------------------------------------------------------- 3. PostgreSQL (background, ~1.5 s)
start_pg() {
  local bindir osuser d=$FLEET_ROOT/pg
  bindir=$(pg_bindir) && [ -x "$bindir/initdb" ] || { echo "no PostgreSQL binaries"; return 1; }
  osuser=$FLEET_PG_OS_USER; id -u "$osuser" >/dev/null 2>&1 || osuser=nobody
  mkdir -p "$d"; chown "$osuser" "$d"; chmod 700 "$d"
  printf '%s\n' "$FLEET_PG_PASSWORD" >"$d/pwfile"; chown "$osuser" "$d/pwfile"; chmod 600 "$d/pwfile"
  echo "$osuser" >"$d/osuser"; echo "$bindir" >"$d/bindir"
  # -U makes the role a superuser, so tests may CREATE DATABASE per test run
  runuser -u "$osuser" -- "$bindir/initdb" -D "$d/data" -U "$FLEET_PG_USER" --pwfile="$d/pwfile" \
    -A scram-sha-256 --auth-local=trust -E UTF8 --locale=C --no-sync >"$d/initdb.log" 2>&1
  runuser -u "$osuser" -- "$bindir/pg_ctl" -D "$d/data" -l "$d/postgres.log" -w -t 60 \
    -o "-p $FLEET_PG_PORT -k $d -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >"$d/pg_ctl.log" 2>&1
  PGPASSWORD=$FLEET_PG_PASSWORD "$bindir/psql" -h 127.0.0.1 -p "$FLEET_PG_PORT" -U "$FLEET_PG_USER" -d postgres \
    -v ON_ERROR_STOP=1 -qAtc "CREATE DATABASE \"$FLEET_PG_DB\"" >>"$d/pg_ctl.log" 2>&1
}
if [ "$FLEET_PG" = 1 ]; then
  ( start_pg ) 9>&- >"$FLEET_ROOT/pg-start.log" 2>&1 &
  PG_JOB=$!
fi

# ---------------------------------------------------------------- 4. network namespaces + bridge
br=$(host_bridge)
ip link add "$br" type bridge
ip addr add "$FLEET_NET.1/24" dev "$br"
ip link set "$br" up
for i in $(seq 1 "$FLEET_SERVERS"); do
  ns=$(netns_name "$i"); veth=$(veth_name "$i")
  ip netns add "$ns"
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  ip link set "$veth" master "$br" up
  ip -n "$ns" addr add "$(server_ip "$i")/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
done
log "network $FLEET_NET.0/24 on $br ready"

# ---------------------------------------------------------------- 5. registry (background)
source "$FLEET_DIR/lib/registry.sh"
start_registry

# ---------------------------------------------------------------- 6. servers: dockerd + sshd in namespaces
# every long-running child gets "9>&-" so it does not inherit (and hold forever) the flock fd
source "$FLEET_DIR/lib/servers.sh"
start_servers
wait_dockerds
wait_for 20 reg_ok || { cat "$FLEET_ROOT"/registry/*.log >&2; die "registry did not come up"; }
log "$FLEET_SERVERS dockerd + registry $(registry_addr) ready"
start_ssh_checks

# ---------------------------------------------------------------- 7. test images -> registry
REG=$(registry_addr)
if [ "$FLEET_IMAGES" = 1 ]; then
  source "$FLEET_DIR/lib/rootfs.sh"
  source "$FLEET_DIR/lib/images.sh"
  build_and_push_images || die "building/pushing test images failed (see $FLEET_ROOT/build/*.log)"
  log "images pushed: $REG/stevedore-test/{web:v1,web:v2,web:unhealthy,busybox:base}"
fi

# ---------------------------------------------------------------- 8. ssh checks + PostgreSQL done?
for j in "${CHECK_JOBS[@]}"; do wait "$j" || die "a server is not usable over ssh"; done
log "$FLEET_SERVERS sshd ready (ssh -F $FLEET_ROOT/ssh_config s1 docker ps)"
DATABASE_URL=
if [ "$FLEET_PG" = 1 ]; then
  wait "$PG_JOB" || { cat "$FLEET_ROOT/pg-start.log" "$FLEET_ROOT"/pg/*.log >&2 2>/dev/null; die "PostgreSQL failed"; }
  DATABASE_URL=postgres://$FLEET_PG_USER:$FLEET_PG_PASSWORD@127.0.0.1:$FLEET_PG_PORT/$FLEET_PG_DB
fi

# ---------------------------------------------------------------- 9. outputs for tests
source "$FLEET_DIR/lib/outputs.sh"
write_outputs
UP_OK=1
log "UP in $(elapsed)s -> set -a; . $FLEET_ROOT/fleet.env; set +a"
