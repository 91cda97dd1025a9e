#!/bin/bash
# --standalone: the agent is its own SNMP agent (no snmpd), with access
# control and USM users from net-snmp's own directives in its config file, and
# its own trap sink.  Every directive counts: 80 communities all answer (only
# the first 64 net-snmp lines were kept once), and a '#' inside a quoted
# passphrase is part of it (it cut the line once, and the user was not made).
. "$(dirname "$0")/lib.sh"

HASH_USER=hashuser
HASH_AUTH='auth#secret-1'
HASH_PRIV='priv#secret 2'
{
    echo "pollInterval node 1"
    for i in $(seq 1 80); do echo "rocommunity c$i 127.0.0.1"; done
    echo "rocommunity public 127.0.0.1"
    echo "createUser $V3_USER SHA-256 \"$V3_AUTH\" AES \"$V3_PRIV\""
    echo "rouser $V3_USER priv"
    echo "createUser $HASH_USER SHA-512 \"$HASH_AUTH\" AES '$HASH_PRIV'  # a real comment"
    echo "rouser $HASH_USER priv"
    echo "trap2sink 127.0.0.1:$TRAP_PORT public"
} > "$WORK/agent.conf"
start_trapd
$(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" 2>>"$WORK/agent-stderr.log" \
    --standalone "udp:127.0.0.1:$SNMP_PORT" --procfs "$WORK/proc" &
PIDS+=("$!")
# --procfs points at an empty dir first: the node poller fails, which must
# reach the agent's own trap sink.
mkdir -p "$WORK/proc"
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.4.1.0 | grep -q '[0-9]'" ||
    fail "standalone agent does not answer v2c"
ok "standalone agent answers v2c"
wait_until 10 grep -q "$NOTIFY.1" "$WORK/traps.log" || fail "no primusPollerFailed trap from standalone agent"
ok "standalone agent sends its own traps"

mkdir -p "$WORK/proc/sys/kernel"
for f in stat meminfo cpuinfo loadavg uptime; do cat "/proc/$f" > "$WORK/proc/$f"; done
cat /proc/sys/kernel/hostname > "$WORK/proc/sys/kernel/hostname"
# The copy is not atomic: a poll may land between two files, so wait for the
# hostname rather than for the first good poll.
host=$(cat /proc/sys/kernel/hostname)
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.1.1.0 | grep -qx '\"$host\"'" ||
    fail "hostname never served (got '$(snmp_value $OBJ.1.1.0)')"
[ "$(snmp_value $OBJ.4.4.0)" = 2 ] || fail "primusAgentMode is not standalone(2)"
ok "node rows served, mode standalone"

v3=$(snmpget $V3 -On -Oqv "$TARGET" $OBJ.2.2.0)
[ "$v3" = "$(grep -c '^processor' /proc/cpuinfo)" ] || fail "v3 authPriv read '$v3'"
ok "SNMPv3 authPriv (SHA-256/AES) read"
v3=$(snmpget -v3 -l authPriv -u $HASH_USER -a SHA-512 -A "$HASH_AUTH" -x AES -X "$HASH_PRIV" -t 2 -r 1 \
    -On -Oqv "$TARGET" $OBJ.4.4.0 2>&1)
[ "$v3" = 2 ] || fail "user with '#' in its quoted passphrases: '$v3'"
ok "'#' inside quoted passphrases is part of them: the user reads"
for c in c1 c64 c65 c80; do
    [ "$(snmpget -v2c -c $c -t 2 -r 1 -On -Oqv "$TARGET" $OBJ.4.4.0 2>&1)" = 2 ] ||
        fail "community $c of 80 gets no answer"
done
ok "80 rocommunity lines: c1, c64, c65 and c80 all answer"
if grep -q 'Connection from' "$WORK/agent.log"; then
    fail "a log line per request: $(grep -m1 'Connection from' "$WORK/agent.log")"
fi
ok "no log line per request"

# A wrong community or a wrong v3 password gets nothing.
snmpget -v2c -c wrong -t 1 -r 0 "$TARGET" $OBJ.1.1.0 >/dev/null 2>&1 && fail "wrong community answered"
snmpget -v3 -l authPriv -u $V3_USER -a SHA-256 -A wrongpassword -x AES -X wrongpassword \
    -t 1 -r 0 "$TARGET" $OBJ.1.1.0 >/dev/null 2>&1 && fail "wrong v3 password answered"
ok "wrong community and wrong v3 credentials refused"
echo "PASS: $TEST_NAME"
