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
    # A view without primusAgentVersion and one column of the poller table.
    echo "view partial included $ROOT"
    echo "view partial excluded $OBJ.4.2"
    echo "view partial excluded $OBJ.4.10.1.3"
    echo "rocommunity partial 127.0.0.1 -V partial"
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

# GETBULK is answered by the agent's tables a whole repetition list at a
# time: snmpbulkwalk must name exactly the OIDs snmpwalk (GETNEXT, one at a
# time) names, at any repetition count, and a view must hold for both.  Rows
# can come and go between two walks (an event), so a round counts only when
# snmpwalk gives the same before and after it.
oids() { cut -d' ' -f1; }
bulk_round() { # COMMUNITY: 0 when the bulk walks match, 1 when not, 2 when the MIB moved
    local c=$1 before after r
    before=$(snmpwalk -v2c -c "$c" -t 2 -r 1 -On "$TARGET" "$ROOT" | oids)
    for r in 1 7 50; do
        snmpbulkwalk -v2c -c "$c" -t 2 -r 1 -Cr$r -On "$TARGET" "$ROOT" | oids > "$WORK/bulk.$c.$r"
    done
    after=$(snmpwalk -v2c -c "$c" -t 2 -r 1 -On "$TARGET" "$ROOT" | oids)
    [ "$before" = "$after" ] || return 2
    echo "$before" > "$WORK/walk.$c"
    for r in 1 7 50; do cmp -s "$WORK/walk.$c" "$WORK/bulk.$c.$r" || return 1; done
}
for c in public partial; do
    for _ in 1 2 3; do
        bulk_round "$c"; rc=$?
        [ $rc -ne 2 ] && break
    done
    [ $rc -eq 0 ] || fail "snmpbulkwalk ($c) differs from snmpwalk (rc $rc): $(diff "$WORK/walk.$c" "$WORK/bulk.$c.50" | head -5)"
done
[ "$(grep -c . "$WORK/walk.public")" -gt 50 ] || fail "the walk returned too little to prove anything"
view_round() { # 0 when the view's walk is the full walk less the excluded OIDs, 2 when the MIB moved
    local before after
    before=$(snmpwalk $V2 -On "$TARGET" "$ROOT" | oids)
    snmpbulkwalk -v2c -c partial -t 2 -r 1 -Cr50 -On "$TARGET" "$ROOT" | oids > "$WORK/walk.partial"
    after=$(snmpwalk $V2 -On "$TARGET" "$ROOT" | oids)
    [ "$before" = "$after" ] || return 2
    echo "$before" | grep -v -e "^$OBJ\.4\.2\." -e "^$OBJ\.4\.10\.1\.3\." > "$WORK/walk.expected"
    cmp -s "$WORK/walk.expected" "$WORK/walk.partial"
}
for _ in 1 2 3; do
    view_round; rc=$?
    [ $rc -ne 2 ] && break
done
[ $rc -eq 0 ] ||
    fail "the view's walk is not the full walk less the excluded OIDs (rc $rc): $(diff "$WORK/walk.expected" "$WORK/walk.partial" | head -5)"
ok "snmpbulkwalk (-Cr1, 7, 50) = snmpwalk, $(grep -c . "$WORK/walk.public") OIDs; a view leaving out a scalar and a column is kept by both"

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
