#!/bin/sh
# Stevedore monitoring agent: reads the server's resources from /proc, df and `docker stats`, and
# posts one sample per interval to the controller's agent ingest route. Plain POSIX sh with curl
# (or wget): it runs on any Linux server that runs Docker, with nothing to install.
#
#   stevedore-agent start     run it for good: a systemd unit when systemd runs, else a supervised loop
#   stevedore-agent stop      stop it and undo what start set up (unit, process)
#   stevedore-agent status    key=value lines of what is observed (installed, version, supervisor, running, pid)
#   stevedore-agent run       the sampling loop in the foreground (what the unit / the loop runs)
#   stevedore-agent sample    print one sample as JSON and exit (every metric)
#   stevedore-agent version
#
# agent.env beside this file holds STEVEDORE_URL=<controller base URL> and STEVEDORE_AGENT_TOKEN=agt_...
# (raw values, one per line, never sourced). It is read again before every post, so a regenerated
# token takes effect without a restart.
AGENT_VERSION=1.0.0
UNIT_NAME=stevedore-agent.service
UNIT_FILE=/etc/systemd/system/$UNIT_NAME

SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
DIR=$(dirname "$SELF")
ENV_FILE=$DIR/agent.env
PID_FILE=$DIR/agent.pid
LOG_FILE=$DIR/agent.log
LOG_MAX_BYTES=262144

log() { printf '%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }

env_value() { sed -n "s/^$1=//p" "$ENV_FILE" 2>/dev/null | head -n 1; }
load_env() {
  URL=$(env_value STEVEDORE_URL)
  TOKEN=$(env_value STEVEDORE_AGENT_TOKEN)
}

# --- HTTP ----------------------------------------------------------------------------------------
# http METHOD PATH [BODY_FILE]: the answer's body goes to $DIR/response, its status to HTTP_STATUS
# (000 when the controller could not be reached). curl gets the token through its config on
# stdin, so it never shows in the process list.
http() {
  HTTP_STATUS=000
  if command -v curl >/dev/null 2>&1; then
    set -- "$1" "$URL$2" "${3:-}"
    if [ -n "$3" ]; then
      HTTP_STATUS=$(printf 'header = "Authorization: Bearer %s"\n' "$TOKEN" | curl -sS -m 20 -K - -o "$DIR/response" -w '%{http_code}' \
        -X "$1" -H "X-Agent-Version: $AGENT_VERSION" -H 'Content-Type: application/json' --data-binary "@$3" "$2") || HTTP_STATUS=000
    else
      HTTP_STATUS=$(printf 'header = "Authorization: Bearer %s"\n' "$TOKEN" | curl -sS -m 20 -K - -o "$DIR/response" -w '%{http_code}' \
        -X "$1" -H "X-Agent-Version: $AGENT_VERSION" "$2") || HTTP_STATUS=000
    fi
  elif command -v wget >/dev/null 2>&1; then
    # wget has no way to read headers from a file: the token is on its command line (prefer curl)
    if [ -n "${3:-}" ]; then
      HTTP_STATUS=$(wget -S -q -T 20 -O "$DIR/response" --header "Authorization: Bearer $TOKEN" --header "X-Agent-Version: $AGENT_VERSION" \
        --header 'Content-Type: application/json' --post-file "$3" "$URL$2" 2>&1 | awk '/^ *HTTP\//{c=$2} END{printf "%03d", c}')
    else
      HTTP_STATUS=$(wget -S -q -T 20 -O "$DIR/response" --header "Authorization: Bearer $TOKEN" --header "X-Agent-Version: $AGENT_VERSION" \
        "$URL$2" 2>&1 | awk '/^ *HTTP\//{c=$2} END{printf "%03d", c}')
    fi
  else
    log "neither curl nor wget is installed: cannot reach the controller"
  fi
}

# The configuration (GET /api/agent/config, and every ingest answer) is flat JSON: intervalSec and
# collect, the metrics the environment's monitoring toggles enable.
read_config() {
  i=$(sed -n 's/.*"intervalSec":\([0-9][0-9]*\).*/\1/p' "$DIR/response" 2>/dev/null | head -n 1)
  c=$(sed -n 's/.*"collect":\[\([^]]*\)\].*/\1/p' "$DIR/response" 2>/dev/null | head -n 1)
  [ -n "$i" ] && [ "$i" -gt 0 ] && INTERVAL=$i
  [ -n "$i" ] && COLLECT=" $(printf '%s' "$c" | tr -d '"' | tr ',' ' ') " && CONFIGURED=yes
}
fetch_config() {
  http GET /api/agent/config
  if [ "$HTTP_STATUS" = 200 ]; then read_config; else log "configuration fetch answered $HTTP_STATUS"; fi
}
want() { case $COLLECT in *" $1 "*) return 0 ;; esac; return 1; }

# --- readings ------------------------------------------------------------------------------------
# user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
cpu_ticks() { awk '/^cpu /{t=0; for (i=2; i<=9 && i<=NF; i++) t+=$i; printf "%.0f %.0f\n", t, $5+$6; exit}' /proc/stat; }
cpu_percent() {
  if [ -z "${PREV_TICKS:-}" ]; then PREV_TICKS=$(cpu_ticks); sleep 1; fi
  now=$(cpu_ticks)
  printf '%s %s\n' "$PREV_TICKS" "$now" | awk '{dt=$3-$1; di=$4-$2; if (dt>0) printf "%.2f", 100*(dt-di)/dt; else printf "0"}'
  PREV_TICKS=$now
}
meminfo() { awk -v k="$1:" '$1==k {printf "%.0f", $2*1024; exit}' /proc/meminfo; }
docker_root() {
  r=$(docker info --format '{{.DockerRootDir}}' 2>/dev/null)
  [ -n "$r" ] && [ -d "$r" ] && { echo "$r"; return; }
  [ -d /var/lib/docker ] && echo /var/lib/docker
}
# docker stats sizes ("1.5MiB", "2GB") in bytes
CONTAINERS_AWK='
function bytes(v,   n, u) {
  n = v; sub(/[A-Za-z]+$/, "", n); u = v; sub(/^[0-9.]+/, "", u)
  if (u == "KiB") n *= 1024; else if (u == "MiB") n *= 1048576; else if (u == "GiB") n *= 1073741824; else if (u == "TiB") n *= 1099511627776
  else if (u == "kB" || u == "KB") n *= 1000; else if (u == "MB") n *= 1000000; else if (u == "GB") n *= 1000000000; else if (u == "TB") n *= 1000000000000
  return n
}
NF < 3 { next }
{
  name = $1; cpu = $2; sub(/%$/, "", cpu); split($3, m, " / "); gsub(/ /, "", m[1]); gsub(/ /, "", m[2])
  # only names Docker can give: anything else would make the controller refuse the whole sample
  if (name !~ /^[A-Za-z0-9][A-Za-z0-9_.-]*$/) next
  if (cpu == "--" || cpu == "") cpu = 0
  printf "%s{\"name\":\"%s\",\"cpuPercent\":%.2f,\"memoryUsedBytes\":%.0f,\"memoryLimitBytes\":%.0f}", (n++ ? "," : ""), name, cpu, bytes(m[1]), bytes(m[2])
}'

# One sample as JSON, with only the metrics COLLECT names (a metric that cannot be read is left out).
sample() {
  out=
  add() { [ -n "$2" ] && out="$out\"$1\":$2,"; }
  if want cpu; then add cpuPercent "$(cpu_percent)"; fi
  if want memory; then
    total=$(meminfo MemTotal); avail=$(meminfo MemAvailable)
    [ -n "$total" ] && [ -n "$avail" ] && { add memoryUsedBytes "$(awk -v t="$total" -v a="$avail" 'BEGIN{printf "%.0f", t-a}')"; add memoryTotalBytes "$total"; }
  fi
  if want swap; then
    total=$(meminfo SwapTotal); free=$(meminfo SwapFree)
    [ -n "$total" ] && [ -n "$free" ] && { add swapUsedBytes "$(awk -v t="$total" -v f="$free" 'BEGIN{printf "%.0f", t-f}')"; add swapTotalBytes "$total"; }
  fi
  if want disk; then
    root=$(docker_root)
    if [ -n "$root" ]; then
      set -- $(df -Pk "$root" 2>/dev/null | awk 'NR==2 {printf "%.0f %.0f", $3*1024, $2*1024}')
      [ $# -eq 2 ] && { add diskUsedBytes "$1"; add diskTotalBytes "$2"; }
    fi
  fi
  # awk, not read: dash reads /proc/sys files a byte at a time and gets only the first one
  if want load; then
    set -- $(awk '{print $1, $2, $3}' /proc/loadavg 2>/dev/null)
    [ $# -eq 3 ] && { add load1 "$1"; add load5 "$2"; add load15 "$3"; }
  fi
  if want fds; then add openFds "$(awk '{printf "%d", $1}' /proc/sys/fs/file-nr 2>/dev/null)"; fi
  if want tcp; then add tcpConnections "$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4 == "01" {n++} END {printf "%d", n}')"; fi
  if want processes; then add processes "$(set -- /proc/[0-9]*; echo $#)"; fi
  if want containers; then
    stats=$(docker stats --no-stream --format '{{.Name}}	{{.CPUPerc}}	{{.MemUsage}}' 2>/dev/null) && \
      add containers "[$(printf '%s\n' "$stats" | awk -F '\t' "$CONTAINERS_AWK")]"
  fi
  printf '{%s}\n' "${out%,}"
}

# --- the loop ------------------------------------------------------------------------------------
run() {
  INTERVAL=60; COLLECT=; CONFIGURED=; LAST=
  while :; do
    load_env
    if [ -z "$URL" ] || [ -z "$TOKEN" ]; then log "$ENV_FILE has no STEVEDORE_URL or STEVEDORE_AGENT_TOKEN"
    else
      [ -n "$CONFIGURED" ] || fetch_config
      if [ -n "$CONFIGURED" ]; then
        sample >"$DIR/sample.json"
        http POST /api/agent/ingest "$DIR/sample.json"
        # every ingest answer carries the current configuration: toggles apply at the next sample
        case $HTTP_STATUS in 2??) read_config ;; esac
        # log changes of outcome only, so a long outage writes one line, not one per interval
        [ "$HTTP_STATUS" != "$LAST" ] && log "ingest answered $HTTP_STATUS$( [ "$HTTP_STATUS" = 401 ] && echo ' (token refused)')"
        LAST=$HTTP_STATUS
      fi
    fi
    trim_log
    sleep "$INTERVAL"
  done
}
trim_log() {
  [ -f "$LOG_FILE" ] && [ "$(wc -c <"$LOG_FILE")" -gt "$LOG_MAX_BYTES" ] && : >"$LOG_FILE"
  return 0
}

# --- keeping it running --------------------------------------------------------------------------
has_systemd() { [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; }
loop_pid() {
  p=$(cat "$PID_FILE" 2>/dev/null) || return 1
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null && tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "$SELF supervise" && echo "$p"
}
# Without systemd: a supervisor in its own session (it outlives the ssh login that started it)
# restarts the sampling loop whenever it ends; stop kills the whole process group.
supervise() {
  echo $$ >"$PID_FILE"
  # reset the trap first: `kill 0` signals this shell too, and a trap that caught its own signal would spin
  trap 'trap - TERM INT; rm -f "$PID_FILE"; kill -TERM 0 2>/dev/null; exit 0' TERM INT
  while :; do
    /bin/sh "$SELF" run &
    wait $!
    log "sampling loop ended ($?): restarting in 5 s"
    sleep 5
  done
}
start() {
  [ -f "$ENV_FILE" ] || { log "$ENV_FILE is missing"; exit 1; }
  stop_loop
  if has_systemd; then
    cat >"$UNIT_FILE" <<UNIT
[Unit]
Description=Stevedore monitoring agent
After=network-online.target docker.service
Wants=network-online.target

[Service]
ExecStart=/bin/sh $SELF run
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
UNIT
    systemctl daemon-reload && systemctl enable "$UNIT_NAME" >/dev/null 2>&1 && systemctl restart "$UNIT_NAME"
    return
  fi
  if command -v setsid >/dev/null 2>&1; then
    setsid /bin/sh "$SELF" supervise </dev/null >>"$LOG_FILE" 2>&1 &
  else
    nohup /bin/sh "$SELF" supervise </dev/null >>"$LOG_FILE" 2>&1 &
  fi
  n=0
  # a loaded machine may take seconds to start a shell
  while [ $n -lt 300 ]; do loop_pid >/dev/null && return 0; n=$((n + 1)); sleep 0.1; done
  log "the supervised loop did not start"; exit 1
}
stop_loop() {
  p=$(loop_pid) || { rm -f "$PID_FILE"; return 0; }
  # the supervisor leads its own process group (setsid): signal the group, loop and sleep included
  # (dash's kill takes no `--`: a negative pid right after the signal is a group)
  kill -TERM "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
  n=0
  while [ $n -lt 50 ] && kill -0 "-$p" 2>/dev/null; do n=$((n + 1)); sleep 0.1; done
  kill -KILL "-$p" 2>/dev/null
  rm -f "$PID_FILE"
}
stop() {
  if [ -f "$UNIT_FILE" ] && command -v systemctl >/dev/null 2>&1; then
    systemctl disable --now "$UNIT_NAME" >/dev/null 2>&1
    rm -f "$UNIT_FILE"
    systemctl daemon-reload
  fi
  rm -f "$UNIT_FILE"
  stop_loop
}
status() {
  echo installed=yes
  echo "version=$AGENT_VERSION"
  if [ -f "$UNIT_FILE" ] && has_systemd; then
    echo supervisor=systemd
    if systemctl is-active --quiet "$UNIT_NAME"; then echo running=yes; else echo running=no; fi
    echo "pid=$(systemctl show -p MainPID --value "$UNIT_NAME" 2>/dev/null)"
  elif p=$(loop_pid); then
    echo supervisor=loop; echo running=yes; echo "pid=$p"
  else
    echo supervisor=none; echo running=no; echo pid=
  fi
}

case ${1:-} in
  run) run ;;
  supervise) supervise ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  sample) COLLECT=" cpu memory swap disk load fds tcp processes containers "; sample ;;
  version) echo "$AGENT_VERSION" ;;
  *) echo "usage: $0 start|stop|status|run|sample|version" >&2; exit 2 ;;
esac
