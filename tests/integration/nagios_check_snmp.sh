#!/bin/bash
# nagios_check_snmp.sh -- the check_snmp command definitions of
# etc/nagios/primus-node-agent.cfg, run as written (macros substituted as
# Nagios does) with Debian's check_snmp against the standalone agent of the
# fixture node (tests/integration/nms_lib.sh).  Exit codes are asserted while
# fixture values move: OK, WARNING and CRITICAL for the GPU temperature,
# OK and CRITICAL for the port state, a CRITICAL error rate while the port
# counts symbol errors, WARNING for OOM kills after a kill, OK for the agent,
# a poller and GPU health, CRITICAL when the agent does not answer.
# etc/icinga2/primus-node-agent.conf must use the same OIDs and thresholds.
. "$(dirname "$0")/lib.sh"
CHECK_SNMP=${PNA_CHECK_SNMP:-/usr/lib/nagios/plugins/check_snmp}
[ -x "$CHECK_SNMP" ] || skip "$CHECK_SNMP not installed (Debian: monitoring-plugins-standard)"
CFG="$top_srcdir/etc/nagios/primus-node-agent.cfg"
ICINGA="$top_srcdir/etc/icinga2/primus-node-agent.conf"
[ -f "$CFG" ] || fail "$CFG not found"
. "$(dirname "$0")/nms_lib.sh"
nms_fixture_node "pollInterval gpu 1" "pollInterval ib 1" "pollInterval containers 1"
export NAGIOS_PLUGIN_STATE_DIRECTORY="$WORK/nagios-state"   # check_snmp --rate keeps its state here
mkdir -p "$NAGIOS_PLUGIN_STATE_DIRECTORY"

# command_line NAME: the command's line from the .cfg.
command_line() {
    awk -v n="$1" '
        /^define command/ { name = ""; line = "" }
        $1 == "command_name" { name = $2 }
        $1 == "command_line" { sub(/^[ \t]*command_line[ \t]+/, ""); line = $0 }
        /^}/ && name == n { print line; exit }' "$CFG"
}
# run_check NAME ARGS...: the command with Nagios' macros substituted, run by
# bash as Nagios runs it through a shell; sets RC and OUT.
run_check() {
    local name=$1 line i; shift
    line=$(command_line "$name")
    [ -n "$line" ] || fail "no command $name in $CFG"
    line=${line//'$USER1$'/$(dirname "$CHECK_SNMP")}
    line=${line//'$HOSTADDRESS$'/127.0.0.1}
    line=${line//'$_HOSTSNMPPORT$'/$SNMP_PORT}
    line=${line//'$_HOSTSNMPCOMMUNITY$'/public}
    for ((i = 1; i <= $#; i++)); do line=${line//"\$ARG$i\$"/${!i}}; done
    case $line in *'$'*) fail "$name: unsubstituted macro in: $line" ;; esac
    OUT=$(bash -c "$line" 2>&1); RC=$?
}
# expect RC NAME ARGS...: the check exits RC now.
expect() {
    local want=$1; shift
    run_check "$@"
    [ "$RC" = "$want" ] || fail "$*: exit $RC, expected $want: $OUT"
    ok "$* -> $RC: $OUT"
}
# expect_within SECONDS RC NAME ARGS...: the check exits RC within SECONDS.
expect_within() {
    local secs=$1 want=$2 end; shift 2
    end=$(( $(date +%s) + secs ))
    while :; do
        run_check "$@"
        [ "$RC" = "$want" ] && break
        [ "$(date +%s)" -lt "$end" ] || fail "$*: exit $RC, expected $want within ${secs}s: $OUT"
        sleep 0.3
    done
    ok "$* -> $RC: $OUT"
}

# the indexes: the T4's GPU row (primusGpuPciBusId), mlx5_0 port 1, the gpu poller
gpu=$(snmp_walk "$OBJ.5.10.1.7" | awk -v b="\"$T4_PCI\"" '$2 == b {n = split($1, a, "."); print a[n]}')
[ -n "$gpu" ] || fail "no GPU row for $T4_PCI: $(snmp_walk "$OBJ.5.10.1.7")"
poller=$(snmp_walk "$OBJ.4.10.1.2" | awk '$2 == "\"gpu\"" {n = split($1, a, "."); print a[n]}')
[ -n "$poller" ] || fail "no gpu poller row"

expect 0 check_primus_agent
expect 0 check_primus_poller "$poller"
# the T4's recorded PCIe link trained at x8 of x16: the agent's health rules say warning
expect 1 check_primus_gpu_health "$gpu"
healthy=$(snmp_walk "$OBJ.5.10.1.78" | awk '$2 == 1 {n = split($1, a, "."); print a[n]; exit}')
[ -n "$healthy" ] || fail "no GPU with primusGpuHealth ok(1): $(snmp_walk "$OBJ.5.10.1.78")"
expect 0 check_primus_gpu_health "$healthy"
expect 0 check_primus_gpu_temperature "$gpu" 88 93
echo "set $T4_BUS temp 90" >> "$PNA_FAKE_NVML_CTL"
expect_within 10 1 check_primus_gpu_temperature "$gpu" 88 93
echo "set $T4_BUS temp 97" >> "$PNA_FAKE_NVML_CTL"
expect_within 10 2 check_primus_gpu_temperature "$gpu" 88 93
echo "set $T4_BUS temp 40" >> "$PNA_FAKE_NVML_CTL"
expect_within 10 0 check_primus_gpu_temperature "$gpu" 88 93

expect 0 check_primus_port_state "$IB_PORT_INDEX"
expect 0 check_primus_port_errors "$IB_PORT_INDEX" 10 100
printf '1: DOWN\n' > "$IB_STATE"
expect_within 10 2 check_primus_port_state "$IB_PORT_INDEX"
printf '4: ACTIVE\n' > "$IB_STATE"
expect_within 10 0 check_primus_port_state "$IB_PORT_INDEX"
# symbol errors counted at some 5000 per second for a while
SYM="$S/class/infiniband/mlx5_0/ports/1/counters/symbol_error"
[ -f "$SYM" ] || fail "fixture $SYM missing"
( n=$(cat "$SYM"); for _ in $(seq 40); do n=$((n + 1000)); echo "$n" > "$SYM"; sleep 0.2; done ) &
bumper=$!
expect_within 8 2 check_primus_port_errors "$IB_PORT_INDEX" 10 100
wait "$bumper"
expect_within 15 0 check_primus_port_errors "$IB_PORT_INDEX" 10 100

# --rate: kills per second since the previous run (at least a second before),
# times 300.  One kill a few seconds after the previous run reads as some
# 100 kills per 5 minutes: a critical threshold of 1000 leaves it a WARNING.
expect 0 check_primus_oom_kills 0 1000     # first run: no previous data
sleep 1.5
expect 0 check_primus_oom_kills 0 1000     # nothing killed since
sleep 1.5
EV="$S/fs/cgroup/kubepods.slice/pod-llm/ctr-trainer/memory.events"
before=$(snmp_value "$OBJ.8.2.0")
sed -i 's/^oom_kill \([0-9]*\)/echo "oom_kill $((\1 + 1))"/e' "$EV"
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.2.0)\" -gt $before ]" ||
    fail "primusContainerOomKillsTotal did not rise from $before: $(snmp_value "$OBJ.8.2.0") ($(cat "$EV"))"
expect 1 check_primus_oom_kills 0 1000

kill "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null
expect 2 check_primus_agent

# Icinga 2: the same OIDs and thresholds as the Nagios commands.
if [ -f "$ICINGA" ]; then
    for oid in $(grep -o '\.1\.3\.6\.1\.4\.1\.59888[0-9.]*' "$CFG" | sort -u); do
        grep -qF "$oid" "$ICINGA" || fail "etc/icinga2/primus-node-agent.conf lacks $oid of the Nagios commands"
    done
    ok "etc/icinga2/primus-node-agent.conf uses every OID of the Nagios commands"
else
    fail "$ICINGA not found"
fi
echo "PASS: $TEST_NAME"
