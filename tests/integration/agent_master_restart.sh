#!/bin/bash
# Killing and restarting snmpd loses nothing but the seconds until the
# subagent reconnects (agentXPingInterval), and the reconnect is logged once.
. "$(dirname "$0")/lib.sh"

# Every reconnect's log line is counted below: no rate limit on them.
printf 'agentXPingInterval 1\npollInterval node 1\nlogRateInterval 0\n' > "$WORK/agent.conf"
start_snmpd
start_agent
wait_agent
host=$(snmp_value $OBJ.1.1.0)

for round in 1 2 3; do
    stop_snmpd
    sleep 1
    start_snmpd
    start=$(date +%s)
    wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.1.1.0 | grep -q '\"'" ||
        fail "round $round: agent did not come back within 20 s"
    ok "round $round: back after $(( $(date +%s) - start )) s"
done
[ "$(snmp_value $OBJ.1.1.0)" = "$host" ] || fail "hostname changed"
kill -0 "$AGENT_PID" || fail "agent died"
connects=$(grep -c "AgentX subagent connected" "$WORK/agent.log")
[ "$connects" -eq 4 ] || fail "expected 4 connect lines (start + 3 reconnects), got $connects"
! grep -q "registering pdu failed" "$WORK/agent.log" || fail "registrations failed after a reconnect"
ok "one connect line per reconnect, no failed registrations"
# Rows keep their values and the poller kept polling.
[ "$(snmp_value $OBJ.4.10.1.9.1)" = 1 ] || fail "poller not ok after restarts"
echo "PASS: $TEST_NAME"
