#!/bin/bash
# GPU depth through a real snmpd and the bridge, with the test NVML library:
#   - primusGpuLinkTable from recorded `nvidia-smi nvlink` outputs of an
#     8 x H800 node (--status: links and speeds; -gt r: traffic counters),
#     each compared with the file;
#   - time held back per cause from the XML's clocks_event_reasons_counters;
#   - activity from GPU performance monitoring, two samples a poll apart;
#   - the health verdict and its reason: a T4 recorded at PCIe x8 of x16 is a
#     warning from the start, XID 79 makes the A100 critical, a recovery
#     action makes the RTX critical, each change trapped;
#   - a link that was up going down (and back): primusGpuLinkDown/Up traps
#     and the GPU's health warning; links never up, and links up at start,
#     raise nothing;
#   - primusGpuProcTable from the XML's processes (an RTX with four, of which
#     gpuProcessRows 3 keeps the three holding the most memory), names from
#     /proc/PID/comm, utilisation samples from the control file;
#   - SNMP and /metrics agree on every new column read here.
# The H800 captures are laid on the test's GPUs 0 and 1 by NVML index (the
# XML files are other GPUs).  Link error counters, remote ends and kinds, link
# versions, GPM values and the recovery action have no licensed recorded
# source (tests/fixtures/SOURCES.md): the values set below in the control file
# are made up to exercise the columns, each distinct.
. "$(dirname "$0")/http_lib.sh"

need_fake_nvml
command -v xmllint >/dev/null || skip "xmllint not installed (Debian: libxml2-utils)"
command -v promtool >/dev/null || skip "promtool not installed (Debian: prometheus)"
FIX="$PNA_FIXTURES/nvidia"
NVL="$PNA_FIXTURES/nvlink"
XMLS=(h100-nvidia-smi-q-x.xml a100-sxm4-80gb-nvidia-smi-q-x.xml rtx-4000-sff-ada-v13-nvidia-smi-q-x.xml
      tesla-t4-nvidia-smi-q-x.xml)
list=""
for x in "${XMLS[@]}"; do list="$list${list:+:}$FIX/$x"; done
export PNA_FAKE_NVML_XML="$list"
export PNA_FAKE_NVML_NVLINK="$NVL/llm-action-h800x8/nvlink-status.txt:$NVL/llm-action-h800x8/nvlink-gt-r.txt"
export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
H100=00000000:00:06.0 A100=00000000:01:00.0 RTX=00000000:06:00.0
I_H100=48 I_A100=256 I_RTX=1536 I_T4=240       # primusGpuIndex: the PCI keys
# GPM metric ids (NVML): 1 graphics, 2 SM, 3 occupancy, 5 tensor, 10 DRAM,
# 11/12/13 FP64/32/16, 20/21 PCIe tx/rx MiB/s, 61/60 NVLink tx/rx MiB/s.
cat > "$PNA_FAKE_NVML_CTL" <<CTL
gpm $H100 1 90.0
gpm $H100 2 87.5
gpm $H100 3 41.25
gpm $H100 5 63.0
gpm $H100 10 55.5
gpm $H100 11 0.5
gpm $H100 12 12.25
gpm $H100 13 30.75
gpm $H100 20 1024
gpm $H100 21 512
gpm $H100 61 20480
gpm $H100 60 20000
linkerr $H100 1 3 1 7 2
linktype $H100 0 gpu
linkversion $H100 0 4
linkremote $H100 0 00000000:D5:00.0
linkber $H100 0 0x30c
linkdown $H100 7
CTL
echo "procutil $RTX 34626 37 11" >> "$PNA_FAKE_NVML_CTL"
{
    echo "nvmlLibrary $FAKE_NVML"
    echo "pollInterval gpu 1"
    echo "gpuProcessRows 3"
} > "$WORK/agent.conf"
# A procfs with the processes' command names: the basename of the XML's
# process_name, cut to the kernel's 15 characters, as /proc/PID/comm has it.
PROCFS="$WORK/proc"
mkdir -p "$PROCFS/sys/kernel"
for f in cpuinfo loadavg meminfo stat uptime sys/kernel/hostname sys/kernel/osrelease; do
    cat "/proc/$f" > "$PROCFS/$f" 2>/dev/null
done
uname -m > "$PROCFS/sys/kernel/arch"
RTX_XML="$FIX/rtx-4000-sff-ada-v13-nvidia-smi-q-x.xml"
proc_field() { xmllint --xpath "string(//process_info[pid='$1']/$2)" "$RTX_XML"; }
RTX_PIDS=$(xmllint --xpath '//process_info/pid/text()' "$RTX_XML" | tr '\n' ' ')
for pid in $RTX_PIDS; do
    mkdir -p "$PROCFS/$pid"
    basename "$(proc_field "$pid" process_name)" | cut -c1-15 > "$PROCFS/$pid/comm"
done

GPU="$OBJ.5"
ENTRY="$GPU.10.1"
LINK="$GPU.11.1"
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
mkdir -p "$WORK/sys" "$WORK/dev"
start_http_agent --sysfs "$WORK/sys" --devfs "$WORK/dev" --procfs "$PROCFS"
wait_agent
cell() { snmp_value "$1"; }
want() {  # OID EXPECTED WHAT
    local got; got=$(cell "$1")
    [ "$got" = "$2" ] || fail "$3: SNMP says '$got', expected '$2'"
}
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $ENTRY.58.$I_H100)\" = 8750 ]" ||
    fail "primusGpuSmActive of the H100 is '$(cell "$ENTRY.58.$I_H100")', expected 8750"

# ---- links against the nvidia-smi outputs --------------------------------------------------
snmp_walk "$LINK.2.$I_H100" > "$WORK/links.walk" 2>&1
listed=$(sed -n '/^GPU 0:/,/^GPU 1:/p' "$NVL/llm-action-h800x8/nvlink-status.txt" | grep -c "Link [0-9]*: ")
rows=$(grep -c "^\." "$WORK/links.walk")
[ "$rows" = "$listed" ] || fail "the H100 has $rows link rows, nvlink --status lists $listed: $(head -3 "$WORK/links.walk")"
up=$(grep -cE " (1|up)$" "$WORK/links.walk")
[ "$up" = $((listed - 1)) ] || fail "$up links up, expected all $listed but link 7 (down from the start)"
want "$LINK.2.$I_H100.7" 2 "link 7 (down from the start) state"
want "$LINK.4.$I_H100.0" "0000:d5:00.0" "link 0 remote bus id (set: 00000000:D5:00.0)"
want "$LINK.5.$I_H100.0" 2 "link 0 remote type (set: gpu)"
want "$LINK.5.$I_H100.2" 1 "link 2 remote type (not set: unknown)"
want "$LINK.3.$I_H100.0" 4 "link 0 version"
want "$LINK.14.$I_H100.0" "3e-12" "link 0 effective BER (set: 0x30c, mantissa 3, exponent 12)"
want "$LINK.6.$I_H100.0" 26562 "link 0 speed (26.562 GB/s)"
tx=$(sed -n '/^GPU 0:/,/^GPU 1:/p' "$NVL/llm-action-h800x8/nvlink-gt-r.txt" | awk '/Link 0: Raw Tx/ { print $5 }')
rx=$(sed -n '/^GPU 0:/,/^GPU 1:/p' "$NVL/llm-action-h800x8/nvlink-gt-r.txt" | awk '/Link 0: Raw Rx/ { print $5 }')
want "$LINK.12.$I_H100.0" $((tx * 1024)) "link 0 tx bytes ($tx KiB)"
want "$LINK.13.$I_H100.0" $((rx * 1024)) "link 0 rx bytes ($rx KiB)"
for c in 7:3 8:1 9:7 10:2; do
    want "$LINK.${c%%:*}.$I_H100.1" "${c##*:}" "link 1 error column ${c%%:*}"
done
[ "$(cell "$LINK.7.$I_H100.0")" = "No Such Instance currently exists at this OID" ] ||
    fail "link 0 has error counters the library does not offer"
ok "links: $listed rows, states, speed and traffic as nvidia-smi nvlink printed them"

# ---- time held back, activity --------------------------------------------------------------
us=$(xmllint --xpath 'string(//gpu[1]/clocks_event_reasons_counters/clocks_event_reasons_counters_sw_power_cap)' \
     "$FIX/rtx-4000-sff-ada-v13-nvidia-smi-q-x.xml" | awk '{ print $1 }')
want "$ENTRY.69.$I_RTX" "$us" "RTX primusGpuThrottleTimePower (XML: $us us)"
want "$ENTRY.71.$I_RTX" 0 "RTX primusGpuThrottleTimeSyncBoost"
[ "$(cell "$ENTRY.70.$I_RTX")" = "No Such Instance currently exists at this OID" ] ||
    fail "primusGpuThrottleTimeThermal served without a source"
for c in 57:9000 58:8750 59:4125 60:6300 61:5550 62:50 63:1225 64:3075 \
         65:$((1024 * 1048576)) 66:$((512 * 1048576)) 67:$((20480 * 1048576)) 68:$((20000 * 1048576)); do
    want "$ENTRY.${c%%:*}.$I_H100" "${c##*:}" "H100 activity column ${c%%:*}"
done
[ "$(cell "$ENTRY.58.$I_A100")" = "No Such Instance currently exists at this OID" ] ||
    fail "the A100 (no GPM) has primusGpuSmActive"
ok "throttle time from the XML counters ($us us); GPM activity in hundredths of a percent"

# ---- processes ---------------------------------------------------------------------------
PROC="$GPU.12.1"
mib_bytes() { echo $(( $(proc_field "$1" used_memory | awk '{ print $1 }') * 1048576 )); }
# the XML's processes by memory, most first: the first three have rows
kept=$(for pid in $RTX_PIDS; do echo "$(mib_bytes "$pid") $pid"; done | sort -rn | head -3 | awk '{ print $2 }')
dropped=$(for pid in $RTX_PIDS; do echo "$(mib_bytes "$pid") $pid"; done | sort -rn | tail -n +4 | awk '{ print $2 }')
for pid in $kept; do
    want "$PROC.2.$I_RTX.$pid" "$(cat "$PROCFS/$pid/comm")" "name of process $pid"
    want "$PROC.4.$I_RTX.$pid" "$(mib_bytes "$pid")" "memory of process $pid"
    case $(proc_field "$pid" type) in C) t=1 ;; G) t=2 ;; C+G) t=3 ;; esac
    want "$PROC.3.$I_RTX.$pid" "$t" "type of process $pid ($(proc_field "$pid" type))"
done
for pid in $dropped; do
    [ "$(cell "$PROC.2.$I_RTX.$pid")" = "No Such Instance currently exists at this OID" ] ||
        fail "process $pid, the smallest, has a row beyond gpuProcessRows 3"
done
want "$ENTRY.84.$I_RTX" "$(echo "$dropped" | wc -w)" "RTX primusGpuProcessesOmitted"
want "$ENTRY.44.$I_RTX" "$(echo $RTX_PIDS | wc -w)" "RTX primusGpuProcessCount"
want "$PROC.5.$I_RTX.34626" 37 "SM utilisation of process 34626"
want "$PROC.6.$I_RTX.34626" 11 "memory utilisation of process 34626"
ok "processes: the 3 of $(echo $RTX_PIDS | wc -w) holding the most memory, names, types, memory and utilisation"

# ---- health ------------------------------------------------------------------------------
want "$ENTRY.78.$I_H100" 1 "H100 health"
want "$ENTRY.80.$I_H100" 1 "H100 recovery action (XML: None)"
want "$ENTRY.78.$I_T4" 2 "T4 health"
want "$ENTRY.79.$I_T4" "PCIe link trained at x8 of x16" "T4 health reason"
wait_until 10 grep -q "OID: $NOTIFY.12" "$WORK/traps.log" || fail "no primusGpuHealthChange for the T4"
[ "$(grep -c "OID: $NOTIFY.12" "$WORK/traps.log")" = 1 ] || fail "healthy GPUs sent health traps at start"
[ "$(grep -c "OID: $NOTIFY.11" "$WORK/traps.log")" = 0 ] || fail "links up at start sent primusGpuLinkUp traps"

echo "xid $A100 79" >> "$PNA_FAKE_NVML_CTL"
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $ENTRY.78.$I_A100)\" = 3 ]" ||
    fail "XID 79 did not make the A100 critical: $(cell "$ENTRY.78.$I_A100")"
want "$ENTRY.79.$I_A100" "XID 79 since the agent started: needs a reboot" "A100 reason"
want "$ENTRY.83.$I_A100" 79 "A100 worst XID"
wait_until 10 sh -c "grep -A8 'OID: $NOTIFY.12' '$WORK/traps.log' | grep -q '$ENTRY.78.$I_A100 = INTEGER: 3'" ||
    fail "no health trap carrying primusGpuHealth.$I_A100 = 3"
echo "set $RTX recovery 2" >> "$PNA_FAKE_NVML_CTL"
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $ENTRY.80.$I_RTX)\" = 3 ]" ||
    fail "recovery action reboot not served: $(cell "$ENTRY.80.$I_RTX")"
want "$ENTRY.78.$I_RTX" 3 "RTX health with a reboot recommended"
want "$ENTRY.79.$I_RTX" "the driver recommends a node reboot" "RTX reason"
ok "health: T4 warning (x8 of x16), XID 79 critical, recovery action critical, each trapped"

# ---- a link goes down and comes back ----------------------------------------------------------
echo "linkdown $H100 1" >> "$PNA_FAKE_NVML_CTL"
wait_until 10 grep -q "OID: $NOTIFY.10" "$WORK/traps.log" || fail "no primusGpuLinkDown trap"
grep -A8 "OID: $NOTIFY.10" "$WORK/traps.log" | grep -q "$LINK.2.$I_H100.1 = INTEGER: 2" ||
    fail "the link-down trap lacks primusGpuLinkState.$I_H100.1 = 2"
wait_until 5 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $ENTRY.78.$I_H100)\" = 2 ]" ||
    fail "a link down did not make the H100 warning"
want "$ENTRY.79.$I_H100" "link 1 is down" "H100 reason"
sed -i "/^linkdown .* 1$/d" "$PNA_FAKE_NVML_CTL"
wait_until 10 grep -q "OID: $NOTIFY.11" "$WORK/traps.log" || fail "no primusGpuLinkUp trap"
wait_until 5 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $ENTRY.78.$I_H100)\" = 1 ]" ||
    fail "the H100 did not return to ok"
[ "$(grep -c "OID: $NOTIFY.10" "$WORK/traps.log")" = 1 ] || fail "link 7 (never up) sent a link-down trap"
[ "$(grep -c "OID: $NOTIFY.11" "$WORK/traps.log")" = 1 ] || fail "more than link 1 sent a link-up trap"
ok "link 1 down and up: one trap each, health warning then ok; link 7, never up, silent"

# ---- the bridge agrees -------------------------------------------------------------------------
m="$WORK/metrics"
http_body /metrics > "$m"
prom() { awk -v s="$1" 'index($0, s) == 1 { print $2; exit }' "$m"; }
h100_labels="gpu=\"0\",pci_bus_id=\"0000:00:06.0\""
v=$(prom "primus_gpu_sm_active_ratio{$h100_labels")
[ "$v" = 0.875 ] || fail "primus_gpu_sm_active_ratio of the H100 is '$v', SNMP 8750"
v=$(prom "primus_gpu_throttle_seconds_total{gpu=\"2\",pci_bus_id=\"0000:06:00.0\"")
grep -q "^primus_gpu_throttle_seconds_total{.*pci_bus_id=\"0000:06:00.0\".*cause=\"power\"} $(awk -v u="$us" 'BEGIN { printf "%.6f", u / 1e6 }' | sed 's/0*$//; s/\.$//')$" "$m" ||
    fail "primus_gpu_throttle_seconds_total{cause=power} of the RTX is not $us us: $(grep 'throttle_seconds_total.*06:00.0.*power' "$m")"
grep -q "^primus_gpu_health{.*pci_bus_id=\"0000:00:1e.0\".*state=\"warning\"} 1$" "$m" ||
    fail "/metrics does not say the T4 is warning"
grep -q "^primus_gpu_link_up{.*pci_bus_id=\"0000:00:06.0\".*link=\"7\".*} 0$" "$m" ||
    fail "/metrics does not say H100 link 7 is down"
grep -q "^primus_gpu_link_transmit_bytes_total{.*pci_bus_id=\"0000:00:06.0\".*link=\"0\".*} $((tx * 1024))$" "$m" ||
    fail "/metrics link 0 tx bytes differ from SNMP"
grep -q "^primus_gpu_process_sm_utilization_ratio{.*pci_bus_id=\"0000:06:00.0\".*pid=\"34626\".*} 0.37$" "$m" ||
    fail "/metrics process 34626 SM utilisation differs from SNMP: $(grep 'process_sm_utilization_ratio.*34626' "$m")"
grep -q "^primus_gpu_process_info{.*pid=\"34626\".*process=\"$(cat "$PROCFS/34626/comm")\".*type=\"computeAndGraphics\"" "$m" ||
    fail "/metrics process 34626 info differs: $(grep 'process_info.*34626' "$m")"
promtool check metrics < "$m" > "$WORK/promtool.out" 2>&1 ||
    fail "promtool check metrics: $(head -5 "$WORK/promtool.out")"
ok "/metrics agrees: activity, throttle time, health, link state and traffic, processes; promtool clean"
