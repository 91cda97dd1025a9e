#!/bin/bash
# phy_module.sh -- a pluggable module end to end: the agent (an AgentX
# subagent of a real snmpd, in a network namespace with a veth pair) reads the
# module of pnav0 through ethtool netlink's MODULE_EEPROM_GET, which
# tests/ethtool-nl/libmoduleshim.so (a preload library) answers from an
# EEPROM image, since no virtual interface has a module.  The image is
# tests/fixtures/module/arista-qdd-400g-xdr4-cmis4.bin: BUILT from the CMIS
# specification with the values of a real `ethtool -m` capture of an Arista
# QDD-400G-XDR4 (see that README); the capture's text is the oracle here.
#   - primusModuleTable and primusModuleLaneTable say what `ethtool -m` said:
#     identity, temperature, voltage, each lane's TX and RX power;
#   - the module's temperature (70.49 C) is above its own high warning
#     threshold (70.00 C): at start-up, primusModuleThreshold reaches
#     snmptrapd with the reading and the threshold;
#   - lane 2 loses its light (the image changed): primusModuleThreshold for
#     its RX power, low alarm, and the lane's level over SNMP and /metrics.
TEST_NAME=phy_module
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for a network namespace and a veth pair"
command -v ip >/dev/null || skip "ip (iproute2) not installed"
command -v curl >/dev/null || skip "curl not installed"
SHIM="$top_builddir/tests/ethtool-nl/libmoduleshim.so"
[ -f "$SHIM" ] || skip "$SHIM not built: the agent was built without libmnl (no ethtool netlink)"
FIX="$top_srcdir/tests/fixtures/module"
CAPTURE="$FIX/arista-qdd-400g-xdr4-cmis4-ethtool-m.txt"

NS="pna-mod-$$"
ip netns add "$NS" 2>/dev/null || skip "network namespaces not supported here"
trap 'cleanup; ip netns del "$NS" 2>/dev/null' EXIT
ip -n "$NS" link add pnav0 type veth peer name pnav1 2>/dev/null || skip "veth not supported here"
ip -n "$NS" link set lo up && ip -n "$NS" link set pnav0 up && ip -n "$NS" link set pnav1 up
mkdir -p "$WORK/modules"
cp "$FIX/arista-qdd-400g-xdr4-cmis4.bin" "$WORK/modules/pnav0.bin"

MOD="$OBJ.6.60.1"
LANE="$OBJ.6.61.1"
IDX=$(str_index pnav0)
captured() { sed -n "s/^$1 *: //p" "$CAPTURE"; }
mod() { snmp_value "$MOD.$1.$IDX"; }
lane() { snmp_value "$LANE.$1.$IDX.$2"; }

HTTP_PORT=$(free_port)
cat > "$WORK/agent.conf" <<EOF
pfcInterface pnav0
pollInterval pfc 1
pollInterval phy 1
moduleInterval 1
httpAddress 127.0.0.1:$HTTP_PORT
EOF
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
# ASan would refuse a preload placed before its runtime: the shim does not
# need it checked.
ip netns exec "$NS" env LD_PRELOAD="$SHIM" PNA_TEST_MODULE_DIR="$WORK/modules" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    $(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" -x "$AGENTX" \
    -p "$WORK/agent.pid" 2>>"$WORK/agent-stderr.log" &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
wait_agent

# ---- what ethtool -m said --------------------------------------------------------
wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $MOD.1.$IDX | grep -qx 1" ||
    fail "primusModuleState.pnav0 is not present(1): $(mod 1) $(mod 2)"
[ "$(mod 3)" = 24 ] || fail "primusModuleIdentifier $(mod 3), want 24 (0x18)"
[ "$(mod 7)" = "$(captured 'Vendor name')" ] || fail "primusModuleVendor '$(mod 7)'"
[ "$(mod 8)" = "$(captured 'Vendor OUI')" ] || fail "primusModuleVendorOui '$(mod 8)'"
[ "$(mod 9)" = "$(captured 'Vendor PN')" ] || fail "primusModulePartNumber '$(mod 9)'"
[ "$(mod 11)" = "$(captured 'Vendor SN')" ] || fail "primusModuleSerial '$(mod 11)'"
[ "$(mod 14)" = 4 ] || fail "primusModuleLanes $(mod 14), want 4"
want_t=$(captured 'Module temperature' | awk '{print $1}')          # 70.49
got_t=$(awk -v m="$(mod 15)" 'BEGIN { printf "%.2f", m / 1000 }')
[ "$got_t" = "$want_t" ] || fail "primusModuleTemperature $(mod 15) m°C, ethtool -m says $want_t C"
want_v=$(captured 'Module voltage' | awk '{print $1}')              # 3.2186
got_v=$(awk -v u="$(mod 16)" 'BEGIN { printf "%.4f", u / 1000000 }')
[ "$got_v" = "$want_v" ] || fail "primusModuleVoltage $(mod 16) uV, ethtool -m says $want_v V"
[ "$(mod 17)" = 3 ] || fail "primusModuleTemperatureLevel $(mod 17), want highWarning(3)"
ok "identity, temperature $got_t C (highWarning), voltage $got_v V as ethtool -m says"
for l in 1 2 3 4; do
    want=$(captured "Rcvr signal avg optical power (Channel $l)" | awk '{print $1}')
    got=$(awk -v p="$(lane 4 $l)" 'BEGIN { printf "%.4f", p / 10000 }')
    [ "$got" = "$want" ] || fail "lane $l RX power $(lane 4 $l) x0.1uW, ethtool -m says $want mW"
    want=$(captured "Transmit avg optical power (Channel $l)" | awk '{print $1}')
    got=$(awk -v p="$(lane 3 $l)" 'BEGIN { printf "%.4f", p / 10000 }')
    [ "$got" = "$want" ] || fail "lane $l TX power $(lane 3 $l) x0.1uW, ethtool -m says $want mW"
done
v=$(snmpget $V2 -On -Oqv "$TARGET" "$LANE.2.$IDX.5" 2>&1)
case "$v" in *"No Such Instance"*) ;; *) fail "a fifth lane is served: $v" ;; esac
ok "lanes 1-4: TX and RX power as ethtool -m says; the dark lanes 5-8 are not rows"

# ---- the warm module, notified at start-up -----------------------------------------
wait_until 15 grep -q "$NOTIFY.17\b" "$WORK/traps.log" || fail "no primusModuleThreshold trap"
trap_text=$(grep -A30 "$NOTIFY.17\b" "$WORK/traps.log" | head -30)
grep -q "$OBJ.99.20.0 = INTEGER: 1" <<< "$trap_text" || fail "not about the temperature: $trap_text"
grep -q "$OBJ.99.22.0 = INTEGER: 3" <<< "$trap_text" || fail "not highWarning: $trap_text"
grep -q "$OBJ.99.23.0 = INTEGER: $(mod 15)" <<< "$trap_text" || fail "not the reading: $trap_text"
grep -q "$OBJ.99.24.0 = INTEGER: $(mod 21)" <<< "$trap_text" ||
    fail "not the module's high warning threshold $(mod 21): $trap_text"
ok "primusModuleThreshold at start-up: temperature, highWarning, reading and threshold"

# ---- lane 2 loses its light --------------------------------------------------------
# CMIS page 11h, bytes 186-201: RX power of lanes 1-8, 16 bits big-endian in
# 0.1 uW; page 11h starts at offset 640 (128) of the image: lane 2 at 700.
python3 - "$WORK/modules/pnav0.bin" <<'PYEOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[640 + (188 - 128):640 + (190 - 128)] = (1).to_bytes(2, "big")
open(p + ".new", "wb").write(b)
PYEOF
mv "$WORK/modules/pnav0.bin.new" "$WORK/modules/pnav0.bin"
wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $LANE.9.$IDX.2 | grep -qx 4" ||
    fail "lane 2's RX level is not lowAlarm(4): $(lane 9 2) (RX $(lane 4 2))"
[ "$(lane 4 2)" = 1 ] || fail "lane 2 RX power $(lane 4 2), want 1"
[ "$(mod 19)" = 4 ] || fail "primusModuleWorstLevel $(mod 19), want lowAlarm(4)"
wait_until 15 sh -c "[ \$(grep -c '$NOTIFY.17\\b' '$WORK/traps.log') -ge 2 ]" ||
    fail "no primusModuleThreshold for the dark lane"
trap_text=$(grep -A30 "$NOTIFY.17\b" "$WORK/traps.log" | tail -30)
grep -q "$OBJ.99.20.0 = INTEGER: 5" <<< "$trap_text" || fail "not about RX power: $trap_text"
grep -q "$OBJ.99.21.0 = Gauge32: 2" <<< "$trap_text" || fail "not lane 2: $trap_text"
grep -q "$OBJ.99.22.0 = INTEGER: 4" <<< "$trap_text" || fail "not lowAlarm: $trap_text"
ok "lane 2 dark: lowAlarm over SNMP, primusModuleThreshold (rxPower, lane 2, lowAlarm) at snmptrapd"

# ---- /metrics agrees -------------------------------------------------------------
metrics=$(ip netns exec "$NS" curl -sS -f "http://127.0.0.1:$HTTP_PORT/metrics" 2>&1) ||
    fail "no /metrics: $metrics"
grep -qx "primus_module_temperature_celsius{interface=\"pnav0\"} $(awk -v m="$(mod 15)" 'BEGIN { printf "%.3f", m / 1000 }')" <<< "$metrics" ||
    fail "primus_module_temperature_celsius: $(grep primus_module_temperature_celsius <<< "$metrics")"
grep -qx 'primus_module_lane_rx_power_level{interface="pnav0",lane="2",level="lowAlarm"} 1' <<< "$metrics" ||
    fail "lane 2's level on /metrics: $(grep primus_module_lane_rx_power_level <<< "$metrics")"
grep -qx 'primus_module_lane_rx_power_watts{interface="pnav0",lane="2"} 0.0000001' <<< "$metrics" ||
    fail "lane 2's RX power on /metrics: $(grep 'primus_module_lane_rx_power_watts.*lane="2"' <<< "$metrics")"
ok "/metrics: temperature, lane 2's power and level as SNMP says"

if [ -n "${PNA_IETF_MIBDIR:-}" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] && command -v snmptable >/dev/null; then
    MIBDIRS="$PNA_MIBDIR:$PNA_IETF_MIBDIR" MIBS=PRIMUS-NODE-MIB \
        snmptable $V2 -Cf '|' -Ci "$TARGET" PRIMUS-NODE-MIB::primusModuleLaneTable 2>&1
fi
echo "PASS: $TEST_NAME"
