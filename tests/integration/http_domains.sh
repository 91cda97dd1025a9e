#!/bin/bash
# The HTTP bridge's device metrics against the MIB tables, through a real
# snmpd, on recorded sources: GPUs from the test NVML library (five recorded
# nvidia-smi XML files) and RDMA devices from the two InfiniBand sysfs fixture
# trees.  For every row and every mapped column, the value snmpget/snmpwalk
# returns equals the primus_* metric of the same row (in its base unit), a cell
# absent from the table is absent from /metrics and the other way round; the
# replaced exporters' names (hw_gpu_*, gpu_utilization, rdma_stat_*) carry the same values;
# /gpus and /rdma list the same devices; promtool finds the exposition clean.
# The fixture sources do not change, so every cache generation serves the same
# values.
. "$(dirname "$0")/http_lib.sh"

command -v promtool >/dev/null || skip "promtool not installed (Debian: prometheus)"
command -v jq >/dev/null || skip "jq not installed (Debian: jq)"
[ -f "$FAKE_NVML" ] || skip "$FAKE_NVML not built (make check builds it)"


# compare_table FILE ENTRY-OID KEYCOL KEYLABEL SPEC...
# FILE: a saved /metrics.  Rows of the table under ENTRY-OID are identified in
# /metrics by label KEYLABEL, whose value is column KEYCOL of the row (for GPUs
# pci_bus_id = primusGpuPciBusId), or, with KEYCOL "-", by the row's index
# decoded as device."port" (device="mlx5_0",port="1").  SPEC is COL:METRIC:SCALE
# (metric = snmp value x SCALE).
compare_table() {
    local file=$1 entry=$2 keycol=$3 keylabel=$4; shift 4
    snmpwalk $V2 -On -Oq "$TARGET" "$entry" | sed 's/ "\(.*\)"$/ \1/' > "$WORK/walk.txt"
    declare -A cell=() key=() rows=()
    local oid val rest col idx
    while read -r oid val; do
        rest=${oid#$entry.}; col=${rest%%.*}; idx=${rest#*.}
        cell["$col/$idx"]=$val; rows[$idx]=1
    done < "$WORK/walk.txt"
    for idx in "${!rows[@]}"; do
        if [ "$keycol" = s ]; then
            key[$idx]="$keylabel=\"$(echo "$idx" | awk -F. '{ s = ""; for (i = 2; i <= $1 + 1; i++) s = s sprintf("%c", $i); print s }')\""
        elif [ "$keycol" = - ]; then
            # 6.109.108.120.53.95.48.1 -> device="mlx5_0",port="1"
            key[$idx]=$(echo "$idx" | awk -F. '{ s = ""; for (i = 2; i <= $1 + 1; i++) s = s sprintf("%c", $i);
                                              printf "device=\"%s\",port=\"%s\"", s, $($1 + 2) }')
        else
            key[$idx]="$keylabel=\"${cell[$keycol/$idx]}\""
        fi
    done
    local spec n=0 metric scale want got
    for spec in "$@"; do
        IFS=: read -r col metric scale <<< "$spec"
        for idx in "${!rows[@]}"; do
            got=$(grep -E "^$metric\{" "$file" | grep -F "${key[$idx]}" | head -1 | awk '{print $NF}')
            if [ -z "${cell[$col/$idx]+x}" ]; then
                [ -z "$got" ] || fail "$metric{${key[$idx]}} = $got, but column $col of row $idx is absent"
                continue
            fi
            [ -n "$got" ] || fail "$metric{${key[$idx]}} absent, column $col of row $idx = ${cell[$col/$idx]}"
            want=${cell[$col/$idx]}
            awk -v g="$got" -v w="$want" -v s="$scale" 'BEGIN { e = w * s; d = g - e; if (d < 0) d = -d;
                 exit !(d <= 1e-9 * (e < 0 ? -e : e) + 1e-9) }' ||
                fail "$metric{${key[$idx]}} = $got, snmp column $col = $want (x $scale)"
            n=$((n + 1))
        done
    done
    ok "$(basename "$entry"): $n values equal across ${#rows[@]} rows ($# columns)"
}

# ---- GPUs --------------------------------------------------------------------------
FIX="$PNA_FIXTURES/nvidia"
list=""
for x in h100-nvidia-smi-q-x.xml tesla-t4-nvidia-smi-q-x.xml gtx-1660-ti-nvidia-smi-q-x.xml \
         a100-sxm4-80gb-nvidia-smi-q-x.xml rtx-4000-sff-ada-v13-nvidia-smi-q-x.xml; do
    list="$list${list:+:}$FIX/$x"
done
export PNA_FAKE_NVML_XML="$list"
export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
: > "$PNA_FAKE_NVML_CTL"
mkdir -p "$WORK/empty-sys" "$WORK/dev/dri/by-path"
ln -s ../card1 "$WORK/dev/dri/by-path/pci-0000:00:06.0-card"
ln -s ../renderD129 "$WORK/dev/dri/by-path/pci-0000:00:06.0-render"
{ echo "nvmlLibrary $FAKE_NVML"; echo "pollInterval gpu 1"; } > "$WORK/agent.conf"
start_snmpd
start_http_agent --sysfs "$WORK/empty-sys" --devfs "$WORK/dev"
wait_agent
wait_http
GPU=$OBJ.5
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $GPU.1.0)\" = 5 ]" || fail "primusGpuCount is not 5"
http_body /metrics > "$WORK/gpu-metrics.txt"
promtool check metrics < "$WORK/gpu-metrics.txt" || fail "promtool: GPU exposition not clean"
ok "promtool check metrics: clean with 5 GPUs"
[ "$(metric_value "$WORK/gpu-metrics.txt" primus_gpus '')" = 5 ] || fail "primus_gpus != primusGpuCount"
node=$(cat /proc/sys/kernel/hostname)
[ "$(metric_value "$WORK/gpu-metrics.txt" hw_gpu_count "node=\"$node\"")" = 5 ] || fail "hw_gpu_count != 5"
ok "primus_gpus = hw_gpu_count = primusGpuCount = 5"

compare_table "$WORK/gpu-metrics.txt" "$GPU.10.1" 7 pci_bus_id \
    20:primus_gpu_utilization_ratio:0.01 21:primus_gpu_memory_utilization_ratio:0.01 \
    22:primus_gpu_memory_total_bytes:1 23:primus_gpu_memory_used_bytes:1 24:primus_gpu_memory_free_bytes:1 \
    25:primus_gpu_temperature_celsius:1 26:primus_gpu_memory_temperature_celsius:1 \
    27:primus_gpu_slowdown_temperature_celsius:1 28:primus_gpu_shutdown_temperature_celsius:1 \
    29:primus_gpu_power_watts:0.001 30:primus_gpu_power_limit_watts:0.001 \
    31:primus_gpu_energy_joules_total:0.001 32:primus_gpu_sm_clock_hertz:1000000 \
    33:primus_gpu_memory_clock_hertz:1000000 34:primus_gpu_fan_speed_ratio:0.01 \
    35:primus_gpu_pcie_link_generation:1 36:primus_gpu_pcie_link_width:1 37:primus_gpu_pcie_replays_total:1 \
    38:primus_gpu_ecc_corrected_errors_total:1 39:primus_gpu_ecc_uncorrected_errors_total:1 \
    43:primus_gpu_throttle_reasons:1 44:primus_gpu_processes:1 \
    51:primus_gpu_pcie_link_generation_max:1 52:primus_gpu_pcie_link_width_max:1 \
    53:primus_gpu_performance_state:1 54:primus_gpu_xid_errors_total:1 55:primus_gpu_last_xid:1
compare_table "$WORK/gpu-metrics.txt" "$GPU.10.1" 5 gpu_uuid \
    22:hw_gpu_memory_total_bytes:1 23:hw_gpu_memory_used_bytes:1 24:hw_gpu_memory_free_bytes:1 \
    20:hw_gpu_utilization_percent:1 25:hw_gpu_temperature_celsius:1 \
    29:hw_gpu_power_draw_watts:0.001 30:hw_gpu_power_limit_watts:0.001
grep -E '^hw_gpu_memory_total_bytes\{node="[^"]*",gpu_index="[0-9]+",gpu_name="[^"]*",gpu_uuid="[^"]*"\} ' \
    "$WORK/gpu-metrics.txt" | wc -l | grep -qx 5 || fail "hw_gpu_memory_total_bytes labels are not node,gpu_index,gpu_name,gpu_uuid"
ok "hw_gpu_* carry {node,gpu_index,gpu_name,gpu_uuid}"
# gpu_utilization{gpu_id} is the percent of primusGpuUtilization
n=$(grep -cE '^gpu_utilization\{gpu_id="[0-9]+"\} [0-9]+$' "$WORK/gpu-metrics.txt")
[ "$n" = "$(grep -c '^primus_gpu_utilization_ratio{' "$WORK/gpu-metrics.txt")" ] ||
    fail "gpu_utilization{gpu_id} series ($n) != primus_gpu_utilization_ratio series"
ok "gpu_utilization{gpu_id}: one per GPU with a utilization"
jq -e '.data | length == 5' <(http_body /gpus) >/dev/null || fail "/gpus does not list 5 GPUs"
jq -e '.data["/dev/dri/card1"].pci_addr == "0000:00:06.0" and .data["/dev/dri/card1"].render == "/dev/dri/renderD129"' \
    <(http_body /driMapping) >/dev/null || fail "/driMapping: $(http_body /driMapping)"
jq -e --arg v "$(snmp_value "$GPU.10.1.8.6")" '.data == $v or ($v | startswith("No Such"))' \
    <(http_body /gpuDriverVersion) >/dev/null || fail "/gpuDriverVersion"
ok "/gpus lists 5 GPUs, /driMapping maps card1 to 0000:00:06.0"
stop_agent_now

# ---- RDMA on both fixture trees -------------------------------------------------------------
RDMA=$OBJ.6
IBC=primus_ib_port
for tree in procfs node_exporter; do
    HTTP_PORT=$(free_tcp_port)
    HTTP_BASE="http://127.0.0.1:$HTTP_PORT"
    : > "$WORK/agent.conf"
    start_http_agent --sysfs "$PNA_FIXTURES/ib-sysfs/$tree/sys"
    wait_http
    wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $RDMA.1.0 | grep -q '^[0-9]'" ||
        fail "$tree: primusRdmaDeviceCount not served"
    http_body /metrics > "$WORK/ib-metrics.txt"
    promtool check metrics < "$WORK/ib-metrics.txt" || fail "promtool: $tree exposition not clean"
    ok "$tree: promtool check metrics clean"
    [ "$(metric_value "$WORK/ib-metrics.txt" primus_rdma_devices '')" = "$(snmp_value $RDMA.1.0)" ] ||
        fail "$tree: primus_rdma_devices != primusRdmaDeviceCount"
    compare_table "$WORK/ib-metrics.txt" "$RDMA.20.1" - - \
        3:${IBC}_state:1 5:${IBC}_phys_state:1 7:${IBC}_link_width:1 8:${IBC}_rate_bytes_per_second:125000 \
        10:${IBC}_lid:1 11:${IBC}_sm_lid:1 58:${IBC}_active_mtu_bytes:1 59:${IBC}_max_mtu_bytes:1 \
        20:${IBC}_receive_data_bytes_total:1 21:${IBC}_transmit_data_bytes_total:1 \
        22:${IBC}_receive_packets_total:1 23:${IBC}_transmit_packets_total:1 \
        24:${IBC}_unicast_receive_packets_total:1 25:${IBC}_unicast_transmit_packets_total:1 \
        26:${IBC}_multicast_receive_packets_total:1 27:${IBC}_multicast_transmit_packets_total:1 \
        28:${IBC}_symbol_errors_total:1 29:${IBC}_link_error_recovery_total:1 30:${IBC}_link_downed_total:1 \
        31:${IBC}_receive_errors_total:1 32:${IBC}_receive_remote_physical_errors_total:1 \
        33:${IBC}_receive_switch_relay_errors_total:1 34:${IBC}_transmit_discards_total:1 \
        35:${IBC}_transmit_constraint_errors_total:1 36:${IBC}_receive_constraint_errors_total:1 \
        37:${IBC}_local_link_integrity_errors_total:1 38:${IBC}_excessive_buffer_overrun_errors_total:1 \
        39:${IBC}_vl15_dropped_total:1 40:${IBC}_transmit_wait_total:1 41:${IBC}_receive_discards_total:1
    # every hw_counters value: primusHwCounterValue = primus_rdma_hw_stat_total = rdma_stat_<name>
    n=0
    while read -r oid val; do
        case "$oid" in "$RDMA.40.1.3."*) ;; *) continue ;; esac   # "No Such Object": none
        idx=${oid#$RDMA.40.1.3.}
        labels=$(echo "$idx" | awk -F. '{ d = ""; for (i = 2; i <= $1 + 1; i++) d = d sprintf("%c", $i);
                 p = $($1 + 2); k = $1 + 3; c = ""; for (i = k + 1; i <= k + $k; i++) c = c sprintf("%c", $i);
                 printf "%s %s %s", d, p, c }')
        read -r dev port name <<< "$labels"
        got=$(metric_value "$WORK/ib-metrics.txt" primus_rdma_hw_stat_total \
              "device=\"$dev\",port=\"$port\",counter=\"$name\"")
        [ "$got" = "$val" ] || fail "$tree hw counter $dev/$port/$name: /metrics '$got', snmp '$val'"
        if [ "$port" != 0 ]; then
            got=$(metric_value "$WORK/ib-metrics.txt" "rdma_stat_$name" "device=\"$dev\",port=\"$port\"")
            [ "$got" = "$val" ] || fail "$tree rdma_stat_$name{$dev,$port}: '$got', snmp '$val'"
        fi
        n=$((n + 1))
    done < <(snmpwalk $V2 -On -Oq "$TARGET" "$RDMA.40.1.3")
    ok "$tree: $n hardware counters equal (primus_rdma_hw_stat_total, rdma_stat_*)"
    want=$(snmpwalk $V2 -On -Oqv "$TARGET" "$RDMA.10.1.8" | wc -l)
    jq -e --argjson n "$want" '.data | length == $n' <(http_body /rdma) >/dev/null ||
        fail "$tree: /rdma does not list $want devices"
    ok "$tree: /rdma lists the $want devices of primusRdmaDeviceTable"
    stop_agent_now
done
# ---- containers and node storage on a fixture tree ------------------------------------------
{
    . "$(dirname "$0")/containers_lib.sh"
    R="$WORK/root" S="$WORK/csys" P="$WORK/proc" D="$WORK/cdev"
    trainer_task "$R" "$S" "$P" "$D"   # secrets in its spec must reach no label and no JSON
    HTTP_PORT=$(free_tcp_port)
    HTTP_BASE="http://127.0.0.1:$HTTP_PORT"
    echo "pollInterval containers 1" > "$WORK/agent.conf"
    start_http_agent --rootfs "$R" --sysfs "$S" --procfs "$P" --devfs "$D"
    wait_http
    wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $CONTAINERS.1.0 | grep -qx 1" ||
        fail "primusContainerCount is not 1"
    wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $STORAGE.1.0 | grep -q '^[0-9]'" ||
        fail "primusStorageCapacity not served"
    http_body /metrics > "$WORK/ctr-metrics.txt"
    promtool check metrics < "$WORK/ctr-metrics.txt" || fail "promtool: containers exposition not clean"
    ok "containers: promtool check metrics clean"
    compare_table "$WORK/ctr-metrics.txt" "$CTR_ENTRY" s container_id \
        9:primus_container_start_time_seconds:1 11:primus_container_memory_usage_bytes:1 \
        12:primus_container_memory_limit_bytes:1 13:primus_container_oom_kills_total:1 \
        14:primus_container_gpus:1 15:primus_container_rdma_devices:1
    [ "$(metric_value "$WORK/ctr-metrics.txt" primus_containers '')" = "$(snmp_value $CONTAINERS.1.0)" ] ||
        fail "primus_containers != primusContainerCount"
    grep -qF "primus_container_device_info{container_id=\"$ID\",container=\"trainer\",pod=\"llm-0\",namespace=\"ml\",path=\"/dev/dri/renderD128\",kind=\"gpu\",major=\"226\",minor=\"128\",gpu_pci_bus_id=\"0000:c1:00.0\",rdma_device=\"\",source=\"specDevice\"} 1" \
        "$WORK/ctr-metrics.txt" || fail "renderD128 not mapped to GPU 0000:c1:00.0 in /metrics"
    grep -qF 'path="/dev/infiniband/uverbs0",kind="rdma",major="231",minor="192",gpu_pci_bus_id="",rdma_device="mlx5_0",source="specDevice"} 1' \
        "$WORK/ctr-metrics.txt" || fail "uverbs0 not mapped to mlx5_0 in /metrics"
    ok "primus_container_device_info: renderD128 -> 0000:c1:00.0, uverbs0 -> mlx5_0 (as primusContainerDeviceTable)"
    http_body /pods > "$WORK/pods.json"
    jq -e --arg id "$ID" '.[0].id == $id and .[0].pod_name == "llm-0" and .[0].pod_namespace == "ml"
           and .[0].pod_uuid == "uid-llm-0" and .[0].devices.infiniband[0].name == "mlx5_0"
           and .[0].devices.infiniband[0].path == "/dev/infiniband/uverbs0"' "$WORK/pods.json" >/dev/null ||
        fail "/pods: $(cat "$WORK/pods.json")"
    ok "/pods: the container, its pod and its RDMA device"
    grep -q TOPSECRET "$WORK/ctr-metrics.txt" "$WORK/pods.json" && fail "a secret from env/args/annotations is served"
    ok "nothing from env, args or foreign annotations in /metrics or /pods"
    # node storage: statvfs of the kubelet root, as primusStorage says.  The
    # filesystem changes under the test, so compare within one storage poll:
    # its runs and last success equal in scrapes before and after the snmpget.
    node=$(cat /proc/sys/kernel/hostname)
    gen() { echo "$(metric_value "$1" primus_poller_runs_total 'poller="storage"')" \
                 "$(metric_value "$1" primus_poller_last_success_timestamp_seconds 'poller="storage"')"; }
    compared=
    for attempt in 1 2 3 4 5; do
        http_body /metrics > "$WORK/st-a.txt"
        mapfile -t SV < <(snmpget $V2 -On -Oqv "$TARGET" $STORAGE.1.0 $STORAGE.2.0 $STORAGE.3.0 $STORAGE.4.0)
        http_body /metrics > "$WORK/st-b.txt"
        [ "$(gen "$WORK/st-a.txt")" = "$(gen "$WORK/st-b.txt")" ] || { sleep 0.2; continue; }
        for spec in "primus_storage_capacity_bytes::0:1" "primus_storage_available_bytes::1:1" \
                    "primus_storage_used_bytes::2:1" "primus_storage_usage_ratio::3:0.0001" \
                    "node_ephemeral_storage_capacity_bytes:node=\"$node\":0:1" \
                    "node_ephemeral_storage_available_bytes:node=\"$node\":1:1" \
                    "node_ephemeral_storage_usage_bytes:node=\"$node\":2:1" \
                    "node_ephemeral_storage_usage_percent:node=\"$node\":3:0.01"; do
            IFS=: read -r m l i sc <<< "$spec"
            got=$(metric_value "$WORK/st-a.txt" "$m" "$l")
            # a ratio is printed in decimal: equal within rounding, as above
            awk -v g="$got" -v w="${SV[$i]}" -v s="$sc" 'BEGIN { e = w * s; d = g - e; if (d < 0) d = -d;
                 exit !(g != "" && d <= 1e-9 * (e < 0 ? -e : e) + 1e-9) }' ||
                fail "$m = '$got', primusStorage scalar $((i + 1)) = '${SV[$i]}' (x $sc)"
        done
        compared=1
        break
    done
    [ -n "$compared" ] || fail "storage: no two scrapes within one storage poll"
    [ "$(metric_value "$WORK/st-a.txt" primus_storage_info 'source="statvfs",path="/var/lib/kubelet"')" = 1 ] ||
        fail "primus_storage_info is not statvfs of /var/lib/kubelet"
    ok "node storage: primus_storage_* and node_ephemeral_storage_* = primusStorage (statvfs, one poll)"
    stop_agent_now
}
echo "PASS: $TEST_NAME"
