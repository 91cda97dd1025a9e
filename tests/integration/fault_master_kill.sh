#!/bin/bash
# snmpd killed with SIGKILL in the middle of a walk of the agent's subtree,
# four times, and restarted: the walk in flight fails (the master is gone),
# the agent notices (agentXPingInterval 1), reconnects once per restart, keeps
# running, and the next walk through the new master returns every row under
# the same index.  SIGKILL leaves the master's AgentX socket file behind; the
# new snmpd takes the path over.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"

gen_node --containers 400
# Every reconnect's log line is counted below: no rate limit on them.
fault_conf "logRateInterval 0"
start_snmpd
start_agent $(node_args)
wait_agent
wait_until 20 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0)\" = 400 ]" ||
    fail "containers not served: $(snmp_value $OBJ.8.1.0)"
snmp_walk "$OBJ.8.10.1.3" > "$WORK/containers.before"
identity_walk "$WORK/before"
full=$(snmpbulkwalk $V2 -Cr10 -On "$TARGET" "$ROOT" | grep -c .)
ok "reference: $full varbinds in the subtree, $(grep -c . "$WORK/before") identity cells"

for round in 1 2 3 4; do
    # GETNEXT one varbind at a time: the walk takes long enough to be cut.
    snmpwalk -v2c -c public -t 1 -r 0 -On "$TARGET" "$ROOT" > "$WORK/walk.$round" 2>&1 &
    walker=$!
    sleep "0.$(( RANDOM % 3 + 2 ))"
    kill -9 "$SNMPD_PID"
    wait "$SNMPD_PID" 2>/dev/null
    wait "$walker"
    got=$(grep -c "^$ROOT" "$WORK/walk.$round")
    [ "$got" -lt "$full" ] || fail "round $round: the walk finished before snmpd was killed ($got varbinds)"
    kill -0 "$AGENT_PID" || fail "round $round: the agent died with its master"
    sleep 0.$(( RANDOM % 9 + 1 ))
    start_snmpd
    t0=$(date +%s)
    wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0 | grep -qx 400" ||
        fail "round $round: agent not back through the new master within 20 s"
    identity_walk "$WORK/after"
    diff "$WORK/before" "$WORK/after" > "$WORK/diff" ||
        fail "round $round: rows differ after the restart: $(head -10 "$WORK/diff")"
    ok "round $round: snmpd killed after $got of $full varbinds; agent back in $(( $(date +%s) - t0 )) s, same rows"
done
agent_alive
connects=$(grep -c "AgentX subagent connected" "$WORK/agent.log")
[ "$connects" -eq 5 ] || fail "expected 5 connect lines (start + 4 reconnects), got $connects"
! grep -q "registering pdu failed" "$WORK/agent.log" || fail "a registration failed after a restart"
snmp_walk "$OBJ.8.10.1.3" | diff - "$WORK/containers.before" >/dev/null || fail "container rows changed"
[ "$(status_of $P_CONTAINERS)" = 1 ] || fail "containers poller not ok"
ok "one connect line per restart, no failed registration, 400 containers under the same indexes"
echo "PASS: $TEST_NAME"
