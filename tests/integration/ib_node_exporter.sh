#!/bin/bash
# The RDMA tables served through a real snmpd, compared counter for counter
# with an independent reader of the same sysfs tree: Debian's
# prometheus-node-exporter run with --path.sysfs and only its infiniband
# collector, on each fixture tree (procfs: hfi1, mlx4, mlx5; node_exporter:
# mlx4 with counters_ext and a saturated counter, i40iw iWARP with N/A).
. "$(dirname "$0")/lib.sh"


NODE_EXPORTER=$(command -v prometheus-node-exporter || command -v node_exporter) ||
    skip "prometheus-node-exporter not installed (Debian: prometheus-node-exporter)"
command -v curl >/dev/null || skip "curl not installed"

RDMA="$OBJ.6"
DEV_ENTRY="$RDMA.10.1"
PORT_ENTRY="$RDMA.20.1"

# node_exporter metric -> primusIbPortEntry column: every metric its
# infiniband collector exports on the two fixture trees (an unmapped one fails
# the test).  legacy_* metrics are the same counters read from counters_ext.
declare -A COL=(
    [port_data_received_bytes_total]=20 [port_data_transmitted_bytes_total]=21
    [port_packets_received_total]=22 [port_packets_transmitted_total]=23
    [unicast_packets_received_total]=24 [unicast_packets_transmitted_total]=25
    [multicast_packets_received_total]=26 [multicast_packets_transmitted_total]=27
    [symbol_error_total]=28 [link_error_recovery_total]=29 [link_downed_total]=30
    [port_errors_received_total]=31 [port_receive_remote_physical_errors_total]=32
    [port_receive_switch_relay_errors_total]=33 [port_discards_transmitted_total]=34
    [port_constraint_errors_transmitted_total]=35 [port_constraint_errors_received_total]=36
    [local_link_integrity_errors_total]=37 [excessive_buffer_overrun_errors_total]=38
    [vl15_dropped_total]=39 [port_transmit_wait_total]=40
    [port_discards_received_total]=41
    [state_id]=3 [physical_state_id]=5 [rate_bytes_per_second]=8
)
declare -A LEGACY=(
    [legacy_data_received_bytes_total]=20 [legacy_data_transmitted_bytes_total]=21
    [legacy_packets_received_total]=22 [legacy_packets_transmitted_total]=23
    [legacy_unicast_packets_received_total]=24 [legacy_unicast_packets_transmitted_total]=25
    [legacy_multicast_packets_received_total]=26 [legacy_multicast_packets_transmitted_total]=27
)


compare_tree() {
    local tree=$1 label=$2
    local ne_port
    ne_port=$(free_port)
    "$NODE_EXPORTER" --path.sysfs="$tree" --collector.disable-defaults --collector.infiniband \
        --web.listen-address="127.0.0.1:$ne_port" > "$WORK/node_exporter-$label.log" 2>&1 &
    local ne_pid=$!
    PIDS+=("$ne_pid")
    wait_for "node_exporter" curl -sf "http://127.0.0.1:$ne_port/metrics"
    curl -sf "http://127.0.0.1:$ne_port/metrics" | grep '^node_infiniband_' > "$WORK/ne-$label.txt"
    kill "$ne_pid"

    : > "$WORK/agent.conf"
    start_agent --sysfs "$tree"
    wait_agent
    wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $RDMA.1.0 | grep -q '^[0-9]'" ||
        fail "primusRdmaDeviceCount.0 not served"
    snmpwalk $V2 -On -Oq "$TARGET" "$RDMA" | sed 's/ "\(.*\)"$/ \1/' > "$WORK/walk-$label.txt"
    kill "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null
    # under PNA_VALGRIND=1 the next agent would overwrite this one's report
    if [ -s "$WORK/agent-valgrind.log" ]; then
        head -60 "$WORK/agent-valgrind.log"
        fail "$label: valgrind report for the agent"
    fi

    declare -A served=()
    local oid val
    while read -r oid val; do served[$oid]=$val; done < "$WORK/walk-$label.txt"

    # Expected values: non-legacy first, legacy where the agent says the row's
    # traffic counters come from counters_ext (primusIbPortCounterSource = 2).
    declare -A expect=()
    local compared=0 line metric labels value dev port key col idx
    while read -r line; do
        metric=${line%%\{*}; metric=${metric#node_infiniband_}
        labels=${line#*\{}; labels=${labels%%\}*}
        value=$(echo "${line##* }" | awk '{printf "%.0f", $1}')
        dev=$(echo "$labels" | sed -n 's/.*device="\([^"]*\)".*/\1/p')
        port=$(echo "$labels" | sed -n 's/.*port="\([^"]*\)".*/\1/p')
        if [ "$metric" = info ]; then
            idx=$(str_index "$dev")
            local board fw hca
            board=$(echo "$labels" | sed -n 's/.*board_id="\([^"]*\)".*/\1/p')
            fw=$(echo "$labels" | sed -n 's/.*firmware_version="\([^"]*\)".*/\1/p')
            hca=$(echo "$labels" | sed -n 's/.*hca_type="\([^"]*\)".*/\1/p')
            [ "${served[$DEV_ENTRY.5.$idx]-}" = "$board" ] || fail "$label $dev board_id '${served[$DEV_ENTRY.5.$idx]-}' != '$board'"
            [ "${served[$DEV_ENTRY.3.$idx]-}" = "$fw" ] || fail "$label $dev firmware '${served[$DEV_ENTRY.3.$idx]-}' != '$fw'"
            [ "${served[$DEV_ENTRY.4.$idx]-}" = "$hca" ] || fail "$label $dev hca_type '${served[$DEV_ENTRY.4.$idx]-}' != '$hca'"
            compared=$((compared + 3))
            continue
        fi
        [ -n "$port" ] || continue
        idx="$(str_index "$dev").$port"
        if [ -n "${COL[$metric]-}" ]; then
            col=${COL[$metric]}
            [ "$col" = 8 ] && value=$((value / 125000))   # bytes/s -> Mb/s
            key="$PORT_ENTRY.$col.$idx"
            [ -n "${expect[$key]-}" ] || expect[$key]=$value
        elif [ -n "${LEGACY[$metric]-}" ]; then
            key="$PORT_ENTRY.${LEGACY[$metric]}.$idx"
            [ "${served[$PORT_ENTRY.51.$idx]-}" = 2 ] && expect[$key]=$value
        else
            fail "$label: node_exporter metric $metric is not mapped in this test"
        fi
    done < "$WORK/ne-$label.txt"

    for key in "${!expect[@]}"; do
        [ "${served[$key]-ABSENT}" = "${expect[$key]}" ] ||
            fail "$label $key: agent '${served[$key]-ABSENT}', node_exporter '${expect[$key]}'"
        compared=$((compared + 1))
    done
    # ...and the agent serves no counter that node_exporter does not read.
    for key in "${!served[@]}"; do
        col=${key#$PORT_ENTRY.}; col=${col%%.*}
        case "$key" in "$PORT_ENTRY".*) ;; *) continue ;; esac
        if [ "$col" -ge 20 ] && [ "$col" -le 41 ] && [ -z "${expect[$key]-}" ]; then
            fail "$label $key = ${served[$key]} served, node_exporter has no such counter"
        fi
    done
    ok "$label: $compared values equal to node_exporter's"
}

start_snmpd
compare_tree "$PNA_FIXTURES/ib-sysfs/procfs/sys" procfs
compare_tree "$PNA_FIXTURES/ib-sysfs/node_exporter/sys" node_exporter

# What node_exporter cannot tell, checked against the fixture files.
sat=$(awk -v k="$PORT_ENTRY.50.$(str_index mlx4_0).1" '$1 == k {print $2}' "$WORK/walk-node_exporter.txt")
[ "$sat" = $((1 << 20)) ] || fail "mlx4_0/1 port_xmit_wait (4294967295) not flagged saturated: '$sat'"
ok "mlx4_0/1 port_xmit_wait flagged saturated (primusIbPortSaturated bit 20)"
iw=$(grep -c "^$PORT_ENTRY\.\(2[0-9]\|3[0-9]\|4[01]\)\.$(str_index i40iw0)\.1 " "$WORK/walk-node_exporter.txt")
[ "$iw" = 0 ] || fail "i40iw0/1 serves $iw counters that read 'N/A (no PMA)'"
ok "i40iw0/1: N/A (no PMA) counters absent"
hw=$(grep -c "^$RDMA\.40\.1\.3\.$(str_index mlx5_0)\.1\." "$WORK/walk-procfs.txt")
[ "$hw" = 24 ] || fail "mlx5_0/1 hw counters served: $hw, expected 24"
ok "mlx5_0/1: 24 hw_counters in primusHwCounterTable"
# Every OID served under primusRdma is a readable object of the MIB.
if [ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] &&
   command -v snmptranslate >/dev/null; then
    export MIBDIRS="+$PNA_IETF_MIBDIR:$PNA_MIBDIR" SNMP_PERSISTENT_DIR="$WORK/translate" SNMPCONFPATH="$WORK"
    readable=$(MIBS="+PRIMUS-NODE-MIB" snmptranslate -Tp PRIMUS-NODE-MIB::primusRdma 2>/dev/null |
               sed -n 's/.* -R-- [A-Za-z0-9]* *\([A-Za-z0-9]*\)(.*/\1/p' | sort -u)
    [ -n "$readable" ] || fail "cannot read primusRdma from the MIB"
    labels=$(cut -d' ' -f1 "$WORK/walk-procfs.txt" "$WORK/walk-node_exporter.txt" |
             MIBS="+PRIMUS-NODE-MIB" xargs snmptranslate 2>/dev/null |
             sed 's/^PRIMUS-NODE-MIB:://' | cut -d. -f1 | sort -u)
    undefined=$(comm -23 <(echo "$labels") <(echo "$readable"))
    [ -z "$undefined" ] || fail "served but not readable objects of the MIB: $(echo $undefined)"
    ok "$(echo "$labels" | wc -l) primusRdma objects served, all defined in the MIB"
fi
echo "PASS: $TEST_NAME"
