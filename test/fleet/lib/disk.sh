# disk.sh - a server's Docker root on a small loop-mounted ext4, and filling it (sourced by
# server-init.sh, server.sh and down.sh). The filesystem is mounted INSIDE the server's private mount
# namespace only: the host and the other servers never hold a copy of the mount, so once the server's
# processes are gone nothing keeps the loop device busy and down.sh can free it.
#   $FLEET_ROOT/sN/disk.img   the backing file (sparse)
#   $FLEET_ROOT/sN/disk.dev   the loop device, present while the disk is attached
#   $FLEET_ROOT/sN/data       the mount point (dockerd's --data-root)
DISK_FILL_NAME=.stevedore-chaos-fill   # the files disk_fill writes at the root of the filesystem

# loop_disk_attach DIR MB: a fresh ext4 of MB megabytes mounted on DIR/data. Must run in the
# server's mount namespace, with its dockerd stopped (or not started yet).
loop_disk_attach() {
  local dir=$1 mb=$2 dev
  case $mb in '' | *[!0-9]*) die "loop disk size must be a number of MB (got '$mb')" ;; esac
  [ "$mb" -ge 64 ] || die "a loop disk needs at least 64 MB (got $mb)"
  [ ! -e "$dir/disk.dev" ] || die "$dir already has a loop disk ($(cat "$dir/disk.dev"))"
  rm -f "$dir/disk.img"
  truncate -s "${mb}M" "$dir/disk.img"
  dev=$(losetup --find --show "$dir/disk.img") || die "no free loop device"
  echo "$dev" >"$dir/disk.dev"
  # -m 0: no blocks reserved for root (dockerd is root), so "Avail" is what anyone can still write
  mkfs.ext4 -q -F -m 0 -E nodiscard "$dev" || die "mkfs.ext4 $dev failed"
  mkdir -p "$dir/data"
  mount -n "$dev" "$dir/data" || die "could not mount $dev on $dir/data"
}

# loop_disk_detach DIR: unmounts DIR/data (in this mount namespace, if mounted there) and frees the
# loop devices backed by DIR/disk.img. Idempotent; safe after a failed attach.
loop_disk_detach() {
  local dir=$1
  if [ -f "$dir/disk.dev" ] && mountpoint -q "$dir/data" 2>/dev/null; then
    umount -n "$dir/data" 2>/dev/null || umount -n -l "$dir/data"
  fi
  loop_disk_free "$dir"
}

# loop_disk_free DIR: detaches every loop device backed by DIR/disk.img (from any namespace: the
# mount must be gone already, or going with the server's last process) and waits until it is free
loop_disk_free() {
  local dir=$1 dev devs k
  [ -e "$dir/disk.img" ] || { rm -f "$dir/disk.dev"; return 0; }
  for k in $(seq 1 100); do   # <= 5 s: a dying mount namespace lets go of the device a moment later
    devs=$(losetup -n -O NAME -j "$dir/disk.img" 2>/dev/null)
    [ -n "$devs" ] || break
    for dev in $devs; do losetup -d "$dev" 2>/dev/null; done
    sleep 0.05
  done
  devs=$(losetup -n -O NAME -j "$dir/disk.img" 2>/dev/null)
  [ -z "$devs" ] || { log "loop device $devs of $dir/disk.img is still busy"; return 1; }
  rm -f "$dir/disk.dev" "$dir/disk.img"
}

# disk_fill DIR: fills the loop disk on DIR/data up to the last block; prints the bytes written.
# Must run in the server's mount namespace.
disk_fill() {
  local dir=$1 avail before after k
  [ -f "$dir/disk.dev" ] && mountpoint -q "$dir/data" || die "$dir has no loop disk mounted"
  before=$(df -B1 --output=avail "$dir/data" | tail -1)
  # one preallocated file for the bulk (instant), then zeros until ENOSPC for the last blocks
  avail=$(( before > 8388608 ? before - 8388608 : 0 ))
  [ "$avail" = 0 ] || fallocate -l "$avail" "$dir/data/$DISK_FILL_NAME"
  # (ext4 reserves blocks for delayed allocation while writing, and gives some back once synced)
  dd if=/dev/zero of="$dir/data/$DISK_FILL_NAME.rest" bs=64k status=none 2>/dev/null || true
  for k in 1 2 3; do
    sync -f "$dir/data"
    after=$(df -B1 --output=avail "$dir/data" | tail -1)
    [ "$after" -gt 0 ] || break
    dd if=/dev/zero of="$dir/data/$DISK_FILL_NAME.rest" bs=4k oflag=append conv=notrunc status=none 2>/dev/null || true
  done
  echo $(( before - after ))
}

# disk_unfill DIR: removes what disk_fill wrote. Idempotent.
disk_unfill() {
  local dir=$1
  mountpoint -q "$dir/data" 2>/dev/null || return 0
  rm -f "$dir/data/$DISK_FILL_NAME" "$dir/data/$DISK_FILL_NAME.rest"
  sync -f "$dir/data" 2>/dev/null || true
}
