#!/bin/bash
# primusGpuMigTable through a real snmpd and the bridge, with the test NVML:
#   - MIG devices from the recorded `nvidia-smi` MIG table of a DGX H100
#     (all-balanced: GPU and compute instance, memory used/total, SM count),
#     GPUs 0 and 1 of the capture laid on the test's GPUs 0 (an H100) and 1
#     (an A100) by NVML index, and the recorded `nvidia-smi -L` of an H100 with
#     the same balanced layout (profile and MIG UUID per MIG device) laid on
#     GPU 0: every column compared with the captures, read here with awk;
#   - the access capability node from a mig-minors file this test writes in
#     the driver's format (made up: no capture of that file could be found);
#   - a containerd container given /dev/nvidia-caps/nvidia-capN is that MIG
#     device's holder, the others have none;
#   - SM and tensor activity per GPU instance: the values in the control file
#     below are MADE UP (no capture of per-instance GPM exists);
#   - SNMP and /metrics agree on every column.
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
need_fake_nvml

FIX="$PNA_FIXTURES/nvidia"
TABLE="$PNA_FIXTURES/mig/dgx-h100-8x-mixed-all-balanced-nvidia-smi.txt"
LIST="$PNA_FIXTURES/mig/gpu-operator-h100-mig-mixed-nvidia-smi.txt"
export PNA_FAKE_NVML_XML="$FIX/h100-nvidia-smi-q-x.xml:$FIX/a100-sxm4-80gb-nvidia-smi-q-x.xml"
export PNA_FAKE_NVML_MIG="$TABLE:$LIST"
export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
H100=00000000:00:06.0
I_H100=48 I_A100=256                         # primusGpuIndex: the PCI keys
PCI_H100=0000:00:06.0 PCI_A100=0000:01:00.0
# Made up: GPM of GPU instance 2 of the H100 (metric 2 SM active, 5 tensor).
cat > "$PNA_FAKE_NVML_CTL" <<CTL
miggpm $H100 2 2 45.5
miggpm $H100 2 5 12.25
CTL

# Made up, in the format of /proc/driver/nvidia-caps/mig-minors: the H100 is
# minor 0 and the A100 minor 1 (their XML); every GI/CI access line of the
# capture's instances, with GPU-instance lines and other instances around.
S="$WORK/sys" P="$WORK/proc" D="$WORK/dev" R="$WORK/root"
TASKS="$R/run/containerd/io.containerd.runtime.v2.task"
mkdir -p "$S" "$P/driver/nvidia-caps" "$D" "$TASKS/k8s.io" "$R/var/lib/kubelet"
fake_procfs "$P"
cap_of() { echo $(( 100 + $1 * 100 + $2 * 4 + $3 )); }   # GPU GI CI -> made-up minor
gi_cap() { echo $(( 100 + $1 * 100 + $2 * 4 + 3 )); }     # GPU GI -> made-up minor
{
    echo "config 1"
    echo "monitor 2"
    for g in 0 1; do
        for gi in 1 2 3 9 10; do
            echo "gpu$g/gi$gi/access $(gi_cap $g $gi)"
            for ci in 0 1; do echo "gpu$g/gi$gi/ci$ci/access $(cap_of $g $gi $ci)"; done
        done
    done
} > "$P/driver/nvidia-caps/mig-minors"

# A container given MIG device GI 9 / CI 0 of the H100, as the device plugin
# passes it: the GPU node, the GI and CI access nodes.
MIGC=$(printf 'm%063d' 1)
CAP_CI=$(cap_of 0 9 0) CAP_GI=$(gi_cap 0 9)
cri_bundle "$MIGC" infer infer-mig-0 serve "$(devnode /dev/nvidia0 195 0),$(devnode \
    "/dev/nvidia-caps/nvidia-cap$CAP_GI" 236 "$CAP_GI"),$(devnode "/dev/nvidia-caps/nvidia-cap$CAP_CI" 236 "$CAP_CI")"

{
    echo "nvmlLibrary $FAKE_NVML"
    echo "nvidiaSmi $WORK/no-nvidia-smi"
    echo "pollInterval gpu 1"
} > "$WORK/agent.conf"
start_snmpd
start_agent --sysfs "$S" --procfs "$P" --devfs "$D" --rootfs "$R" --http "127.0.0.1:$HTTP_PORT"
wait_agent

MIG="$OBJ.5.13.1"
cell() { snmp_value "$MIG.$1.$2"; }          # COLUMN INDEX
absent() { [ "$(cell "$1" "$2")" = "No Such Instance currently exists at this OID" ]; }
want() {  # COLUMN INDEX EXPECTED WHAT
    local got; got=$(cell "$1" "$2")
    [ "$got" = "$3" ] || fail "$4: SNMP says '$got', expected '$3'"
}
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $MIG.12.$I_H100.2.0)\" = 4550 ]" ||
    fail "primusGpuMigSmActive of H100 GI 2 is '$(cell 12 "$I_H100.2.0")', expected 4550"

# ---- every row against the captures -----------------------------------------------------------
# The MIG table's rows: GPU GI CI DEV used total SM (the first line of each row).
awk '/MIG devices:/ { t = 1 } /Processes:/ { t = 0 }
     t && $1 == "|" && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
         gsub(/MiB/, ""); print $2, $3, $4, $5, $7, $9, $11 }' "$TABLE" > "$WORK/rows"
snmp_walk "$MIG.6" > "$WORK/walk"
for gpu in 0 1; do
    idx=$([ $gpu = 0 ] && echo $I_H100 || echo $I_A100)
    listed=$(awk -v g=$gpu '$1 == g' "$WORK/rows" | wc -l)
    served=$(grep -c "^$MIG.6.$idx\." "$WORK/walk")
    [ "$listed" = "$served" ] || fail "GPU $gpu: $served MIG rows served, the capture lists $listed"
done
rows=0
while read -r gpu gi ci dev used total sm; do
    [ "$gpu" -le 1 ] || continue
    idx=$([ "$gpu" = 0 ] && echo $I_H100 || echo $I_A100)
    i="$idx.$gi.$ci"
    want 5 "$i" $((total * 1048576)) "GPU $gpu GI $gi memory total (${total} MiB)"
    want 6 "$i" $((used * 1048576)) "GPU $gpu GI $gi memory used (${used} MiB)"
    want 7 "$i" "$sm" "GPU $gpu GI $gi SM count"
    want 8 "$i" "/dev/nvidia-caps/nvidia-cap$(cap_of "$gpu" "$gi" "$ci")" "GPU $gpu GI $gi CI $ci cap node"
    if [ "$gpu" = 0 ]; then
        # nvidia-smi -L: "  MIG <profile>     Device  <dev>: (UUID: <uuid>)"
        # (the capture has CRLF line ends)
        line=$(tr -d '\r' < "$LIST" | awk -v d="$dev:" '$1 == "MIG" && $3 == "Device" && $4 == d')
        profile=$(echo "$line" | awk '{ print $2 }')
        uuid=$(echo "$line" | sed 's/.*(UUID: \(.*\))/\1/')
        [ -n "$profile" ] || fail "nvidia-smi -L lists no MIG device $dev"
        want 4 "$i" "$profile" "H100 MIG device $dev profile"
        want 3 "$i" "$uuid" "H100 MIG device $dev UUID"
    else
        absent 4 "$i" || fail "A100 GI $gi has a profile no capture gives: $(cell 4 "$i")"
        absent 3 "$i" || fail "A100 GI $gi has a UUID no capture gives: $(cell 3 "$i")"
    fi
    rows=$((rows + 1))
done < "$WORK/rows"
[ "$rows" = 8 ] || fail "checked $rows rows, expected 8 (4 per GPU)"
ok "8 MIG rows: memory, SM count, cap node as captured; H100 profiles and UUIDs as nvidia-smi -L"

# ---- the holder, activity ---------------------------------------------------------------------
want 9 "$I_H100.9.0" "$MIGC" "holder of H100 GI 9 CI 0"
want 10 "$I_H100.9.0" infer-mig-0 "holder pod"
want 11 "$I_H100.9.0" serve "holder namespace"
want 9 "$I_H100.10.0" "" "holder of H100 GI 10 (no container given its node)"
want 9 "$I_A100.9.0" "" "holder of A100 GI 9 (another GPU's cap node)"
want 13 "$I_H100.2.0" 1225 "H100 GI 2 tensor active"
absent 12 "$I_H100.3.0" || fail "H100 GI 3 has SM activity the library does not offer"
absent 12 "$I_A100.2.0" || fail "the A100 (no GPM) has SM activity"
ok "holder by the CI access node (infer-mig-0/serve); GPM per GPU instance where offered"

# ---- the bridge agrees -------------------------------------------------------------------------
m="$WORK/metrics"
curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$m" || fail "no /metrics from the bridge"
series() {  # FAMILY PCI GI: the sample's value
    awk -v f="$1{" -v p="pci_bus_id=\"$2\"" -v g="gpu_instance=\"$3\"" \
        'index($0, f) == 1 && index($0, p) && index($0, g) && index($0, "compute_instance=\"0\"") { print $2; exit }' "$m"
}
while read -r gpu gi ci dev used total sm; do
    [ "$gpu" -le 1 ] || continue
    idx=$([ "$gpu" = 0 ] && echo $I_H100 || echo $I_A100)
    pci=$([ "$gpu" = 0 ] && echo $PCI_H100 || echo $PCI_A100)
    i="$idx.$gi.$ci"
    [ "$(series primus_gpu_mig_memory_total_bytes "$pci" "$gi")" = "$(cell 5 "$i")" ] ||
        fail "primus_gpu_mig_memory_total_bytes of $pci GI $gi differs from SNMP $(cell 5 "$i")"
    [ "$(series primus_gpu_mig_memory_used_bytes "$pci" "$gi")" = "$(cell 6 "$i")" ] ||
        fail "primus_gpu_mig_memory_used_bytes of $pci GI $gi differs from SNMP $(cell 6 "$i")"
    [ "$(series primus_gpu_mig_multiprocessors "$pci" "$gi")" = "$(cell 7 "$i")" ] ||
        fail "primus_gpu_mig_multiprocessors of $pci GI $gi differs from SNMP $(cell 7 "$i")"
    info=$(grep "^primus_gpu_mig_info{" "$m" | grep -F "pci_bus_id=\"$pci\"" | grep -F "gpu_instance=\"$gi\",")
    [ "$(echo "$info" | grep -c .)" = 1 ] || fail "not one primus_gpu_mig_info for $pci GI $gi: $info"
    for c in 3:mig_uuid 4:profile 8:cap_device 9:container_id 10:pod 11:namespace; do
        v=$(cell "${c%%:*}" "$i")
        case "$v" in "No Such Instance"*) v="" ;; esac
        if [ -n "$v" ]; then
            echo "$info" | grep -qF "${c#*:}=\"$v\"" || fail "primus_gpu_mig_info of $pci GI $gi: ${c#*:} is not '$v': $info"
        else
            ! echo "$info" | grep -qE "[{,]${c#*:}=\"[^\"]" || fail "primus_gpu_mig_info of $pci GI $gi has a ${c#*:}, SNMP none: $info"
        fi
    done
done < "$WORK/rows"
[ "$(series primus_gpu_mig_sm_active_ratio $PCI_H100 2)" = 0.455 ] || fail "primus_gpu_mig_sm_active_ratio is not 0.455"
[ "$(series primus_gpu_mig_tensor_active_ratio $PCI_H100 2)" = 0.1225 ] || fail "primus_gpu_mig_tensor_active_ratio is not 0.1225"
[ "$(grep -c '^primus_gpu_mig_sm_active_ratio{' "$m")" = 1 ] || fail "SM activity served for instances without it"
promtool check metrics < "$m" > "$WORK/promtool.out" 2>&1 ||
    fail "promtool check metrics: $(head -5 "$WORK/promtool.out")"
ok "/metrics agrees on every MIG column (families and primus_gpu_mig_info labels); promtool clean"
