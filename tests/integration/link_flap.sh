#!/bin/bash
# link_flap.sh -- RDMA link events end to end: the agent, an AgentX subagent of
# a real snmpd, runs in a network namespace made here and reads a fixture sysfs
# tree (made here) whose RoCE port mlx5_0/1 has a veth end of that namespace
# as its netdev.  The veth's carrier is taken down and up by setting its peer
# down and up, several times inside one poll interval (pollInterval ib 30):
#   - each carrier loss and return is one primusIbPortDown / primusIbPortUp at
#     snmptrapd, in order (the time from each `ip link set` to the trap's
#     arrival is printed, never asserted);
#   - primusIbPortFlaps over SNMP and primus_ib_port_flaps_total on /metrics
#     equal the number of flaps, primusIbPortLastChange is set;
#   - the port's state file never changed: the events alone did it.
# Then again with linkEvents no (pollInterval ib 2): a flap shorter than a
# poll reaches nobody and counts nothing; a state change reaches snmptrapd at
# the next poll.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for a network namespace"
command -v ip >/dev/null || skip "ip (iproute2) not installed"
command -v curl >/dev/null || skip "curl not installed"

NS="pna-flap-$$-$RANDOM"
IF="fla$$"
PEER="flb$$"
ip netns add "$NS" 2>/dev/null || skip "network namespaces not supported here"
stop_all() {
    cleanup_agents
    ip netns del "$NS" 2>/dev/null
    cleanup
}
trap stop_all EXIT
ip -n "$NS" link add "$IF" type veth peer name "$PEER" 2>/dev/null || skip "veth not supported here"
ip -n "$NS" link set lo up
ip -n "$NS" link set "$IF" up
ip -n "$NS" link set "$PEER" up
IFINDEX=$(ip netns exec "$NS" cat "/sys/class/net/$IF/ifindex")

# The fixture: one RoCE device whose port's netdev is $IF (made for this test,
# in the layout of tests/fixtures/ib-sysfs).
SYS="$WORK/sys"
PORT="$SYS/class/infiniband/mlx5_0/ports/1"
mkdir -p "$PORT/gid_attrs/ndevs" "$SYS/class/net/$IF"
printf '4: ACTIVE\n' > "$PORT/state"
printf '5: LinkUp\n' > "$PORT/phys_state"
printf 'Ethernet\n' > "$PORT/link_layer"
printf '100 Gb/sec (4X EDR)\n' > "$PORT/rate"
printf '%s\n' "$IF" > "$PORT/gid_attrs/ndevs/0"
printf '%s\n' "$IFINDEX" > "$SYS/class/net/$IF/ifindex"
STATE_SUM=$(md5sum < "$PORT/state")

RDMA="$OBJ.6"
PORT_IDX="6.109.108.120.53.95.48.1"      # "mlx5_0", port 1
FLAPS="$RDMA.20.1.64.$PORT_IDX"
LAST_CHANGE="$RDMA.20.1.65.$PORT_IDX"
HTTP_PORT=$(free_port)

AGENTS=()
cleanup_agents() {
    for pid in "${AGENTS[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${AGENTS[@]}"; do
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    AGENTS=()
}

# run_agent CONFIG-LINES...: the agent in the namespace, on the fixture.
run_agent() {
    printf '%s\n' "$@" "httpAddress 127.0.0.1:$HTTP_PORT" > "$WORK/agent.conf"
    ip netns exec "$NS" $(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" \
        -c "$WORK/agent.conf" -x "$AGENTX" -p "$WORK/agent.pid" --sysfs "$SYS" \
        2>>"$WORK/agent-stderr.log" &
    AGENT_PID=$!
    AGENTS+=("$AGENT_PID")
    PIDS+=("$AGENT_PID")
    wait_agent
    wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $RDMA.20.1.3.$PORT_IDX | grep -q '^4'" ||
        fail "mlx5_0/1 not served as active(4)"
}

count_traps() { grep -c "$NOTIFY.$1\b" "$WORK/traps.log"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"

# ---- link events on --------------------------------------------------------
run_agent "pollInterval ib 30"
[ "$(snmp_value "$FLAPS")" = 0 ] || fail "primusIbPortFlaps is not 0 at start"
[ "$(snmp_value "$LAST_CHANGE")" = 0 ] || fail "primusIbPortLastChange is not 0 at start"
ok "mlx5_0/1 active, no flap yet (netdev $IF, ifindex $IFINDEX)"
sleep 1   # the watcher learns the netdev after the first poll

N=3
for i in $(seq "$N"); do
    down_at=$(now)
    ip -n "$NS" link set "$PEER" down
    wait_until 10 sh -c "[ \$(grep -c '$NOTIFY.3\b' '$WORK/traps.log') -ge $i ]" ||
        fail "flap $i: no primusIbPortDown trap"
    down_s=$(since "$down_at")
    up_at=$(now)
    ip -n "$NS" link set "$PEER" up
    wait_until 10 sh -c "[ \$(grep -c '$NOTIFY.4\b' '$WORK/traps.log') -ge $i ]" ||
        fail "flap $i: no primusIbPortUp trap"
    echo "# flap $i: carrier down -> trap seen after $down_s s, up -> trap after $(since "$up_at") s"
done
# and two more back to back, faster than anything but an event can follow
for _ in 1 2; do
    ip -n "$NS" link set "$PEER" down
    sleep 0.1
    ip -n "$NS" link set "$PEER" up
    sleep 0.1
done
N=$((N + 2))
wait_until 10 sh -c "[ \$(grep -c '$NOTIFY.4\b' '$WORK/traps.log') -ge $N ]" ||
    fail "burst: $(count_traps 4) primusIbPortUp traps, expected $N"
sleep 1   # nothing more may come
ok "$N flaps within one poll interval: $N primusIbPortDown and $N primusIbPortUp"
[ "$(count_traps 3)" = "$N" ] || fail "$(count_traps 3) primusIbPortDown traps, expected $N"
[ "$(count_traps 4)" = "$N" ] || fail "$(count_traps 4) primusIbPortUp traps, expected $N"
order=$(grep -o "$NOTIFY.[34]\b" "$WORK/traps.log" | sed "s/.*\.//" | tr -d '\n')
[ "$order" = "$(printf '34%.0s' $(seq "$N"))" ] || fail "traps out of order: $order"
grep -A30 "$NOTIFY.3\b" "$WORK/traps.log" | grep -q "$OBJ.99.1.0 = STRING: \"mlx5_0\"" ||
    fail "primusIbPortDown lacks primusNotifyRdmaDevice mlx5_0"
ok "DOWN, UP in order, for mlx5_0"

[ "$(snmp_value "$FLAPS")" = "$N" ] || fail "primusIbPortFlaps is $(snmp_value "$FLAPS"), expected $N"
last=$(snmp_value "$LAST_CHANGE")
[ "$last" -ge $(( $(date +%s) - 120 )) ] 2>/dev/null || fail "primusIbPortLastChange is $last"
ok "primusIbPortFlaps $N, primusIbPortLastChange $last"
metrics=$(ip netns exec "$NS" curl -sf "http://127.0.0.1:$HTTP_PORT/metrics") || fail "no /metrics"
grep -q "^primus_ib_port_flaps_total{.*device=\"mlx5_0\".*} $N\$" <<<"$metrics" ||
    fail "/metrics: $(grep '^primus_ib_port_flaps_total' <<<"$metrics")"
grep -q "^primus_ib_port_last_change_timestamp_seconds{.*} $last\$" <<<"$metrics" ||
    fail "/metrics: $(grep '^primus_ib_port_last_change' <<<"$metrics")"
rdma=$(ip netns exec "$NS" curl -sf "http://127.0.0.1:$HTTP_PORT/rdma") || fail "no /rdma"
grep -q "\"flaps\": *$N" <<<"$rdma" || fail "/rdma: $rdma"
ok "/metrics and /rdma: $N flaps"
[ "$(md5sum < "$PORT/state")" = "$STATE_SUM" ] || fail "the state file changed"
[ "$(snmp_value "$RDMA.20.1.3.$PORT_IDX")" = 4 ] || fail "primusIbPortState is not active(4)"
ok "the state file never changed"

# ---- linkEvents no: the poll alone -----------------------------------------
cleanup_agents
downs=$(count_traps 3)
run_agent "pollInterval ib 2" "linkEvents no"
sleep 2.5   # a poll after the first
ip -n "$NS" link set "$PEER" down
sleep 0.3
ip -n "$NS" link set "$PEER" up
sleep 5     # two polls
[ "$(count_traps 3)" = "$downs" ] || fail "linkEvents no: a carrier flap reached snmptrapd"
[ "$(snmp_value "$FLAPS")" = 0 ] || fail "linkEvents no: primusIbPortFlaps is $(snmp_value "$FLAPS")"
ok "linkEvents no: a flap between polls is not seen"
changed_at=$(now)
printf '1: DOWN\n' > "$PORT/state"
wait_until 10 sh -c "[ \$(grep -c '$NOTIFY.3\b' '$WORK/traps.log') -gt $downs ]" ||
    fail "linkEvents no: no primusIbPortDown after the state file changed"
echo "# linkEvents no, pollInterval ib 2: state file DOWN -> trap seen after $(since "$changed_at") s"
[ "$(snmp_value "$FLAPS")" = 1 ] || fail "linkEvents no: primusIbPortFlaps is not 1"
ok "linkEvents no: the poll sees the state change"
echo "PASS: $TEST_NAME"
