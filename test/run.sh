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
# ssh and docker) run at the same time in separate mocha processes. The end-to-end files are split
# over E2E_FLEETS (default 2) processes, each with a fleet of its own (FLEET_ID, then the next ids):
# nothing on one fleet is visible to the other, so their tests cannot meet. The first end-to-end
# log is shown as it runs, the others after it; the last line sums them all. The unit and API tests
# get a PostgreSQL of their own: the chaos tests stop and kill the fleet's.
set -uo pipefail
cd "$(dirname "$0")/.."
export FLEET_ID=${FLEET_ID:-0}
SKIP_FLEET=${SKIP_FLEET:-0}
# the unit and API tests' PostgreSQL, one port per fleet (25432+id are the fleets' own PostgreSQL)
export TEST_PG_PORT=${TEST_PG_PORT:-$((25450 + FLEET_ID))}
[ -d node_modules ] || npm ci --no-audit --no-fund

logs=$(mktemp -d)
fast_pid=
extra_fleets=()
cleanup() {
  [ -z "$fast_pid" ] || kill -- "-$fast_pid" 2>/dev/null
  bash test/support/postgres.sh down >/dev/null 2>&1
  [ "$SKIP_FLEET" = 1 ] || bash test/fleet/down.sh >/dev/null 2>&1
  for f in "${extra_fleets[@]}"; do ( unset $(compgen -v FLEET_); FLEET_ID=$f bash test/fleet/down.sh >/dev/null 2>&1 ); done
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
# (colour codes stripped first: FORCE_COLOR in the environment colours them)
count() { sed 's/\x1b\[[0-9;]*m//g' "$2" | grep -Eo "^ +[0-9]+ $1" | grep -Eo '[0-9]+' | tail -1; }
passed=0; failed=0; skipped=0; rc=0
tally() {
  local p f s
  p=$(count passing "$1"); f=$(count failing "$1"); s=$(count pending "$1")
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
}

# the end-to-end files, heaviest first (file size stands in for duration), each dealt to the
# lightest of E2E_FLEETS (default 2) groups: group one on this fleet, each other on a fleet of its own
shopt -s globstar nullglob
e2e_files=()
for g in "${e2e[@]}"; do for f in $g; do e2e_files+=("$f"); done; done
groups=${E2E_FLEETS:-2}
[ "$groups" -le ${#e2e_files[@]} ] || groups=${#e2e_files[@]}
[ ${#fast[@]} -gt 0 ] || groups=1
group1=(); extra_pids=()
if [ "$groups" -ge 2 ]; then
  weights=()
  for ((k = 0; k < groups; k++)); do weights[k]=0; : >"$logs/group$k"; done
  while read -r size f; do
    k=0; for ((j = 1; j < groups; j++)); do [ "${weights[j]}" -ge "${weights[k]}" ] || k=$j; done
    echo "$f" >>"$logs/group$k"; weights[k]=$((weights[k] + size))
  done < <(for f in "${e2e_files[@]}"; do
    # a file whose hook builds a database image on its fleet weighs that build too (a minute or two)
    bonus=0; grep -q 'database-world' "$f" && bonus=12000
    # the chaos harness's short run (random-faults.test.ts): ~5 minutes in a file of 1.5 KB
    grep -q 'runChaos' "$f" && bonus=40000
    echo "$(( $(stat -c %s "$f") + bonus )) $f"
  done | sort -rn)
  mapfile -t group1 <"$logs/group0"
  for ((k = 1; k < groups; k++)); do
    fleet=$(( (FLEET_ID + k) % 10 )); extra_fleets+=("$fleet")
    mapfile -t files <"$logs/group$k"
    # the other fleets come up while the first group runs, one at a time (up.sh may install
    # packages); the first fleet's variables (FLEET_ROOT, ports, …) are exported: none may leak
    ( unset $(compgen -v FLEET_); export FLEET_ID=$fleet
      [ "$k" = 1 ] || until [ -e "$logs/up$((k - 1)).done" ]; do sleep 1; done
      bash test/fleet/up.sh >"$logs/up$k" 2>&1; up_rc=$?
      touch "$logs/up$k.done"
      [ "$up_rc" = 0 ] || exit 1
      set -a; . "/tmp/stevedore-fleet-$fleet/fleet.env"; set +a
      export FLEET_ID=$fleet
      exec npx mocha "${files[@]}" ) >"$logs/e2e$k" 2>&1 &
    extra_pids+=($!)
  done
fi

if [ ${#fast[@]} -gt 0 ] && [ ${#e2e[@]} -gt 0 ]; then
  # niced: the end-to-end tests are the longer path and wait on timeouts; these fill the gaps
  # in a process group of its own, so an interrupted run can stop it and mocha's child with it
  DATABASE_URL=$fast_db setsid nice -n 5 npx mocha "${fast[@]}" >"$logs/fast" 2>&1 &
  fast_pid=$!
  echo "== end-to-end tests (unit and API tests${extra_fleets:+, and end-to-end groups on fleets ${extra_fleets[*]},} run alongside; their logs follow)"
  if [ "$groups" -ge 2 ]; then npx mocha "${group1[@]}" 2>&1 | tee "$logs/e2e0"; else npx mocha "${e2e[@]}" 2>&1 | tee "$logs/e2e0"; fi
  e2e_rc=${PIPESTATUS[0]}
  tally "$logs/e2e0"
  for ((i = 0; i < ${#extra_pids[@]}; i++)); do
    k=$((i + 1))
    wait "${extra_pids[i]}"; group_rc=$?
    [ "$group_rc" = 0 ] || e2e_rc=1
    echo "== end-to-end tests on fleet ${extra_fleets[i]} (ran alongside)"
    [ "$group_rc" = 0 ] || [ -s "$logs/e2e$k" ] || cat "$logs/up$k"
    cat "$logs/e2e$k"
    tally "$logs/e2e$k"
  done
  wait "$fast_pid"; fast_rc=$?; fast_pid=
  echo "== unit and API tests (ran alongside the end-to-end tests)"
  cat "$logs/fast"
  tally "$logs/fast"
  [ "$e2e_rc" = 0 ] && [ "$fast_rc" = 0 ] || rc=1
else
  # one group, one process: unit and API tests on their own PostgreSQL, the others on the fleet's
  [ ${#fast[@]} -eq 0 ] || export DATABASE_URL=$fast_db
  npx mocha "${globs[@]}" 2>&1 | tee "$logs/all"
  rc=${PIPESTATUS[0]}
  tally "$logs/all"
fi
# every process's failures again, at the end: a CI page that shows only the tail shows them all
for log in "$logs"/e2e[0-9]* "$logs"/fast "$logs"/all; do
  [ -f "$log" ] && grep -Eq '^ +[0-9]+ failing' "$log" || continue
  echo "== failures in the ${log##*/} log (without stack lines)"
  sed -n '/^ \+[0-9]\+ failing/,$p' "$log" | grep -Ev '^ +at ' | head -80
done
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$rc"
