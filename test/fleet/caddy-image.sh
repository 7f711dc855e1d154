#!/usr/bin/env bash
# caddy-image.sh - build a Caddy 2 container image for the fleet registry from this machine's
# Debian `caddy` binary (no internet, no base image): busybox + caddy + the shared libraries ldd
# names, pushed as $REG/fleet/caddy:2 and recorded in fleet.env as FLEET_CADDY_IMAGE. Run after
# up.sh (it reads $FLEET_ROOT/fleet.env); the ingress tests run it lazily when fleet.env lacks the
# image. A few seconds.
#
# It behaves like the official caddy:2 image for what the proxy reconciler needs
# (reconcilers/proxy/): `caddy run` with the admin API on localhost:2019, busybox `wget` to reach
# it through `docker exec`, XDG_CONFIG_HOME=/config and XDG_DATA_HOME=/data, ports 80/443, CA
# certificates in /etc/ssl/certs (the host's bundle).
set -euo pipefail
RECIPE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$RECIPE_DIR/common.sh"
. "$RECIPE_DIR/lib/rootfs.sh"
set -a; . "$FLEET_ROOT/fleet.env"; set +a
command -v caddy >/dev/null || bash "$RECIPE_DIR/install.sh" >/dev/null
command -v caddy >/dev/null || die "no caddy binary (apt-get install -y caddy)"
b=$FLEET_ROOT/build-caddy; rm -rf "$b"; mkdir -p "$b/rootfs"/{usr/bin,etc/caddy,etc/ssl/certs,config,data,srv}
r=$b/rootfs
rootfs_busybox "$r"
cp "$(command -v caddy)" "$r/usr/bin/caddy"
rootfs_libraries "$r" "$(command -v caddy)"
[ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$r/etc/ssl/certs/"
printf ':80 {\n\trespond "Caddy works" 200\n}\n' >"$r/etc/caddy/Caddyfile"
rootfs_users "$r"
push_rootfs_image "$b" caddy 2 FLEET_CADDY_IMAGE <<DOCKERFILE
ENV PATH=/usr/bin:/bin XDG_CONFIG_HOME=/config XDG_DATA_HOME=/data
EXPOSE 80 443 2019
WORKDIR /srv
CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
DOCKERFILE
