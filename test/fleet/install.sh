#!/usr/bin/env bash
# install.sh - install the Debian packages the test fleet needs, only those missing.
# Idempotent and fast (no apt call at all) when everything is present; CI runs it on fresh machines.
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
# command -> package that provides it
declare -A need=(
  [dockerd]=docker.io [sshd]=openssh-server [ssh]=openssh-client [ssh-keygen]=openssh-client
  [docker-registry]=docker-registry [docker-compose]=docker-compose [curl]=curl [htpasswd]=apache2-utils
  [ip]=iproute2 [nsenter]=util-linux [unshare]=util-linux [flock]=util-linux [ss]=iproute2
  [tc]=iproute2 [losetup]=mount [mkfs.ext4]=e2fsprogs [fallocate]=util-linux   # the chaos faults (lib/disk.sh, server.sh netem)
  [chromium]=chromium   # the dashboard's browser tests (test/support/browser.ts)
  [jq]=jq [git]=git     # README's Getting started (test/e2e/getting-started.test.ts), Git sources
  [caddy]=caddy           # test/fleet/caddy-image.sh (the ingress proxy)
  [mariadbd]=mariadb-server-core [mariadb-dump]=mariadb-client   # test/fleet/mariadb-image.sh
)
missing=()
for c in "${!need[@]}"; do command -v "$c" >/dev/null 2>&1 || missing+=("${need[$c]}"); done
# busybox must be the static one: it is copied into a scratch image
{ [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1; } || missing+=(busybox-static)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
if [ ${#missing[@]} -eq 0 ]; then echo "install.sh: all fleet packages present"; exit 0; fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "install.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian's postgresql package starts a cluster on 5432 we do not use; the fleet runs its own.
