#!/bin/bash
# lossless_roce.sh -- primusRoceConfigTable end to end: the agent, as an AgentX
# subagent of a real snmpd, in a network namespace whose veth end is cabled to
# a second namespace with its own lldpd (the "switch"):
#   - the LLDP columns name the other side's system name, port, management
#     address, port VLAN and PFC priorities, as that side's lldpcli (the
#     oracle, on our side's lldpd) says;
#   - the DCB columns and the verdict follow the interface's DCB answer; no
#     virtual interface answers DCB netlink, so tests/dcb/libdcbshim.so (a
#     preload library) answers the agent's requests from the recorded and
#     built replies of tests/fixtures/dcb/ (see that README: the configured
#     ones are built from the kernel's attribute layout with the values of a
#     real mlx5 set-up); without a reply file the real kernel answers
#     (EOPNOTSUPP on a veth) and the interface is unreadable;
#   - a configuration that loses PFC sends primusRoceLosslessChange and
#     primusRoceNodeLosslessChange to snmptrapd with the reason, and again
#     when it comes back;
#   - /metrics and /rdma say what SNMP says; snmptable shows the table with
#     the MIB;
#   - lldpd gone: primusRoceLldpStatus says why, the rest stays.
TEST_NAME=lossless_roce
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lldp_lib.sh"

need_lldp
SHIM="$top_builddir/tests/dcb/libdcbshim.so"
[ -f "$SHIM" ] || skip "$SHIM not built: the agent was built without libmnl (no DCB netlink)"
FIX="$top_srcdir/tests/fixtures/dcb"
lldp_setup
lldp_start B "$(lldp_pfc_line 3,4)" "$(lldp_pvid_line 100)"
lldp_start A
lldp_wait_neighbor A "$LLDP_HOST_B"

mkdir -p "$WORK/dcb"
cp "$FIX/built-mlx5-pfc5-dscp.bin" "$WORK/dcb/$LLDP_IF_A.bin"

HTTP_PORT=$(free_port)
cat > "$WORK/agent.conf" <<EOF
pfcInterface $LLDP_IF_A
lldpSocket $LLDP_SOCK_A
pollInterval pfc 1
httpAddress 127.0.0.1:$HTTP_PORT
EOF
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
# The agent in side A's namespace: it sees $LLDP_IF_A and asks A's lldpd; the
# AgentX socket is a file, reachable from there.  lldpd's socket belongs to
# _lldpd (mode 0770) and the agent drops CAP_DAC_OVERRIDE: it reads lldpd as a
# member of that group, as docs/deploy.md sets it up.  ASan would refuse a
# preload placed before its runtime: the shim does not need it checked.
lldpd_gid=$(getent group _lldpd | cut -d: -f3)
[ -n "$lldpd_gid" ] || skip "no _lldpd group (Debian's lldpd package makes it)"
ip netns exec "$LLDP_NS_A" setpriv --groups "$lldpd_gid" -- \
    env LD_PRELOAD="$SHIM" PNA_TEST_DCB_DIR="$WORK/dcb" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    $(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" -x "$AGENTX" \
    -p "$WORK/agent.pid" 2>>"$WORK/agent-stderr.log" &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
wait_agent

CFG="$OBJ.7.40.1"                       # primusRoceConfigEntry
IDX=".${#LLDP_IF_A}$(printf '%s' "$LLDP_IF_A" | od -An -tu1 | tr -s ' ' '.' | sed 's/\.$//')"
cell() { snmp_value "$CFG.$1$IDX"; }
NODE="$OBJ.7"                           # primusPfc: the node's scalars

wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $CFG.25$IDX | grep -q '$LLDP_HOST_B'" ||
    fail "primusRoceLldpSysName never named $LLDP_HOST_B: $(cell 25)"

# ---- LLDP: every column against our lldpd's own view (lldpcli, the oracle)
oracle=$(lldp_oracle A)
field() { printf '%s\n' "$oracle" | sed -n "s/^$LLDP_IF_A\.$1=//p" | head -1; }
[ "$(cell 25)" = "$(field sys_name)" ] || fail "LldpSysName $(cell 25) vs lldpcli $(field sys_name)"
[ "$(cell 26)" = "$(field chassis_id)" ] || fail "LldpChassisId $(cell 26) vs lldpcli $(field chassis_id)"
[ "$(cell 27)" = "$(field port_id)" ] || fail "LldpPortId $(cell 27) vs lldpcli $(field port_id)"
[ "$(cell 28)" = "$(field port_descr)" ] || fail "LldpPortDescr $(cell 28) vs lldpcli $(field port_descr)"
[ "$(cell 29)" = "$(field mgmt_addr)" ] || fail "LldpMgmtAddr $(cell 29) vs lldpcli $(field mgmt_addr)"
[ "$(cell 29)" = "${LLDP_ADDR_B%/*}" ] || fail "LldpMgmtAddr $(cell 29), B's address is ${LLDP_ADDR_B%/*}"
[ "$(cell 30)" = 100 ] || fail "LldpPvid $(cell 30), B sends 100"
[ "$(cell 31)" = "3,4" ] || fail "LldpPfcEnabled $(cell 31), B sends PFC on 3,4"
ok "LLDP columns = lldpcli's view of $LLDP_HOST_B ($(cell 27), pvid 100, PFC 3,4)"

# ---- DCB: the built mlx5 configuration (PFC on 5, 64 DSCP entries, trust dscp)
[ "$(cell 7)" = 5 ] || fail "PfcEnabled $(cell 7), the reply enables priority 5"
[ "$(cell 8)" = 32 ] || fail "PfcEnabledMask $(cell 8), want 32"
[ "$(cell 15)" = 2 ] || fail "Trust $(cell 15), want dscp(2)"
[ "$(cell 16)" = 2 ] || fail "TrustSource $(cell 16), want appTable(2)"
map="0:0-7 1:8-15 2:16-23 3:24-31 4:32-39 5:40-47 6:48-55 7:56-63"
[ "$(cell 17)" = "$map" ] || fail "DscpMap '$(cell 17)'"
[ "$(cell 4)" = 1 ] || fail "Lossless $(cell 4) ($(cell 5)), want ready(1)"
[ "$(cell 6)" = "" ] || fail "DcbError '$(cell 6)'"
[ "$(snmp_value "$NODE.1.0")" = 1 ] || fail "node verdict $(snmp_value "$NODE.1.0"), want ready"
ok "DCB columns from the recorded reply; interface and node ready"

# ---- the bridge says the same
metrics=$(ip netns exec "$LLDP_NS_A" curl -sf "http://127.0.0.1:$HTTP_PORT/metrics") ||
    fail "no /metrics"
grep -q "^primus_roce_lossless{interface=\"$LLDP_IF_A\",state=\"ready\"} 1" <<<"$metrics" ||
    fail "/metrics: no ready state for $LLDP_IF_A"
grep "^primus_roce_config_info{" <<<"$metrics" | grep -q "lldp_sys_name=\"$LLDP_HOST_B\"" ||
    fail "/metrics: the info series does not name $LLDP_HOST_B"
grep -q "^primus_roce_pfc_enabled_mask{interface=\"$LLDP_IF_A\"} 32" <<<"$metrics" ||
    fail "/metrics: pfc mask"
rdma=$(ip netns exec "$LLDP_NS_A" curl -sf "http://127.0.0.1:$HTTP_PORT/node") || fail "no /node"
[ "$(jq -r .roce.lossless <<<"$rdma")" = ready ] || fail "/node roce.lossless: $(jq -c .roce <<<"$rdma")"
ok "/metrics and /node agree"

# ---- snmptable with the MIB: one row, the verdict and the switch port
if [ -n "${PNA_IETF_MIBDIR:-}" ]; then
    table=$(MIBDIRS="+$PNA_IETF_MIBDIR:$top_srcdir/mibs" MIBS=+PRIMUS-NODE-MIB \
            snmptable $V2 -Cib -Cw 100 "$TARGET" PRIMUS-NODE-MIB::primusRoceConfigTable 2>&1) ||
        fail "snmptable: $table"
    grep -q "$LLDP_IF_A" <<<"$table" && grep -q "ready" <<<"$table" && grep -q "$LLDP_HOST_B" <<<"$table" ||
        fail "snmptable: $table"
    printf '%s\n' "$table"
    ok "snmptable shows the row"
fi

# ---- PFC lost: the verdict, its reason, two notifications
cp "$FIX/built-pfc-none-pcp.bin" "$WORK/dcb/$LLDP_IF_A.bin"
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $CFG.4$IDX | grep -qx 2" ||
    fail "the verdict did not become notReady: $(cell 4) $(cell 5)"
[ "$(cell 5)" = "PFC is enabled on no priority" ] || fail "reason '$(cell 5)'"
[ "$(cell 15)" = 1 ] || fail "Trust $(cell 15), want pcp(1) (no DSCP entries)"
wait_until 10 grep -q "$NOTIFY.13\b" "$WORK/traps.log" || fail "no primusRoceLosslessChange trap"
wait_until 10 grep -q "$NOTIFY.14\b" "$WORK/traps.log" || fail "no primusRoceNodeLosslessChange trap"
trap_text=$(grep -A30 "$NOTIFY.13\b" "$WORK/traps.log")
grep -q "$CFG.4$IDX = INTEGER: 2" <<<"$trap_text" || fail "the trap does not carry notReady: $trap_text"
grep -q "$CFG.5$IDX = STRING: \"PFC is enabled on no priority\"" <<<"$trap_text" ||
    fail "the trap does not carry the reason: $trap_text"
grep -A30 "$NOTIFY.14\b" "$WORK/traps.log" | grep -q "$NODE.1.0 = INTEGER: 2" ||
    fail "the node's trap does not carry notReady"
ok "PFC lost: notReady with the reason, both notifications at snmptrapd"

cp "$FIX/built-mlx5-pfc5-dscp.bin" "$WORK/dcb/$LLDP_IF_A.bin"
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $CFG.4$IDX | grep -qx 1" || fail "not ready again"
wait_until 10 sh -c "[ \$(grep -c '$NOTIFY.13\\b' '$WORK/traps.log') -ge 2 ]" ||
    fail "no second primusRoceLosslessChange (back to ready)"
ok "ready again, notified"

# ---- no reply file: the kernel answers for the veth
rm "$WORK/dcb/$LLDP_IF_A.bin"
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $CFG.4$IDX | grep -qx 3" ||
    fail "not unreadable without DCB: $(cell 4) $(cell 6)"
[ "$(cell 6)" = "no DCB support in the driver (EOPNOTSUPP)" ] || fail "DcbError '$(cell 6)'"
[ "$(cell 7)" = "No Such Instance currently exists at this OID" ] || fail "PfcEnabled '$(cell 7)' without DCB"
ok "a veth's real DCB answer: unreadable, the kernel's reason"

# ---- lldpd gone: the status says so, the interface stays
lldp_stop A
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $NODE.5.0 | grep -q lldpd" ||
    fail "primusRoceLldpStatus: '$(snmp_value "$NODE.5.0")'"
[ "$(cell 4)" = 3 ] || fail "the row changed with lldpd gone: $(cell 4)"
grep -q "no LLDP neighbours" "$WORK/agent.log" || fail "no log line for lldpd's absence"
ok "lldpd gone: $(snmp_value "$NODE.5.0")"
echo "PASS: $TEST_NAME"
