#!/bin/bash
# The pause/PFC tables on a real netdev: a veth pair in a private network
# namespace, named with pfcInterface, read by the agent (running in that
# namespace) with the ethtool ioctl and served through a real snmpd.  Every
# statistic in primusEthtoolCounterTable must equal `ethtool -S`.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for a network namespace and a veth pair"
command -v ip >/dev/null || skip "ip (iproute2) not installed"
command -v ethtool >/dev/null || skip "ethtool not installed (Debian: ethtool)"

NS="pna-pfc-$$"
ip netns add "$NS" 2>/dev/null || skip "network namespaces not supported here"
trap 'cleanup; ip netns del "$NS" 2>/dev/null' EXIT
ip -n "$NS" link add pnav0 type veth peer name pnav1 2>/dev/null || skip "veth not supported here"
ip -n "$NS" link set pnav0 up && ip -n "$NS" link set pnav1 up

# "3.97.98.99" -> "abc"
index_str() {
    local n=${1%%.*} rest=${1#*.} out="" c i
    for ((i = 0; i < n; i++)); do
        c=${rest%%.*}; rest=${rest#*.}
        out="$out$(printf "\\$(printf '%03o' "$c")")"
    done
    echo "$out"
}

PAUSE_ENTRY="$OBJ.7.10.1"
ETHTOOL_ENTRY="$OBJ.7.30.1"
IDX=$(str_index pnav0)

printf 'pfcInterface pnav0\npollInterval pfc 1\n' > "$WORK/agent.conf"
start_snmpd
ip netns exec "$NS" $(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" -x "$AGENTX" \
    -p "$WORK/agent.pid" &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
wait_agent
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $PAUSE_ENTRY.5.$IDX | grep -q veth" ||
    fail "primusPauseDriver.pnav0 is not veth: $(snmp_value $PAUSE_ENTRY.5.$IDX)"
ifindex=$(ip netns exec "$NS" cat /sys/class/net/pnav0/ifindex)
[ "$(snmp_value $PAUSE_ENTRY.2.$IDX)" = "$ifindex" ] || fail "primusPauseIfIndex is not $ifindex"
[ "$(snmp_value $PAUSE_ENTRY.3.$IDX)" = "" ] || fail "primusPauseRdmaDevice should be empty"
ok "primusPauseTable row pnav0: driver veth, ifIndex $ifindex, no RDMA device"
served=$(snmp_walk "$PAUSE_ENTRY.6" | grep -c "^$PAUSE_ENTRY\.6\.")
[ "$served" = 0 ] || fail "veth has no pause counters, yet $served are served"
ok "pause counters the driver lacks are absent"

# The agent's view of every statistic, then the command's (veth statistics
# only move with XDP traffic: nothing changes in between).
snmp_walk "$ETHTOOL_ENTRY.2.$IDX" > "$WORK/served.txt"
ip netns exec "$NS" ethtool -S pnav0 | sed -n 's/^ *\([^:]*\): *\([0-9][0-9]*\)$/\1 \2/p' | sort > "$WORK/ethtool.txt"
while read -r oid value; do
    echo "$(index_str "${oid#"$ETHTOOL_ENTRY.2.$IDX."}") $value"
done < <(grep "^$ETHTOOL_ENTRY\.2\.$IDX\." "$WORK/served.txt") | sort > "$WORK/agent.txt"
[ -s "$WORK/ethtool.txt" ] || fail "ethtool -S pnav0 printed no statistics"
diff -u "$WORK/ethtool.txt" "$WORK/agent.txt" || fail "primusEthtoolCounterTable differs from ethtool -S"
ok "$(wc -l < "$WORK/agent.txt") statistics in primusEthtoolCounterTable equal to ethtool -S"
echo "PASS: $TEST_NAME"
