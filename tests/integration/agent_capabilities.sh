#!/bin/bash
# Started as root, the agent keeps only the capabilities its sources can need
# (dac_read_search, net_bind_service, sys_ptrace; net_admin only while it reads
# pluggable modules, which the kernel asks it of) in every thread, sets
# no_new_privs, and still serves.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "not root: there are no capabilities to drop"
want=$(printf '%016x' $(( (1 << 2) | (1 << 10) | (1 << 19) )))
with_net_admin=$(printf '%016x' $(( (1 << 2) | (1 << 10) | (1 << 12) | (1 << 19) )))

# Module reads on (the default): net_admin kept, for MODULE_EEPROM_GET.
echo "agentXPingInterval 1" > "$WORK/agent.conf"
start_snmpd
start_agent
wait_agent
got=$(awk '$1 == "CapEff:" {print $2}' /proc/"$AGENT_PID"/status)
[ "$got" = "$with_net_admin" ] || fail "module reads on: CapEff $got, want $with_net_admin"
ok "module reads on: net_admin kept besides the three ($with_net_admin)"
kill "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null

# moduleInterval 0: no module reads, net_admin dropped like the rest.
printf 'agentXPingInterval 1\nmoduleInterval 0\n' > "$WORK/agent.conf"
start_agent
wait_agent
threads=0
for t in /proc/"$AGENT_PID"/task/*; do
    # A poller whose source is switched off ends its thread at start: one may
    # go between the listing and the read (valgrind makes start-up slow).
    status=$(cat "$t/status" 2>/dev/null) || continue
    [ -n "$status" ] || continue
    for set in CapEff CapPrm CapBnd; do
        got=$(awk -v s="$set:" '$1 == s {print $2}' <<< "$status")
        [ "$got" = "$want" ] || fail "thread $(basename "$t"): $set $got, want $want"
    done
    threads=$((threads + 1))
done
[ "$threads" -ge 2 ] || fail "only $threads thread(s): pollers not running?"
ok "$threads threads: effective, permitted and bounding sets are $want"
[ "$(awk '$1 == "CapInh:" {print $2}' /proc/"$AGENT_PID"/status)" = 0000000000000000 ] ||
    fail "inheritable set not empty"
[ "$(awk '$1 == "NoNewPrivs:" {print $2}' /proc/"$AGENT_PID"/status)" = 1 ] || fail "no_new_privs not set"
ok "no inheritable capabilities, no_new_privs set"
[ "$(snmp_value $OBJ.1.1.0)" = "$(cat /proc/sys/kernel/hostname)" ] || fail "agent does not serve after the drop"
[ "$(snmp_value $OBJ.4.10.1.9.1)" = 1 ] || fail "node poller not ok after the drop"
ok "still serving"
# snmpd restarted: the subagent reconnects to the master's socket without
# any override capability.
stop_snmpd
start_snmpd
wait_until 30 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.1.1.0 | grep -q '\"'" ||
    fail "no reconnect to a restarted master after the drop"
ok "reconnects to a restarted master"
echo "PASS: $TEST_NAME"
