#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs and starts what the tests need (the local
# fleet: sshd + dockerd servers, a registry and PostgreSQL), type-checks, runs unit, API and
# end-to-end tests, and tears everything down.
#   npm test                         # everything
#   npm test -- 'test/api/**/*.test.ts'
#   SKIP_FLEET=1 npm test -- ...     # only a PostgreSQL (test/support/postgres.sh), no servers
set -uo pipefail
cd "$(dirname "$0")/.."
export FLEET_ID=${FLEET_ID:-0}
[ -d node_modules ] || npm ci --no-audit --no-fund

cleanup() {
  if [ "${SKIP_FLEET:-0}" = 1 ]; then bash test/support/postgres.sh down >/dev/null 2>&1
  else bash test/fleet/down.sh >/dev/null 2>&1; fi
}
trap cleanup EXIT

if [ "${SKIP_FLEET:-0}" = 1 ]; then
  eval "$(bash test/support/postgres.sh up)" || { echo "could not start PostgreSQL" >&2; exit 1; }
  export DATABASE_URL
else
  bash test/fleet/up.sh || { echo "the test fleet did not come up" >&2; exit 1; }
  set -a; . "/tmp/stevedore-fleet-$FLEET_ID/fleet.env"; set +a
fi

echo "== type check"
# typescript itself, by path: typescript-js (TypeScript 6, for dependency-cruiser) also ships a `tsc` bin
node node_modules/typescript/bin/tsc --noEmit -p . || exit 1
node node_modules/typescript/bin/tsc --noEmit -p dashboard || exit 1   # the browser code (DOM types)

globs=("$@")
[ ${#globs[@]} -gt 0 ] || globs=('test/unit/**/*.test.ts' 'test/api/**/*.test.ts' 'test/e2e/**/*.test.ts')
out=$(mktemp)
npx mocha "${globs[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
count() { grep -Eo "^ +[0-9]+ $1" "$out" | grep -Eo '[0-9]+' | tail -1; }
passed=$(count passing); failed=$(count failing); skipped=$(count pending)
echo "tests: ${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped"
rm -f "$out"
exit "$rc"
