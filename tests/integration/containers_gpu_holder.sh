#!/bin/bash
# Which container holds which GPU, end to end through a real snmpd: the agent
# reads two GPUs (an RX 6900 XT from the amdgpu sysfs fixture with its
# /dev/dri/by-path links, and an H100 from the test NVML library) and three
# containerd bundles: "trainer" given the AMD card's render and primary nodes
# and /dev/kfd, "cuda" given /dev/nvidia0 with nvidiactl and nvidia-uvm (the
# driver's /proc/driver/nvidia/gpus/<PCI>/information says minor 0), "cuda2"
# sharing /dev/nvidia0 (time-slicing), and "plain" given nothing.  Checked:
#   - primusGpuHolderContainer/Pod/Namespace of each GPU row name its holder
#     (the lowest container id of a shared GPU), primusGpuHolderCount how many;
#   - primusContainerDeviceGpu of each GPU device node is that GPU's
#     primusGpuIndex (shared nodes: 0), and the two tables agree row for row
#     (every GPU a device row points to exists and names that container as
#     holder; every holder has a device row pointing back);
#   - the bridge's primus_gpu_holder_info has a series per holder;
#   - when a holder goes, the next one is named; when the last goes, the GPU
#     row's holder columns empty.
. "$(dirname "$0")/http_lib.sh"   # lib.sh, a free HTTP_PORT, curl
. "$(dirname "$0")/containers_lib.sh"
need_fake_nvml
command -v python3 >/dev/null || skip "python3 not installed (decodes string indexes)"

GPU_ENTRY="$OBJ.5.10.1"
S="$WORK/sys" P="$WORK/proc" D="$WORK/dev" R="$WORK/root"
TASKS="$R/run/containerd/io.containerd.runtime.v2.task"
mkdir -p "$P" "$D/dri/by-path" "$TASKS/k8s.io" "$R/var/lib/kubelet"
fake_procfs "$P"

# The AMD GPU: sysfs from the fixture, renderD128 beside card0 as the kernel
# links it, and the by-path names.
cp -r "$PNA_FIXTURES/amdgpu-sysfs/lact-rx6900xt/sys" "$S"
chmod -R u+w "$S"
mkdir -p "$S/class/drm/renderD128"
ln -s ../card0/device "$S/class/drm/renderD128/device"
AMD_PCI=$(sed -n 's/^PCI_SLOT_NAME=//p' "$S/class/drm/card0/device/uevent")
ln -s ../card0 "$D/dri/by-path/pci-$AMD_PCI-card"
ln -s ../renderD128 "$D/dri/by-path/pci-$AMD_PCI-render"

# The NVIDIA GPU: the H100 of the test NVML; its minor number from the XML,
# in the driver's procfs file.
NV_XML="$PNA_FIXTURES/nvidia/h100-nvidia-smi-q-x.xml"
export PNA_FAKE_NVML_XML="$NV_XML"
export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
: > "$PNA_FAKE_NVML_CTL"
NV_BUS=$(sed -n 's/.*<gpu id="\([^"]*\)".*/\1/p' "$NV_XML" | head -n 1)
NV_MINOR=$(sed -n 's/.*<minor_number>\([0-9]*\)<.*/\1/p' "$NV_XML" | head -n 1)
IFS=':.' read -r dom bus dev fn <<< "$NV_BUS"
NV_PCI=$(printf '%04x:%02x:%02x.%x' $((0x$dom)) $((0x$bus)) $((0x$dev)) $((0x$fn)))
mkdir -p "$P/driver/nvidia/gpus/$NV_PCI"
printf 'Model: \t\t NVIDIA H100\nIRQ:   \t\t 42\nGPU UUID: \t GPU-x\nDevice Minor: \t %s\n' \
    "$NV_MINOR" > "$P/driver/nvidia/gpus/$NV_PCI/information"

# primusGpuIndex: the PCI address as domain<<16 | bus<<8 | device<<3 | function.
pci_index() { local d b v f; IFS=':.' read -r d b v f <<< "$1"; echo $(( (0x$d << 16) | (0x$b << 8) | (0x$v << 3) | 0x$f )); }
AMD_IDX=$(pci_index "$AMD_PCI")
NV_IDX=$(pci_index "$NV_PCI")

TRAINER=$(printf 't%063d' 1) CUDA=$(printf 'c%063d' 2) PLAIN=$(printf 'p%063d' 3)
CUDA2=$(printf 'd%063d' 4)   # sorts after CUDA
cri_bundle "$TRAINER" trainer llm-0 ml \
    "$(devnode /dev/dri/renderD128 226 128),$(devnode /dev/dri/card0 226 0),$(devnode /dev/kfd 235 0)"
cri_bundle "$CUDA" cuda infer-0 serve \
    "$(devnode "/dev/nvidia$NV_MINOR" 195 "$NV_MINOR"),$(devnode /dev/nvidiactl 195 255),$(devnode /dev/nvidia-uvm 511 0)"
cri_bundle "$CUDA2" cuda2 infer-1 serve "$(devnode "/dev/nvidia$NV_MINOR" 195 "$NV_MINOR")"
cri_bundle "$PLAIN" plain web-0 web ""

{
    echo "nvmlLibrary $FAKE_NVML"
    echo "nvidiaSmi $WORK/no-nvidia-smi"
    echo "pollInterval gpu 1"
} > "$WORK/agent.conf"
start_snmpd
start_agent --sysfs "$S" --procfs "$P" --devfs "$D" --rootfs "$R" --http "127.0.0.1:$HTTP_PORT"
wait_agent
gpu() { snmp_value "$GPU_ENTRY.$1.$2"; }
holder_is() { [ "$(gpu 48 "$1")" = "$2" ]; }
wait_until 15 holder_is "$AMD_IDX" "$TRAINER" ||
    fail "GPU $AMD_PCI ($AMD_IDX): holder '$(gpu 48 "$AMD_IDX")', not trainer; GPUs: $(snmp_value $OBJ.5.1.0)"
wait_until 5 holder_is "$NV_IDX" "$CUDA" || fail "GPU $NV_PCI ($NV_IDX): holder '$(gpu 48 "$NV_IDX")', not cuda"
[ "$(gpu 7 "$AMD_IDX")" = "$AMD_PCI" ] || fail "GPU row $AMD_IDX is not $AMD_PCI: $(gpu 7 "$AMD_IDX")"
[ "$(gpu 7 "$NV_IDX")" = "$NV_PCI" ] || fail "GPU row $NV_IDX is not $NV_PCI: $(gpu 7 "$NV_IDX")"
[ "$(gpu 49 "$AMD_IDX")" = llm-0 ] && [ "$(gpu 50 "$AMD_IDX")" = ml ] || fail "AMD holder pod/namespace"
[ "$(gpu 49 "$NV_IDX")" = infer-0 ] && [ "$(gpu 50 "$NV_IDX")" = serve ] || fail "NVIDIA holder pod/namespace"
[ "$(gpu 56 "$AMD_IDX")" = 1 ] || fail "AMD holder count $(gpu 56 "$AMD_IDX"), expected 1"
[ "$(gpu 56 "$NV_IDX")" = 2 ] || fail "NVIDIA holder count $(gpu 56 "$NV_IDX"), expected 2 (cuda, cuda2)"
ok "GPU rows: $AMD_PCI held by trainer (llm-0/ml), $NV_PCI shared by cuda (infer-0/serve, named) and cuda2"

# The bridge: one primus_gpu_holder_info series per holder.
curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics.txt" ||
    fail "no /metrics from the bridge"
for want in "container=\"cuda\",pod=\"infer-0\"" "container=\"cuda2\",pod=\"infer-1\"" \
            "container=\"trainer\",pod=\"llm-0\""; do
    grep '^primus_gpu_holder_info{' "$WORK/metrics.txt" | grep -qF "$want" ||
        fail "no primus_gpu_holder_info series with $want: $(grep holder "$WORK/metrics.txt")"
done
[ "$(grep -c '^primus_gpu_holder_info{' "$WORK/metrics.txt")" = 3 ] ||
    fail "expected 3 holder series: $(grep '^primus_gpu_holder_info' "$WORK/metrics.txt")"
grep -q "^primus_gpu_holders{.*pci_bus_id=\"$NV_PCI\".*} 2\$" "$WORK/metrics.txt" ||
    fail "primus_gpu_holders of $NV_PCI: $(grep '^primus_gpu_holders' "$WORK/metrics.txt")"
ok "bridge: a primus_gpu_holder_info series per holder, primus_gpu_holders 2 for the shared GPU"

devcol() { snmp_value "$DEV_ENTRY.$1.$(str_index "$2").$(str_index "$3")"; }
[ "$(devcol 5 "$TRAINER" /dev/dri/renderD128)" = "$AMD_IDX" ] || fail "renderD128 -> GPU $(devcol 5 "$TRAINER" /dev/dri/renderD128)"
[ "$(devcol 5 "$TRAINER" /dev/dri/card0)" = "$AMD_IDX" ] || fail "card0 -> GPU $(devcol 5 "$TRAINER" /dev/dri/card0)"
[ "$(devcol 5 "$TRAINER" /dev/kfd)" = 0 ] || fail "/dev/kfd is shared, not GPU $(devcol 5 "$TRAINER" /dev/kfd)"
[ "$(devcol 5 "$CUDA" "/dev/nvidia$NV_MINOR")" = "$NV_IDX" ] || fail "nvidia$NV_MINOR -> GPU $(devcol 5 "$CUDA" "/dev/nvidia$NV_MINOR")"
[ "$(devcol 5 "$CUDA" /dev/nvidiactl)" = 0 ] || fail "nvidiactl is shared"
[ "$(devcol 2 "$CUDA" /dev/nvidia-uvm)" = 1 ] || fail "nvidia-uvm is not gpu(1)"
[ "$(snmp_value "$CTR_ENTRY.14.$(str_index "$TRAINER")")" = 1 ] || fail "trainer's GPU count"
[ "$(snmp_value "$CTR_ENTRY.14.$(str_index "$CUDA")")" = 1 ] || fail "cuda's GPU count"
[ "$(snmp_value "$CTR_ENTRY.14.$(str_index "$CUDA2")")" = 1 ] || fail "cuda2's GPU count"
[ "$(snmp_value "$CTR_ENTRY.14.$(str_index "$PLAIN")")" = 0 ] || fail "plain's GPU count"
ok "device rows point at the GPU rows' indexes; shared nodes at 0"

# The two tables agree as wholes: walk both and join.
agree() {
    snmp_walk "$DEV_ENTRY.5" > "$WORK/devgpu.txt"
    snmp_walk "$GPU_ENTRY.48" > "$WORK/holders.txt"
    snmp_walk "$GPU_ENTRY.56" > "$WORK/counts.txt"
    python3 - "$DEV_ENTRY.5" "$GPU_ENTRY.48" "$WORK/devgpu.txt" "$WORK/holders.txt" \
        "$WORK/counts.txt" <<'PY'
import sys
dev_prefix, gpu_prefix, devf, gpuf, countf = sys.argv[1:6]
def strings(subids):
    out, i = [], 0
    while i < len(subids):
        n = subids[i]; out.append("".join(chr(c) for c in subids[i + 1:i + 1 + n])); i += 1 + n
    return out
links = {}                                   # gpu index -> set of container ids
for line in open(devf):
    oid, val = line.split(None, 1)
    sub = [int(x) for x in oid[len(dev_prefix) + 1:].split(".")]
    cid, path = strings(sub)
    if int(val) != 0:
        links.setdefault(int(val), set()).add(cid)
holders = {}
for line in open(gpuf):
    oid, _, val = line.partition(" ")
    holders[int(oid.rsplit(".", 1)[1])] = val.strip().strip('"')
counts = {}
for line in open(countf):
    oid, _, val = line.partition(" ")
    counts[int(oid.rsplit(".", 1)[1])] = int(val)
bad = []
for g, cids in links.items():
    if g not in holders:
        bad.append("device rows point at GPU %d, which has no row" % g)
    elif holders[g] != min(cids):
        bad.append("GPU %d: holder %r is not the lowest of %s" % (g, holders[g], sorted(cids)))
for g in holders:
    if counts.get(g) != len(links.get(g, ())):
        bad.append("GPU %d: holder count %r, %d containers link to it" % (
            g, counts.get(g), len(links.get(g, ()))))
for g, h in holders.items():
    if h and g not in links:
        bad.append("GPU %d names holder %r but no device row points at it" % (g, h))
print("\n".join(bad) if bad else "agree: %d GPU rows, %d linked" % (len(holders), len(links)))
sys.exit(1 if bad else 0)
PY
}
agree || fail "primusGpuTable and primusContainerDeviceTable disagree"
ok "primusGpuTable holders and primusContainerDeviceTable GPU links agree"

# The named holder goes: the other one is named.  Then the last holder goes:
# the GPU row's holder columns empty; the AMD GPU's stays.
rm -rf "${TASKS:?}/k8s.io/$CUDA"
wait_until 10 holder_is "$NV_IDX" "$CUDA2" || fail "GPU $NV_PCI held by '$(gpu 48 "$NV_IDX")' after cuda went"
[ "$(gpu 49 "$NV_IDX")" = infer-1 ] && [ "$(gpu 56 "$NV_IDX")" = 1 ] ||
    fail "after cuda went: pod '$(gpu 49 "$NV_IDX")', count $(gpu 56 "$NV_IDX")"
agree || fail "tables disagree after cuda went"
ok "cuda gone: cuda2 (infer-1) named, holder count 1"
rm -rf "${TASKS:?}/k8s.io/$CUDA2"
wait_until 10 holder_is "$NV_IDX" "" || fail "GPU $NV_PCI still held by '$(gpu 48 "$NV_IDX")' after cuda2 went"
[ "$(gpu 56 "$NV_IDX")" = 0 ] || fail "holder count $(gpu 56 "$NV_IDX") with no holder"
[ "$(gpu 49 "$NV_IDX")" = "" ] && [ "$(gpu 50 "$NV_IDX")" = "" ] || fail "holder pod/namespace left behind"
holder_is "$AMD_IDX" "$TRAINER" || fail "trainer lost its GPU"
agree || fail "tables disagree after cuda2 went"
ok "cuda2 gone: $NV_PCI has no holder, the tables still agree"
echo "PASS: $TEST_NAME"
