#!/usr/bin/env bash
# A local lockd cluster on 127.0.0.1: ./cluster.sh start [3|5], then status/kill/pause/... (see usage).
# Data, logs and PID files live under .cluster/ (git-ignored). This script only ever signals the PIDs
# it recorded there, and checks that each still belongs to a lockd process of this cluster first.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DIR="$ROOT/.cluster"
BASE_PORT="${LOCKD_BASE_PORT:-7001}"
START_TIMEOUT="${LOCKD_START_TIMEOUT:-30}"
MAIN="$ROOT/dist/src/lockd/main.js"
STATUS_TOOL="$ROOT/dist/src/lockd/tools/cluster-status.js"

usage() {
  cat <<EOF
usage: ./cluster.sh COMMAND [ARG]
  start [3|5]   install and build if needed, start the nodes (default 5) on ports $BASE_PORT.. (LOCKD_BASE_PORT),
                HTTP (metrics, health, events) on $((BASE_PORT + 200)).., return once a leader is elected and print the endpoints
  status        table of id, address, pid, alive, role, term, leader, commit index
  stop          stop every node (SIGTERM, then SIGKILL after 5 s); data is kept
  kill I        SIGKILL node I (1-based)          pause I    SIGSTOP node I
  resume I      SIGCONT node I                    restart I  stop node I if running, start it again
  logs I        follow node I's log (pino JSON lines; Ctrl-C to quit)
  clean         stop every node and delete .cluster/
EOF
}

die() { echo "cluster.sh: $*" >&2; exit 1; }

size() { [[ -f "$DIR/size" ]] && cat "$DIR/size" || echo 0; }
port_of() { echo $((BASE_PORT + $1 - 1)); }
# Node I's HTTP endpoint (/metrics, /livez, /readyz, /events): BASE+200+I-1 (7201.. by default).
http_port_of() { echo $((BASE_PORT + 200 + $1 - 1)); }
peers() {
  local n=$1 out="" i
  for ((i = 1; i <= n; i++)); do out+="${out:+,}n$i=127.0.0.1:$(port_of "$i")"; done
  echo "$out"
}

# The recorded PID of node I if that process is alive and is still our lockd node.
live_pid() {
  local f="$DIR/n$1.pid" pid
  [[ -f "$f" ]] || return 1
  pid=$(cat "$f")
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--data-dir $DIR/n$1 " || return 1
  echo "$pid"
}

check_index() {
  local n; n=$(size)
  [[ "${1:-}" =~ ^[0-9]+$ ]] && (($1 >= 1 && $1 <= n)) || die "node index must be 1..$n (got '${1:-}'); is the cluster started?"
}

ensure_built() {
  if [[ ! -d "$ROOT/node_modules" ]]; then
    echo "installing dependencies (npm ci)..."
    (cd "$ROOT" && npm ci --no-audit --no-fund) || die "npm ci failed"
  fi
  if [[ ! -f "$MAIN" || ! -f "$STATUS_TOOL" ]] || [[ -n "$(find "$ROOT/src" "$ROOT/proto" -newer "$MAIN" -print -quit)" ]]; then
    echo "building (npm run build)..."
    (cd "$ROOT" && npm run build --silent) || die "build failed"
  fi
}

start_node() {
  local i=$1 n; n=$(size)
  if pid=$(live_pid "$i"); then echo "n$i already running (pid $pid)"; return; fi
  mkdir -p "$DIR"
  nohup node "$MAIN" --id "n$i" --listen "127.0.0.1:$(port_of "$i")" --peers "$(peers "$n")" \
    --data-dir "$DIR/n$i" --cluster-id "$(cat "$DIR/cluster-id")" --http-listen "127.0.0.1:$(http_port_of "$i")" \
    >>"$DIR/n$i.log" 2>&1 </dev/null &
  echo $! >"$DIR/n$i.pid"
}

stop_node() {
  local i=$1 pid k
  pid=$(live_pid "$i") || return 0
  kill -CONT "$pid" 2>/dev/null || true # a paused node cannot act on SIGTERM
  kill -TERM "$pid" 2>/dev/null || true
  for ((k = 0; k < 50; k++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  rm -f "$DIR/n$i.pid"
}

status_args() {
  local n i pid; n=$(size)
  for ((i = 1; i <= n; i++)); do
    pid=$(live_pid "$i" || cat "$DIR/n$i.pid" 2>/dev/null || echo "")
    echo "n$i=127.0.0.1:$(port_of "$i")=$pid"
  done
}

cmd_start() {
  local n=${1:-5} i
  [[ "$n" == 3 || "$n" == 5 ]] || die "cluster size must be 3 or 5 (got '$n')"
  local old; old=$(size)
  if ((old != 0 && old != n)); then die "an existing $old-node cluster is in .cluster/; run './cluster.sh clean' first"; fi
  ensure_built
  mkdir -p "$DIR"
  echo "$n" >"$DIR/size"
  [[ -f "$DIR/cluster-id" ]] || echo "local-$(date +%s)-$$" >"$DIR/cluster-id"
  for ((i = 1; i <= n; i++)); do start_node "$i"; done
  echo "waiting up to ${START_TIMEOUT}s for a leader..."
  # shellcheck disable=SC2046
  if ! node "$STATUS_TOOL" --wait-leader "$START_TIMEOUT" $(status_args); then
    echo "cluster.sh: no leader elected; see the logs: ./cluster.sh logs I (files in $DIR)" >&2
    exit 1
  fi
  echo
  echo "lockd is up. Endpoints: $(peers "$n" | sed 's/n[0-9]*=//g')"
  echo "Metrics, health and events (per node):"
  for ((i = 1; i <= n; i++)); do
    echo "  n$i  http://127.0.0.1:$(http_port_of "$i")/metrics  /livez  /readyz  /events"
  done
  echo "Try: node dist/src/client/lockctl.js --endpoints $(peers "$n" | sed 's/n[0-9]*=//g') status"
}

cmd_signal() {
  local sig=$1 i=$2 pid
  check_index "$i"
  pid=$(live_pid "$i") || die "n$i is not running"
  kill -"$sig" "$pid"
  echo "sent SIG$sig to n$i (pid $pid)"
}

cmd="${1:-}"
shift || true
case "$cmd" in
  start) cmd_start "$@" ;;
  status)
    (($(size) > 0)) || die "no cluster in .cluster/; run './cluster.sh start'"
    [[ -f "$STATUS_TOOL" ]] || die "not built; run './cluster.sh start' (or npm run build)"
    # shellcheck disable=SC2046
    node "$STATUS_TOOL" $(status_args)
    ;;
  stop)
    for ((i = 1; i <= $(size); i++)); do stop_node "$i"; done
    echo "stopped"
    ;;
  kill) cmd_signal KILL "${1:-}" ;;
  pause) cmd_signal STOP "${1:-}" ;;
  resume) cmd_signal CONT "${1:-}" ;;
  restart)
    check_index "${1:-}"
    ensure_built
    stop_node "$1"
    start_node "$1"
    echo "restarted n$1 (pid $(cat "$DIR/n$1.pid"))"
    ;;
  logs)
    check_index "${1:-}"
    exec tail -n 50 -F "$DIR/n$1.log"
    ;;
  clean)
    for ((i = 1; i <= $(size); i++)); do stop_node "$i"; done
    rm -rf "$DIR"
    echo "removed .cluster/"
    ;;
  -h | --help | help | "") usage ;;
  *) usage >&2; exit 2 ;;
esac
