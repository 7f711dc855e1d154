#!/usr/bin/env bash
# test/support/postgres.sh up|down|url — a throw-away PostgreSQL for the tests (system binaries,
# fsync off, loopback only). `up` prints DATABASE_URL=… for the caller to eval.
set -euo pipefail
PORT=${TEST_PG_PORT:-25440}
ROOT=${TEST_PG_ROOT:-/tmp/stevedore-test-pg-$PORT}
bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

case "${1:-}" in
  up)
    if [ -z "$(bindir)" ]; then
      echo "installing postgresql" >&2
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >&2
    fi
    BIN=$(bindir)
    "$0" down >/dev/null 2>&1 || true
    mkdir -p "$ROOT" && chown postgres "$ROOT"
    runuser -u postgres -- "$BIN/initdb" -D "$ROOT/data" -U postgres --auth=trust --no-sync >/dev/null
    runuser -u postgres -- "$BIN/pg_ctl" -D "$ROOT/data" -w -l "$ROOT/log" \
      -o "-p $PORT -k $ROOT -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$PORT/postgres"
    ;;
  down)
    BIN=$(bindir)
    [ -n "$BIN" ] && [ -f "$ROOT/data/postmaster.pid" ] && runuser -u postgres -- "$BIN/pg_ctl" -D "$ROOT/data" -m immediate stop >/dev/null || true
    rm -rf "$ROOT"
    ;;
  url) echo "postgres://postgres@127.0.0.1:$PORT/postgres" ;;
  *) echo "usage: $0 up|down|url" >&2; exit 64 ;;
esac
