#!/bin/bash
# The agent as AgentX subagent of a real snmpd: node, CPU, memory and poller
# rows read with snmpget/snmpwalk/snmpbulkwalk (v2c and v3 authPriv) and
# compared with independent readings of this machine.
. "$(dirname "$0")/lib.sh"

echo "pollInterval node 1" > "$WORK/agent.conf"
start_snmpd
start_agent
wait_agent

expect_eq() { # WHAT GOT WANT
    [ "$2" = "$3" ] || fail "$1: agent says '$2', expected '$3'"
    ok "$1 = $3"
}

expect_eq hostname "$(snmp_value $OBJ.1.1.0)" "$(cat /proc/sys/kernel/hostname)"
expect_eq kernel "$(snmp_value $OBJ.1.3.0)" "$(uname -r)"
expect_eq architecture "$(snmp_value $OBJ.1.6.0)" "$(uname -m)"
expect_eq "cpu threads" "$(snmp_value $OBJ.2.2.0)" "$(grep -c '^processor' /proc/cpuinfo)"
expect_eq "memory total" "$(snmp_value $OBJ.3.1.0)" \
    "$(awk '/^MemTotal:/ {printf "%.0f\n", $2 * 1024}' /proc/meminfo)"
btime=$(awk '/^btime/ {print $2}' /proc/stat)
expect_eq "boot time" "$(snmp_value $OBJ.1.7.0)" "$btime"
expect_eq "os" "$(snmp_value $OBJ.1.2.0)" "$(. /etc/os-release; echo "$PRETTY_NAME")"

# Memory available moves; the agent's reading must be within 5 % of ours.
avail=$(snmp_value $OBJ.3.3.0)
ours=$(awk '/^MemAvailable:/ {printf "%.0f\n", $2 * 1024}' /proc/meminfo)
awk -v a="$avail" -v b="$ours" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * 0.05) }' ||
    fail "memory available $avail vs /proc/meminfo $ours"
ok "memory available within 5 % of /proc/meminfo"

# used + available = total, usage = used / total (hundredths of a percent)
total=$(snmp_value $OBJ.3.1.0); used=$(snmp_value $OBJ.3.2.0); avail=$(snmp_value $OBJ.3.3.0)
usage=$(snmp_value $OBJ.3.4.0)
[ $((used + avail)) -ge $((total - total / 50)) ] || fail "used $used + available $avail != total $total"
[ "$usage" -ge 0 ] && [ "$usage" -le 10000 ] || fail "memory usage $usage out of 0..10000"
ok "memory used/available/usage consistent"

# CPU usage appears after the second poll (1 s interval here).
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.2.3.0 | grep -q '^[0-9]'" ||
    fail "primusCpuUsage never appeared"
cpu=$(snmp_value $OBJ.2.3.0)
[ "$cpu" -le 10000 ] || fail "cpu usage $cpu > 10000"
ok "cpu usage $cpu/10000"

# Poller table: the node poller, ok, polling.
expect_eq "poller name" "$(snmp_value $OBJ.4.10.1.2.1)" node
expect_eq "poller status" "$(snmp_value $OBJ.4.10.1.9.1)" 1
expect_eq "poller interval" "$(snmp_value $OBJ.4.10.1.3.1)" 1000
runs=$(snmp_value $OBJ.4.10.1.10.1)
[ "$runs" -ge 2 ] || fail "poller runs $runs"
age=$(snmp_value $OBJ.4.10.1.8.1)
[ "$age" -le 3 ] || fail "data age $age s with a 1 s interval"
expect_eq "agent status" "$(snmp_value $OBJ.4.3.0)" 1
expect_eq "agent mode" "$(snmp_value $OBJ.4.4.0)" 1

# SNMPv3 authPriv (SHA-256/AES) reads the same value.
v3host=$(snmpget $V3 -On -Oqv "$TARGET" $OBJ.1.1.0 | tr -d '"')
expect_eq "hostname over v3 authPriv" "$v3host" "$(cat /proc/sys/kernel/hostname)"

# GETBULK through the master gives exactly what GETNEXT gives.
walk=$(snmpwalk $V2 -On "$TARGET" "$ROOT" | cut -d' ' -f1)
bulk=$(snmpbulkwalk $V3 -Cr7 -On "$TARGET" "$ROOT" | cut -d' ' -f1)
[ "$walk" = "$bulk" ] || fail "snmpbulkwalk (v3) and snmpwalk (v2c) return different OIDs"
ok "snmpbulkwalk v3 = snmpwalk v2c ($(echo "$walk" | wc -l) OIDs)"

# The MIB is read-only: a SET through a read-write community is refused.
out=$(snmpset -v2c -c private "$TARGET" $OBJ.1.1.0 s hacked 2>&1)
echo "$out" | grep -q -e notWritable -e noAccess -e noCreation || fail "SET was not refused: $out"
expect_eq "hostname after SET" "$(snmp_value $OBJ.1.1.0)" "$(cat /proc/sys/kernel/hostname)"
ok "SET refused ($(echo "$out" | grep -o -e notWritable -e noAccess -e noCreation | head -1))"
echo "PASS: $TEST_NAME"
