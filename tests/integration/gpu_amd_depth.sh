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
#   - primusGpuPartitionTable rows from KFD's topology (two CPX partitions);
#   - SNMP and /metrics agree on each.
# The recorded tree has no XGMI hive, no partition files and no KFD tree (a
# consumer card): those files are built here in the kernel's formats, with
# made-up values, and say so.
# Then the blob is swapped for an MI300-style gpu_metrics v1.7, BUILT here
# (no MI-series blob has been published): python3 lays out the kernel's
# struct gpu_metrics_v1_7 by natural alignment from its field list, with
# made-up figures and amd-smi's throttle counts; multimedia activity, PCIe
# bandwidth, the throttle residency counters, the XGMI link rows with their
# state and each compute partition's activity are checked through snmpd and
# on /metrics (also under prometheusCompat amd's names), and a link turning
# inactive reads down.
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
# built, not recorded: the KFD topology nodes of this GPU's two compute
# partitions (amdkfd's properties file; render minors 129 and 130) and two
# processes, one on each
K="$S/class/kfd/kfd"
mkdir -p "$K/topology/nodes/1" "$K/topology/nodes/2" "$K/proc/7001" "$K/proc/7002"
for n in 1 2; do
    echo $((41233 + n)) > "$K/topology/nodes/$n/gpu_id"
    printf 'simd_count 160\nsimd_per_cu 4\nlocation_id %d\ndomain 0\ndrm_render_minor %d\nnum_xcc 1\n' \
        $((bus << 8)) $((128 + n)) > "$K/topology/nodes/$n/properties"
done
echo 2147483648 > "$K/proc/7001/vram_41234"
echo 268435456 > "$K/proc/7002/vram_41235"
for pid in 7001 7002; do mkdir -p "$P/$pid"; done
echo pt_main_thread > "$P/7001/comm"
echo rccl-bench > "$P/7002/comm"

printf 'pollInterval gpu 1\nprometheusCompat amd\n' > "$WORK/agent.conf"
start_snmpd
start_http_agent --sysfs "$S" --procfs "$P" --devfs "$D"
wait_agent
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $ENTRY.57.$INDEX | grep -qv 'No Such'" ||
    fail "no primusGpuGrEngineActive for the AMD GPU ($PCI, index $INDEX): $(snmp_value "$ENTRY.57.$INDEX")"
want() {
    local got; got=$(snmp_value "$1")
    [ "$got" = "$2" ] || fail "$3: SNMP says '$got', expected '$2'"
}
absent() {
    local got; got=$(snmp_value "$1")
    case "$got" in *"No Such"*) ;; *) fail "$2: SNMP says '$got', expected no value" ;; esac
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

PART="$GPU.14.1"
want "$PART.2.$INDEX.0" 41234 "primusGpuPartitionKfdId of partition 0"
want "$PART.2.$INDEX.1" 41235 "primusGpuPartitionKfdId of partition 1"
want "$PART.3.$INDEX.1" /dev/dri/renderD130 "primusGpuPartitionRenderNode of partition 1"
want "$PART.4.$INDEX.0" 1 "primusGpuPartitionXccCount"
want "$PART.5.$INDEX.0" 40 "primusGpuPartitionComputeUnits (160 SIMDs / 4)"
want "$PART.8.$INDEX.0" 2147483648 "primusGpuPartitionMemUsed of partition 0 (process 7001)"
want "$PART.8.$INDEX.1" 268435456 "primusGpuPartitionMemUsed of partition 1 (process 7002)"
absent "$PART.6.$INDEX.0" "partition activity without gpu_metrics 1.6+"
ok "compute partitions (CPX): two rows from KFD's topology, their render nodes and memory"

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

# --- an MI300-style gpu_metrics v1.7, built ------------------------------------
# build_v17 FILE LINK5_STATUS: every field not set is 0xff.. (not supported)
build_v17() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
u16, u32, u64 = ("H", 2), ("I", 4), ("Q", 8)
def arr(t, n): return (t[0], t[1], n)
xcp = [("gfx_busy_inst", arr(u32, 8)), ("jpeg_busy", arr(u16, 32)), ("vcn_busy", arr(u16, 4)),
       ("gfx_busy_acc", arr(u64, 8)), ("gfx_below_host_limit_acc", arr(u64, 8))]
fields = [("structure_size", u16), ("format_revision", ("B", 1)), ("content_revision", ("B", 1)),
          ("temperature_hotspot", u16), ("temperature_mem", u16), ("temperature_vrsoc", u16),
          ("curr_socket_power", u16), ("average_gfx_activity", u16), ("average_umc_activity", u16),
          ("mem_max_bandwidth", u64), ("energy_accumulator", u64), ("system_clock_counter", u64),
          ("accumulation_counter", u32), ("prochot_residency_acc", u32), ("ppt_residency_acc", u32),
          ("socket_thm_residency_acc", u32), ("vr_thm_residency_acc", u32),
          ("hbm_thm_residency_acc", u32), ("gfxclk_lock_status", u32), ("pcie_link_width", u16),
          ("pcie_link_speed", u16), ("xgmi_link_width", u16), ("xgmi_link_speed", u16),
          ("gfx_activity_acc", u32), ("mem_activity_acc", u32), ("pcie_bandwidth_acc", u64),
          ("pcie_bandwidth_inst", u64), ("pcie_l0_to_recov_count_acc", u64),
          ("pcie_replay_count_acc", u64), ("pcie_replay_rover_count_acc", u64),
          ("pcie_nak_sent_count_acc", u32), ("pcie_nak_rcvd_count_acc", u32),
          ("xgmi_read_data_acc", arr(u64, 8)), ("xgmi_write_data_acc", arr(u64, 8)),
          ("xgmi_link_status", arr(u16, 8)), ("padding", u16), ("firmware_timestamp", u64),
          ("current_gfxclk", arr(u16, 8)), ("current_socclk", arr(u16, 4)),
          ("current_vclk0", arr(u16, 4)), ("current_dclk0", arr(u16, 4)), ("current_uclk", u16),
          ("num_partition", u16)]
fields += [("xcp%d_%s" % (i, n), t, 8 if j == 0 else None)
           for i in range(8) for j, (n, t) in enumerate(xcp)]
fields += [("pcie_lc_perf_other_end_recovery", u32)]
at, off = {}, 0
for f in fields:
    name, t = f[0], f[1]
    align = f[2] if len(f) > 2 and f[2] else t[1]
    off = (off + align - 1) // align * align
    at[name] = (off, t)
    off += t[1] * (t[2] if len(t) > 2 else 1)
size = (off + 7) // 8 * 8
assert size == 2208, size          # sizeof(struct gpu_metrics_v1_7)
blob = bytearray(b"\xff" * size)
def put(name, value, i=0):
    o, t = at[name]
    struct.pack_into("<" + t[0], blob, o + i * t[1], value)
put("structure_size", size); put("format_revision", 1); put("content_revision", 7)
put("average_gfx_activity", 64); put("average_umc_activity", 23)
put("xgmi_link_width", 16); put("xgmi_link_speed", 32)
put("pcie_bandwidth_inst", 18)
put("accumulation_counter", 3808991); put("prochot_residency_acc", 0)
put("ppt_residency_acc", 585613); put("socket_thm_residency_acc", 2190)
put("vr_thm_residency_acc", 0); put("hbm_thm_residency_acc", 7)
for i in range(7):
    put("xgmi_read_data_acc", 1000 + i, i); put("xgmi_write_data_acc", 2000 + i, i)
    put("xgmi_link_status", 1, i)
put("xgmi_link_status", int(sys.argv[2]), 5)
put("num_partition", 2)
put("xcp0_vcn_busy", 12); put("xcp1_vcn_busy", 31)     # mean 21.5 % -> 2150
put("xcp0_gfx_busy_inst", 55); put("xcp1_gfx_busy_inst", 7)
open(sys.argv[1], "wb").write(blob)
PY
}
build_v17 "$WORK/v17" 1 || fail "could not build the v1.7 blob"
cp "$WORK/v17" "$DEV/gpu_metrics"
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $ENTRY.92.$INDEX)\" = 3808991 ]" ||
    fail "primusGpuThrottleAccCycles not 3808991 after the v1.7 blob: $(snmp_value "$ENTRY.92.$INDEX")"
want "$ENTRY.57.$INDEX" 6400 "primusGpuGrEngineActive (v1.7)"
want "$ENTRY.90.$INDEX" 2150 "primusGpuMultimediaActive (VCN 12 % and 31 % in two partitions)"
want "$ENTRY.91.$INDEX" 18 "primusGpuPcieBandwidth (Mb/s)"
want "$ENTRY.93.$INDEX" 0 "primusGpuThrottleResProchot"
want "$ENTRY.94.$INDEX" 585613 "primusGpuThrottleResPpt"
want "$ENTRY.95.$INDEX" 2190 "primusGpuThrottleResSocketThermal"
want "$ENTRY.96.$INDEX" 0 "primusGpuThrottleResVrThermal"
want "$ENTRY.97.$INDEX" 7 "primusGpuThrottleResHbmThermal"
LINK="$GPU.11.1"
want "$LINK.2.$INDEX.5" 1 "primusGpuLinkState of XGMI link 5 (active)"
want "$LINK.6.$INDEX.5" 64000 "primusGpuLinkSpeed of XGMI link 5 (32 Gb/s x 16)"
want "$LINK.13.$INDEX.5" $((1005 * 1024)) "primusGpuLinkRxBytes of XGMI link 5"
want "$PART.6.$INDEX.0" 5500 "primusGpuPartitionGfxActive of partition 0 (its XCC's gfx_busy_inst)"
want "$PART.6.$INDEX.1" 700 "primusGpuPartitionGfxActive of partition 1"
want "$PART.7.$INDEX.1" 3100 "primusGpuPartitionVideoActive of partition 1"
absent "$LINK.2.$INDEX.7" "XGMI link 7 (no counters)"
ok "gpu_metrics v1.7 (built): multimedia, PCIe bandwidth, residency counters, XGMI link state"

http_body /metrics > "$m"
mline() { grep "^$1{" "$m" | grep "$2" | grep -q " $3\$" || fail "/metrics $1 $2 is not $3: $(grep "^$1{" "$m")"; }
mline primus_gpu_multimedia_active_ratio "pci_bus_id=\"$bus_id\"" 0.215
mline primus_gpu_pcie_bandwidth_bytes_per_second "pci_bus_id=\"$bus_id\"" 2250000
mline primus_gpu_throttle_accumulation_cycles_total "pci_bus_id=\"$bus_id\"" 3808991
mline primus_gpu_throttle_residency_cycles_total 'cause="ppt"' 585613
mline primus_gpu_throttle_residency_cycles_total 'cause="hbm_thermal"' 7
mline primus_gpu_link_up 'link="5"' 1
mline gpu_violation_ppt_residency_accumulated 'gpu_id="0"' 585613
mline gpu_violation_current_accumulated_counter 'gpu_id="0"' 3808991
mline pcie_bandwidth 'gpu_id="0"' 18
mline primus_gpu_partition_graphics_engine_active_ratio 'partition="0"' 0.55
mline primus_gpu_partition_memory_used_bytes 'partition="1"' 268435456
if command -v promtool >/dev/null; then
    grep -E '^(# (HELP|TYPE) )?primus_' "$m" | promtool check metrics > "$WORK/promtool.out" 2>&1 ||
        fail "promtool check metrics on the primus families: $(head -5 "$WORK/promtool.out")"
fi
ok "/metrics agrees (bytes per second from Mb/s), and under the AMD exporter's names"

build_v17 "$WORK/v17" 0 || fail "could not build the v1.7 blob"
cp "$WORK/v17" "$DEV/gpu_metrics"
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $LINK.2.$INDEX.5)\" = 2 ]" ||
    fail "XGMI link 5 inactive in the blob, primusGpuLinkState still $(snmp_value "$LINK.2.$INDEX.5")"
want "$LINK.2.$INDEX.4" 1 "primusGpuLinkState of XGMI link 4 (still active)"
want "$ENTRY.78.$INDEX" 2 "primusGpuHealth with an XGMI link that was up now down (warning)"
ok "an XGMI link the firmware reports inactive reads down(2); the GPU's health: $(snmp_value "$ENTRY.79.$INDEX")"
