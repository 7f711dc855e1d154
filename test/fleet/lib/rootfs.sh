# rootfs.sh - a container image from this machine's own files, no base image and no internet
# (sourced by pg-image.sh and mariadb-image.sh; up.sh's images.sh uses the busybox part): a rootfs of
# busybox, the binaries a test needs and the shared libraries ldd names, imported with `docker
# import` on s1's daemon, given what `import` cannot set by a one-line build, pushed to the fleet
# registry. Needs common.sh (log, die) and fleet.env (FLEET_REGISTRY).

# rootfs_busybox ROOT: busybox and one link per applet in ROOT/bin
rootfs_busybox() {
  local r=$1 a
  mkdir -p "$r/bin"
  cp "$(command -v busybox)" "$r/bin/busybox"
  for a in $("$r/bin/busybox" --list); do [ "$a" = busybox ] || ln -sf busybox "$r/bin/$a"; done
}

# rootfs_users ROOT [USER HOME SHELL]: root, nobody and the service's user (uid/gid 999); /tmp for all
rootfs_users() {
  local r=$1 user=${2:-} home=${3:-} shell=${4:-}
  mkdir -p "$r/etc" "$r/tmp" "$r/root"
  {
    echo 'root:x:0:0:root:/root:/bin/sh'
    [ -z "$user" ] || echo "$user:x:999:999:$user:$home:$shell"
    echo 'nobody:x:65534:65534:nobody:/:/bin/false'
  } >"$r/etc/passwd"
  { echo 'root:x:0:'; [ -z "$user" ] || echo "$user:x:999:"; echo 'nogroup:x:65534:'; } >"$r/etc/group"
  chmod 1777 "$r/tmp"
}

# rootfs_libraries ROOT FILE...: every shared library the files need (ldd), and the loader
rootfs_libraries() {
  local r=$1 f lib ld; shift
  for f in "$@"; do ldd "$f" 2>/dev/null || true; done \
    | awk '/=> \// {print $3} /^\s*\/lib/ {print $1}' | sort -u | while read -r lib; do
      mkdir -p "$r$(dirname "$lib")"; cp -L "$lib" "$r$lib"
    done
  for ld in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
    if [ -e "$ld" ]; then mkdir -p "$r$(dirname "$ld")"; cp -L "$ld" "$r$ld"; fi
  done
}

# push_rootfs_image BUILD_DIR NAME TAG ENV_VAR < Dockerfile lines: imports BUILD_DIR/rootfs as
# fleet/NAME-base:TAG, builds the lines on stdin on top of it (HEALTHCHECK, STOPSIGNAL, ENTRYPOINT:
# `docker import --change` takes no HEALTHCHECK), pushes $FLEET_REGISTRY/fleet/NAME:TAG, removes
# the local copies and the rootfs, and records the image in fleet.env as ENV_VAR
push_rootfs_image() {
  local b=$1 name=$2 tag=$3 var=$4 image=$FLEET_REGISTRY/fleet/$2:$3
  mkdir -p "$b/ctx"
  { echo "FROM fleet/$name-base:$tag"; cat; } >"$b/ctx/Dockerfile"
  (
    set -e
    export DOCKER_HOST=unix://$FLEET_ROOT/s1/docker.sock DOCKER_CONFIG=$b/docker-config DOCKER_BUILDKIT=0
    tar -C "$b/rootfs" -cf - . | docker import - "fleet/$name-base:$tag" >/dev/null
    docker build -q -t "$image" "$b/ctx" >"$b/build.log" 2>&1
    docker push "$image" >"$b/push.log" 2>&1
    docker rmi -f "$image" "fleet/$name-base:$tag" >/dev/null
  ) || die "building/pushing the $name image failed (see $b/*.log)"
  rm -rf "$b/rootfs"
  log "image pushed: $image"
  grep -q "^$var=" "$FLEET_ROOT/fleet.env" || echo "$var=$image" >>"$FLEET_ROOT/fleet.env"
}
