#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs and starts what the tests need (PostgreSQL,
# the local fleet of sshd + dockerd servers and a registry), type-checks, runs unit, API and
# end-to-end tests, and tears everything down. Usage: npm test [-- mocha globs...]
set -uo pipefail
cd "$(dirname "$0")/.."
export FLEET_ID=${FLEET_ID:-0}
[ -d node_modules ] || npm ci --no-audit --no-fund

cleanup() {
  [ -x test/fleet/down.sh ] && [ "${SKIP_FLEET:-0}" != 1 ] && bash test/fleet/down.sh >/dev/null 2>&1
  bash test/support/postgres.sh down >/dev/null 2>&1
}
trap cleanup EXIT

eval "$(bash test/support/postgres.sh up)" || { echo "could not start PostgreSQL" >&2; exit 1; }
export DATABASE_URL

if [ -x test/fleet/up.sh ] && [ "${SKIP_FLEET:-0}" != 1 ]; then
  bash test/fleet/install.sh || exit 1
  FLEET_PG=0 bash test/fleet/up.sh || { echo "fleet did not come up" >&2; exit 1; }
  set -a; . "/tmp/stevedore-fleet-$FLEET_ID/fleet.env"; set +a
  export DATABASE_URL=$(bash test/support/postgres.sh url)
fi

echo "== type check"
npx tsc --noEmit -p . || exit 1

globs=("$@")
[ ${#globs[@]} -gt 0 ] || globs=('test/unit/**/*.test.ts' 'test/api/**/*.test.ts' 'test/e2e/**/*.test.ts')
out=$(mktemp)
npx mocha "${globs[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
passed=$(grep -Eo '^ +[0-9]+ passing' "$out" | grep -Eo '[0-9]+' | tail -1)
failed=$(grep -Eo '^ +[0-9]+ failing' "$out" | grep -Eo '[0-9]+' | tail -1)
skipped=$(grep -Eo '^ +[0-9]+ pending' "$out" | grep -Eo '[0-9]+' | tail -1)
rm -f "$out"
echo "tests: ${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped"
exit "$rc"
