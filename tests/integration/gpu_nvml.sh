#!/bin/bash
# GPUs through a real snmpd: the agent loads the test NVML library
# (tests/nvml/libnvidia-ml.so.1, answering from five recorded nvidia-smi XML
# files, NVML index order not PCI order) and every primusGpuTable column is
# compared with the XML read independently here (xmllint).  Then: an XID, a
# thermal crossing and a lost GPU each reach snmptrapd; a hung NVML call
# leaves SNMP answering from the last snapshot while the poller row shows the
# timeout, and the poller recovers when NVML does.
. "$(dirname "$0")/lib.sh"

need_fake_nvml
command -v xmllint >/dev/null || skip "xmllint not installed (Debian: libxml2-utils)"

GPU="$OBJ.5"
ENTRY="$GPU.10.1"
FIX="$PNA_FIXTURES/nvidia"
XMLS=(h100-nvidia-smi-q-x.xml tesla-t4-nvidia-smi-q-x.xml gtx-1660-ti-nvidia-smi-q-x.xml
      a100-sxm4-80gb-nvidia-smi-q-x.xml rtx-4000-sff-ada-v13-nvidia-smi-q-x.xml)
list=""
for x in "${XMLS[@]}"; do list="$list${list:+:}$FIX/$x"; done
export PNA_FAKE_NVML_XML="$list"
export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
export PNA_FAKE_NVML_HANG=nvmlDeviceGetPowerUsage
export PNA_FAKE_NVML_HANG_FILE="$WORK/nvml.hang"   # hangs while this file exists
: > "$PNA_FAKE_NVML_CTL"

# No amdgpu card (an empty sysfs), one GPU with /dev/dri nodes.
mkdir -p "$WORK/sys" "$WORK/dev/dri/by-path"
ln -s ../card1 "$WORK/dev/dri/by-path/pci-0000:00:06.0-card"
ln -s ../renderD129 "$WORK/dev/dri/by-path/pci-0000:00:06.0-render"
{
    echo "nvmlLibrary $FAKE_NVML"
    echo "pollInterval gpu 1"
    echo "pollTimeout gpu 2"
} > "$WORK/agent.conf"

start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_agent --sysfs "$WORK/sys" --devfs "$WORK/dev"
wait_agent
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $GPU.1.0)\" = 5 ]" ||
    fail "primusGpuCount is not 5: $(snmp_value $GPU.1.0)"
ok "primusGpuCount = 5"

# --- every column against the XML --------------------------------------
xp() { xmllint --xpath "string(/nvidia_smi_log/gpu[1]/$2)" "$FIX/$1" 2>/dev/null; }
xroot() { xmllint --xpath "string(/nvidia_smi_log/$2)" "$FIX/$1" 2>/dev/null; }
num() { echo "$1" | sed -n 's/^\(-\{0,1\}[0-9][0-9.]*\).*/\1/p'; }   # "81559 MiB" -> 81559
milli() { local n; n=$(num "$1"); [ -n "$n" ] && awk -v v="$n" 'BEGIN { printf "%.0f\n", v * 1000 }'; }
mib() { local n; n=$(num "$1"); [ -n "$n" ] && echo $((n * 1048576)); }
cell() { snmp_value "$ENTRY.$1.$2"; }
# threshold FILE ABSOLUTE MARGIN: the XML's absolute threshold or, where it has
# only T.Limit margins (R570+), temperature + T.Limit - margin, as NVML answers.
threshold() {
    local abs t l m
    abs=$(num "$(xp "$1" "temperature/$2")")
    [ -n "$abs" ] && { echo "$abs"; return; }
    t=$(num "$(xp "$1" temperature/gpu_temp)")
    l=$(num "$(xp "$1" temperature/gpu_temp_tlimit)")
    m=$(num "$(xp "$1" "temperature/$3")")
    [ -n "$t" ] && [ -n "$l" ] && [ -n "$m" ] && echo $((t + l - m))
}
ABSENT="No Such Instance currently exists at this OID"

# COLUMN NAME INDEX EXPECTED: EXPECTED empty means the cell must be absent.
check() {
    local got; got=$(cell "$1" "$3")
    if [ -z "$4" ]; then
        [ "$got" = "$ABSENT" ] || fail "$2 of GPU $3: '$got', expected no value (N/A in the XML)"
    else
        [ "$got" = "$4" ] || fail "$2 of GPU $3: agent says '$got', the XML says '$4'"
    fi
}

# NVML's system-wide driver/CUDA versions come from the first file loaded.
driver=$(xroot "${XMLS[0]}" driver_version)
cuda=$(xroot "${XMLS[0]}" cuda_version)
indexes=""
ordinal=0
for x in "${XMLS[@]}"; do
    bus=$(xmllint --xpath 'string(/nvidia_smi_log/gpu[1]/@id)' "$FIX/$x")
    IFS=':.' read -r dom b d f <<< "$bus"
    idx=$(( (0x$dom << 16) | (0x$b << 8) | (0x$d << 3) | f ))
    indexes="$indexes $idx"
    canon=$(printf '%04x:%02x:%02x.%x' $((0x$dom)) $((0x$b)) $((0x$d)) "$f")
    check 2 vendor "$idx" 1
    check 3 ordinal "$idx" "$ordinal"
    check 4 name "$idx" "$(xp "$x" product_name)"
    check 5 uuid "$idx" "$(xp "$x" uuid)"
    serial=$(xp "$x" serial); [ "$serial" = N/A ] && serial=""
    check 6 serial "$idx" "$serial"
    check 7 pciBusId "$idx" "$canon"
    check 8 driverVersion "$idx" "$driver"
    check 9 computeVersion "$idx" "$cuda"
    check 10 vbios "$idx" "$(xp "$x" vbios_version)"
    devid=$(xp "$x" pci/pci_device_id | tr 'A-F' 'a-f')
    check 11 pciDeviceId "$idx" "${devid:4:4}:${devid:0:4}"
    check 12 dataSource "$idx" 1
    check 20 utilization "$idx" "$(num "$(xp "$x" utilization/gpu_util)")"
    check 21 memUtilization "$idx" "$(num "$(xp "$x" utilization/memory_util)")"
    check 22 memTotal "$idx" "$(mib "$(xp "$x" fb_memory_usage/total)")"
    check 23 memUsed "$idx" "$(mib "$(xp "$x" fb_memory_usage/used)")"
    check 24 memFree "$idx" "$(mib "$(xp "$x" fb_memory_usage/free)")"
    check 25 temperature "$idx" "$(num "$(xp "$x" temperature/gpu_temp)")"
    check 26 memTemperature "$idx" "$(num "$(xp "$x" temperature/memory_temp)")"
    check 27 tempSlowdown "$idx" "$(threshold "$x" gpu_temp_slow_threshold gpu_temp_slow_tlimit_threshold)"
    check 28 tempShutdown "$idx" "$(threshold "$x" gpu_temp_max_threshold gpu_temp_max_tlimit_threshold)"
    draw=$(xp "$x" power_readings/power_draw)
    [ -n "$draw" ] || draw=$(xp "$x" gpu_power_readings/power_draw)
    [ -n "$draw" ] || draw=$(xp "$x" gpu_power_readings/average_power_draw)
    check 29 powerDraw "$idx" "$(milli "$draw")"
    limit=$(xp "$x" power_readings/enforced_power_limit)
    [ -n "$limit" ] || limit=$(xp "$x" gpu_power_readings/current_power_limit)
    check 30 powerLimit "$idx" "$(milli "$limit")"
    check 31 energy "$idx" ""          # nvidia-smi -q -x prints none: NOT_SUPPORTED
    check 32 smClock "$idx" "$(num "$(xp "$x" clocks/sm_clock)")"
    check 33 memClock "$idx" "$(num "$(xp "$x" clocks/mem_clock)")"
    check 34 fanSpeed "$idx" "$(num "$(xp "$x" fan_speed)")"
    check 35 pcieGen "$idx" "$(xp "$x" pci/pci_gpu_link_info/pcie_gen/current_link_gen)"
    check 36 pcieWidth "$idx" "$(num "$(xp "$x" pci/pci_gpu_link_info/link_widths/current_link_width)")"
    check 37 pcieReplays "$idx" "$(xp "$x" pci/replay_counter)"
    check 51 pcieGenMax "$idx" "$(xp "$x" pci/pci_gpu_link_info/pcie_gen/max_link_gen)"
    check 52 pcieWidthMax "$idx" "$(num "$(xp "$x" pci/pci_gpu_link_info/link_widths/max_link_width)")"
    check 53 perfState "$idx" "$(xp "$x" performance_state | tr -d P)"
    # distinct pids (XPath 1.0: the first of each)
    pids=$(xmllint --xpath "count(/nvidia_smi_log/gpu[1]/processes/process_info[not(pid = preceding-sibling::process_info/pid)])" "$FIX/$x")
    check 44 processCount "$idx" "$pids"
    mig=$(xp "$x" mig_mode/current_mig)
    case "$mig" in Enabled) mig=2 ;; Disabled) mig=1 ;; *) mig="" ;; esac
    check 45 migMode "$idx" "$mig"
    # ECC: aggregate counts, every memory location; "N/A" -> absent
    sel='/nvidia_smi_log/gpu[1]/ecc_errors/aggregate/*[contains(name(),"correctable") and not(contains(name(),"uncorrectable"))]'
    n=$(xmllint --xpath "count($sel)" "$FIX/$x")
    corr=$(xmllint --xpath "sum($sel)" "$FIX/$x")
    if [ "$n" = 0 ] || [ "$corr" = NaN ]; then corr=""; fi
    check 38 eccCorrected "$idx" "$corr"
    # "empty when none": served as an empty string, not absent
    drm=$(cell 46 "$idx")
    [ "$drm" = "$([ "$canon" = 0000:00:06.0 ] && echo card1)" ] || fail "drmCard of GPU $idx: '$drm'"
    check 54 xidErrors "$idx" 0
    ordinal=$((ordinal + 1))
done
ok "every column of 5 GPUs matches its nvidia-smi XML"

# Rows in PCI order (index ascending), whatever NVML's order.
walked=$(snmp_walk "$ENTRY.2" | sed 's/^[^ ]*\.\([0-9]*\) .*/\1/' | tr '\n' ' ')
sorted=$(echo $indexes | tr ' ' '\n' | sort -n | tr '\n' ' ')
[ "$walked" = "$sorted" ] || fail "rows in order '$walked', expected '$sorted'"
ok "rows ordered by PCI address: $walked"

# snmptable renders the table with the MIB (where the IETF base MIBs exist).
if [ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] && command -v snmptable >/dev/null; then
    table=$(MIBDIRS="+$PNA_IETF_MIBDIR:$PNA_MIBDIR" MIBS="+PRIMUS-NODE-MIB" \
            snmptable $V2 -Cf '|' -Ci -Cb "$TARGET" PRIMUS-NODE-MIB::primusGpuTable 2>&1)
    header=$(echo "$table" | grep '^index|' | head -1)
    [ -n "$header" ] || fail "snmptable printed no header: $(echo "$table" | head -3)"
    col_of() { echo "$header" | tr '|' '\n' | grep -nx "$1" | cut -d: -f1; }
    cname=$(col_of Name); cuuid=$(col_of Uuid); ctotal=$(col_of MemTotal); cbus=$(col_of PciBusId)
    [ -n "$cname" ] && [ -n "$cuuid" ] && [ -n "$ctotal" ] && [ -n "$cbus" ] || fail "snmptable header: $header"
    rows=0
    for x in "${XMLS[@]}"; do
        uuid=$(xp "$x" uuid)
        row=$(echo "$table" | awk -F'|' -v c="$cuuid" -v u="$uuid" '$c == u')
        [ -n "$row" ] || fail "snmptable has no row with uuid $uuid"
        [ "$(echo "$row" | cut -d'|' -f"$cname")" = "$(xp "$x" product_name)" ] || fail "snmptable name of $uuid"
        total=$(echo "$row" | cut -d'|' -f"$ctotal" | sed 's/ .*//')
        [ "$total" = "$(mib "$(xp "$x" fb_memory_usage/total)")" ] || fail "snmptable memTotal of $uuid: $total"
        rows=$((rows + 1))
    done
    ok "snmptable primusGpuTable: $rows rows agree with the XML"
else
    echo "note: no IETF base MIBs: snmptable rendering not checked"
fi

# --- notifications -----------------------------------------------------
H100=48          # 0000:00:06.0
A100=256         # 0000:01:00.0
GTX=$((0x43 << 8))
echo "xid 00000000:00:06.0 79" >> "$PNA_FAKE_NVML_CTL"
wait_until 10 grep -q "OID: $NOTIFY.6" "$WORK/traps.log" || fail "no primusGpuXidError trap"
grep -A3 "OID: $NOTIFY.6" "$WORK/traps.log" | grep -q "GPU-9523b415-042d-2522-6d49-eb87275e096c" ||
    fail "XID trap lacks the GPU's UUID"
grep -A3 "OID: $NOTIFY.6" "$WORK/traps.log" | grep -q "Gauge32: 79" || fail "XID trap lacks the code 79"
wait_until 5 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $ENTRY.55.$H100)\" = 79 ]" ||
    fail "primusGpuLastXid is not 79"
[ "$(cell 54 $H100)" = 1 ] || fail "primusGpuXidErrors is $(cell 54 $H100)"
ok "XID 79: trap with UUID and code; xidErrors 1, lastXid 79"

# The A100's slowdown threshold is 89 C (gpu_temp_slow_threshold)
echo "set 00000000:01:00.0 temp 95" >> "$PNA_FAKE_NVML_CTL"
wait_until 10 grep -q "OID: $NOTIFY.7" "$WORK/traps.log" || fail "no primusGpuThermal trap"
grep -A3 "OID: $NOTIFY.7" "$WORK/traps.log" | grep -q "$ENTRY.25.$A100 = INTEGER: 95" ||
    fail "thermal trap lacks primusGpuTemperature.$A100 = 95"
sleep 2.5
[ "$(grep -c "OID: $NOTIFY.7" "$WORK/traps.log")" = 1 ] || fail "thermal trap sent more than once"
ok "A100 at 95 C: one primusGpuThermal trap"

echo "lost 00000000:43:00.0" >> "$PNA_FAKE_NVML_CTL"
wait_until 10 grep -q "OID: $NOTIFY.8" "$WORK/traps.log" || fail "no primusGpuLost trap"
grep -A3 "OID: $NOTIFY.8" "$WORK/traps.log" | grep -q "0000:43:00.0" || fail "lost trap lacks the bus id"
# (the event is posted while the poll that saw it is still being published)
wait_until 5 sh -c "snmpget $V2 -On -Oqv $TARGET $ENTRY.25.$GTX | grep -q 'No Such Instance'" ||
    fail "lost GPU still shows a temperature"
[ "$(cell 4 $GTX)" = "Graphics Device" ] || fail "lost GPU lost its identity"
ok "GTX 1660 Ti lost: trap, row kept with identity only"

# --- a hung NVML call ----------------------------------------------------
GPU_POLLER="$OBJ.4.10.1"   # primusPollerEntry; the gpu poller is index 2
touch "$PNA_FAKE_NVML_HANG_FILE"
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $GPU_POLLER.9.2)\" = 3 ]" ||
    fail "gpu poller status is not timedOut(3) while NVML hangs: $(snmp_value $GPU_POLLER.9.2)"
ok "NVML hangs: gpu poller timedOut(3)"
slow=0
for i in $(seq 20); do
    t0=$(date +%s%N)
    name=$(cell 4 $H100)
    count=$(snmp_value $GPU.1.0)
    host=$(snmp_value $OBJ.1.1.0)
    t1=$(date +%s%N)
    [ "$name" = "NVIDIA H100 80GB HBM3" ] || fail "GPU row not served while NVML hangs: '$name'"
    [ "$count" = 5 ] || fail "primusGpuCount $count while NVML hangs"
    [ -n "$host" ] || fail "node scalars not served while NVML hangs"
    [ $(( (t1 - t0) / 1000000 )) -lt 1000 ] || slow=$((slow + 1))
    sleep 0.1
done
[ "$slow" = 0 ] || fail "$slow of 20 rounds of three GETs took over a second while NVML hung"
age=$(snmp_value $GPU_POLLER.8.2)
[ "$age" -ge 2 ] || fail "data age $age s while NVML hangs"
wait_until 10 grep -q "STRING: \"gpu\"" "$WORK/traps.log" || fail "no poller-failure trap naming gpu"
ok "SNMP keeps answering from the last snapshot (data age $age s), poller failure trapped"

rm -f "$PNA_FAKE_NVML_HANG_FILE"
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $GPU_POLLER.9.2)\" = 1 ]" ||
    fail "gpu poller did not recover: status $(snmp_value $GPU_POLLER.9.2)"
ok "NVML back: gpu poller ok(1)"
echo "PASS: $TEST_NAME"
