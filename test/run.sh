#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs and starts what the tests need (the local
# fleet: sshd + dockerd servers, a registry and PostgreSQL), type-checks, runs unit, API and
# end-to-end tests, and tears everything down.
#   npm test                         # everything
#   npm test -- 'test/api/**/*.test.ts'
#   SKIP_FLEET=1 npm test -- ...     # only a PostgreSQL (test/support/postgres.sh), no servers
#                                    # (the default when no test/e2e/… file is asked for)
#
# Unit and API tests (CPU-bound, they need only PostgreSQL) and end-to-end tests (mostly waiting on
# ssh and docker) run at the same time in two mocha processes. The end-to-end log is shown as it
# runs, the other after it; the last line sums both. The unit and API tests get a PostgreSQL of
# their own: the chaos tests stop and kill the fleet's, and two processes need more connections.
set -uo pipefail
cd "$(dirname "$0")/.."
export FLEET_ID=${FLEET_ID:-0}
SKIP_FLEET=${SKIP_FLEET:-0}
# the unit and API tests' PostgreSQL, one port per fleet (25432+id are the fleets' own PostgreSQL)
export TEST_PG_PORT=${TEST_PG_PORT:-$((25450 + FLEET_ID))}
[ -d node_modules ] || npm ci --no-audit --no-fund

logs=$(mktemp -d)
fast_pid=
cleanup() {
  [ -z "$fast_pid" ] || kill -- "-$fast_pid" 2>/dev/null
  bash test/support/postgres.sh down >/dev/null 2>&1
  [ "$SKIP_FLEET" = 1 ] || bash test/fleet/down.sh >/dev/null 2>&1
  rm -rf "$logs"
}
trap cleanup EXIT

# which files go to which process: test/e2e/… to one, test/unit/… and test/api/… to the other;
# any other glob (test/**/…) runs everything in one process, with the fleet
globs=("$@")
[ ${#globs[@]} -gt 0 ] || globs=('test/unit/**/*.test.ts' 'test/api/**/*.test.ts' 'test/e2e/**/*.test.ts')
e2e=(); fast=(); mixed=0
for g in "${globs[@]}"; do
  case ${g#./} in
    test/e2e/*) e2e+=("$g") ;;
    test/unit/* | test/api/*) fast+=("$g") ;;
    *) mixed=1 ;;
  esac
done
[ "$mixed" = 0 ] || { e2e=("${globs[@]}"); fast=(); }
# only the end-to-end tests need the fleet
[ ${#e2e[@]} -gt 0 ] || SKIP_FLEET=1

# the type check runs while the fleet and PostgreSQL start (it needs neither); typescript itself,
# by path: typescript-js (TypeScript 6, for dependency-cruiser) also ships a `tsc` bin
( node node_modules/typescript/bin/tsc --noEmit -p . &&
  node node_modules/typescript/bin/tsc --noEmit -p dashboard ) >"$logs/typecheck" 2>&1 &   # the browser code (DOM types)
typecheck_pid=$!

fast_db=
if [ "$SKIP_FLEET" = 1 ] || [ ${#fast[@]} -gt 0 ]; then
  bash test/support/postgres.sh up >"$logs/pg" 2>"$logs/pg.err" &
  pg_pid=$!
fi
if [ "$SKIP_FLEET" != 1 ]; then
  bash test/fleet/up.sh || { echo "the test fleet did not come up" >&2; exit 1; }
  set -a; . "/tmp/stevedore-fleet-$FLEET_ID/fleet.env"; set +a
fi
if [ -n "${pg_pid:-}" ]; then
  wait "$pg_pid" || { cat "$logs/pg.err" >&2; echo "could not start PostgreSQL" >&2; exit 1; }
  fast_db=$(sed -n 's/^DATABASE_URL=//p' "$logs/pg")
  [ "$SKIP_FLEET" != 1 ] || export DATABASE_URL=$fast_db
fi

echo "== type check"
wait "$typecheck_pid"; tc=$?
cat "$logs/typecheck"
[ "$tc" = 0 ] || exit 1

# mocha's summary lines, from one process's log
count() { grep -Eo "^ +[0-9]+ $1" "$2" | grep -Eo '[0-9]+' | tail -1; }
passed=0; failed=0; skipped=0; rc=0
tally() {
  local p f s
  p=$(count passing "$1"); f=$(count failing "$1"); s=$(count pending "$1")
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
}

if [ ${#fast[@]} -gt 0 ] && [ ${#e2e[@]} -gt 0 ]; then
  # niced: the end-to-end tests are the longer path and wait on timeouts; these fill the gaps
  # in a process group of its own, so an interrupted run can stop it and mocha's child with it
  DATABASE_URL=$fast_db setsid nice -n 5 npx mocha "${fast[@]}" >"$logs/fast" 2>&1 &
  fast_pid=$!
  echo "== end-to-end tests (unit and API tests run alongside; their log follows)"
  npx mocha "${e2e[@]}" 2>&1 | tee "$logs/e2e"
  e2e_rc=${PIPESTATUS[0]}
  wait "$fast_pid"; fast_rc=$?; fast_pid=
  echo "== unit and API tests (ran alongside the end-to-end tests)"
  cat "$logs/fast"
  tally "$logs/e2e"; tally "$logs/fast"
  [ "$e2e_rc" = 0 ] && [ "$fast_rc" = 0 ] || rc=1
else
  # one group, one process: unit and API tests on their own PostgreSQL, the others on the fleet's
  [ ${#fast[@]} -eq 0 ] || export DATABASE_URL=$fast_db
  npx mocha "${globs[@]}" 2>&1 | tee "$logs/all"
  rc=${PIPESTATUS[0]}
  tally "$logs/all"
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$rc"
