#!/bin/bash
# Files grown huge: 1 GiB sparse files in place of /proc/stat, /proc/meminfo,
# an InfiniBand counter and hw counter, a container's config.json and its
# cgroup memory.events.  The bounded readers (src/util/fileio.c) refuse them
# at once: every poll stays short, the agent's memory does not grow, SNMP
# keeps answering, the node poller shows "File too large" in
# primusPollerTable, the oversized counter and bundle are left out and the
# rest is served; all is well once the files are normal again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"

# In a sanitizer build, AddressSanitizer's quarantine holds freed buffers
# (hundreds of MiB): memory is only measurable without it, here.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"

gen_node
fault_conf
cp -a "$NODE" "$WORK/node.good"
start_snmpd
start_agent $(node_args)
wait_agent
for p in $P_NODE $P_IB $P_CONTAINERS; do
    wait_status "$p" 1 20 || fail "poller $p not ok at start: $(status_of $p) $(error_of $p)"
done
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0)\" = 6 ]" || fail "6 containers not served"
# The same ten forced polls on normal files first: what they cost in memory
# (thread arenas, caches) is not the huge files' doing.
for i in $(seq 10); do kill -HUP "$AGENT_PID"; sleep 0.3; snmp_answers "warm-up round $i"; done
rss0=$(rss_kb "$AGENT_PID")
ok "start: pollers ok, RSS $rss0 kB"

P1="$NODE/sys/class/infiniband/mlx5_0/ports/1"
TASKS="$NODE/root/run/containerd/io.containerd.runtime.v2.task/k8s.io"
ids=($(ls "$TASKS"))
cg=$(sed -n 's/^0:://p' "$NODE/proc/$(cat "$TASKS/${ids[1]}/init.pid")/cgroup")
huge=("$NODE/proc/stat" "$NODE/proc/meminfo" "$P1/counters/symbol_error"
      "$P1/hw_counters/out_of_sequence" "$TASKS/${ids[0]}/config.json"
      "$NODE/sys/fs/cgroup$cg/memory.events")
for f in "${huge[@]}"; do
    rm -f "$f"
    truncate -s 1G "$f"
done
t0=$(date +%s)
kill -HUP "$AGENT_PID"
wait_status $P_NODE 2 10 || fail "node poller not failing(2) on a 1 GiB /proc/stat: $(status_of $P_NODE)"
echo "   poller node: last error: '$(error_of $P_NODE)'"
error_of $P_NODE | grep -q "too large" || fail "node error does not say the file is too large"
# Ten more polls of everything over the huge files.
for i in $(seq 10); do kill -HUP "$AGENT_PID"; sleep 0.3; snmp_answers "huge round $i"; done
agent_alive
for p in $P_NODE $P_IB $P_CONTAINERS; do
    d=$(snmp_value "$POLLER.5.$p")
    echo "   poller $(snmp_value $POLLER.2.$p): last poll $d ms, status $(status_of $p)"
    [ "$d" -lt 1000 ] || fail "poller $p took $d ms over the huge files"
done
# A refused file costs at most one bounded buffer per reader thread (kept by
# malloc for reuse): a step once, then flat however many polls follow.
rss1=$(rss_kb "$AGENT_PID")
for i in $(seq 20); do kill -HUP "$AGENT_PID"; sleep 0.2; done
sleep 1
rss2=$(rss_kb "$AGENT_PID")
echo "   RSS: $rss0 kB before, $rss1 kB after 10 polls over the huge files, $rss2 kB after 20 more"
if [ "${PNA_VALGRIND:-0}" = 1 ]; then
    # valgrind holds freed blocks back (a 20 MB queue) and pads every block:
    # RSS says nothing there, and its own leak check covers this run.
    echo "   RSS not judged under valgrind"
else
    [ $(( rss1 - rss0 )) -lt 20480 ] || fail "RSS grew from $rss0 to $rss1 kB with 1 GiB files"
    [ $(( rss2 - rss1 )) -lt 2048 ] || fail "RSS keeps growing with the huge files: $rss1 -> $rss2 kB"
fi
ok "huge files refused in every poll: polls under a second, memory bounded and flat"

M0="6.109.108.120.53.95.48"
got=$(snmp_value "$OBJ.6.20.1.28.$M0.1")
case "$got" in *"No Such"*) ;; *) fail "a 1 GiB symbol_error is served as '$got'" ;; esac
[ "$(snmp_value "$OBJ.6.20.1.28.$M0.2")" = "$(cat "$NODE/sys/class/infiniband/mlx5_0/ports/2/counters/symbol_error")" ] ||
    fail "port 2's symbol errors lost"
[ "$(snmp_value $OBJ.8.1.0)" = 5 ] || fail "containers: $(snmp_value $OBJ.8.1.0), expected the 5 with a normal spec"
ok "the huge counter and bundle are left out, the rest is served"
[ -n "$(error_of $P_IB)" ] || fail "ib poller: an oversized sysfs file is not visible in primusPollerTable"
[ -n "$(error_of $P_CONTAINERS)" ] || fail "containers poller: an oversized config.json is not visible in primusPollerTable"

for f in "${huge[@]}"; do rm -f "$f"; cp -a "$WORK/node.good/${f#$NODE/}" "$f"; done
kill -HUP "$AGENT_PID"
for p in $P_NODE $P_IB $P_CONTAINERS; do
    wait_status "$p" 1 15 || fail "poller $p did not recover: $(status_of $p) $(error_of $p)"
done
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0)\" = 6 ]" || fail "6 containers not back"
agent_alive
ok "files normal again: pollers ok, 6 containers"
echo "PASS: $TEST_NAME"
