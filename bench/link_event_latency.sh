#!/bin/bash
# link_event_latency.sh -- how long a link going down takes to reach the NMS:
# the time from the carrier loss (the `ip link set PEER down` call) to the
# primusIbPortDown trap at snmptrapd, with link events (linkEvents yes) and
# with the poll alone (linkEvents no, the default 5 s pollInterval), measured
# in this one run, N repetitions each.  Not a test: it prints numbers.
#
#   make bench                 (runs this before bench/run.sh)
#   make bench-link            (this alone)
#   bench/link_event_latency.sh  (from a built tree; top_builddir= for a VPATH build)
#
# The agent is an AgentX subagent of a private snmpd whose trap2sink is a
# private snmptrapd; it runs in a network namespace made here, on a sysfs tree
# made here whose RoCE port mlx5_0/1 has a veth end of that namespace as its
# netdev.  Each repetition takes the carrier down and, at the same moment,
# writes DOWN into the port's state file, as the kernel does for a real RoCE
# port (the poll reads the file; the events come from the carrier); then up
# again, and a random pause so the poll's phase is sampled evenly.
# Needs root, ip, snmpd, snmptrapd, python3.  Knobs (environment):
#   BENCH_LINK_REPS=20   repetitions per mode
#   BENCH_RESULTS=FILE   a copy of the summary
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
AGENT="$top_builddir/primus-node-agent"
REPS=${BENCH_LINK_REPS:-20}
export MIBS=
PATH=$PATH:/usr/sbin:/sbin

die() { echo "bench-link: $*" >&2; exit 1; }
say() { echo "== $*"; }
[ "$(id -u)" = 0 ] || die "needs root (ip netns, veth interfaces)"
for t in snmpd snmptrapd snmpget ip python3; do
    command -v "$t" >/dev/null || die "$t not installed"
done
[ -x "$AGENT" ] || die "$AGENT not built"

ENT=$(sed -n 's/^#define PNA_ENTERPRISE_OID[[:space:]]*\([0-9, ]*\).*/\1/p' \
      "$top_srcdir/src/model/oids.h" | tr -d ' ' | tr ',' '.')
ROOT=".$ENT.1"; OBJ="$ROOT.1"; NOTIFY="$ROOT.0"
PORT_STATE="$OBJ.6.20.1.3.6.109.108.120.53.95.48.1"   # primusIbPortState."mlx5_0".1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pna-bench-link-XXXXXX")
NS="pnalink$$"
IF="bla$$"
PEER="blb$$"
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    sleep 0.5
    for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
    ip netns del "$NS" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# --- the namespace, the veth, the sysfs tree ---------------------------------
ip netns add "$NS" || die "cannot make a network namespace"
ip -n "$NS" link add "$IF" type veth peer name "$PEER" || die "no veth"
for l in lo "$IF" "$PEER"; do ip -n "$NS" link set "$l" up; done
SYS="$WORK/sys"
PORT="$SYS/class/infiniband/mlx5_0/ports/1"
mkdir -p "$PORT/gid_attrs/ndevs" "$SYS/class/net/$IF"
printf '4: ACTIVE\n' > "$PORT/state"
printf 'Ethernet\n' > "$PORT/link_layer"
printf '%s\n' "$IF" > "$PORT/gid_attrs/ndevs/0"
ip netns exec "$NS" cat "/sys/class/net/$IF/ifindex" > "$SYS/class/net/$IF/ifindex"

# --- snmptrapd, snmpd ------------------------------------------------------------
SNMP_PORT=$(free_port); TRAP_PORT=$(free_port)
AGENTX="unix:$WORK/agentx.sock"
printf 'disableAuthorization yes\ndoNotLogTraps no\n' > "$WORK/snmptrapd.conf"
snmptrapd -f -On -Lf "$WORK/traps.log" -C -c "$WORK/snmptrapd.conf" "udp:127.0.0.1:$TRAP_PORT" &
PIDS+=("$!")
cat > "$WORK/snmpd.conf" <<CONF
agentAddress udp:127.0.0.1:$SNMP_PORT
master agentx
agentXSocket $AGENTX
agentXPerms 0660 0770
rocommunity public 127.0.0.1
trap2sink 127.0.0.1:$TRAP_PORT public
CONF
mkdir -p "$WORK/persist"
SNMP_PERSISTENT_DIR="$WORK/persist" snmpd -f -Lf "$WORK/snmpd.log" -C -c "$WORK/snmpd.conf" \
    -I -smux &
PIDS+=("$!")
sleep 1

# run_mode NAME CONFIG-LINE: start the agent, measure REPS repetitions, stop it.
run_mode() {
    local name=$1 line=$2
    printf '%s\n' "$line" > "$WORK/agent-$name.conf"
    ip netns exec "$NS" "$AGENT" -f -Lf "$WORK/agent-$name.log" -c "$WORK/agent-$name.conf" \
        -x "$AGENTX" --sysfs "$SYS" &
    local pid=$!
    PIDS+=("$pid")
    for _ in $(seq 100); do
        snmpget -v2c -c public -t 1 -r 0 -Oqv "127.0.0.1:$SNMP_PORT" "$PORT_STATE" 2>/dev/null |
            grep -q '^4' && break
        sleep 0.2
    done
    sleep 1
    python3 - "$NS" "$PEER" "$PORT/state" "$WORK/traps.log" "$NOTIFY" "$REPS" \
        > "$WORK/$name.ms" <<'PY' || die "$name: measurement failed"
import random, re, subprocess, sys, time
ns, peer, state, traps, notify, reps = sys.argv[1:7]
down = re.compile(re.escape(notify + ".3") + r"\b")   # primusIbPortDown
up = re.compile(re.escape(notify + ".4") + r"\b")     # primusIbPortUp

def count(marker):
    with open(traps) as f:
        return sum(1 for line in f if marker.search(line))

def change(updown, text):
    t0 = time.monotonic()
    subprocess.run(["ip", "-n", ns, "link", "set", peer, updown], check=True)
    with open(state, "w") as f:
        f.write(text)
    return t0

def wait_for(marker, n, t0):
    while time.monotonic() - t0 < 30:
        if count(marker) >= n:
            return (time.monotonic() - t0) * 1000
        time.sleep(0.001)
    sys.exit("no trap after 30 s")

downs, ups = count(down), count(up)
for i in range(int(reps)):
    t0 = change("down", "1: DOWN\n")
    print("%.1f" % wait_for(down, downs + i + 1, t0), flush=True)
    t0 = change("up", "4: ACTIVE\n")
    wait_for(up, ups + i + 1, t0)
    time.sleep(random.uniform(0, 5))
PY
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

stats() {   # median p90 of the numbers in FILE
    sort -n "$1" | awk '{v[NR]=$1} END {
        m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2
        p = v[int(NR * 0.9 + 0.999)]; if (p == "") p = v[NR]
        printf "%.1f %.1f", m, p }'
}

say "link events: carrier down -> primusIbPortDown at snmptrapd, $REPS repetitions"
run_mode events "linkEvents yes"
say "poll only (linkEvents no, pollInterval ib 5 s), $REPS repetitions"
run_mode poll "linkEvents no"

read -r ev_med ev_p90 <<<"$(stats "$WORK/events.ms")"
read -r po_med po_p90 <<<"$(stats "$WORK/poll.ms")"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f", a / b; else print "n/a" }'; }
{
    echo "link down -> trap, ms (N=$REPS each)      median      p90"
    printf '  linkEvents yes (events)          %9s %9s\n' "$ev_med" "$ev_p90"
    printf '  linkEvents no (5 s poll)         %9s %9s\n' "$po_med" "$po_p90"
    echo "  ratio poll / events: median x$(ratio "$po_med" "$ev_med"), p90 x$(ratio "$po_p90" "$ev_p90")"
} | tee "$WORK/summary.txt"
[ -n "${BENCH_RESULTS:-}" ] && cat "$WORK/summary.txt" >> "$BENCH_RESULTS"
exit 0
