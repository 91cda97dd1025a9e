#!/bin/bash
# The agent killed with SIGKILL (no clean AgentX close, no shutdown code) and
# started again, three times: snmpd keeps answering for its own objects while
# the agent is gone, the new agent registers again without "registering pdu
# failed", and every table comes back with the same rows under the same
# indexes (GPUs by PCI address, RDMA devices and ports by name, hardware
# counters by name, containers by id, pollers by their fixed numbers).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"

gen_node
fault_conf
start_snmpd
start_agent $(node_args)
wait_agent
wait_until 20 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0)\" = 6 ]" ||
    fail "containers not served: $(snmp_value $OBJ.8.1.0)"
wait_until 20 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.6.1.0)\" = 2 ]" ||
    fail "RDMA devices not served: $(snmp_value $OBJ.6.1.0)"
if [ -f "$FAKE_NVML" ]; then
    wait_until 20 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.5.1.0)\" = 2 ]" ||
        fail "GPUs not served: $(snmp_value $OBJ.5.1.0)"
fi
identity_walk "$WORK/before"
rows=$(grep -c . "$WORK/before")
[ "$rows" -gt 100 ] || fail "only $rows identity cells before the kill"
ok "$rows identity cells served (pollers, GPUs, RDMA devices, ports, hw counters, containers)"

for round in 1 2 3; do
    kill -9 "$AGENT_PID"
    wait "$AGENT_PID" 2>/dev/null
    # snmpd itself is untouched by its subagent's death.
    up=$(snmpget $V2 -On -Oqv "$TARGET" .1.3.6.1.2.1.1.3.0 2>&1)
    case "$up" in *Timeout*|"") fail "round $round: snmpd stopped answering: $up" ;; esac
    start_agent $(node_args)
    t0=$(date +%s)
    wait_agent
    wait_until 20 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0)\" = 6 ] &&
                         [ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.6.1.0)\" = 2 ]" ||
        fail "round $round: tables not back"
    [ -f "$FAKE_NVML" ] && { wait_until 20 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.5.1.0)\" = 2 ]" ||
        fail "round $round: GPUs not back"; }
    identity_walk "$WORK/after"
    diff "$WORK/before" "$WORK/after" > "$WORK/diff" ||
        fail "round $round: rows or indexes differ after the restart: $(head -20 "$WORK/diff")"
    ok "round $round: SIGKILL, restart, registered again in $(( $(date +%s) - t0 )) s, same $rows cells"
done
! grep -h "registering pdu failed" "$WORK"/agent*.log "$WORK/snmpd.log" ||
    fail "a registration failed after a restart"
[ "$(status_of $P_NODE)" = 1 ] || fail "node poller not ok after the restarts"
ok "no failed registration; pollers ok"
echo "PASS: $TEST_NAME"
