#!/bin/bash
# phy_veth.sh -- primusPhyTable and primusModuleTable on a real netdev: a veth
# pair in a private network namespace, named with pfcInterface, read by the
# agent (running in that namespace, an AgentX subagent of a real snmpd) with
# ethtool netlink.  Checked against the ethtool command, an independent
# reader that speaks the same netlink family:
#   - primusPhyLinkUp follows "Link detected" as the peer goes down and up;
#   - what veth does not implement is absent, not zero: FEC (ethtool
#     --show-fec refuses), the 802.3 statistics groups, the pause counters;
#   - the module row says why there is none (veth has no module: ethtool -m
#     refuses too) and the rest of the row is absent;
#   - /metrics says what SNMP says; snmptable shows the table with the MIB.
TEST_NAME=phy_veth
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for a network namespace and a veth pair"
command -v ip >/dev/null || skip "ip (iproute2) not installed"
command -v ethtool >/dev/null || skip "ethtool not installed (Debian: ethtool)"
command -v curl >/dev/null || skip "curl not installed"
grep -q '^#define HAVE_LIBMNL 1' "$top_builddir/pna_autoconf.h" 2>/dev/null ||
    skip "the agent was built without libmnl: no ethtool netlink, the phy poller is disabled"

NS="pna-phy-$$"
ip netns add "$NS" 2>/dev/null || skip "network namespaces not supported here"
trap 'cleanup; ip netns del "$NS" 2>/dev/null' EXIT
ip -n "$NS" link add pnav0 type veth peer name pnav1 2>/dev/null || skip "veth not supported here"
ip -n "$NS" link set lo up && ip -n "$NS" link set pnav0 up && ip -n "$NS" link set pnav1 up

PHY_ENTRY="$OBJ.6.50.1"
MODULE_ENTRY="$OBJ.6.60.1"
IDX=$(str_index pnav0)
link_detected() { ip netns exec "$NS" ethtool pnav0 | sed -n 's/^[[:space:]]*Link detected: //p'; }
phy_link_up() { snmp_value "$PHY_ENTRY.4.$IDX"; }

HTTP_PORT=$(free_port)
cat > "$WORK/agent.conf" <<EOF
pfcInterface pnav0
pollInterval pfc 1
pollInterval phy 1
moduleInterval 10
httpAddress 127.0.0.1:$HTTP_PORT
EOF
start_snmpd
ip netns exec "$NS" $(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" \
    -x "$AGENTX" -p "$WORK/agent.pid" 2>>"$WORK/agent-stderr.log" &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
wait_agent

# ---- link state, against ethtool ------------------------------------------------
wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $PHY_ENTRY.4.$IDX | grep -qx 1" ||
    fail "primusPhyLinkUp.pnav0 is not true(1): $(phy_link_up)"
[ "$(link_detected)" = yes ] || fail "ethtool says the link is not detected"
ok "primusPhyLinkUp true(1), ethtool: Link detected: yes"
ip -n "$NS" link set pnav1 down
wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $PHY_ENTRY.4.$IDX | grep -qx 2" ||
    fail "primusPhyLinkUp.pnav0 did not turn false(2) with the peer down: $(phy_link_up)"
[ "$(link_detected)" = no ] || fail "ethtool still detects the link"
[ "$(snmp_value "$PHY_ENTRY.5.$IDX")" = "" ] || fail "veth gives no reason for a down link"
ok "peer down: primusPhyLinkUp false(2), ethtool: Link detected: no, no reason given"
ip -n "$NS" link set pnav1 up
wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $PHY_ENTRY.4.$IDX | grep -qx 1" ||
    fail "primusPhyLinkUp.pnav0 did not come back"
ok "peer up again: true(1)"

# ---- what veth lacks is absent --------------------------------------------------
if ip netns exec "$NS" ethtool --show-fec pnav0 >/dev/null 2>&1; then
    fail "ethtool --show-fec pnav0 works: this test expects veth without FEC"
fi
for col in 9 12 13 16 17 34 35; do
    v=$(snmpget $V2 -On -Oqv "$TARGET" "$PHY_ENTRY.$col.$IDX" 2>&1)
    case "$v" in *"No Such Instance"*) ;; *) fail "column $col of pnav0 is '$v', not absent" ;; esac
done
[ "$(snmp_value "$PHY_ENTRY.36.$IDX")" = "" ] || fail "primusPhyError: $(snmp_value "$PHY_ENTRY.36.$IDX")"
ok "FEC, 802.3 and pause columns absent (ethtool --show-fec refuses too), no error"

# ---- the module ----------------------------------------------------------------
wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $MODULE_ENTRY.1.$IDX | grep -qx 2" ||
    fail "primusModuleState.pnav0 is not unreadable(2): $(snmp_value "$MODULE_ENTRY.1.$IDX")"
why=$(snmp_value "$MODULE_ENTRY.2.$IDX")
case "$why" in *"module EEPROM: "*) ;; *) fail "primusModuleError.pnav0 is '$why'" ;; esac
ip netns exec "$NS" ethtool -m pnav0 >/dev/null 2>&1 && fail "ethtool -m pnav0 reads a module"
v=$(snmpget $V2 -On -Oqv "$TARGET" "$MODULE_ENTRY.15.$IDX" 2>&1)
case "$v" in *"No Such Instance"*) ;; *) fail "primusModuleTemperature.pnav0 is '$v', not absent" ;; esac
ok "module row: unreadable(2), '$why', temperature absent; ethtool -m refuses too"

# ---- /metrics agrees -------------------------------------------------------------
metrics=$(ip netns exec "$NS" curl -sS -f "http://127.0.0.1:$HTTP_PORT/metrics" 2>&1) || fail "no /metrics: $metrics"
grep -qx 'primus_phy_link_up{interface="pnav0"} 1' <<< "$metrics" ||
    fail "primus_phy_link_up of pnav0 is not 1: $(grep primus_phy_link_up <<< "$metrics")"
grep -q '^primus_phy_fec_corrected_blocks_total{interface="pnav0"}' <<< "$metrics" &&
    fail "an FEC counter is on /metrics for veth"
grep -q '^primus_module_info{interface="pnav0",state="unreadable",error="[^"]*module EEPROM: ' <<< "$metrics" ||
    fail "no primus_module_info for pnav0 saying why: $(grep primus_module_info <<< "$metrics")"
ok "/metrics: link up 1, no FEC series, the module's reason in primus_module_info"

# ---- snmptable with the MIB ---------------------------------------------------
if [ -n "${PNA_IETF_MIBDIR:-}" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] && command -v snmptable >/dev/null; then
    table=$(MIBDIRS="$PNA_MIBDIR:$PNA_IETF_MIBDIR" MIBS=PRIMUS-NODE-MIB \
            snmptable $V2 -Cf '|' -Ci "$TARGET" PRIMUS-NODE-MIB::primusPhyTable 2>&1)
    echo "$table"
    grep -q '^"pnav0"|' <<< "$table" || grep -q '^pnav0|' <<< "$table" ||
        fail "snmptable shows no pnav0 row"
    grep -q 'primusPhyLinkUp' <<< "$table" || fail "snmptable did not name the columns"
    ok "snmptable PRIMUS-NODE-MIB::primusPhyTable shows the row with the MIB's names"
fi
echo "PASS: $TEST_NAME"
