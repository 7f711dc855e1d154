# servers.sh - start the servers' sshd + dockerd in their namespaces (sourced by up.sh)
write_sshd_config() {   # write_sshd_config I DIR
  local i=$1 dir=$2
  cat >"$dir/sshd_config" <<CFG
ListenAddress $(server_ip "$i"):22
HostKey $dir/ssh_host_ed25519_key
PidFile $dir/sshd.pid
AuthorizedKeysFile .ssh/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes yes
UseDNS no
PrintMotd no
PrintLastLog no
MaxStartups 200:30:400
MaxSessions 100
AllowStreamLocalForwarding yes
AllowTcpForwarding yes
SetEnv FLEET_SERVER=s$i FLEET_ID=$FLEET_ID
Subsystem sftp internal-sftp
LogLevel INFO
CFG
}
# host key fingerprint as OpenSSH prints it: SHA256:<base64 without padding>
host_fingerprint() { ssh-keygen -lf "$1" | awk '{print $2}'; }

start_servers() {
  : >"$FLEET_ROOT/known_hosts"; : >"$FLEET_ROOT/ssh_config"
  local d i name dir ip_
  for d in $FLEET_PRIVATE_DIRS; do   # bind-mount targets must exist on the host
    case $d in /etc|/root|/srv|/opt|/opt/*|/tmp|/home/*|/var/lib/*|/app*|/data*) ;; *) die "FLEET_PRIVATE_DIRS: refusing $d" ;; esac
    [ -d "$d" ] || { mkdir -p "$d"; echo "$d" >>"$FLEET_CREATED_DIRS"; }
  done
  for i in $(seq 1 "$FLEET_SERVERS"); do
    name=$(server_name "$i"); dir=$FLEET_ROOT/$name; ip_=$(server_ip "$i")
    mkdir -p "$dir/data"
    for d in $FLEET_PRIVATE_DIRS; do mkdir -p "$dir/fs$d"; done
    [ -d "$dir/fs/tmp" ] && chmod 1777 "$dir/fs/tmp"
    chmod 700 "$dir/fs/root"; mkdir -m 700 -p "$dir/fs/root/.ssh"
    install -m 600 "$FLEET_ROOT/keys/id_ed25519.pub" "$dir/fs/root/.ssh/authorized_keys"
    ssh-keygen -q -t ed25519 -N '' -C "stevedore-fleet$FLEET_ID-$name" -f "$dir/ssh_host_ed25519_key"
    write_sshd_config "$i" "$dir"
    nsenter --net="/run/netns/$(netns_name "$i")" -- unshare --mount --uts --propagation private -- \
      "$FLEET_DIR/server-init.sh" "$i" "$HOST_MNTNS" </dev/null >>"$dir/init.log" 2>&1 9>&- &
    echo $! >"$dir/sshd.launch.pid"
    echo "$ip_ $(cut -d' ' -f1,2 "$dir/ssh_host_ed25519_key.pub")" >>"$FLEET_ROOT/known_hosts"
    cat >>"$FLEET_ROOT/ssh_config" <<CFG
Host $name
  HostName $ip_
  Port 22
  User root
  IdentityFile $FLEET_ROOT/keys/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $FLEET_ROOT/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
  ConnectTimeout 5

CFG
  done
}

docker_ok() { curl -fsS --max-time 2 --unix-socket "$1" http://docker/_ping; }
wait_dockerds() {
  local i k dir
  for i in $(seq 1 "$FLEET_SERVERS"); do
    dir=$FLEET_ROOT/$(server_name "$i")
    for k in $(seq 1 1200); do   # <= 60 s, but fail fast if dockerd or the namespace launcher died
      docker_ok "$dir/docker.sock" >/dev/null 2>&1 && break
      if ! pid_alive "$(cat "$dir/sshd.launch.pid")" || { [ -f "$dir/dockerd.launch.pid" ] && ! pid_alive "$(cat "$dir/dockerd.launch.pid")"; } || [ "$k" = 1200 ]; then
        tail -n 15 "$dir/dockerd.log" "$dir/init.log" >&2 2>/dev/null; die "dockerd s$i did not come up"
      fi
      sleep 0.05
    done
  done
}

# sshd answers AND routes to the right dockerd (hostname + data root prove the namespaces)
check_server() {
  local i=$1 out
  out=$(ssh -F "$FLEET_ROOT/ssh_config" "$(server_name "$i")" 'echo "$(hostname) $(docker info --format "{{.Name}} {{.DockerRootDir}}")"' 2>&1) || return 1
  [ "$out" = "s$i s$i $FLEET_ROOT/s$i/data" ] || { echo "s$i: unexpected answer: $out" >&2; return 1; }
}
start_ssh_checks() {
  CHECK_JOBS=()
  local i
  for i in $(seq 1 "$FLEET_SERVERS"); do
    ( dir=$FLEET_ROOT/$(server_name "$i")
      wait_for 30 check_server "$i" || { check_server "$i" || true; tail -20 "$dir/sshd.log" "$dir/init.log" >&2; exit 1; }
      readlink "/proc/$(cat "$dir/sshd.pid")/ns/mnt" >"$dir/mntns"
      [ "$(cat "$dir/mntns")" != "$HOST_MNTNS" ] || { echo "s$i is not in its own mount namespace" >&2; exit 1; }
    ) 9>&- &
    CHECK_JOBS+=($!)
  done
}
