#!/bin/bash
# run.sh -- the benchmark: primus-node-agent on a generated node at scale
# against the peers an operator would otherwise run, every ratio measured in
# this one run.  Not a test: it asserts nothing, it prints numbers.
#
#   make bench                 (builds the agent, the test NVML and the helpers, then runs this)
#   bench/run.sh               (from a built tree; top_builddir= for a VPATH build)
#
# It needs root (a private network namespace with veth interfaces for snmpd's
# IF-MIB), net-snmp's snmpd/snmptrapd/snmpbulkwalk, prometheus-node-exporter,
# python3 and curl (and prometheus-snmp-exporter, for its section).  It takes
# about 10 minutes.  Knobs (environment):
#   BENCH_CONTAINERS=2000 BENCH_GPUS=16 BENCH_HCAS=8 BENCH_HW_COUNTERS=100
#   BENCH_FOOTPRINT_S=180  BENCH_CHURN=100000  BENCH_GETS=3000
#   BENCH_RESULTS=FILE (a copy of the summary)  KEEP_WORK=1
# See docs/performance.md for what each figure means and the last results.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
AGENT="$top_builddir/primus-node-agent"
FAKE_NVML="$top_builddir/tests/nvml/libnvidia-ml.so.1"
IBPOLL="$top_builddir/bench/ibpoll"
CTRPOLL="$top_builddir/bench/ctrpoll"
GETLAT="$top_builddir/bench/getlat"
FLOOR="$top_builddir/bench/floor_subagent"
BULKCOUNT="$top_builddir/bench/bulkcount"
CONTAINERS=${BENCH_CONTAINERS:-2000}
GPUS=${BENCH_GPUS:-16}
HCAS=${BENCH_HCAS:-8}
HW_COUNTERS=${BENCH_HW_COUNTERS:-100}
FOOTPRINT_S=${BENCH_FOOTPRINT_S:-180}
CHURN=${BENCH_CHURN:-100000}
GETS=${BENCH_GETS:-3000}
HEAP_S=${BENCH_HEAP_S:-45}
export MIBS=
PATH=$PATH:/usr/sbin:/sbin

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "== $*"; }
[ "$(id -u)" = 0 ] || die "needs root (ip netns, veth interfaces)"
for t in snmpd snmptrapd snmpbulkwalk snmpget ip python3 curl prometheus-node-exporter taskset; do
    command -v "$t" >/dev/null || die "$t not installed"
done
for f in "$AGENT" "$FAKE_NVML" "$IBPOLL" "$CTRPOLL" "$GETLAT" "$FLOOR" "$BULKCOUNT"; do
    [ -x "$f" ] || [ -f "$f" ] || die "$f not built: run 'make bench-helpers' (or 'make bench')"
done

ENT=$(sed -n 's/^#define PNA_ENTERPRISE_OID[[:space:]]*\([0-9, ]*\).*/\1/p' \
      "$top_srcdir/src/model/oids.h" | tr -d ' ' | tr ',' '.')
ROOT=".$ENT.1"; OBJ="$ROOT.1"; NOTIFY="$ROOT.0"
POLLER="$OBJ.4.10.1"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pna-bench-XXXXXX")
NS="pnabench$$"
GEN="$WORK/node"
PIDS=()
cleanup() {
    local pidfiles="" f p
    for f in "$WORK"/*.pid; do   # daemons' own pid files, if still theirs
        p=$(cat "$f" 2>/dev/null) || continue
        { tr '\0' ' ' < "/proc/$p/cmdline"; } 2>/dev/null | grep -qF "$WORK" && pidfiles="$pidfiles $p"
    done
    for p in "${PIDS[@]}" $pidfiles; do kill "$p" 2>/dev/null; done
    sleep 0.5
    for p in "${PIDS[@]}" $pidfiles; do kill -9 "$p" 2>/dev/null; done
    ip netns del "$NS" 2>/dev/null
    # The cgroups of the containers poll on cgroupfs (3c), if still there.
    "$top_srcdir/bench/cgroupfs_tree.sh" remove "pna-bench-cgroups-$$" "$WORK/realsys" 2>/dev/null
    rmdir "/sys/fs/cgroup/pna-bench-ctrpoll-$$" "/sys/fs/cgroup/memory/pna-bench-ctrpoll-$$" 2>/dev/null
    umount "$GEN" 2>/dev/null
    if [ -n "${KEEP_WORK:-}" ]; then echo "work dir kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

SUMMARY="$WORK/summary.txt"
: > "$SUMMARY"
result() { echo "$*" | tee -a "$SUMMARY"; }
ms_now() { date +%s%3N; }
# below the ephemeral range (32768-60999)
rand_port() { echo $(( (RANDOM % 20000) + 10000 )); }
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }'; }
ratio2() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# (A function run in the background is a subshell: $! would not be the
# process.  Daemons are started with "ip netns exec" itself, which execs.)
in_ns() { ip netns exec "$NS" "$@"; }

# --- the machine -----------------------------------------------------------
say "machine"
result "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
       "$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r)"
result "versions: $("$AGENT" --version 2>&1 | head -1); net-snmp $(snmpd -v 2>&1 | sed -n 's/.*version:[[:space:]]*//p' | head -1);" \
       "node_exporter $(prometheus-node-exporter --version 2>&1 | sed -n 's/.*version \([^ ]*\).*/\1/p' | head -1)"

# --- the generated node ------------------------------------------------------
say "generating the node"
# On a tmpfs, as containerd's state (/run), sysfs, procfs and cgroupfs are in
# memory on a real node: a disk here would time the disk.
mkdir -p "$GEN"
mount -t tmpfs -o size=4g,mode=0755 pna-bench "$GEN" || die "cannot mount a tmpfs on $GEN"
python3 "$top_srcdir/bench/gen_node.py" --fixtures "$top_srcdir/tests/fixtures" --out "$GEN" \
    --hcas "$HCAS" --hw-counters "$HW_COUNTERS" --gpus "$GPUS" --containers "$CONTAINERS" |
    sed 's/^/   /' | tee -a "$SUMMARY"

# --- snmpd in a private network namespace, with veth interfaces -------------
# snmpd serves its own IF-MIB from the namespace it runs in; the agent reaches
# it over a unix AgentX socket, which no namespace hides.
ip netns add "$NS" || die "ip netns add failed"
ip -n "$NS" link set lo up
SNMP_PORT=$(rand_port); TRAP_PORT=$(rand_port); HTTP_PORT=$(rand_port); NE_PORT=$(rand_port)
TARGET="127.0.0.1:$SNMP_PORT"
V2="-v2c -c public -t 5 -r 1"
start_trapd() {
    printf 'disableAuthorization yes\ndoNotLogTraps no\n' > "$WORK/snmptrapd.conf"
    ip netns exec "$NS" snmptrapd -f -On -Lf "$WORK/traps.log" -C -c "$WORK/snmptrapd.conf" \
        -p "$WORK/snmptrapd.pid" "udp:127.0.0.1:$TRAP_PORT" &
    PIDS+=("$!")
}
start_snmpd() {
    mkdir -p "$WORK/snmpd-persist"
    cat > "$WORK/snmpd.conf" <<CONF
agentAddress udp:127.0.0.1:$SNMP_PORT
master agentx
agentXSocket unix:$WORK/agentx.sock
agentXPerms 0660 0770
rocommunity public 127.0.0.1
trap2sink 127.0.0.1:$TRAP_PORT public
dontLogTCPWrappersConnects yes
CONF
    SNMP_PERSISTENT_DIR="$WORK/snmpd-persist" ip netns exec "$NS" snmpd -f -Lf "$WORK/snmpd.log" -C \
        -c "$WORK/snmpd.conf" -I -smux -p "$WORK/snmpd.pid" &
    SNMPD_PID=$!
    PIDS+=("$SNMPD_PID")
    for _ in $(seq 50); do
        in_ns snmpget $V2 -t 0.5 -r 0 "$TARGET" .1.3.6.1.2.1.1.3.0 >/dev/null 2>&1 && return
        sleep 0.2
    done
    die "snmpd did not start (see $WORK/snmpd.log)"
}
# start_agent NAME [options]: the agent as an AgentX subagent of that snmpd.
start_agent() {
    local name=$1; shift
    PNA_FAKE_NVML_XML="$GEN/nvml.xml" "$AGENT" -f -Lf "$WORK/$name.log" -c "$WORK/$name.conf" \
        -x "unix:$WORK/agentx.sock" -p "$WORK/$name.pid" --sysfs "$GEN/sys" --procfs "$GEN/proc" \
        --devfs "$GEN/dev" --rootfs "$GEN/root" "$@" 2>>"$WORK/$name-stderr.log" &
    AGENT_PID=$!
    PIDS+=("$AGENT_PID")
}
value() { in_ns snmpget $V2 -On -Oqv "$TARGET" "$1" 2>/dev/null | tr -d '"'; }
wait_value() {   # OID VALUE SECONDS
    local end=$(( $(date +%s) + $3 ))
    while [ "$(date +%s)" -lt "$end" ]; do
        [ "$(value "$1")" = "$2" ] && return 0
        sleep 0.5
    done
    return 1
}
stop_agent() { kill "$AGENT_PID" 2>/dev/null; wait "$AGENT_PID" 2>/dev/null; }

# How many interfaces: as many IF-MIB varbinds as the agent's subtree gives.
# Pass 1 counts the agent's varbinds and the IF-MIB columns per interface
# with a few veths; the rest are added before the final snmpd starts (snmpd
# reads its interface list at start and refreshes it only now and then).
say "starting snmpd (namespace $NS), snmptrapd and the agent"
for i in 0 1; do ip -n "$NS" link add "vb$i" type veth peer name "vc$i"; done
start_trapd
start_snmpd
{
    echo "nvmlLibrary $FAKE_NVML"
} > "$WORK/agent.conf"
start_agent agent --http "127.0.0.1:$HTTP_PORT"
wait_value "$OBJ.8.1.0" "$CONTAINERS" 60 || die "the agent did not serve $CONTAINERS containers: $(value $OBJ.8.1.0)"
wait_value "$OBJ.5.1.0" "$GPUS" 30 || die "the agent did not serve $GPUS GPUs: $(value $OBJ.5.1.0)"
wait_value "$OBJ.6.1.0" "$HCAS" 30 || die "the agent did not serve $HCAS HCAs: $(value $OBJ.6.1.0)"
sleep 6   # one more ib poll: rates and widened counters exist from the second poll on
in_ns snmpbulkwalk $V2 -Cr50 -On "$TARGET" "$ROOT" > "$WORK/agent-walk.txt"
AGENT_VB=$(grep -c . "$WORK/agent-walk.txt")
per_if=$(( ( $(in_ns snmpbulkwalk $V2 -Cr50 -On "$TARGET" .1.3.6.1.2.1.2.2 | grep -c .) +
             $(in_ns snmpbulkwalk $V2 -Cr50 -On "$TARGET" .1.3.6.1.2.1.31.1.1 | grep -c .) ) / 5 ))
[ "$per_if" -gt 10 ] || die "IF-MIB gives $per_if columns per interface"
PAIRS=$(( (AGENT_VB / per_if + 1) / 2 ))
say "agent subtree: $AGENT_VB varbinds; IF-MIB: $per_if per interface -> $PAIRS veth pairs"
for i in $(seq 2 $((PAIRS - 1))); do echo "link add vb$i type veth peer name vc$i"; done > "$WORK/veth.batch"
ip -n "$NS" -b "$WORK/veth.batch" || die "creating veth pairs failed"
kill "$SNMPD_PID"; wait "$SNMPD_PID" 2>/dev/null
start_snmpd
wait_value "$OBJ.8.1.0" "$CONTAINERS" 60 || die "the agent did not come back after the snmpd restart"

# --- 1. full-MIB walk: agent subtree vs snmpd's IF-MIB ----------------------
say "walks (snmpbulkwalk -Cr50, 1 warm-up + 3 timed each)"
# CPU time (ns) of the main thread of each process named: where snmpd and the
# agent answer SNMP (the agent's pollers run on threads of their own).
main_cpu_ns() { local p; for p in "$@"; do awk '{printf "%s ", $1}' "/proc/$p/schedstat"; done; }
# walk_client OID...: one bulk walk of each subtree by the client $WALKER:
# snmpbulkwalk (the default), printing every varbind as an operator's walk
# does, or bulkcount (bench/bulkcount.c), which decodes the same responses and
# counts them without printing.
walk_client() {
    if [ "${WALKER:-snmpbulkwalk}" = bulkcount ]; then
        in_ns ${PIN_CLIENT:-} "$BULKCOUNT" -r 50 "$TARGET" "$@"
    else
        local o
        for o in "$@"; do in_ns ${PIN_CLIENT:-} snmpbulkwalk $V2 -Cr50 -On "$TARGET" "$o"; done
    fi
}
# walked_varbinds FILE: how many varbinds the walk that wrote FILE received.
walked_varbinds() {
    if [ "${WALKER:-snmpbulkwalk}" = bulkcount ]; then
        sed -n 's/^varbinds=\([0-9]*\) .*/\1/p' "$1"
    else
        # Not the line snmpbulkwalk prints for an endOfMibView, where the
        # subtree is the last in the agent's view (the standalone agent).
        grep -v "No more variables left in this MIB View" "$1" | grep -c .
    fi
}
# walk_time OID...: "WALL_US VARBINDS CLIENT_CPU_US SERVER_CPU_US..." for one
# bulk walk of them; the servers are the processes in $WALK_PIDS (main threads).
walk_time() {
    local t0 t1 before after client
    before=$(main_cpu_ns ${WALK_PIDS:-})
    t0=$(date +%s%N)
    # `times` in the subshell: its children's user and system time, the walks'.
    client=$( (walk_client "$@" > "$WORK/walk.out"; times) | tail -1 )
    t1=$(date +%s%N)
    after=$(main_cpu_ns ${WALK_PIDS:-})
    echo "$(( (t1 - t0) / 1000 )) $(walked_varbinds "$WORK/walk.out")" \
         "$(echo "$client" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%.0f", t * 1e6 }')" \
         "$(paste -d' ' <(echo "$before" | tr ' ' '\n' | grep .) <(echo "$after" | tr ' ' '\n' | grep .) |
            awk '{ printf "%.0f ", ($2 - $1) / 1000 }')"
}
# cpu_per_vb FILE COLUMN: median over the rounds in FILE of COLUMN / varbinds, in us.
cpu_per_vb() { awk -v c="$2" '$2 > 0 { printf "%.2f\n", $c / $2 }' "$1" | median; }
# walk_rate_report AGENT_FILE IFMIB_FILE AGENT_VB IFMIB_VB: the standalone
# agent's and snmpd's IF-MIB walks by bulkcount (rounds in the files), their
# rates, ratio and CPU per varbind; each count is checked against
# snmpbulkwalk's for the same subtree.
walk_rate_report() {
    local a_us i_us a_vb i_vb a_rate i_rate check=""
    a_us=$(awk '{print $1}' "$1" | median); a_vb=$(tail -1 "$1" | awk '{print $2}')
    i_us=$(awk '{print $1}' "$2" | median); i_vb=$(tail -1 "$2" | awk '{print $2}')
    [ "$a_vb" = "$3" ] || check="$check; agent count differs from snmpbulkwalk's $3"
    [ "$i_vb" = "$4" ] || check="$check; IF-MIB count differs from snmpbulkwalk's $4"
    a_rate=$(awk -v n="$a_vb" -v us="$a_us" 'BEGIN {printf "%.0f", n / (us / 1e6)}')
    i_rate=$(awk -v n="$i_vb" -v us="$i_us" 'BEGIN {printf "%.0f", n / (us / 1e6)}')
    result "walk, client bulkcount (decodes, prints nothing): agent standalone $a_vb varbinds in" \
           "$(awk -v u="$a_us" 'BEGIN{printf "%.3f", u/1e6}') s = $a_rate varbinds/s;" \
           "snmpd IF-MIB $i_vb varbinds in $(awk -v u="$i_us" 'BEGIN{printf "%.3f", u/1e6}') s = $i_rate varbinds/s$check"
    result "ratio walk, client bulkcount: agent standalone/IF-MIB varbinds per second = $(ratio2 "$a_rate" "$i_rate")" \
           "(walks of agent/IF-MIB: $(paste -d/ <(awk '{print $1}' "$1") <(awk '{print $1}' "$2") | tr '\n' ' ')us)"
    result "cpu per varbind, client bulkcount, us (median of 3): agent standalone $(cpu_per_vb "$1" 4)," \
           "client $(cpu_per_vb "$1" 3); snmpd IF-MIB $(cpu_per_vb "$2" 4), client $(cpu_per_vb "$2" 3)"
}
walk_time "$ROOT" >/dev/null
walk_time .1.3.6.1.2.1.2 .1.3.6.1.2.1.31 >/dev/null
: > "$WORK/w-agent"; : > "$WORK/w-if"
for _ in 1 2 3; do
    WALK_PIDS="$SNMPD_PID $AGENT_PID" walk_time "$ROOT" >> "$WORK/w-agent"
    WALK_PIDS="$SNMPD_PID" walk_time .1.3.6.1.2.1.2 .1.3.6.1.2.1.31 >> "$WORK/w-if"
done
A_US=$(awk '{print $1}' "$WORK/w-agent" | median); A_VB=$(tail -1 "$WORK/w-agent" | awk '{print $2}')
I_US=$(awk '{print $1}' "$WORK/w-if" | median); I_VB=$(tail -1 "$WORK/w-if" | awk '{print $2}')
A_RATE=$(awk -v n="$A_VB" -v us="$A_US" 'BEGIN {printf "%.0f", n / (us / 1e6)}')
I_RATE=$(awk -v n="$I_VB" -v us="$I_US" 'BEGIN {printf "%.0f", n / (us / 1e6)}')
result "walk: agent subtree $A_VB varbinds in $(awk -v u="$A_US" 'BEGIN{printf "%.2f", u/1e6}') s = $A_RATE varbinds/s" \
       "($(awk -v u="$A_US" -v n="$A_VB" 'BEGIN{printf "%.1f", u/n}') us each, through AgentX)"
result "walk: snmpd IF-MIB ($(( PAIRS * 2 + 1 )) interfaces) $I_VB varbinds in $(awk -v u="$I_US" 'BEGIN{printf "%.2f", u/1e6}') s = $I_RATE varbinds/s" \
       "($(awk -v u="$I_US" -v n="$I_VB" 'BEGIN{printf "%.1f", u/n}') us each, in snmpd)"
result "ratio walk: agent/IF-MIB varbinds per second = $(ratio "$A_RATE" "$I_RATE")"
# The floor: a subagent of the same snmpd answering as many integers from
# nothing (bench/floor_subagent.c), so that what AgentX itself costs is known.
FLOOR_OID=.1.3.6.1.4.1.59888.99
# The CPUs this run may use, and the first of them.
ALL_CPUS=$(taskset -c -p $$ | sed 's/.*: //')
ONE_CPU=$(echo "$ALL_CPUS" | cut -d, -f1 | cut -d- -f1)
# pin CPUS PID...: every thread of each process onto CPUS.
pin() { local cpus=$1 p; shift; for p in "$@"; do taskset -a -p -c "$cpus" "$p" >/dev/null; done; }
# floor_rounds PAD TAG [CPU]: start the floor, each OID padded with PAD more
# sub-identifiers, or with PAD "replay" serving the agent's own walk again
# (bench/floor_subagent.c --replay), walk it in $FLOOR_ROUNDS rounds (3)
# alternating with the agent (into w-agent-TAG and w-floor-TAG), and stop it.
# With CPU the client, snmpd, the agent (all its threads) and the floor run
# on that one CPU for these rounds: no request then waits for another CPU to
# wake up.
floor_rounds() {
    if [ "$1" = replay ]; then
        "$FLOOR" "unix:$WORK/agentx.sock" --replay "$WORK/agent-varbinds" 2>>"$WORK/floor.log" &
    else
        "$FLOOR" "unix:$WORK/agentx.sock" "$A_VB" "$1" 2>>"$WORK/floor.log" &
    fi
    FLOOR_PID=$!
    PIDS+=("$FLOOR_PID")
    for _ in $(seq 50); do
        [ -n "$(in_ns snmpgetnext $V2 -On -Oqv "$TARGET" "$FLOOR_OID" 2>/dev/null | grep -v 'No more')" ] && break
        sleep 0.2
    done
    if [ -n "${3:-}" ]; then
        pin "$3" "$SNMPD_PID" "$AGENT_PID" "$FLOOR_PID"
        PIN_CLIENT="taskset -c $3"
    fi
    walk_time "$FLOOR_OID" >/dev/null
    : > "$WORK/w-agent-$2"; : > "$WORK/w-floor-$2"
    for _ in $(seq "${FLOOR_ROUNDS:-3}"); do
        WALK_PIDS="$SNMPD_PID $AGENT_PID" walk_time "$ROOT" >> "$WORK/w-agent-$2"
        WALK_PIDS="$SNMPD_PID $FLOOR_PID" walk_time "$FLOOR_OID" >> "$WORK/w-floor-$2"
    done
    if [ -n "${3:-}" ]; then
        pin "$ALL_CPUS" "$SNMPD_PID" "$AGENT_PID"
        PIN_CLIENT=
    fi
    kill "$FLOOR_PID" 2>/dev/null; wait "$FLOOR_PID" 2>/dev/null
}
# floor_report TAG LABEL: the rates, their ratio and the CPU per varbind by
# process of floor_rounds TAG.  The agent's OIDs are longer than the short
# floor's (a container row's index is its 64-character id), which the client
# and the master pay for too.
floor_report() {
    local f="$WORK/w-floor-$1" a="$WORK/w-agent-$1" f_us a_us f_vb f_rate a_rate
    f_us=$(awk '{print $1}' "$f" | median); f_vb=$(tail -1 "$f" | awk '{print $2}')
    a_us=$(awk '{print $1}' "$a" | median)
    f_rate=$(awk -v n="$f_vb" -v us="$f_us" 'BEGIN {printf "%.0f", n / (us / 1e6)}')
    a_rate=$(awk -v n="$A_VB" -v us="$a_us" 'BEGIN {printf "%.0f", n / (us / 1e6)}')
    result "walk: floor subagent$2 $f_vb varbinds in $(awk -v u="$f_us" 'BEGIN{printf "%.2f", u/1e6}') s = $f_rate varbinds/s" \
           "($(awk -v u="$f_us" -v n="$f_vb" 'BEGIN{printf "%.1f", u/n}') us each, through AgentX, answering from nothing)"
    result "ratio walk: agent/floor$2 varbinds per second = $(ratio2 "$a_rate" "$f_rate")" \
           "(agent $a_rate/s in the same rounds; walks of agent/floor: $(paste -d/ <(awk '{print $1}' "$a") <(awk '{print $1}' "$f") | tr '\n' ' ')us)"
    result "cpu per varbind through AgentX, us (median of ${FLOOR_ROUNDS:-3}): agent walk: snmpd $(cpu_per_vb "$a" 4)," \
           "subagent $(cpu_per_vb "$a" 5), client $(cpu_per_vb "$a" 3);" \
           "floor walk$2: snmpd $(cpu_per_vb "$f" 4), subagent $(cpu_per_vb "$f" 5), client $(cpu_per_vb "$f" 3)"
    result "ratio cpu per varbind: floor subagent$2/agent subagent = $(ratio2 "$(cpu_per_vb "$f" 5)" "$(cpu_per_vb "$a" 5)")"
}
floor_rounds 0 short
floor_report short ""
# The short floor again with the client that prints nothing: snmpbulkwalk's
# formatting of the agent's longer OIDs is in the ratio above.
WALKER=bulkcount floor_rounds 0 shortcount
WALKER=bulkcount floor_report shortcount " (client bulkcount)"
# The same floor with OIDs as long as the agent's on average (each padded
# after its index): what the protocol costs for OIDs of this MIB's length,
# which the master, the subagent's kernel and net-snmp, and the client pay.
MEAN_SUBIDS=$(awk '{ n += split($1, a, ".") - 1 } END { printf "%.0f", n / NR }' "$WORK/agent-walk.txt")
FLOOR_PAD=$(( MEAN_SUBIDS > 12 ? MEAN_SUBIDS - 12 : 0 ))
floor_rounds "$FLOOR_PAD" long
floor_report long " (OIDs of $MEAN_SUBIDS sub-identifiers, the agent's mean)"
# And again with the client that prints nothing: same OID length on both
# sides, and no formatting of them in the time.
WALKER=bulkcount floor_rounds "$FLOOR_PAD" longcount
WALKER=bulkcount floor_report longcount " (OIDs of $MEAN_SUBIDS sub-identifiers, client bulkcount)"
# The floor that answers the agent's own walk: every varbind the agent
# served (bulkcount -d, just before), the same OIDs, types and values, from a
# static array.  The master, the kernel and the client then handle the same
# bytes in both walks, and what is left between them is the subagent's own
# work per request.  Five rounds, as this is the floor the goal is read on.
in_ns "$BULKCOUNT" -r 50 -d "$WORK/agent-varbinds" "$TARGET" "$ROOT" > "$WORK/agent-varbinds.count" ||
    die "dumping the agent's walk failed"
FLOOR_ROUNDS=5 floor_rounds replay replay
FLOOR_ROUNDS=5 floor_report replay " (the agent's own varbinds replayed)"
WALKER=bulkcount FLOOR_ROUNDS=5 floor_rounds replay replaycount
WALKER=bulkcount FLOOR_ROUNDS=5 floor_report replaycount " (the agent's own varbinds replayed, client bulkcount)"
# The same again with everything on one CPU.  Each AgentX round trip wakes
# the master, then the subagent, then the master: across CPUs, and on a
# virtual machine most of all, a wake-up of an idle CPU costs more than the
# work of either process.  On one CPU what is left is the processes' work.
floor_rounds replay onecpu "$ONE_CPU"
floor_report onecpu " (the agent's own varbinds replayed, all on CPU $ONE_CPU)"
# The agent's own engine without AgentX: the same binary as a standalone SNMP
# agent on the same node (a second process; the subagent keeps running).
S_PORT=$(rand_port)
printf 'rocommunity public 127.0.0.1\ndontLogTCPWrappersConnects yes\nnvmlLibrary %s\n' "$FAKE_NVML" \
    > "$WORK/standalone.conf"
# start_standalone NAME PORT [WRAPPER...]: the agent as a standalone SNMP
# agent on 127.0.0.1:PORT in the namespace, on the generated node (config
# standalone.conf; log NAME.log, pid file NAME.pid), started through WRAPPER
# when given; its process in STANDALONE_PID.
start_standalone() {
    local name=$1 port=$2
    shift 2
    PNA_FAKE_NVML_XML="$GEN/nvml.xml" ip netns exec "$NS" "$@" "$AGENT" -f -Lf "$WORK/$name.log" \
        -c "$WORK/standalone.conf" --standalone "udp:127.0.0.1:$port" -p "$WORK/$name.pid" \
        --sysfs "$GEN/sys" --procfs "$GEN/proc" --devfs "$GEN/dev" --rootfs "$GEN/root" &
    STANDALONE_PID=$!
    PIDS+=("$STANDALONE_PID")
}
start_standalone standalone "$S_PORT"
SAVED_TARGET=$TARGET; TARGET="127.0.0.1:$S_PORT"
if wait_value "$OBJ.8.1.0" "$CONTAINERS" 60; then
    sleep 6
    walk_time "$ROOT" >/dev/null
    : > "$WORK/w-standalone"
    for _ in 1 2 3; do WALK_PIDS="$STANDALONE_PID" walk_time "$ROOT" >> "$WORK/w-standalone"; done
    S_US=$(awk '{print $1}' "$WORK/w-standalone" | median); S_VB=$(tail -1 "$WORK/w-standalone" | awk '{print $2}')
    S_RATE=$(awk -v n="$S_VB" -v us="$S_US" 'BEGIN {printf "%.0f", n / (us / 1e6)}')
    result "walk: agent standalone (no AgentX) $S_VB varbinds in $(awk -v u="$S_US" 'BEGIN{printf "%.2f", u/1e6}') s = $S_RATE varbinds/s" \
           "($(awk -v u="$S_US" -v n="$S_VB" 'BEGIN{printf "%.1f", u/n}') us each)"
    result "ratio walk: agent standalone/IF-MIB varbinds per second = $(ratio "$S_RATE" "$I_RATE")"
    # The same walks by process: what the server spends per varbind is the
    # agent's own cost; the client's depends on the OIDs and values it prints.
    result "cpu per varbind, us (median of 3): agent standalone $(cpu_per_vb "$WORK/w-standalone" 4)" \
           "(main thread), client $(cpu_per_vb "$WORK/w-standalone" 3); snmpd IF-MIB $(cpu_per_vb "$WORK/w-if" 4)," \
           "client $(cpu_per_vb "$WORK/w-if" 3)"
    result "ratio cpu per varbind: snmpd IF-MIB/agent standalone = $(ratio2 "$(cpu_per_vb "$WORK/w-if" 4)" "$(cpu_per_vb "$WORK/w-standalone" 4)")"
    # A walk takes at least its client's own CPU time: snmpbulkwalk waits for
    # each response before it asks for the next.  So snmpbulkwalk's time to
    # decode and print this MIB's varbinds bounds the rate of a walk of it,
    # whatever the server, and the ratio to the IF-MIB walk with it.
    S_CLIENT_US=$(awk '{print $3}' "$WORK/w-standalone" | median)
    result "bound with snmpbulkwalk as the client: its own CPU for the agent's $S_VB varbinds" \
           "$(awk -v u="$S_CLIENT_US" 'BEGIN{printf "%.3f", u/1e6}') s (median of 3), the whole IF-MIB walk" \
           "$(awk -v u="$I_US" 'BEGIN{printf "%.3f", u/1e6}') s: no server answering in no time could walk at more than" \
           "$(awk -v n="$S_VB" -v c="$S_CLIENT_US" -v m="$I_VB" -v u="$I_US" 'BEGIN { if (c > 0) printf "%.2f", (n / c) / (m / u); else print "n/a" }')" \
           "of the IF-MIB rate with this client"
    # The same two walks again, alternating, with a client that decodes every
    # response and prints nothing (bench/bulkcount.c): the rate of each server
    # without the cost of formatting its OIDs, which for this MIB's 78
    # sub-identifier container cells is most of snmpbulkwalk's time.
    WALKER=bulkcount walk_time "$ROOT" >/dev/null
    TARGET=$SAVED_TARGET WALKER=bulkcount walk_time .1.3.6.1.2.1.2 .1.3.6.1.2.1.31 >/dev/null
    : > "$WORK/w-standalone-count"; : > "$WORK/w-if-count"
    for _ in 1 2 3; do
        WALKER=bulkcount WALK_PIDS="$STANDALONE_PID" walk_time "$ROOT" >> "$WORK/w-standalone-count"
        TARGET=$SAVED_TARGET WALKER=bulkcount WALK_PIDS="$SNMPD_PID" \
            walk_time .1.3.6.1.2.1.2 .1.3.6.1.2.1.31 >> "$WORK/w-if-count"
    done
    walk_rate_report "$WORK/w-standalone-count" "$WORK/w-if-count" "$S_VB" "$I_VB"
else
    result "walk: the standalone agent did not serve the node: not measured"
fi
TARGET=$SAVED_TARGET
kill "$STANDALONE_PID"; wait "$STANDALONE_PID" 2>/dev/null
awk '{print $1}' "$WORK/agent-walk.txt" | sed -E "s/^(\\$ROOT\\.1\\.[0-9]+\\.[0-9]+).*/\\1/" |
    sort | uniq -c | sort -rn | head -8 | sed 's/^/   varbinds under /' > "$WORK/walk-breakdown"
cat "$WORK/walk-breakdown"

# --- 1b. snmp_exporter through snmpd, per module ----------------------------
# The shipped etc/snmp_exporter/snmp.yml as an operator deploys it (one
# module per table group, whole MIB in primus_node), Debian's
# prometheus-snmp-exporter, scraping this snmpd: the time each module's scrape
# takes, against a Prometheus scrape_timeout of 10 s (its default) and the
# modules' own SNMP timeout (5 s a request, 3 retries).
SE=$(command -v prometheus-snmp-exporter || true)
if [ -n "$SE" ]; then
    say "snmp_exporter scrapes through snmpd (1 warm-up + 3 timed per module)"
    SE_PORT=$(rand_port)
    ip netns exec "$NS" "$SE" --config.file="$top_srcdir/etc/snmp_exporter/snmp.yml" \
        --web.listen-address="127.0.0.1:$SE_PORT" --log.level=warn > "$WORK/snmp_exporter.log" 2>&1 &
    SE_PID=$!
    PIDS+=("$SE_PID")
    for _ in $(seq 50); do in_ns curl -fs -o /dev/null "http://127.0.0.1:$SE_PORT/metrics" && break; sleep 0.2; done
    for module in primus_gpu primus_rdma primus_host primus_containers primus_node; do
        url="http://127.0.0.1:$SE_PORT/snmp?target=$TARGET&module=$module"
        in_ns curl -sS -o /dev/null --max-time 60 "$url"
        : > "$WORK/se-$module"
        for _ in 1 2 3; do
            in_ns curl -sS -o "$WORK/se-body" -w '%{time_total} %{http_code}\n' --max-time 60 "$url" >> "$WORK/se-$module"
        done
        med=$(awk '{print $1}' "$WORK/se-$module" | median)
        codes=$(awk '{print $2}' "$WORK/se-$module" | sort -u | tr '\n' ' ')
        series=$(grep -c '^[a-z]' "$WORK/se-body")
        result "snmp_exporter module $module: $(awk -v s="$med" 'BEGIN {printf "%.2f", s}') s a scrape (median of 3; HTTP ${codes% })," \
               "$series series; $(awk -v s="$med" 'BEGIN {printf "%.0f", 100 * s / 10}') % of a 10 s scrape_timeout"
    done
    kill "$SE_PID" 2>/dev/null; wait "$SE_PID" 2>/dev/null
else
    result "snmp_exporter: prometheus-snmp-exporter not installed: not measured"
fi

# --- 2. /metrics vs node_exporter on the same sysfs tree --------------------
say "scrapes (1 warm-up + 20 timed each)"
prometheus-node-exporter --path.sysfs="$GEN/sys" --path.procfs="$GEN/proc" \
    --collector.disable-defaults --collector.infiniband \
    --web.listen-address="127.0.0.1:$NE_PORT" > "$WORK/node_exporter.log" 2>&1 &
NE_PID=$!
PIDS+=("$NE_PID")
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$NE_PORT/metrics" && break; sleep 0.2; done
scrape() {   # URL NAME: median seconds of 20 scrapes, series in the last
    local url=$1 name=$2
    curl -sf -o /dev/null "$url" || return 1
    for _ in $(seq 20); do curl -s -o "$WORK/$name.prom" -w '%{time_total}\n' "$url"; done | median
}
if curl -sf -o /dev/null "http://127.0.0.1:$HTTP_PORT/metrics"; then
    A_S=$(scrape "http://127.0.0.1:$HTTP_PORT/metrics" agent)
    A_SERIES=$(grep -vc '^#' "$WORK/agent.prom")
    A_IB=$(grep -Ec '^(primus_rdma|primus_ib|rdma_stat)' "$WORK/agent.prom")
    N_S=$(scrape "http://127.0.0.1:$NE_PORT/metrics" ne)
    N_SERIES=$(grep -vc '^#' "$WORK/ne.prom")
    N_IB=$(grep -c '^node_infiniband' "$WORK/ne.prom")
    A_PER=$(awk -v s="$A_S" -v n="$A_SERIES" 'BEGIN{printf "%.2f", s * 1e6 / n}')
    N_PER=$(awk -v s="$N_S" -v n="$N_SERIES" 'BEGIN{printf "%.2f", s * 1e6 / n}')
    result "scrape: agent /metrics $A_SERIES series ($A_IB RDMA) in $(awk -v s="$A_S" 'BEGIN{printf "%.1f", s*1000}') ms = $A_PER us/series (from the cache)"
    result "scrape: node_exporter (infiniband collector) $N_SERIES series ($N_IB node_infiniband_*) in $(awk -v s="$N_S" 'BEGIN{printf "%.1f", s*1000}') ms = $N_PER us/series (reads sysfs per scrape)"
    result "ratio scrape: node_exporter/agent time per series = $(ratio "$N_PER" "$A_PER")"
else
    result "scrape: the agent's --http bridge did not answer: not measured"
fi
NE_RSS=$(awk '/VmRSS/ {print $2}' "/proc/$NE_PID/status")
kill "$NE_PID"

# --- 3. one IB poll cycle's CPU time vs a command forked per poll -----------
say "IB poll CPU time"
"$IBPOLL" --sysfs "$GEN/sys" --polls 200 agent > "$WORK/ib-agent"
"$IBPOLL" --sysfs "$GEN/sys" --polls 50 fork-poll > "$WORK/ib-fork-poll"
"$IBPOLL" --sysfs "$GEN/sys" --polls 50 fork-port > "$WORK/ib-fork-port"
"$IBPOLL" --sysfs "$GEN/sys" --polls 2 fork-file > "$WORK/ib-fork-file"
"$IBPOLL" --sysfs "$GEN/sys" --polls 50 exec-only -- rdma statistic show > "$WORK/ib-rdma" 2>/dev/null
# The value of KEY=VALUE among the space-separated pairs of FILE (a whole
# key: floor_wall_us_per_round is not openfloor_wall_us_per_round's).
field() { tr ' ' '\n' < "$1" | sed -n "s/^$2=\(-\{0,1\}[0-9]*\)\$/\1/p"; }
IB_A=$(field "$WORK/ib-agent" cpu_us_per_poll)
files=$(field "$WORK/ib-agent" files)
result "ib poll: agent's ib poller $IB_A us CPU per poll ($files counter/state files of $(( HCAS * 2 )) ports, read once each, no fork)"
for m in fork-poll fork-port fork-file; do
    c=$(field "$WORK/ib-$m" cpu_us_per_poll); k=$(field "$WORK/ib-$m" forks_per_poll)
    result "ib poll: peer $m ($k fork+exec of cat per poll) $c us CPU per poll; ratio peer/agent = $(ratio "$c" "$IB_A")"
done
result "ib poll: fork+exec of 'rdma statistic show' alone (no RDMA here: reads nothing) $(field "$WORK/ib-rdma" cpu_us_per_poll) us CPU"

# --- 3b. one quiet containers poll vs a full rescan --------------------------
# Each ctrpoll runs alone in a memory cgroup of its own (bench/cgroupfs_tree.sh
# run), so that the kernel memory it is charged for is its own.
say "containers poll ($CONTAINERS containers, none changed)"
ctrpoll_alone() {   # OUT SYSROOT FILES_HELD ("": the agent's default) [POLLS]
    "$top_srcdir/bench/cgroupfs_tree.sh" run "pna-bench-ctrpoll-$$" "$CTRPOLL" --sysfs "$2" \
        --procfs "$GEN/proc" --rootfs "$GEN/root" --devfs "$GEN/dev" --polls "${4:-50}" \
        ${3:+--files-held "$3"} > "$1"
}
kib_per_container() {   # CTRPOLL_OUTPUT: kernel memory charged over the polls, KiB a container
    awk -v b="$(field "$1" kernel_bytes_before)" -v a="$(field "$1" kernel_bytes_after)" \
        -v n="$(field "$1" containers)" 'BEGIN { if (b == "" || b < 0 || a < 0 || n == 0) print "n/a";
        else printf "%.1f", (a - b) / 1024 / n }'
}
ctr_poll_report() {   # CTRPOLL_OUTPUT LABEL [GOAL]
    local f=$1 q r l o
    q=$(field "$f" quiet_wall_us_per_poll); r=$(field "$f" rescan_wall_us_per_scan)
    l=$(field "$f" floor_wall_us_per_round); o=$(field "$f" openfloor_wall_us_per_round)
    result "containers poll$2: quiet poll $q us wall (min $(field "$f" quiet_min_wall_us), max $(field "$f" quiet_max_wall_us)${3:+; $3}); first poll $(sed -n 's/.*first_ms=\([0-9.]*\).*/\1/p' "$f") ms; cgroupFilesHeld $(field "$f" files_held)"
    result "containers poll$2: peer full rescan (containerd scan alone, every spec parsed, every file read) $r us; ratio rescan/quiet poll = $(ratio "$r" "$q")"
    # (With none held the agent holds no descriptor for that floor to read.)
    [ "$(field "$f" files_held)" = 0 ] ||
    result "containers poll$2: floor with the cgroup files held open (only the reads every poll must make: $(field "$f" floor_syscalls_per_round) system calls)" \
           "$l us (min $(field "$f" floor_min_wall_us)); ratio floor/quiet poll = $(ratio2 "$l" "$q")"
    result "containers poll$2: floor with every file opened and closed at every round ($(field "$f" openfloor_syscalls_per_round) system calls)" \
           "$o us (min $(field "$f" openfloor_min_wall_us)); ratio floor/quiet poll = $(ratio2 "$o" "$q")"
    result "containers poll$2: kernel memory charged to the poll's cgroup over the polls: $(kib_per_container "$f") KiB a container"
}
ctrpoll_alone "$WORK/ctr-poll" "$GEN/sys" "" || result "containers poll: ctrpoll failed"
ctr_poll_report "$WORK/ctr-poll" "" "goal 30000"

# --- 3c. the same poll on the kernel's own cgroupfs ------------------------
# The generated containers' cgroups made for real (bench/cgroupfs_tree.sh),
# the poll run twice: with none held (cgroupFilesHeld 0, every file opened
# and closed at every poll) and with each container's cgroup files held open
# between polls (the default).
say "containers poll on the kernel's cgroupfs ($CONTAINERS cgroups)"
CG_NAME="pna-bench-cgroups-$$"
if CG_VERSION=$("$top_srcdir/bench/cgroupfs_tree.sh" make "$GEN" "$CG_NAME" "$WORK/realsys"); then
    # A first poll that only makes the kernel look every file up once (its
    # dentries and inodes), so that neither timed run is charged for that.
    ctrpoll_alone "$WORK/ctr-real-warm" "$WORK/realsys" 0 1 &&
        ctrpoll_alone "$WORK/ctr-real-none" "$WORK/realsys" 0 &&
        ctrpoll_alone "$WORK/ctr-real-held" "$WORK/realsys" "" ||
        result "containers poll on cgroupfs: ctrpoll failed"
    ctr_poll_report "$WORK/ctr-real-held" " on cgroupfs $CG_VERSION, files held"
    ctr_poll_report "$WORK/ctr-real-none" " on cgroupfs $CG_VERSION, none held"
    QH=$(field "$WORK/ctr-real-held" quiet_wall_us_per_poll); QN=$(field "$WORK/ctr-real-none" quiet_wall_us_per_poll)
    result "containers poll on cgroupfs $CG_VERSION: none held/held quiet poll = $(ratio2 "$QN" "$QH");" \
           "kernel memory the held files add: $(awk -v h="$(kib_per_container "$WORK/ctr-real-held")" \
                -v n="$(kib_per_container "$WORK/ctr-real-none")" \
                'BEGIN { if (h == "n/a" || n == "n/a") print "n/a"; else printf "%.1f KiB a container", h - n }')"
else
    result "containers poll on cgroupfs: no memory cgroup hierarchy this script can write; left out"
fi
"$top_srcdir/bench/cgroupfs_tree.sh" remove "$CG_NAME" "$WORK/realsys" || true

# --- 4. latency: OOM kill -> trap, port down -> trap ------------------------
say "notification latency"
trap_count() { grep -c "$1\b" "$WORK/traps.log" 2>/dev/null; }
wait_trap() {   # OID COUNT_BEFORE START_MS TIMEOUT_MS: ms since START_MS, or "timeout"
    local end=$(( $3 + $4 ))
    while [ "$(ms_now)" -lt "$end" ]; do
        [ "$(trap_count "$1")" -gt "$2" ] && { echo $(( $(ms_now) - $3 )); return; }
        sleep 0.005
    done
    echo timeout
}
: > "$WORK/oom-ms"
for i in 11 222 733 1234 1999; do
    [ "$i" -lt "$CONTAINERS" ] || continue
    ev="$GEN/sys/fs/cgroup/kubepods.slice/pod-$((i / 2))/ctr-$i/memory.events"
    before=$(trap_count "$NOTIFY.5")
    t0=$(ms_now)
    printf 'low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n' > "$ev"
    wait_trap "$NOTIFY.5" "$before" "$t0" 5000 >> "$WORK/oom-ms"
done
result "latency OOM kill -> trap at snmptrapd (ms, 5 containers of $CONTAINERS): $(tr '\n' ' ' < "$WORK/oom-ms")"
: > "$WORK/port-ms"
st="$GEN/sys/class/infiniband/mlx5_3/ports/1/state"
for round in 1 2 3; do
    before=$(trap_count "$NOTIFY.3")
    t0=$(ms_now)
    printf '1: DOWN\n' > "$st"
    wait_trap "$NOTIFY.3" "$before" "$t0" 12000 >> "$WORK/port-ms"
    before=$(trap_count "$NOTIFY.4")
    t0=$(ms_now)
    printf '4: ACTIVE\n' > "$st"
    wait_trap "$NOTIFY.4" "$before" "$t0" 12000 > /dev/null
done
result "latency port down -> trap (ms, ib poll interval 5 s default, 3 flips): $(tr '\n' ' ' < "$WORK/port-ms")"

# --- 5. GET latency, healthy -------------------------------------------------
str_index() { local s=$1 out i; out=${#s}; for ((i = 0; i < ${#s}; i++)); do out="$out.$(printf '%d' "'${s:i:1}")"; done; echo "$out"; }
GPU0=$(( 0x10 << 8 ))
CID0=$(python3 -c 'print("%064x" % (0xbe0c400000000000 * 7919))')
GET_OIDS=("$OBJ.1.1.0" "$OBJ.5.1.0" "$OBJ.5.10.1.4.$GPU0" "$OBJ.6.20.1.3.$(str_index mlx5_0).1"
          "$OBJ.8.1.0" "$OBJ.8.10.1.3.$(str_index "$CID0")" "$POLLER.9.2")
getlat_run() { in_ns "$GETLAT" -n "$GETS" -t 5 "$TARGET" "$@"; }
say "GET latency ($GETS GETs over ${#GET_OIDS[@]} agent OIDs)"
LAT_OK=$(getlat_run "${GET_OIDS[@]}")
LAT_SNMPD=$(getlat_run .1.3.6.1.2.1.1.3.0 .1.3.6.1.2.1.1.5.0)
result "GET latency healthy, agent OIDs: $LAT_OK"
result "GET latency healthy, snmpd's own sysUpTime/sysName: $LAT_SNMPD"

# --- 6. footprint at default intervals --------------------------------------
say "footprint: $FOOTPRINT_S s idle at default intervals"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TCK=$(getconf CLK_TCK)
c0=$(cpu_ticks "$AGENT_PID"); t0=$(date +%s%N)
sleep "$FOOTPRINT_S"
c1=$(cpu_ticks "$AGENT_PID"); t1=$(date +%s%N)
RSS=$(awk '/VmRSS/ {print $2}' "/proc/$AGENT_PID/status")
HWM=$(awk '/VmHWM/ {print $2}' "/proc/$AGENT_PID/status")
THREADS=$(awk '/Threads/ {print $2}' "/proc/$AGENT_PID/status")
CPU_H=$(awk -v c=$((c1 - c0)) -v hz="$TCK" -v ns=$((t1 - t0)) 'BEGIN{printf "%.1f", c / hz * 3600 / (ns / 1e9)}')
CPU_PCT=$(awk -v c=$((c1 - c0)) -v hz="$TCK" -v ns=$((t1 - t0)) 'BEGIN{printf "%.2f", 100 * c / hz / (ns / 1e9)}')
durations=$(for i in 1 2 3 4 5 6 7; do printf '%s=%sms ' "$(value "$POLLER.2.$i")" "$(value "$POLLER.5.$i")"; done)
result "footprint: RSS $((RSS / 1024)) MiB (peak $((HWM / 1024)) MiB), $THREADS threads; CPU $CPU_H s per hour ($CPU_PCT % of one CPU)," \
       "extrapolated from $FOOTPRINT_S s at default intervals"
# Memory by kind (smaps_rollup): anonymous pages are what the agent itself
# allocated (heap, malloc arenas, thread stacks); file pages are the binary's
# and the libraries', private when no other process maps them; and whether
# the optional libraries are mapped (rocm-smi-lib only on nodes with an AMD
# GPU; libstdc++ comes with libxml2's ICU).
roll() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$AGENT_PID/smaps_rollup"; }
ANON=$(roll Anonymous); PCLEAN=$(roll Private_Clean); SCLEAN=$(roll Shared_Clean)
OPTIONAL=$(grep -oE 'lib(rocm_smi64|stdc\+\+|nvidia-ml)[^ ]*' "/proc/$AGENT_PID/maps" | sort -u | tr '\n' ' ')
result "footprint: anonymous (the agent's own) $(awk -v k="$ANON" 'BEGIN {printf "%.1f", k / 1024}') MiB; file pages private $((PCLEAN / 1024)) MiB," \
       "shared $((SCLEAN / 1024)) MiB; of RSS $((RSS / 1024)) MiB; optional libraries mapped: ${OPTIONAL:-none}"
# Where the anonymous pages are: the main heap, the other anonymous maps
# (the pollers' malloc arena, tables over the mmap threshold, thread stacks)
# and the libraries' own data (relocations, .data/.bss written at load).
ANON_BY_KIND=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { name = $6 }
    /^Anonymous:/ { k = name == "[heap]" ? "heap" : name == "" || name ~ /^\[(stack|anon)/ ? "maps" : "libs"; s[k] += $2 }
    END { printf "main heap %.1f MiB, other anonymous maps %.1f MiB, libraries data %.1f MiB",
          s["heap"] / 1024, s["maps"] / 1024, s["libs"] / 1024 }' "/proc/$AGENT_PID/smaps")
result "footprint: anonymous by kind: $ANON_BY_KIND (goal: 8 MiB in all at $CONTAINERS containers)"
result "footprint: last poll durations: $durations"
result "footprint: for reference, node_exporter (infiniband collector only) RSS after the scrapes: $((NE_RSS / 1024)) MiB"

# --- 6b. what holds the heap ----------------------------------------------------
# The same binary standalone on the same node under heaptrack (a second
# process beside the subagent), stopped by SIGKILL $HEAP_S s after it serves
# every container: what it still held then, by part (bench/heap_parts.py).
if command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null; then
    say "heap by part (heaptrack, the agent standalone, $HEAP_S s after it serves the node)"
    H_PORT=$(rand_port)
    start_standalone heaptrack-agent "$H_PORT" heaptrack -o "$WORK/heaptrack" > "$WORK/heaptrack.out" 2>&1
    HT_PID=$STANDALONE_PID
    SAVED_TARGET=$TARGET; TARGET="127.0.0.1:$H_PORT"
    if wait_value "$OBJ.8.1.0" "$CONTAINERS" 180; then
        sleep "$HEAP_S"
        kill -9 "$(cat "$WORK/heaptrack-agent.pid")" 2>/dev/null
        wait "$HT_PID" 2>/dev/null
        heaptrack_print -f "$(ls "$WORK"/heaptrack.* | grep -v '\.out$' | head -1)" -F "$WORK/heap-stacks" \
            --flamegraph-cost-type leaked > "$WORK/heaptrack-print.txt" 2>&1
        while read -r line; do result "$line"; done < <(python3 "$top_srcdir/bench/heap_parts.py" "$WORK/heap-stacks")
    else
        result "heap: the agent under heaptrack did not serve the node: not measured"
        kill -9 "$(cat "$WORK/heaptrack-agent.pid" 2>/dev/null)" 2>/dev/null
        wait "$HT_PID" 2>/dev/null
    fi
    TARGET=$SAVED_TARGET
else
    result "heap: heaptrack not installed: not measured"
fi

# --- 7. container churn ------------------------------------------------------
say "churn: $CHURN container create/exit cycles"
# While it runs: the container count the agent serves, twice a second (the
# churned tasks must really be seen, not just created and removed unseen).
runs0=$(value "$POLLER.10.5")
( while :; do value "$OBJ.8.1.0"; sleep 0.5; done ) > "$WORK/churn-counts" 2>/dev/null &
SAMPLER=$!
PIDS+=("$SAMPLER")
python3 "$top_srcdir/bench/churn.py" --gen "$GEN" --pid "$AGENT_PID" --cycles "$CHURN" \
    --batch 500 --settle 0.25 --samples 10 | tee "$WORK/churn.txt"
kill "$SAMPLER"
runs1=$(value "$POLLER.10.5")
result "$(grep '^churn:' "$WORK/churn.txt")"
result "churn: the containers poller ran $((runs1 - runs0)) times (woken by inotify); container rows served" \
       "during the churn: $(sort -n "$WORK/churn-counts" | grep -E '^[0-9]+$' | sed -n '1p;$p' | tr '\n' ' ' | sed 's/ $//; s/ / to /')"
wait_value "$OBJ.8.1.0" "$CONTAINERS" 30 || result "churn: WARNING: container count after churn is $(value $OBJ.8.1.0)"
kill -0 "$AGENT_PID" 2>/dev/null || result "churn: WARNING: the agent died"
stop_agent

# --- 8. GET latency while every source hangs ---------------------------------
# A second agent with a kubelet and a dockerd (tests/integration/fault_stub.py)
# and the test NVML.  Once every poller has served good data, the sources
# hang: NVML blocks in nvmlDeviceGetPowerUsage, the kubelet and dockerd accept
# requests and never answer, and an hw counter file becomes a FIFO.
say "GET latency while the sources hang"
mkdir -p "$WORK/stub/containers" "$WORK/stub/stats"
echo '[]' > "$WORK/stub/containers/json"
cp "$top_srcdir/tests/fixtures/kubelet/nri-kubernetes-k8s-1.35/pods.json" "$WORK/stub/pods"
cp "$top_srcdir/tests/fixtures/kubelet/nri-kubernetes-k8s-1.35/stats-summary.json" "$WORK/stub/stats/summary"
echo ok > "$WORK/stub.mode"
python3 "$top_srcdir/tests/integration/fault_stub.py" --dir "$WORK/stub" --mode-file "$WORK/stub.mode" \
    --port-file "$WORK/stub.port" --unix "$GEN/root/run/docker.sock" > "$WORK/stub.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 50); do [ -s "$WORK/stub.port" ] && break; sleep 0.1; done
echo "bench-token" > "$WORK/token"
cat > "$WORK/hang.conf" <<CONF
nvmlLibrary $FAKE_NVML
kubeletUrl http://127.0.0.1:$(cat "$WORK/stub.port")
kubeletTokenFile $WORK/token
pollInterval gpu 2
pollTimeout gpu 2
pollInterval kubelet 2
pollInterval containers 2
CONF
PNA_FAKE_NVML_HANG=nvmlDeviceGetPowerUsage PNA_FAKE_NVML_HANG_FILE="$WORK/nvml.hang" \
    start_agent hang
wait_value "$OBJ.8.1.0" "$CONTAINERS" 60 || result "hang: containers not served: $(value $OBJ.8.1.0)"
wait_value "$OBJ.5.1.0" "$GPUS" 30 || result "hang: GPUs not served: $(value $OBJ.5.1.0)"
wait_value "$POLLER.9.6" 1 30 || result "hang: kubelet poller not ok before the hang: $(value $POLLER.9.6)"
sleep 3
LAT_BEFORE=$(getlat_run "${GET_OIDS[@]}")
touch "$WORK/nvml.hang"
echo stall > "$WORK/stub.mode"
hw="$GEN/sys/class/infiniband/mlx5_1/ports/2/hw_counters/out_of_sequence"
rm -f "$hw"; mkfifo "$hw"
wait_value "$POLLER.9.2" 3 30 || result "hang: gpu poller is not timedOut(3): $(value $POLLER.9.2)"
sleep 8
statuses=$(for i in 1 2 3 4 5 6 7; do printf '%s=%s ' "$(value "$POLLER.2.$i")" "$(value "$POLLER.9.$i")"; done)
LAT_HANG=$(getlat_run "${GET_OIDS[@]}")
result "GET latency, same agent (polls every 2 s), sources healthy: $LAT_BEFORE"
result "GET latency, same agent, while NVML, kubelet and dockerd hang: $LAT_HANG"
result "   poller status then (1 ok, 2 failing, 3 timedOut): $statuses"
rm -f "$WORK/nvml.hang"
stop_agent

# --- 9. the GPU poll with accounting --------------------------------------
# The accounting poller's charge of each GPU snapshot against the gpu poll
# that made it, alternating in one process (bench/acctpoll.c).  Goal: at
# most 10 % more than the poll alone.
say "GPU poll with accounting ($GPUS GPUs, $CONTAINERS containers)"
if PNA_FAKE_NVML_XML="$GEN/nvml.xml" "$top_builddir/bench/acctpoll" --sysfs "$GEN/sys" \
        --procfs "$GEN/proc" --rootfs "$GEN/root" --devfs "$GEN/dev" --nvml "$FAKE_NVML" \
        --polls 50 > "$WORK/acct-poll" 2> "$WORK/acct-poll.err"; then
    result "gpu poll: $(field "$WORK/acct-poll" gpu_poll_us) us wall alone; accounting of it $(field "$WORK/acct-poll" accounting_us) us ($(sed -n 's/.*overhead_pct=\([0-9.]*\).*/\1/p' "$WORK/acct-poll") % more; goal 10 %), $(field "$WORK/acct-poll" holder_rows) holder rows of $(field "$WORK/acct-poll" row_bytes) bytes, nothing per container"
else
    result "gpu poll with accounting: acctpoll failed: $(head -3 "$WORK/acct-poll.err")"
fi

say "summary"
cat "$SUMMARY"
[ -z "${BENCH_RESULTS:-}" ] || cp "$SUMMARY" "$BENCH_RESULTS"
