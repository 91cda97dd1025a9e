#!/bin/bash
# AMD GPU depth through a real snmpd and the bridge, on a recorded amdgpu
# sysfs tree (an RX 6900 XT) with its own recorded gpu_metrics blob:
#   - primusGpuGrEngineActive and primusGpuDramActive equal the blob's
#     average_gfx_activity and average_umc_activity, decoded here
#     independently (python3 struct at the kernel's v1.3 offsets);
#   - primusGpuXgmiHiveId, primusGpuComputePartition and
#     primusGpuMemoryPartition equal the sysfs files;
#   - primusGpuProcTable rows from a KFD proc tree: per-process VRAM, named
#     from /proc/PID/comm;
#   - SNMP and /metrics agree on each.
# The recorded tree has no XGMI hive, no partition files and no KFD tree (a
# consumer card): those files are built here in the kernel's formats, with
# made-up values, and say so.
. "$(dirname "$0")/http_lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"

GPU="$OBJ.5"
ENTRY="$GPU.10.1"
PROC="$GPU.12.1"
S="$WORK/sys" P="$WORK/proc" D="$WORK/dev"
mkdir -p "$P/sys/kernel" "$D/dri/by-path"
for f in cpuinfo loadavg meminfo stat uptime sys/kernel/hostname sys/kernel/osrelease; do
    cat "/proc/$f" > "$P/$f" 2>/dev/null
done
uname -m > "$P/sys/kernel/arch"
cp -r "$PNA_FIXTURES/amdgpu-sysfs/lact-rx6900xt/sys" "$S"
chmod -R u+w "$S"
DEV="$S/class/drm/card0/device"
BLOB="$PNA_FIXTURES/amdgpu-sysfs/gpu_metrics/lact-rx6900xt-navi21-v1_3.bin"
cp "$BLOB" "$DEV/gpu_metrics"
# built, not recorded: an XGMI hive, partition modes
mkdir -p "$DEV/xgmi_hive_info"
echo 9223372036854775809 > "$DEV/xgmi_hive_info/xgmi_hive_id"
echo CPX > "$DEV/current_compute_partition"
echo NPS4 > "$DEV/current_memory_partition"
PCI=$(sed -n 's/^PCI_SLOT_NAME=//p' "$DEV/uevent")      # 0000:0c:00.0
bus=$((16#$(echo "$PCI" | cut -d: -f2)))
INDEX=$((bus << 8))
# built, not recorded: the KFD topology node of this GPU and two processes
K="$S/class/kfd/kfd"
mkdir -p "$K/topology/nodes/1" "$K/proc/7001" "$K/proc/7002"
echo 41234 > "$K/topology/nodes/1/gpu_id"
printf 'simd_count 160\nlocation_id %d\ndomain 0\n' $((bus << 8)) > "$K/topology/nodes/1/properties"
echo 2147483648 > "$K/proc/7001/vram_41234"
echo 268435456 > "$K/proc/7002/vram_41234"
for pid in 7001 7002; do mkdir -p "$P/$pid"; done
echo pt_main_thread > "$P/7001/comm"
echo rccl-bench > "$P/7002/comm"

echo "pollInterval gpu 1" > "$WORK/agent.conf"
start_snmpd
start_http_agent --sysfs "$S" --procfs "$P" --devfs "$D"
wait_agent
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $ENTRY.57.$INDEX | grep -qv 'No Such'" ||
    fail "no primusGpuGrEngineActive for the AMD GPU ($PCI, index $INDEX): $(snmp_value "$ENTRY.57.$INDEX")"
want() {
    local got; got=$(snmp_value "$1")
    [ "$got" = "$2" ] || fail "$3: SNMP says '$got', expected '$2'"
}

read -r fmt content gfx umc <<< "$(python3 -c "
import struct, sys
b = open(sys.argv[1], 'rb').read()
size, fmt, content = struct.unpack_from('<HBB', b, 0)
gfx, umc = struct.unpack_from('<HH', b, 16)   # gpu_metrics_v1_3: average_gfx/umc_activity
print(fmt, content, gfx, umc)" "$BLOB")"
[ "$fmt.$content" = 1.3 ] || fail "the blob is gpu_metrics v$fmt.$content, expected 1.3"
want "$ENTRY.57.$INDEX" $((gfx * 100)) "primusGpuGrEngineActive (average_gfx_activity $gfx %)"
want "$ENTRY.61.$INDEX" $((umc * 100)) "primusGpuDramActive (average_umc_activity $umc %)"
want "$ENTRY.85.$INDEX" "0x8000000000000001" "primusGpuXgmiHiveId"
want "$ENTRY.86.$INDEX" CPX "primusGpuComputePartition"
want "$ENTRY.87.$INDEX" NPS4 "primusGpuMemoryPartition"
ok "gpu_metrics v1.3: graphics $gfx %, memory controllers $umc %; hive and partitions as the files say"

want "$PROC.2.$INDEX.7001" pt_main_thread "name of process 7001"
want "$PROC.4.$INDEX.7001" 2147483648 "VRAM of process 7001"
want "$PROC.4.$INDEX.7002" 268435456 "VRAM of process 7002"
want "$PROC.3.$INDEX.7001" 1 "type of process 7001 (compute)"
want "$ENTRY.44.$INDEX" 2 "primusGpuProcessCount"
ok "KFD processes: VRAM per process, names from /proc"

m="$WORK/metrics"
http_body /metrics > "$m"
bus_id=$(printf '0000:%02x:00.0' "$bus")
grep -q "^primus_gpu_graphics_engine_active_ratio{.*pci_bus_id=\"$bus_id\".*} $(awk -v g="$gfx" 'BEGIN { printf "%g", g / 100 }')$" "$m" ||
    fail "/metrics graphics activity differs: $(grep '^primus_gpu_graphics_engine_active_ratio' "$m")"
grep -q "^primus_gpu_info{.*compute_partition=\"CPX\".*memory_partition=\"NPS4\"" "$m" ||
    grep -q "^primus_gpu_info{.*memory_partition=\"NPS4\".*compute_partition=\"CPX\"" "$m" ||
    fail "/metrics primus_gpu_info lacks the partitions: $(grep '^primus_gpu_info' "$m")"
grep -q "^primus_gpu_process_memory_used_bytes{.*pci_bus_id=\"$bus_id\".*pid=\"7001\".*} 2147483648$" "$m" ||
    fail "/metrics process 7001 VRAM differs: $(grep 'process_memory_used_bytes' "$m")"
ok "/metrics agrees: activity, partitions, process VRAM"
