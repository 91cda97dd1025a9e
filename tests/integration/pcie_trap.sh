#!/bin/bash
# An RDMA device's PCIe link training below its maximum is one
# primusPcieDowntrained notification at a real snmptrapd (the device, its
# link and its maximum) and one primusEventTable row; back at its maximum it
# is one primusPcieRestored.  At start-up only a downtrained link sends one.
# The device table is read with snmptable (where the IETF MIBs are), and
# every PCIe family of /metrics must equal its SNMP cell.
#
# The tree is tests/fixtures/distinct/sys (built PCIe files, see its
# README.md), copied so the test can rewrite mlx5_0's link files: mlx5_0
# starts at its maximum, 16.0 GT/s x16; mlx5_1 is downtrained throughout.
. "$(dirname "$0")/http_lib.sh"

RDMA="$OBJ.6"
DEV="$RDMA.10.1"                         # primusRdmaDeviceEntry
SYS="$WORK/sys"
mkdir -p "$SYS"
cp -a "$PNA_FIXTURES/distinct/sys/." "$SYS/"
FN="$SYS/bus/pci/devices/0000:3b:00.0"  # mlx5_0's PCI function
printf '16.0 GT/s PCIe\n' > "$FN/current_link_speed"
printf '16\n' > "$FN/current_link_width"
IDX0="6.109.108.120.53.95.48"           # "mlx5_0"
IDX1="6.109.108.120.53.95.49"           # "mlx5_1"

echo "pollInterval ib 1" > "$WORK/agent.conf"
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_http_agent --sysfs "$SYS"
wait_agent
wait_http
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $DEV.13.$IDX0 | grep -q '^[0-9]'" ||
    fail "primusRdmaPcieLinkWidth.mlx5_0 not served"

# At start-up: mlx5_1 (2.5 of 5.0 GT/s, x2 of x4) is reported, mlx5_0 is not.
[ "$(snmp_value $DEV.15.$IDX0)" = 2 ] || fail "mlx5_0 is not downtrained false(2) at start"
[ "$(snmp_value $DEV.15.$IDX1)" = 1 ] || fail "mlx5_1 is not downtrained true(1)"
wait_until 10 grep -q "$NOTIFY.15\b" "$WORK/traps.log" || fail "no start-up primusPcieDowntrained"
sleep 1.5   # another poll: still one trap, and none for mlx5_0
[ "$(grep -c "$NOTIFY.15\b" "$WORK/traps.log")" -eq 1 ] || fail "more than one start-up trap"
grep -A30 "$NOTIFY.15\b" "$WORK/traps.log" | grep -q "$OBJ.99.1.0 = STRING: \"mlx5_1\"" ||
    fail "the start-up trap is not about mlx5_1"
ok "at start-up one primusPcieDowntrained, for mlx5_1 only"

# The columns, numbers as SNMP sends them.
expect() { [ "$(snmp_value "$1")" = "$2" ] || fail "$3 is '$(snmp_value "$1")', not $2"; }
expect "$DEV.11.$IDX0" 16000 "primusRdmaPcieLinkSpeed.mlx5_0"
expect "$DEV.12.$IDX0" 16000 "primusRdmaPcieMaxLinkSpeed.mlx5_0"
expect "$DEV.14.$IDX0" 16 "primusRdmaPcieMaxLinkWidth.mlx5_0"
expect "$DEV.16.$IDX0" 31 "primusRdmaPcieAerCorrectable.mlx5_0"
expect "$DEV.17.$IDX0" 23 "primusRdmaPcieAerNonFatal.mlx5_0"
expect "$DEV.18.$IDX0" 29 "primusRdmaPcieAerFatal.mlx5_0"
expect "$DEV.19.$IDX0" 13 "primusRdmaNumaNode.mlx5_0"
expect "$DEV.20.$IDX0" "26-51,130-155" "primusRdmaLocalCpus.mlx5_0"
expect "$DEV.11.$IDX1" 2500 "primusRdmaPcieLinkSpeed.mlx5_1"
ok "primusRdmaDeviceTable PCIe columns"

# /metrics: every primus_rdma_pcie_* and primus_rdma_numa_node sample equals its cell.
http_body /metrics > "$WORK/metrics.txt"
check_family() {  # FAMILY COLUMN SCALE
    local fam=$1 col=$2 scale=$3 dev idx want got
    for dev in mlx5_0 mlx5_1; do
        if [ $dev = mlx5_0 ]; then idx=$IDX0; else idx=$IDX1; fi
        want=$(snmp_value "$DEV.$col.$idx")
        case "$want" in 1) [ "$col" = 15 ] && want=1 ;; 2) [ "$col" = 15 ] && want=0 ;; esac
        want=$(awk -v w="$want" -v s="$scale" 'BEGIN { printf "%.0f", w * s }')
        got=$(awk -v f="$fam" -v d="device=\"$dev\"" 'index($0, f "{") == 1 && index($0, d) { print $NF; exit }' \
              "$WORK/metrics.txt")
        [ -n "$got" ] || fail "/metrics has no $fam for $dev"
        got=$(awk -v g="$got" 'BEGIN { printf "%.0f", g }')
        [ "$got" = "$want" ] || fail "$fam{$dev} is $got, SNMP says $want"
    done
}
check_family primus_rdma_pcie_link_speed_transfers_per_second 11 1000000
check_family primus_rdma_pcie_max_link_speed_transfers_per_second 12 1000000
check_family primus_rdma_pcie_link_width 13 1
check_family primus_rdma_pcie_max_link_width 14 1
check_family primus_rdma_pcie_downtrained 15 1
check_family primus_rdma_pcie_aer_correctable_errors_total 16 1
check_family primus_rdma_pcie_aer_nonfatal_errors_total 17 1
check_family primus_rdma_pcie_aer_fatal_errors_total 18 1
check_family primus_rdma_numa_node 19 1
ok "/metrics equals SNMP for every PCIe family"

# snmptable renders the new columns with the MIB.
if [ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] && command -v snmptable >/dev/null; then
    table=$(MIBDIRS="$PNA_MIBDIR:$PNA_IETF_MIBDIR" MIBS=PRIMUS-NODE-MIB \
            snmptable $V2 -Cf '|' -Ci "$TARGET" PRIMUS-NODE-MIB::primusRdmaDeviceTable 2>&1)
    echo "$table" > "$WORK/snmptable.txt"
    echo "$table" | grep -q "primusRdmaPcieDowntrained" || fail "snmptable has no primusRdmaPcieDowntrained: $table"
    echo "$table" | grep '"mlx5_1"' | grep -q '|2500 MT/s|5000 MT/s|2 lanes|4 lanes|true|37 errors|41 errors|43 errors|17|52-77,156-181|0 containers|' ||
        fail "snmptable's mlx5_1 row: $(echo "$table" | grep mlx5_1)"
    ok "snmptable primusRdmaDeviceTable"
else
    echo "# snmptable skipped: no IETF MIBs (PNA_IETF_MIBDIR)"
fi

# mlx5_0 retrains at x8: primusPcieDowntrained with its link and maximum.
printf '8\n' > "$FN/current_link_width"
wait_until 10 sh -c "[ \$(grep -c '$NOTIFY.15\b' '$WORK/traps.log') -ge 2 ]" ||
    fail "no primusPcieDowntrained for mlx5_0"
trap_text=$(grep -A30 "$NOTIFY.15\b" "$WORK/traps.log" | awk -v n="$NOTIFY.15" 'index($0, n) {c++} c == 2')
echo "$trap_text" | grep -q "$OBJ.99.1.0 = STRING: \"mlx5_0\"" || fail "trap lacks primusNotifyRdmaDevice mlx5_0"
echo "$trap_text" | grep -q "$DEV.11.$IDX0 = Gauge32: 16000" || fail "trap lacks the link speed 16000"
echo "$trap_text" | grep -q "$DEV.12.$IDX0 = Gauge32: 16000" || fail "trap lacks the maximum speed 16000"
echo "$trap_text" | grep -q "$DEV.13.$IDX0 = Gauge32: 8" || fail "trap lacks the width 8"
echo "$trap_text" | grep -q "$DEV.14.$IDX0 = Gauge32: 16" || fail "trap lacks the maximum width 16"
ok "primusPcieDowntrained: mlx5_0, 16000 MT/s x8 of 16000 MT/s x16"
expect "$DEV.15.$IDX0" 1 "primusRdmaPcieDowntrained.mlx5_0"

events=$(snmp_walk $OBJ.4.20.1.3)
row=$(echo "$events" | awk '$NF == 15 {r = $1} END {print r}' | awk -F. '{print $NF}')
[ -n "$row" ] || fail "no pcieDowntrained(15) row in primusEventTable: $events"
[ "$(snmp_value $OBJ.4.20.1.5.$row)" = "mlx5_0" ] || fail "event subject is not mlx5_0"
ok "primusEventTable row $row: pcieDowntrained, subject mlx5_0"

# A link in low power (width 0) is not known: no change, no trap.
printf '0\n' > "$FN/current_link_width"
sleep 2.5
[ "$(grep -c "$NOTIFY.16\b" "$WORK/traps.log")" -eq 0 ] || fail "width 0 sent primusPcieRestored"
[ "$(snmp_value $DEV.13.$IDX0)" != 0 ] || fail "width 0 served as 0"
ok "width 0 (low power): the width is absent and nothing is sent"

printf '16\n' > "$FN/current_link_width"
wait_until 10 grep -q "$NOTIFY.16\b" "$WORK/traps.log" || fail "no primusPcieRestored"
grep -A30 "$NOTIFY.16\b" "$WORK/traps.log" | grep -q "$DEV.13.$IDX0 = Gauge32: 16" ||
    fail "primusPcieRestored lacks the width 16"
[ "$(grep -c "$NOTIFY.15\b" "$WORK/traps.log")" -eq 2 ] || fail "more primusPcieDowntrained than two"
ok "primusPcieRestored when mlx5_0 is back at x16"
echo "PASS: $TEST_NAME"
