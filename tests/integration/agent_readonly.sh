#!/bin/bash
# Read-only by construction, and nothing listening but what was named:
#  - a standalone agent whose config gives a community a write view (com2sec,
#    group, view, access ... all all) refuses every SET (noAccess: the agent's
#    ACM check, before any handler): on its own MIB, on usmUserTable (which
#    once deleted the v3 user), on VACM and target-table row creation, v1, v2c
#    and v3 alike, and the v3 user still works afterwards;
#  - it serves PRIMUS-NODE-MIB and nothing else: a walk of the whole tree with
#    the write community finds no SNMPv2-MIB, USM, VACM, target, notification
#    or NET-SNMP-AGENT-MIB object, and no user name or engine ID;
#  - it listens on the one UDP address of --standalone (no SMUX, TCP 199,
#    although this test may run as root where that bind would succeed), and
#    never logs about SMUX;
#  - as a subagent it listens on nothing, and a SET through the master, whose
#    rwcommunity lets it through, is refused by the agent.
. "$(dirname "$0")/lib.sh"
command -v ss >/dev/null || skip "ss not installed (iproute2): cannot list the agent's sockets"

USER_RO="pna-ro-$RANDOM"
ENGINE_TEXT=pnatest       # engineID PNATEST: 80:00:1f:88:04 + the text (type 4)
cat > "$WORK/agent.conf" <<CONF
pollInterval node 1
engineID $ENGINE_TEXT
rocommunity public 127.0.0.1
com2sec rwsec 127.0.0.1 private
group rwgroup v1 rwsec
group rwgroup v2c rwsec
view everything included .1
access rwgroup "" any noauth exact everything everything none
createUser $USER_RO SHA-256 "$V3_AUTH" AES "$V3_PRIV"
rouser $USER_RO priv
createUser $V3_USER SHA-256 "$V3_AUTH" AES "$V3_PRIV"
group rwgroup usm $V3_USER
access rwgroup "" usm priv exact everything everything none
CONF

$(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" \
    --standalone "udp:127.0.0.1:$SNMP_PORT" 2>>"$WORK/agent-stderr.log" &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.4.4.0 | grep -qx 2" ||
    fail "standalone agent does not answer v2c"
ok "standalone agent up (pid $AGENT_PID)"

# --- what it listens on ------------------------------------------------------
# sockets PID: "PROTO ADDRESS" of every TCP, UDP or unix socket PID listens on
# (a UDP socket unconnected counts: it takes datagrams from anyone).
sockets() {
    { ss -Hanptu; ss -Hlxp; } 2>/dev/null | grep "pid=$1," |
        awk '$2 == "LISTEN" || $2 == "UNCONN" {print $1, $5}' | sort -u
}
listening=$(sockets "$AGENT_PID")
[ "$listening" = "udp 127.0.0.1:$SNMP_PORT" ] ||
    fail "the standalone agent listens on '$(echo "$listening" | tr '\n' ';')', expected udp 127.0.0.1:$SNMP_PORT only"
grep -qi "smux" "$WORK/agent.log" && fail "the agent logs about SMUX: $(grep -i -m1 smux "$WORK/agent.log")"
ok "standalone: one listener, udp 127.0.0.1:$SNMP_PORT; no SMUX port, no SMUX log line"

# --- what it serves --------------------------------------------------------------
RW="-v2c -c private -t 2 -r 1"
snmpwalk $RW -On -Oq "$TARGET" .1 > "$WORK/walk-all.txt" 2>&1
served=$(grep -c "^$ROOT\." "$WORK/walk-all.txt")
[ "$served" -gt 20 ] || fail "the walk found only $served PRIMUS-NODE-MIB objects: $(head -3 "$WORK/walk-all.txt")"
others=$(grep -v "^$ROOT\." "$WORK/walk-all.txt" | grep -v "No more variables left")
[ -z "$others" ] || fail "served outside PRIMUS-NODE-MIB: $(echo "$others" | head -5)"
for subtree in .1.3.6.1.2.1 .1.3.6.1.6.3.10 .1.3.6.1.6.3.11 .1.3.6.1.6.3.12 .1.3.6.1.6.3.13 \
               .1.3.6.1.6.3.15 .1.3.6.1.6.3.16 .1.3.6.1.4.1.8072; do
    out=$(snmpwalk $RW -On -Oq "$TARGET" "$subtree" 2>&1)
    echo "$out" | grep -q "^$subtree\." && fail "$subtree is served: $(echo "$out" | head -3)"
done
v3walk=$(snmpwalk $V3 -On -Oq "$TARGET" .1.3.6.1.6.3 2>&1)
echo "$v3walk" | grep -q "^\.1\.3\.6\.1\.6\.3\." && fail "SNMPv3 walk shows management objects: $(echo "$v3walk" | head -3)"
# The user names and the engine ID, as text and as the sub-identifiers of a
# usmUserTable index, appear nowhere.
name_subids=$(printf '%s' "$USER_RO" | od -An -tu1 | tr -s ' \n' '.' | sed 's/^\.//; s/\.$//')
engine_subids="128.0.31.136.4.$(printf '%s' "$ENGINE_TEXT" | od -An -tu1 | tr -s ' \n' '.' | sed 's/^\.//; s/\.$//')"
for needle in "$USER_RO" "$name_subids" "$engine_subids"; do
    grep -qF -- "$needle" "$WORK/walk-all.txt" && fail "the walk shows '$needle'"
done
ok "a walk of .1 shows $served PRIMUS-NODE-MIB objects and nothing else (no system, USM, VACM, target, notification or NET-SNMP objects; no user name or engine ID)"

# --- every SET refused ---------------------------------------------------------
# expect_refused DESCRIPTION WANTED_ERROR snmpset-args...
expect_refused() {
    local what=$1 want=$2; shift 2
    local out
    out=$(snmpset "$@" 2>&1)
    echo "$out" | grep -q -- "$want" || fail "SET $what not refused with $want: $out"
    ok "SET $what: $want"
}
usm_status=".1.3.6.1.6.3.15.1.2.2.1.13.12.$engine_subids.${#USER_RO}.$name_subids"
expect_refused "usmUserStatus.$USER_RO destroy(6), write community" noAccess $RW "$TARGET" "$usm_status" i 6
expect_refused "usmUserStatus.$USER_RO destroy(6), v3 user with a write view" noAccess $V3 "$TARGET" "$usm_status" i 6
expect_refused "vacmSecurityToGroupStatus createAndGo(4)" noAccess $RW "$TARGET" \
    ".1.3.6.1.6.3.16.1.2.1.5.3.4.101.118.105.108" i 4
expect_refused "snmpTargetAddrRowStatus createAndGo(4)" noAccess $RW "$TARGET" \
    ".1.3.6.1.6.3.12.1.2.1.9.101.118.105.108" i 4
expect_refused "sysContact.0" noAccess $RW "$TARGET" .1.3.6.1.2.1.1.4.0 s evil
expect_refused "primusNodeHostname.0, write community" noAccess $RW "$TARGET" "$OBJ.1.1.0" s evil
expect_refused "primusNodeHostname.0, v3 user with a write view" noAccess $V3 "$TARGET" "$OBJ.1.1.0" s evil
expect_refused "primusNodeHostname.0, SNMPv1" noSuchName -v1 -c private -t 2 -r 1 "$TARGET" "$OBJ.1.1.0" s evil
# The user the first SET tried to delete still reads.
out=$(snmpget -v3 -l authPriv -u "$USER_RO" -a SHA-256 -A "$V3_AUTH" -x AES -X "$V3_PRIV" -t 2 -r 1 \
    -On -Oqv "$TARGET" "$OBJ.4.4.0" 2>&1)
[ "$out" = 2 ] || fail "v3 user $USER_RO does not read after the refused destroy: $out"
ok "the v3 user is still there"
kill "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null
# The subagent below reuses the valgrind log: read this agent's report now.
[ -s "$WORK/agent-valgrind.log" ] && fail "valgrind report for the standalone agent: $(head -40 "$WORK/agent-valgrind.log")"

# --- subagent: no listener, SET refused through the master ---------------------
start_snmpd
start_agent
wait_agent
listening=$(sockets "$AGENT_PID")
[ -z "$listening" ] || fail "the subagent listens on '$(echo "$listening" | tr '\n' ';')'"
ok "subagent: no listening socket"
out=$(snmpset -v2c -c private -t 2 -r 1 "$TARGET" "$OBJ.1.1.0" s evil 2>&1)
echo "$out" | grep -q -e notWritable -e noAccess -e noCreation || fail "SET through the master not refused: $out"
[ "$(snmp_value "$OBJ.1.1.0")" != evil ] || fail "the SET through the master changed the value"
ok "subagent: SET through the master (rwcommunity) refused: $(echo "$out" | grep -o -e notWritable -e noAccess -e noCreation | head -1)"
echo "PASS: $TEST_NAME"
