#!/usr/bin/env bash
# A local lockd cluster on 127.0.0.1: ./cluster.sh start [3|5] [--tls], then status/kill/pause/... (see usage).
# Node I serves clients on BASE+I-1 and peers on BASE+100+I-1 (7001.. and 7101.. by default).
# Data, logs, PID files and (with --tls) certificates live under .cluster/ (git-ignored; LOCKD_CLUSTER_DIR moves it: tests and
# demos run their own cluster elsewhere). This script only ever signals the PIDs it recorded there, and checks that each still
# belongs to a lockd process of this cluster first.
# Membership: .cluster/members lists the current members' indexes; ids are never reused (add takes the next index ever used).
set -euo pipefail
# Everything under .cluster/ is private (data dirs, logs, the cluster id, keys): files 0600, dirs 0700.
umask 077

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DIR="$(realpath -m "${LOCKD_CLUSTER_DIR:-$ROOT/.cluster}")"
BASE_PORT="${LOCKD_BASE_PORT:-7001}"
START_TIMEOUT="${LOCKD_START_TIMEOUT:-30}"
MAIN="$ROOT/dist/src/lockd/main.js"
LOCKCTL="$ROOT/dist/src/client/lockctl.js"
STATUS_TOOL="$ROOT/dist/src/lockd/tools/cluster-status.js"
TLS_DIR="$DIR/tls"

usage() {
  cat <<EOF
usage: ./cluster.sh COMMAND [ARG]
  start [3|5] [--tls]
                install and build if needed, start the nodes (default 5): clients on ports $BASE_PORT.. (LOCKD_BASE_PORT),
                peers on $((BASE_PORT + 100)).., HTTP (dashboard, metrics, health, events) on $((BASE_PORT + 200)).., return once a leader is elected and print the endpoints.
                --tls: make a throwaway CA and certificates in .cluster/tls/ (openssl) and run with mutual TLS,
                client-certificate auth and access rules (--acl, admin: root); lockctl then uses
                .cluster/tls/root.* (principal root) by itself; grant others rules with lockctl acl grant
  cert NAME [--read-only]
                issue .cluster/tls/NAME.crt / NAME.key, a client certificate for principal NAME (CN=NAME);
                --read-only also grants it read on '' (lockctl acl grant NAME read ''): enough for the dashboard
  status        table of id, address, pid, alive, role, term, leader, commit index; then the member list
  add           start a new node under the next unused id as a learner (--join), wait until it has caught up, promote it
  remove I      remove node nI from the cluster for good (it stops itself); not the leader: transfer leadership first
  replace I     the dead-disk drill: kill nI, wipe its data, add a fresh node under a new id, promote it, remove nI
  stop          stop every node (SIGTERM, then SIGKILL after 5 s); data is kept
  kill I        SIGKILL node I (1-based)          pause I    SIGSTOP node I
  resume I      SIGCONT node I                    restart I  stop node I if running, start it again
  isolate I / heal I / clock-jump I MS
                test-only faults, for nodes started with LOCKD_TEST_FAULTS=1 (--unsafe-test-faults): drop node I's
                Raft traffic to and from its peers / let it flow again / leap its lease clock's source forward MS ms
  power-cut I|all
                kill -9 node I (or every node) and drop every write its disk had not fsynced; for a cluster made with
                LOCKD_LAZYFS=1 ./cluster.sh start (each data dir on a lazyfs mount: test/faults/lazyfs/README.md).
                Restart with ./cluster.sh start. LOCKD_UNSAFE_NO_FSYNC=1 at start: nodes sync nothing (a control build)
  logs I        follow node I's log (pino JSON lines; Ctrl-C to quit)
  clean         stop every node and delete .cluster/
EOF
}

die() { echo "cluster.sh: $*" >&2; exit 1; }

# The highest node index ever used (the next node added gets size+1).
size() { [[ -f "$DIR/size" ]] && cat "$DIR/size" || echo 0; }
# The current members' indexes, one per line (a cluster from before membership changes: 1..size).
members() {
  if [[ -f "$DIR/members" ]]; then cat "$DIR/members"; else local i; for ((i = 1; i <= $(size); i++)); do echo "$i"; done; fi
}
is_member() { members | grep -qx -- "$1"; }
set_members() { printf '%s\n' "$@" | grep -v '^$' | sort -n >"$DIR/members.tmp" && mv "$DIR/members.tmp" "$DIR/members"; }
port_of() { echo $((BASE_PORT + $1 - 1)); }
peer_port_of() { echo $((BASE_PORT + 100 + $1 - 1)); }
# Node I's HTTP endpoint (/metrics, /livez, /readyz, /events): BASE+200+I-1 (7201.. by default).
http_port_of() { echo $((BASE_PORT + 200 + $1 - 1)); }
# --peers: every member's PEER address (after a membership change only the addresses count: the data dir has the configuration).
peers() {
  local out="" i
  for i in $(members); do out+="${out:+,}n$i=127.0.0.1:$(peer_port_of "$i")"; done
  echo "$out"
}
# What clients dial: every member's client address.
endpoints() {
  local out="" i
  for i in $(members); do out+="${out:+,}127.0.0.1:$(port_of "$i")"; done
  echo "$out"
}
tls_on() { [[ -f "$TLS_DIR/ca.crt" ]]; }

# Certificates (Debian's openssl, EC P-256, valid 30 days): a CA, then leaf certificates it signs.
openssl_quiet() { openssl "$@" 2>"$TLS_DIR/openssl.err" || { cat "$TLS_DIR/openssl.err" >&2; die "openssl $1 failed"; }; }
make_ca() {
  command -v openssl >/dev/null || die "--tls needs openssl (apt-get install openssl)"
  mkdir -p "$TLS_DIR"
  chmod 700 "$TLS_DIR"
  openssl_quiet req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -keyout "$TLS_DIR/ca.key" -out "$TLS_DIR/ca.crt" -subj "/CN=lockd local CA $(date +%s)" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
}
# issue FILE CN USAGE [SAN]: USAGE is serverAuth,clientAuth (a node) or clientAuth (a client).
issue() {
  local file=$1 cn=$2 usage=$3 san=${4:-} ext="$TLS_DIR/$1.ext"
  { [[ -n "$san" ]] && echo "subjectAltName=$san"; echo "extendedKeyUsage=$usage"; echo "basicConstraints=CA:FALSE"; } >"$ext"
  openssl_quiet req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$TLS_DIR/$file.key" -out "$TLS_DIR/$file.csr" -subj "/CN=$cn"
  openssl_quiet x509 -req -in "$TLS_DIR/$file.csr" -CA "$TLS_DIR/ca.crt" -CAkey "$TLS_DIR/ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days 30 -out "$TLS_DIR/$file.crt" -extfile "$ext"
  chmod 600 "$TLS_DIR/$file.key"
  rm -f "$TLS_DIR/$file.csr" "$ext"
}
# A member's certificate names it as a peer (DNS:nI.peer.lockd) and serves the client port (localhost, 127.0.0.1).
issue_node() { issue "n$1" "n$1" serverAuth,clientAuth "DNS:n$1.peer.lockd,DNS:localhost,IP:127.0.0.1"; }
make_tls() {
  local n=$1 i
  make_ca
  for ((i = 1; i <= n; i++)); do issue_node "$i"; done
  issue root root clientAuth
  echo "made a CA and certificates in $TLS_DIR (node nI.crt/nI.key, admin client root.crt/root.key)"
}
tls_flags() {
  tls_on || return 0
  echo "--tls-cert $TLS_DIR/n$1.crt --tls-key $TLS_DIR/n$1.key --tls-ca $TLS_DIR/ca.crt --client-cert-auth --acl --admin root"
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

# flag_state PID FLAG: "on" if process PID was started with FLAG, else "off".
flag_state() { tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | grep -qx -- "$2" && echo on || echo off; }

check_index() {
  [[ "${1:-}" =~ ^[0-9]+$ ]] && is_member "$1" || die "node index must be one of the members: $(members | tr '\n' ' ')(got '${1:-}'); is the cluster started?"
}

ensure_built() {
  [[ "${LOCKD_SKIP_BUILD:-}" == 1 ]] && return 0 # the caller built dist/ itself (tests)
  if [[ ! -d "$ROOT/node_modules" ]]; then
    echo "installing dependencies (npm ci)..."
    (cd "$ROOT" && npm ci --no-audit --no-fund) || die "npm ci failed"
  fi
  if [[ ! -f "$MAIN" || ! -f "$STATUS_TOOL" || ! -f "$LOCKCTL" ]] || [[ -n "$(find "$ROOT/src" "$ROOT/proto" "$ROOT/dashboard" -newer "$MAIN" -print -quit)" ]]; then
    echo "building (npm run build)..."
    (cd "$ROOT" && npm run build --silent) || die "build failed"
  fi
}

# A node added after the start (index above the bootstrap size) runs with --join: a fresh data dir then learns the
# configuration from the cluster (on an existing data dir --join changes nothing).
start_node() {
  local i=$1 join=""
  if pid=$(live_pid "$i"); then echo "n$i already running (pid $pid)"; return; fi
  mkdir -p "$DIR"
  local faults=()
  [[ -f "$DIR/test-faults" ]] && faults=(--unsafe-test-faults "$DIR/n$i.fault")
  [[ -f "$DIR/unsafe-no-fsync" ]] && faults+=(--unsafe-no-fsync)
  [[ -f "$DIR/lazyfs" ]] && mount_disk "$i"
  (( i > $(cat "$DIR/bootstrap-size" 2>/dev/null || size) )) && join="--join"
  # shellcheck disable=SC2046,SC2086
  nohup node "$MAIN" "${faults[@]}" --id "n$i" --listen "127.0.0.1:$(port_of "$i")" --peer-listen "127.0.0.1:$(peer_port_of "$i")" \
    --peers "$(peers)" --data-dir "$DIR/n$i" --cluster-id-file "$DIR/cluster-id" $(tls_flags "$i") $join \
    --http-listen "127.0.0.1:$(http_port_of "$i")" >>"$DIR/n$i.log" 2>&1 </dev/null &
  echo $! >"$DIR/n$i.pid"
}

# lazyfs (test/faults/lazyfs/lazyfs.py): node I's data dir $DIR/nI is a FUSE mount of $DIR/nI.disk that keeps unsynced
# writes in memory until fsync; power-cut drops them. One daemon per node (pid in nI.lazyfs.pid, control socket nI.lazyfs.sock).
LAZYFS="$ROOT/test/faults/lazyfs/lazyfs.py"
disk_mounted() { awk -v m="$DIR/n$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo; }
mount_disk() {
  local i=$1 k
  disk_mounted "$i" && return 0
  [[ -e /dev/fuse ]] && command -v fusermount3 >/dev/null && /usr/bin/python3 -c 'import pyfuse3' 2>/dev/null ||
    die "LOCKD_LAZYFS needs /dev/fuse, fuse3 and Debian's python3-pyfuse3 (apt-get install fuse3 python3-pyfuse3)"
  mkdir -p "$DIR/n$i.disk" "$DIR/n$i"
  rm -f "$DIR/n$i.lazyfs.sock"
  nohup /usr/bin/python3 "$LAZYFS" "$DIR/n$i.disk" "$DIR/n$i" "$DIR/n$i.lazyfs.sock" >>"$DIR/n$i.lazyfs.log" 2>&1 </dev/null &
  echo $! >"$DIR/n$i.lazyfs.pid"
  for ((k = 0; k < 100; k++)); do [[ -S "$DIR/n$i.lazyfs.sock" ]] && return 0; sleep 0.1; done
  die "lazyfs for n$i did not come up; see $DIR/n$i.lazyfs.log"
}
# One command to node I's lazyfs (crash | sync | stats); prints its JSON answer.
disk_command() {
  node -e '
    const s = require("net").connect(process.argv[1]); let d = "";
    s.on("data", (x) => (d += x)).on("end", () => { process.stdout.write(d.trim()); process.exit(/"error"/.test(d) ? 1 : 0); });
    s.on("error", (e) => { console.error(e.message); process.exit(1); });
    s.write(process.argv[2] + "\n");' "$DIR/n$1.lazyfs.sock" "$2"
}
# Unmount node I's disk after a last sync (a clean shutdown flushes the page cache too); its node must be stopped.
unmount_disk() {
  local i=$1 pid k
  disk_mounted "$i" || return 0
  disk_command "$i" sync >/dev/null || true
  pid=$(cat "$DIR/n$i.lazyfs.pid" 2>/dev/null || echo "")
  if [[ "$pid" =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$LAZYFS"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((k = 0; k < 50; k++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  if disk_mounted "$i"; then fusermount3 -u -z "$DIR/n$i" || true; fi
  rm -f "$DIR/n$i.lazyfs.pid"
}
cmd_power_cut() {
  local what=${1:-} i pid k targets
  [[ -f "$DIR/lazyfs" ]] || die "power-cut needs a cluster on lazyfs: ./cluster.sh clean; LOCKD_LAZYFS=1 ./cluster.sh start"
  if [[ "$what" == all ]]; then targets=$(members); else check_index "$what"; targets=$what; fi
  # Every target dies first (the power takes them all at once), then every disk forgets.
  for i in $targets; do
    pid=$(live_pid "$i") || continue
    kill -KILL "$pid"
  done
  for i in $targets; do
    for ((k = 0; k < 100; k++)); do live_pid "$i" >/dev/null || break; sleep 0.05; done
    rm -f "$DIR/n$i.pid"
  done
  for i in $targets; do echo "power cut n$i: kill -9; lazyfs dropped what was not fsynced: $(disk_command "$i" crash)"; done
}

# lockctl against the current members (as root with TLS).
lockctl() {
  local tls=()
  tls_on && tls=(--cacert "$TLS_DIR/ca.crt" --cert "$TLS_DIR/root.crt" --key "$TLS_DIR/root.key")
  node "$LOCKCTL" --endpoints "$(endpoints)" "${tls[@]}" --timeout 10000 "$@"
}

# "LAG MATCH" of member nI in the leader's member list, or nothing if it is not listed.
member_lag() {
  lockctl --json member list 2>/dev/null | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      try { const m = JSON.parse(s).members.find((x) => x.id === process.argv[1]); if (m) console.log(`${m.lag} ${m.matchIndex}`); } catch {}
    });' "n$1" || true
}

# Wait (bounded) for process PID to exit.
wait_exit() {
  local pid=$1 k
  for ((k = 0; k < 100; k++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  return 1
}

cmd_add() {
  (($(size) > 0)) || die "no cluster in $DIR; run './cluster.sh start'"
  ensure_built
  local i k lag match
  i=$(($(size) + 1))
  ((i <= 99)) || die "no node index left (ports are BASE+I-1, peers BASE+100+I-1)"
  echo "$i" >"$DIR/size" # taken for good, even if what follows fails: ids are never reused
  if tls_on; then issue_node "$i"; fi
  echo "adding n$i (clients 127.0.0.1:$(port_of "$i"), peers 127.0.0.1:$(peer_port_of "$i")) as a learner..."
  lockctl member add "n$i" --peer-url "127.0.0.1:$(peer_port_of "$i")" --client-url "127.0.0.1:$(port_of "$i")" --learner
  set_members $(members) "$i"
  start_node "$i"
  echo "waiting up to ${START_TIMEOUT}s for n$i to catch up..."
  for ((k = 0; k < START_TIMEOUT * 5; k++)); do
    read -r lag match <<<"$(member_lag "$i")" || true
    if [[ "${lag:-}" == 0 && "${match:-0}" != 0 ]]; then break; fi
    sleep 0.2
  done
  [[ "${lag:-}" == 0 && "${match:-0}" != 0 ]] || die "n$i did not catch up in ${START_TIMEOUT}s (lag ${lag:-unknown}); see $DIR/n$i.log; it stays a learner"
  lockctl member promote "n$i"
  echo "n$i is a voter (pid $(cat "$DIR/n$i.pid"))"
}

cmd_remove() {
  local i=$1 pid
  check_index "$i"
  ensure_built
  pid=$(live_pid "$i" || true)
  lockctl member remove "n$i"
  set_members $(members | grep -vx -- "$i")
  echo "$i" >>"$DIR/removed"
  # A running node that was removed stops itself (exit 4); a stuck one is stopped.
  if [[ -n "$pid" ]] && ! wait_exit "$pid"; then stop_node "$i"; fi
  rm -f "$DIR/n$i.pid"
  echo "n$i removed; its id is never reused (data kept in $DIR/n$i)"
}

cmd_replace() {
  local i=$1 pid
  check_index "$i"
  ensure_built
  if pid=$(live_pid "$i"); then kill -KILL "$pid"; wait_exit "$pid" || die "n$i (pid $pid) did not die"; fi
  rm -f "$DIR/n$i.pid"
  rm -rf "$DIR/n$i"
  echo "killed n$i and wiped its data dir"
  cmd_add
  lockctl member remove "n$i"
  set_members $(members | grep -vx -- "$i")
  echo "$i" >>"$DIR/removed"
  echo "n$i replaced by n$(size)"
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
  local i pid
  for i in $(members); do
    pid=$(live_pid "$i" || cat "$DIR/n$i.pid" 2>/dev/null || echo "")
    echo "n$i=127.0.0.1:$(port_of "$i")=$pid"
  done
}

status_tls() { tls_on && echo "--tls $TLS_DIR" || true; }

cmd_start() {
  local n=5 tls=0 arg i pid
  for arg in "$@"; do
    case "$arg" in
      --tls) tls=1 ;;
      3 | 5) n=$arg ;;
      *) die "cluster size must be 3 or 5, or --tls (got '$arg')" ;;
    esac
  done
  local old; old=$(cat "$DIR/bootstrap-size" 2>/dev/null || size)
  if ((old != 0 && old != n)) && [[ ! -f "$DIR/members" ]]; then die "an existing $old-node cluster is in $DIR; run './cluster.sh clean' first"; fi
  if ((tls && old != 0)) && ! tls_on; then die "the cluster in .cluster/ runs without TLS; run './cluster.sh clean' first"; fi
  ensure_built
  mkdir -p "$DIR"
  if ((tls)) && ! tls_on; then make_tls "$n"; fi
  if [[ ! -f "$DIR/members" ]]; then
    echo "$n" >"$DIR/size"
    echo "$n" >"$DIR/bootstrap-size"
    set_members $(seq 1 "$n")
  fi
  # Test-only faults (isolate/heal/clock-jump) stay on for every later (re)start once asked for, until LOCKD_TEST_FAULTS=0 or clean.
  case "${LOCKD_TEST_FAULTS:-}" in
    1) touch "$DIR/test-faults" ;;
    0) rm -f "$DIR/test-faults" ;;
  esac
  # The same for the control build's --unsafe-no-fsync (LOCKD_UNSAFE_NO_FSYNC=1 / 0).
  case "${LOCKD_UNSAFE_NO_FSYNC:-}" in
    1) touch "$DIR/unsafe-no-fsync" ;;
    0) rm -f "$DIR/unsafe-no-fsync" ;;
  esac
  # lazyfs disks: chosen when the cluster is made (a mount over an existing data dir would hide it).
  if [[ "${LOCKD_LAZYFS:-}" == 1 && ! -f "$DIR/lazyfs" ]]; then
    ((old == 0)) || die "LOCKD_LAZYFS=1 makes a new cluster's data dirs lazyfs mounts; this one exists: ./cluster.sh clean first"
    touch "$DIR/lazyfs"
  fi
  # The cluster id is the secret a peer stream needs: 128 random bits, in a 0600 file the nodes read
  # (--cluster-id-file), never on a command line. A cluster made by an older cluster.sh keeps its id
  # (its data dirs are bound to it), in a file made private here.
  if [[ ! -f "$DIR/cluster-id" ]]; then
    if command -v openssl >/dev/null; then openssl rand -hex 16 >"$DIR/cluster-id"; else od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$DIR/cluster-id"; fi
  fi
  chmod 600 "$DIR/cluster-id"
  chmod 700 "$DIR"
  # A running node started with other test-only flags than now asked for (LOCKD_TEST_FAULTS=1 on a
  # cluster running without, say) is restarted with them: otherwise the flags would apply only to
  # later restarts, and isolate/clock-jump would be refused on nodes said to have them.
  local restart=()
  for i in $(members); do
    pid=$(live_pid "$i") || continue
    if [[ "$(flag_state "$pid" "--unsafe-test-faults")" != "$([[ -f "$DIR/test-faults" ]] && echo on || echo off)" ||
      "$(flag_state "$pid" "--unsafe-no-fsync")" != "$([[ -f "$DIR/unsafe-no-fsync" ]] && echo on || echo off)" ]]; then
      echo "restarting n$i (pid $pid): its test-only flags differ from those asked for now"
      restart+=("$i")
    fi
  done
  # Stopped together (each stop may wait up to 5 s), started again by the loop below.
  for i in "${restart[@]}"; do stop_node "$i" & done
  wait
  for i in $(members); do start_node "$i"; done
  echo "waiting up to ${START_TIMEOUT}s for a leader..."
  # shellcheck disable=SC2046
  if ! node "$STATUS_TOOL" --wait-leader "$START_TIMEOUT" $(status_tls) $(status_args); then
    echo "cluster.sh: no leader elected; see the logs: ./cluster.sh logs I (files in $DIR)" >&2
    exit 1
  fi
  echo
  local scheme=http
  tls_on && scheme=https
  echo "lockd is up$(tls_on && echo ' with mutual TLS'). Endpoints: $(endpoints)"
  echo
  echo "Study dashboard: $scheme://127.0.0.1:$(http_port_of "$(members | head -n 1)")/   (any node's HTTP port serves it; it follows the others when one dies)"
  if tls_on; then
    echo "  HTTPS with client certificates, on every node's port (the page reads them all): import one into the browser,"
    echo "  e.g. a read-only viewer: ./cluster.sh cert viewer --read-only (it prints the .p12 step), or root's:"
    echo "  openssl pkcs12 -export -in $TLS_DIR/root.crt -inkey $TLS_DIR/root.key -certfile $TLS_DIR/ca.crt -passout pass: -out $TLS_DIR/root.p12"
    echo "  and trust $TLS_DIR/ca.crt (docs/study.md#2-the-dashboard-with-tls); curl: curl --cacert $TLS_DIR/ca.crt --cert $TLS_DIR/root.crt --key $TLS_DIR/root.key ..."
  fi
  echo "Metrics, health and events ($scheme, per node; /livez and /readyz need no certificate):"
  for i in $(members); do
    echo "  n$i  $scheme://127.0.0.1:$(http_port_of "$i")/metrics  /livez  /readyz  /events  /state"
  done
  if [[ -f "$DIR/test-faults" ]]; then echo "UNSAFE: the nodes run with test faults on (LOCKD_TEST_FAULTS=1): for tests and demos only"; fi
  if [[ -f "$DIR/lazyfs" ]]; then echo "Data dirs on lazyfs: ./cluster.sh power-cut I|all drops what a node had not fsynced"; fi
  if [[ -f "$DIR/unsafe-no-fsync" ]]; then echo "UNSAFE: the nodes sync nothing (LOCKD_UNSAFE_NO_FSYNC=1): a control build, a power cut loses acknowledged state"; fi
  if [[ "$DIR" != "$ROOT/.cluster" || "$BASE_PORT" != 7001 ]]; then
    # lockctl finds this cluster (its endpoints, and with --tls its certificates as root) by the same two variables.
    echo "Try: LOCKD_CLUSTER_DIR=$DIR LOCKD_BASE_PORT=$BASE_PORT node $LOCKCTL status"
  else
    echo "Try: node dist/src/client/lockctl.js --endpoints $(endpoints) status"
    if tls_on; then echo "(run it from $ROOT: lockctl finds .cluster/tls/ and connects as root)"; fi
  fi
}

cmd_cert() {
  local name=${1:-} readonly=0
  case "${2:-}" in
    --read-only) readonly=1 ;;
    "") ;;
    *) die "cert NAME [--read-only] (got '${2:-}')" ;;
  esac
  [[ "$name" =~ ^[A-Za-z0-9_.-]{1,64}$ ]] || die "cert NAME: use 1-64 letters, digits, '.', '_' or '-' (got '$name')"
  [[ "$name" != ca && ! "$name" =~ ^n[0-9]+$ ]] || die "'$name' is the CA's or a node's own file name; pick another"
  tls_on || die "no CA in $TLS_DIR; run './cluster.sh start --tls' first"
  issue "$name" "$name" clientAuth
  echo "issued $TLS_DIR/$name.crt and $TLS_DIR/$name.key (principal $name)"
  echo "use: lockctl --cacert $TLS_DIR/ca.crt --cert $TLS_DIR/$name.crt --key $TLS_DIR/$name.key ..."
  if ((readonly)); then
    # read on the empty prefix: every lock, key and the nodes' observations (the dashboard, /events, /metrics); nothing more.
    lockctl acl grant "$name" read '' >/dev/null || die "could not grant $name read on '' (is the cluster running?)"
    echo "granted $name read on '' (a read-only viewer: the dashboard, /events, /metrics, lock inspect, fence read; no writes)"
    echo "for a browser: openssl pkcs12 -export -in $TLS_DIR/$name.crt -inkey $TLS_DIR/$name.key -certfile $TLS_DIR/ca.crt -passout pass: -out $TLS_DIR/$name.p12"
    echo "then import $name.p12 (and trust $TLS_DIR/ca.crt) in the browser: docs/study.md#2-the-dashboard-with-tls"
  else
    echo "it may do nothing yet: give it rules, e.g. lockctl acl grant $name lock $name/ (or issue it with --read-only for a dashboard viewer)"
  fi
}

cmd_signal() {
  local sig=$1 i=$2 pid
  check_index "$i"
  pid=$(live_pid "$i") || die "n$i is not running"
  kill -"$sig" "$pid"
  echo "sent SIG$sig to n$i (pid $pid)"
}

# A test-only fault (node/test-faults.ts): the command goes to node I's fault file, SIGUSR2 makes it read it. Refused for a
# node started without --unsafe-test-faults (SIGUSR2 would simply end it).
cmd_fault() {
  local i=$1 command=$2 pid
  check_index "$i"
  pid=$(live_pid "$i") || die "n$i is not running"
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "--unsafe-test-faults $DIR/n$i.fault" ||
    die "n$i runs without test faults; start the cluster with LOCKD_TEST_FAULTS=1 ./cluster.sh start (after ./cluster.sh stop)"
  echo "$command" >"$DIR/n$i.fault"
  kill -USR2 "$pid"
  echo "test fault on n$i (pid $pid): $command"
}

cmd="${1:-}"
shift || true
case "$cmd" in
  start) cmd_start "$@" ;;
  cert) cmd_cert "$@" ;;
  status)
    (($(size) > 0)) || die "no cluster in .cluster/; run './cluster.sh start'"
    [[ -f "$STATUS_TOOL" ]] || die "not built; run './cluster.sh start' (or npm run build)"
    # shellcheck disable=SC2046
    rc=0
    node "$STATUS_TOOL" $(status_tls) $(status_args) || rc=$?
    echo
    lockctl member list || echo "cluster.sh: no member list (no leader?)" >&2
    exit "$rc"
    ;;
  add) cmd_add ;;
  remove) cmd_remove "${1:-}" ;;
  replace) cmd_replace "${1:-}" ;;
  stop)
    for ((i = 1; i <= $(size); i++)); do stop_node "$i"; done
    for ((i = 1; i <= $(size); i++)); do unmount_disk "$i"; done
    echo "stopped"
    ;;
  kill) cmd_signal KILL "${1:-}" ;;
  pause) cmd_signal STOP "${1:-}" ;;
  resume) cmd_signal CONT "${1:-}" ;;
  isolate) cmd_fault "${1:-}" isolate ;;
  power-cut) cmd_power_cut "${1:-}" ;;
  heal) cmd_fault "${1:-}" heal ;;
  clock-jump)
    [[ "${2:-}" =~ ^[0-9]{1,8}$ ]] && (($2 >= 1 && $2 <= 86400000)) || die "clock-jump I MS: MS must be 1..86400000 milliseconds (got '${2:-}')"
    cmd_fault "${1:-}" "clock-jump $2"
    ;;
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
    for ((i = 1; i <= $(size); i++)); do unmount_disk "$i"; done
    rm -rf "$DIR"
    echo "removed $DIR"
    ;;
  -h | --help | help | "") usage ;;
  *) usage >&2; exit 2 ;;
esac
