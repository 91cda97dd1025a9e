#!/bin/bash
# A poller failure becomes a primusPollerFailed notification at a real
# snmptrapd (through the master's trap2sink) and a row in primusEventTable;
# the poller table shows the error while the last good data is still served;
# the recovery is a primusPollerRecovered notification.
. "$(dirname "$0")/lib.sh"

# A private procfs: a copy of the files the node collector reads.
PROC="$WORK/proc"
mkdir -p "$PROC/sys/kernel"
for f in stat meminfo cpuinfo loadavg uptime; do cat "/proc/$f" > "$PROC/$f"; done
for f in hostname osrelease; do cat "/proc/sys/kernel/$f" > "$PROC/sys/kernel/$f"; done

echo "pollInterval node 1" > "$WORK/agent.conf"
start_trapd
# SINK_TOKEN=informsink makes the master send acknowledged INFORMs instead.
start_snmpd "${SINK_TOKEN:-trap2sink} 127.0.0.1:$TRAP_PORT public"
start_agent --procfs "$PROC"
wait_agent
total_before=$(snmp_value $OBJ.3.1.0)

mv "$PROC/meminfo" "$PROC/meminfo.away"
wait_until 10 grep -q "$NOTIFY.1" "$WORK/traps.log" || fail "no primusPollerFailed trap"
ok "primusPollerFailed trap received"
grep -A20 "$NOTIFY.1" "$WORK/traps.log" | grep -q "$OBJ.4.10.1.2.1 = STRING: \"node\"" ||
    fail "trap lacks primusPollerName.1 = node"
grep -A20 "$NOTIFY.1" "$WORK/traps.log" | grep -q "meminfo" || fail "trap lacks the error text"
ok "trap carries the poller name and the error"

[ "$(snmp_value $OBJ.4.10.1.9.1)" = 2 ] || fail "poller status is not failing(2)"
errors=$(snmp_value $OBJ.4.10.1.6.1)
[ "$errors" -ge 1 ] || fail "poller error count $errors"
snmp_value $OBJ.4.10.1.7.1 | grep -q meminfo || fail "last error does not name meminfo"
[ "$(snmp_value $OBJ.4.3.0)" = 2 ] || fail "agent status is not degraded(2)"
ok "poller table shows failing, $errors error(s), the cause; agent degraded"

# The last good snapshot is still served.
[ "$(snmp_value $OBJ.3.1.0)" = "$total_before" ] || fail "memory total not served from last good data"
ok "last good data still served"

# The event table has the row, with type pollerFailed(1) and severity error(3).
events=$(snmp_walk $OBJ.4.20.1.3)
echo "$events" | grep -q " 1$" || fail "no pollerFailed row in primusEventTable: $events"
row=$(echo "$events" | awk '$NF == 1 {print $1; exit}' | awk -F. '{print $NF}')
[ "$(snmp_value $OBJ.4.20.1.4.$row)" = 3 ] || fail "event severity is not error(3)"
snmp_value $OBJ.4.20.1.5.$row | grep -q "poller node" || fail "event subject"
ok "primusEventTable row $row: pollerFailed, error, 'poller node'"
# One failure, one notification: repeated failed polls do not flood.
sleep 2
[ "$(grep -c "$NOTIFY.1\b" "$WORK/traps.log")" -eq 1 ] || fail "more than one failure trap"
ok "one trap for one failure"

mv "$PROC/meminfo.away" "$PROC/meminfo"
wait_until 10 grep -q "$NOTIFY.2" "$WORK/traps.log" || fail "no primusPollerRecovered trap"
[ "$(snmp_value $OBJ.4.10.1.9.1)" = 1 ] || fail "poller status not back to ok"
ok "primusPollerRecovered trap, status ok"

# SIGRTMIN is the agent's own wake-up (snmp/agent.c): sent from outside it
# must neither stop the agent (its default action would) nor send anything.
traps_before=$(grep -c . "$WORK/traps.log")
for _ in 1 2 3; do kill -s RTMIN "$AGENT_PID"; done
sleep 1
kill -0 "$AGENT_PID" 2>/dev/null || fail "SIGRTMIN from outside stopped the agent"
[ "$(snmp_value $OBJ.4.10.1.9.1)" = 1 ] || fail "no answer after SIGRTMIN"
[ "$(grep -c . "$WORK/traps.log")" = "$traps_before" ] || fail "SIGRTMIN from outside sent a notification"
ok "SIGRTMIN from outside: agent alive, answering, nothing sent"
echo "PASS: $TEST_NAME"
