#!/usr/bin/env bash
# server-init.sh I HOST_MNTNS - runs INSIDE fresh namespaces, started by up.sh as
#   nsenter --net=/run/netns/sd<ID>-sI -- unshare --mount --uts --propagation private -- server-init.sh I HOST_MNTNS
# Gives the server its own hostname, /run (default docker socket, exec-root, containerd, sshd privsep dir),
# private copies of $FLEET_PRIVATE_DIRS (/etc, /root, /srv, /opt, /tmp, ...: see common.sh), starts dockerd in the background and exec's into sshd -D.
# Everything mounted here lives only in this mount namespace and disappears with its last process.
set -Eeuo pipefail
source "$(dirname "$0")/common.sh"
i=$1; host_mntns=$2
name=$(server_name "$i"); dir=$FLEET_ROOT/$name

# Safety: never mount over the host's /run or /root.
[ "$(readlink /proc/self/ns/mnt)" != "$host_mntns" ] || die "refusing to continue: not in a private mount namespace"

hostname "$name"
# "mount -n": libmount would otherwise create /run/mount/utab on the host before /run is replaced
mount -n -t tmpfs -o mode=0755,size=64m "${FLEET_PREFIX}-$name-run" /run
mkdir -p /run/sshd /run/lock
# /etc & co. start as copies of the host's (sshd and its users need them); copied here, in
# parallel for all servers, to keep up.sh fast
for d in $FLEET_COPIED_DIRS; do
  [ -d "$d" ] && cp -a "$d/." "$dir/fs$d/"
done
[ -f "$dir/fs/etc/hostname" ] && echo "$name" >"$dir/fs/etc/hostname"
# /tmp is private, but $FLEET_ROOT lives under it (sshd_config, host key, docker data root):
# set it aside under the private /run, replace /tmp, and bind it back at the same path
private_tmp() {
  case $FLEET_ROOT in /tmp/*) ;; *) mount -n --bind "$dir/fs/tmp" /tmp; return ;; esac
  mkdir /run/fleet-root
  mount -n --bind "$FLEET_ROOT" /run/fleet-root
  mount -n --bind "$dir/fs/tmp" /tmp
  mkdir -p "$FLEET_ROOT"
  mount -n --move /run/fleet-root "$FLEET_ROOT"
  rmdir /run/fleet-root
}
for d in $FLEET_PRIVATE_DIRS; do
  [ -d "$d" ] || continue
  if [ "$d" = /tmp ]; then private_tmp; else mount -n --bind "$dir/fs$d" "$d"; fi
done
printf '127.0.0.1 localhost\n::1 localhost\n%s %s\n' "$(server_ip "$i")" "$name" >"$dir/hosts"
mount -n --bind "$dir/hosts" /etc/hosts

# FLEET_LOOP_DISK_MB: the Docker root on a small ext4 of its own (test/fleet/lib/disk.sh), mounted
# here, in this namespace only, before dockerd starts; a disk that fills up stops this server alone
if [ "${FLEET_LOOP_DISK_MB:-0}" != 0 ]; then
  source "$FLEET_DIR/lib/disk.sh"
  loop_disk_attach "$dir" "$FLEET_LOOP_DISK_MB"
fi

# own cgroup parent: the default "docker" parent is shared by every dockerd on the host, so
# down.sh could never tell whose it is and it would outlive the fleet.
# own network namespace: the default docker0 and iptables=true stay private to this server
args=(--data-root "$dir/data" --pidfile "$dir/dockerd.pid"
      -H unix:///var/run/docker.sock -H "unix://$dir/docker.sock"
      --shutdown-timeout "$FLEET_DOCKER_SHUTDOWN_TIMEOUT"
      --insecure-registry "$(registry_addr)" --insecure-registry "$(auth_registry_addr)" --insecure-registry "$(spare_registry_addr)"
      --cgroup-parent "$(cgroup_parent "$i")")
[ -n "${FLEET_STORAGE_DRIVER:-}" ] && args+=(--storage-driver "$FLEET_STORAGE_DRIVER")
[ -n "${FLEET_DOCKERD_ARGS:-}" ] && read -r -a extra <<<"$FLEET_DOCKERD_ARGS" && args+=("${extra[@]}")

printf '%s\n' "${args[@]}" >"$dir/dockerd.args"   # reused by server.sh start-docker
dockerd "${args[@]}" >>"$dir/dockerd.log" 2>&1 &
echo $! >"$dir/dockerd.launch.pid"
exec /usr/sbin/sshd -D -e -f "$dir/sshd_config" 2>>"$dir/sshd.log"
