#!/usr/bin/env bash
# test/support/postgres-pair.sh up|stop-primary|kill-primary|promote|down — a PostgreSQL primary and
# a streaming standby of it (pg_basebackup -R) from the machine's own binaries, for the failover
# tests: the primary on PAIR_PORT, the standby on PAIR_PORT+1, loopback only, trust auth, database
# "stevedore". `up` prints PRIMARY_URL=, STANDBY_URL= and DATABASE_URL= (the host list the
# controller is given) for the caller to read. Commits are synchronous and wait for nothing else:
# a clean stop of the primary (`stop-primary`, pg_ctl -m fast) sends all its WAL to the standby first.
# The chaos harness (bench/chaos.ts) fails over again and again, so the two nodes are also driven
# by name (NODE: primary, on PAIR_PORT, or standby, on PAIR_PORT+1; the names are the directories,
# not the roles, which swap at each failover):
#   role NODE         prints primary (accepts writes), standby (in recovery) or down
#   stop NODE | start NODE | promote NODE
#   rejoin NODE       NODE becomes a streaming standby of the other node again (its data is
#                     replaced by a pg_basebackup of the other: the old primary after a failover)
set -euo pipefail
PORT=${PAIR_PORT:-26400}
ROOT=${PAIR_ROOT:-/tmp/stevedore-pg-pair-$PORT}
bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
BIN=$(bindir)
[ -n "$BIN" ] || { echo "no PostgreSQL binaries in /usr/lib/postgresql (apt-get install postgresql)" >&2; exit 1; }
as_pg() { runuser -u postgres -- "$@"; }
ctl() { as_pg "$BIN/pg_ctl" -D "$ROOT/$1" -w -t 60 "${@:2}"; }
port_of() { case $1 in primary) echo "$PORT" ;; standby) echo $((PORT + 1)) ;; *) echo "no node $1 (primary|standby)" >&2; exit 64 ;; esac; }
other() { [ "$1" = primary ] && echo standby || echo primary; }
opts() { echo "-p $1 -k $ROOT -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200 -c wal_level=replica"; }

case "${1:-}" in
  up)
    "$0" down >/dev/null 2>&1 || true
    mkdir -p "$ROOT" && chown postgres "$ROOT" && chmod 700 "$ROOT"
    as_pg "$BIN/initdb" -D "$ROOT/primary" -U postgres --auth=trust --no-sync >"$ROOT/initdb.log"
    ctl primary -l "$ROOT/primary.log" -o "$(opts "$PORT")" start >/dev/null
    as_pg "$BIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAtc 'CREATE DATABASE stevedore' >/dev/null
    as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PORT" -U postgres -D "$ROOT/standby" -R -X stream -c fast --no-sync >/dev/null
    ctl standby -l "$ROOT/standby.log" -o "$(opts $((PORT + 1)))" start >/dev/null
    echo "PRIMARY_URL=postgres://postgres@127.0.0.1:$PORT/stevedore"
    echo "STANDBY_URL=postgres://postgres@127.0.0.1:$((PORT + 1))/stevedore"
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$PORT,127.0.0.1:$((PORT + 1))/stevedore?target_session_attrs=read-write"
    ;;
  stop-primary) ctl primary -m fast stop >/dev/null ;;
  kill-primary) ctl primary -m immediate stop >/dev/null ;;
  role)
    node=${2:?node}; p=$(port_of "$node")
    r=$(as_pg "$BIN/psql" -h 127.0.0.1 -p "$p" -U postgres -d postgres -qAtc 'SELECT pg_is_in_recovery()' 2>/dev/null) || { echo down; exit 0; }
    [ "$r" = f ] && echo primary || echo standby
    ;;
  stop) ctl "${2:?node}" -m fast stop >/dev/null ;;
  start) node=${2:?node}; ctl "$node" -l "$ROOT/$node.log" -o "$(opts "$(port_of "$node")")" start >/dev/null ;;
  promote) ctl "${2:-standby}" promote >/dev/null ;;
  rejoin)
    node=${2:?node}; from=$(port_of "$(other "$node")")
    [ -f "$ROOT/$node/postmaster.pid" ] && ctl "$node" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "${ROOT:?}/$node"
    as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$from" -U postgres -D "$ROOT/$node" -R -X stream -c fast --no-sync >/dev/null
    ctl "$node" -l "$ROOT/$node.log" -o "$(opts "$(port_of "$node")")" start >/dev/null
    ;;
  down)
    for d in standby primary; do
      [ -f "$ROOT/$d/postmaster.pid" ] && ctl "$d" -m immediate stop >/dev/null 2>&1 || true
    done
    rm -rf "$ROOT"
    ;;
  *) echo "usage: $0 up|stop-primary|kill-primary|promote [NODE]|down|role NODE|stop NODE|start NODE|rejoin NODE" >&2; exit 64 ;;
esac
