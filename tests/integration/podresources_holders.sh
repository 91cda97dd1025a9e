#!/bin/bash
# Who holds which GPU, MIG device and RDMA device, as the kubelet's
# pod-resources API says, end to end: a real gRPC server
# (podresources_server.py, python3-grpcio) on a unix socket under the agent's
# rootfs, the agent as AgentX subagent of a real snmpd, and its bridge.
#
# The node: three GPUs from the test NVML (the recorded H100, A100 and T4
# files; the H100 in MIG mode with the recorded DGX H100 instances of its
# GPU 0 and their `nvidia-smi -L` UUIDs), two SR-IOV VFs whose sysfs
# directories name RDMA devices, and containerd bundles: "trainer" of ml/llm-0
# (its GPU named only by NVIDIA_VISIBLE_DEVICES, as the legacy NVIDIA runtime
# injects it) and "shell" of tools/dbg-0 (a CDI device from the real
# nvidia-ctk spec, and NVIDIA_VISIBLE_DEVICES naming the A100).
#
# The pod-resources answers are written here, not recorded: no capture of a
# kubelet's answer with GPU, MIG or SR-IOV resources exists (see
# tests/fixtures/podresources/SOURCES.md).  Made up too: the driver's procfs
# minor numbers (the recorded files come from three machines and two say 0),
# and the VFs' sysfs directories (in the kernel's layout).
#
# Checked, through snmpd and /metrics, for every case: each row of
# primusPodResourceTable against what the server said (GPU index by UUID, MIG
# instance by MIG UUID, RDMA device by PCI address, unknown resources as plain
# rows); the holder columns of primusGpuTable and primusGpuMigTable (the
# kubelet's assignments first, also for containers without a runtime bundle,
# then the other containers, each once); primusK8sGpuAllocatable and its
# source; the container device table's source column; the bridge's series
# agree with SNMP.  Then the server hangs, fails, answers garbage and goes
# away: the last rows stay, with the poller's error; without
# GetAllocatableResources the count falls back to device nodes, said so; a
# 500-pod answer is served whole.
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
. "$(dirname "$0")/podres_lib.sh"
need_podres
need_fake_nvml

podres_three_gpus
# nvidia-smi -L: MIG device 2 and 3 of GPU 0 (CRLF line ends), and their GPU
# and compute instances from the table's row "| GPU GI CI DEV |".
mig_uuid() { tr -d '\r' < "$LIST" | awk -v d="$1:" '$1 == "MIG" && $3 == "Device" && $4 == d' |
             sed 's/.*(UUID: \(.*\))/\1/'; }
MIG2=$(mig_uuid 2) MIG3=$(mig_uuid 3) GICI2=$(mig_gici 2) GICI3=$(mig_gici 3)
[ -n "$MIG2" ] && [ -n "$MIG3" ] && [ -n "$GICI2" ] && [ -n "$GICI3" ] ||
    fail "MIG devices 2 and 3 not found in the captures ($MIG2 $GICI2 / $MIG3 $GICI3)"

S="$WORK/sys" P="$WORK/proc" D="$WORK/dev" R="$WORK/root"
mkdir -p "$S" "$D" "$R/etc/cdi"
cp -R "$PNA_FIXTURES/ib-sysfs/procfs/sys/." "$S/"
rdma_trainer_task "$R" "$S" "$P" "$D"        # ml/llm-0 "trainer": ID, TASKS, CG
# The legacy NVIDIA runtime's way: the GPU only in the environment.
sed -i "s|\"process\":{\"args\"|\"process\":{\"env\":[\"PATH=/usr/bin\",\"NVIDIA_VISIBLE_DEVICES=$U_T4\"],\"args\"|" \
    "$TASKS/k8s.io/$ID/config.json"
grep -q NVIDIA_VISIBLE_DEVICES "$TASKS/k8s.io/$ID/config.json" || fail "trainer spec not edited"
SHELL_ID=$(printf 'e%063d' 7)
mkdir -p "$TASKS/k8s.io/$SHELL_ID"
cat > "$TASKS/k8s.io/$SHELL_ID/config.json" <<JSON
{"ociVersion":"1.1.0","process":{"env":["NVIDIA_VISIBLE_DEVICES=$U_A100"],"args":["sh"],"cwd":"/"},
 "annotations":{"io.kubernetes.cri.container-type":"container",
   "io.kubernetes.cri.container-name":"shell","io.kubernetes.cri.sandbox-name":"dbg-0",
   "io.kubernetes.cri.sandbox-namespace":"tools","io.kubernetes.cri.sandbox-uid":"uid-dbg-0",
   "cdi.k8s.io/debug":"nvidia.com/gpu=0"},
 "linux":{"cgroupsPath":"/k8s.io/$SHELL_ID"}}
JSON
cp "$PNA_FIXTURES/cdi/nvidia-ctk-1.17.8-driver-575.64.03-1gpu.yaml" "$R/etc/cdi/nvidia.yaml"
# The driver's procfs GPU files (minors made up: H100 0, A100 1, T4 2) and
# a device node per GPU (plain files: counted, never opened).
minor=0
for g in "$PCI_H100 $U_H100" "$PCI_A100 $U_A100" "$PCI_T4 $U_T4"; do
    set -- $g
    mkdir -p "$P/driver/nvidia/gpus/$1"
    printf 'Model: \t\t NVIDIA\nIRQ:   \t\t 42\nGPU UUID: \t %s\nDevice Minor: \t %d\n' "$2" "$minor" \
        > "$P/driver/nvidia/gpus/$1/information"
    : > "$D/nvidia$minor"
    minor=$((minor + 1))
done
# Two SR-IOV VFs of a ConnectX, as sysfs lays them out; the first one's RDMA
# device (a RoCE function with one port) is read by the ib poller too.
mkdir -p "$S/bus/pci/devices/0000:3b:00.2/infiniband/mlx5_2" "$S/bus/pci/devices/0000:3b:00.3/infiniband/mlx5_3"
VF="$S/class/infiniband/mlx5_2"
mkdir -p "$VF/ports/1"
echo "1: CA" > "$VF/node_type"
echo "MT4126" > "$VF/hca_type"
echo "4: ACTIVE" > "$VF/ports/1/state"
echo "5: LinkUp" > "$VF/ports/1/phys_state"
echo "200 Gb/sec (4X HDR)" > "$VF/ports/1/rate"
echo "Ethernet" > "$VF/ports/1/link_layer"

# ---- what the kubelet says ----------------------------------------------------------------
dev() {  # RESOURCE ID [NUMA]: one ContainerDevices entry
    local topo=""
    [ -n "${3:-}" ] && topo=',"topology":{"nodes":[{"ID":"'"$3"'"}]}'
    printf '{"resourceName":"%s","deviceIds":["%s"]%s}' "$1" "$2" "$topo"
}
pod() { printf '{"name":"%s","namespace":"%s","containers":[{"name":"%s","devices":[%s]}]}' "$@"; }
cat > "$WORK/scenario.json" <<JSON
{"list": {"podResources": [
  $(pod llm-0 ml trainer "$(dev nvidia.com/gpu "$U_T4" 0),$(dev intel.com/sriov_netdevice 0000:3b:00.2 1),$(dev example.com/fpga fpga-0)"),
  $(pod mig-nb research jupyter "$(dev nvidia.com/mig-1g.10gb "$MIG2" 0)"),
  $(pod infer-0 serve server "$(dev nvidia.com/gpu "$U_A100::0" 1)"),
  $(pod infer-1 serve server "$(dev nvidia.com/gpu "$U_A100::1" 1)"),
  {"name":"coredns-5d78c9869d-abcde","namespace":"kube-system","containers":[{"name":"coredns"}]}]},
 "allocatable": {"devices": [
  $(dev nvidia.com/gpu "$U_T4" 0), $(dev nvidia.com/gpu "$U_A100::0" 1), $(dev nvidia.com/gpu "$U_A100::1" 1),
  $(dev nvidia.com/gpu "$U_A100::2" 1), $(dev nvidia.com/gpu "$U_A100::3" 1),
  $(dev nvidia.com/mig-1g.10gb "$MIG2" 0), $(dev nvidia.com/mig-1g.10gb "$MIG3" 0),
  $(dev intel.com/sriov_netdevice 0000:3b:00.2 1), $(dev intel.com/sriov_netdevice 0000:3b:00.3 1)]}}
JSON
python3 -m json.tool "$WORK/scenario.json" > /dev/null || fail "scenario is not JSON"
# The rows it stands for: namespace|pod|container|resource|id|NUMA|allocatable
# (1 true, 2 false)|kind (1 gpu 2 mig 3 rdma 4 other)|GPU index|GI|CI|RDMA device|port.
cat > "$WORK/want-rows" <<ROWS
ml|llm-0|trainer|nvidia.com/gpu|$U_T4|0|1|1|$I_T4|-|-||-
ml|llm-0|trainer|intel.com/sriov_netdevice|0000:3b:00.2|1|1|3|0|-|-|mlx5_2|1
ml|llm-0|trainer|example.com/fpga|fpga-0|-1|2|4|0|-|-||-
research|mig-nb|jupyter|nvidia.com/mig-1g.10gb|$MIG2|0|1|2|$I_H100|$GICI2||-
serve|infer-0|server|nvidia.com/gpu|$U_A100::0|1|1|1|$I_A100|-|-||-
serve|infer-1|server|nvidia.com/gpu|$U_A100::1|1|1|1|$I_A100|-|-||-
|||nvidia.com/gpu|$U_A100::2|1|1|1|$I_A100|-|-||-
|||nvidia.com/gpu|$U_A100::3|1|1|1|$I_A100|-|-||-
|||nvidia.com/mig-1g.10gb|$MIG3|0|1|2|$I_H100|$GICI3||-
|||intel.com/sriov_netdevice|0000:3b:00.3|1|1|3|0|-|-|mlx5_3|-
ROWS
sort -o "$WORK/want-rows" "$WORK/want-rows"

# ---- the agent ------------------------------------------------------------------------------
# A kubelet stand-in serves the recorded pods (primusK8sGpuAllocated and the
# node name come from there).
kubelet_recorded "$WORK/kubelet"
start_kubelet "$WORK/kubelet"
kport=$KPORT

PODRES_SOCK="$R/var/lib/kubelet/pod-resources/kubelet.sock"
PODRES_CONTROL="$WORK/podres-control"
mkdir -p "$(dirname "$PODRES_SOCK")"
{
    echo "nvmlLibrary $FAKE_NVML"
    echo "nvidiaSmi $WORK/no-nvidia-smi"
    echo "kubeletUrl http://127.0.0.1:$kport"
    echo "kubeletTokenFile $WORK/no-token"
    echo "pollInterval gpu 1"
    echo "pollInterval containers 1"
    echo "pollInterval podresources 1"
    echo "pollInterval kubelet 1"
    echo "pollInterval storage 1"
} > "$WORK/agent.conf"
start_snmpd
start_agent --sysfs "$S" --procfs "$P" --devfs "$D" --rootfs "$R" --http "127.0.0.1:$HTTP_PORT"
wait_agent

POLLER="$OBJ.4.10.1" P_PODRES=8
GPU_ENTRY="$OBJ.5.10.1" MIG_ENTRY="$OBJ.5.13.1" PR_ENTRY="$K8S.10.1"
status_of() { snmp_value "$POLLER.9.$P_PODRES"; }   # 1 ok 2 failing 3 timedOut 4 disabled
error_of() { snmp_value "$POLLER.7.$P_PODRES"; }

# No socket yet: the poller is disabled and says why; allocatable GPUs are
# counted from device nodes, said so.
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $POLLER.9.$P_PODRES)\" = 4 ]" ||
    fail "podresources poller '$(status_of)' without a socket, want disabled(4)"
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $K8S.2.0)\" = 3 ]" ||
    fail "primusK8sGpuAllocatable '$(snmp_value $K8S.2.0)' without pod-resources, want 3 device nodes"
[ "$(snmp_value $K8S.6.0)" = 2 ] || fail "allocatable source '$(snmp_value $K8S.6.0)', want deviceNodes(2)"
ok "no socket: poller disabled ($(error_of)), 3 allocatable GPUs from device nodes, source deviceNodes(2)"

start_podres_server "$WORK/scenario.json"

# ---- readers: SNMP and the bridge, each row as namespace|pod|...|RDMA device ----------------------
snmp_rows() {
    snmp_walk "$PR_ENTRY" > "$WORK/pr-walk" || return 1
    python3 - "$PR_ENTRY" "$WORK/pr-walk" <<'PY'
import sys
prefix, path = sys.argv[1], sys.argv[2]
rows = {}
for line in open(path):
    oid, _, val = line.rstrip("\n").partition(" ")
    if not oid.startswith(prefix + "."):
        continue
    col, idx = oid[len(prefix) + 1:].split(".", 1)
    val = val.strip()
    if val.startswith('"') and val.endswith('"'):
        val = val[1:-1]
    rows.setdefault(idx, {})[int(col)] = val
for cells in rows.values():
    # namespace pod container resource id NUMA allocatable kind GPU GI CI RDMA port
    print("|".join(cells.get(c, "-") for c in (4, 5, 6, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14)))
PY
}
metric_rows() {
    curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics" || return 1
    python3 - "$WORK/metrics" "$I_H100:$PCI_H100" "$I_A100:$PCI_A100" "$I_T4:$PCI_T4" <<'PY'
import re, sys
index_of = {p.split(":", 1)[1]: p.split(":", 1)[0] for p in sys.argv[2:]}
kinds = {"gpu": "1", "mig": "2", "rdma": "3", "other": "4"}
label = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
alloc, info = {}, {}
for line in open(sys.argv[1]):
    for fam, into in (("primus_pod_resource_info{", info), ("primus_pod_resource_allocatable{", alloc)):
        if line.startswith(fam):
            labels = dict(label.findall(line[len(fam):line.rindex("}")]))
            into[labels["pod_resource_index"]] = (labels, line.rsplit(None, 1)[1])
for idx, (l, _) in info.items():
    a = alloc.get(idx, ({}, "?"))[1]
    print("|".join([l["namespace"], l["pod"], l["container"], l["resource"], l["device_id"],
                    l["numa_node"], "1" if a == "1" else "2", kinds.get(l["kind"], l["kind"]),
                    index_of.get(l["gpu_pci_bus_id"], "0"), l.get("mig_gpu_instance") or "-",
                    l.get("mig_compute_instance") or "-", l["rdma_device"], l.get("rdma_port") or "-"]))
PY
}
rows_are() {  # FILE-WITH-WANTED-ROWS: both front ends serve exactly these rows
    snmp_rows | sort > "$WORK/snmp-rows" && cmp -s "$1" "$WORK/snmp-rows" &&
        metric_rows | sort > "$WORK/metric-rows" && cmp -s "$1" "$WORK/metric-rows"
}
wait_until 20 rows_are "$WORK/want-rows" ||
    fail "pod-resource rows differ from the scenario: $(diff "$WORK/want-rows" "$WORK/snmp-rows"; \
          echo '-- bridge:'; diff "$WORK/want-rows" "$WORK/metric-rows"); poller $(status_of): $(error_of)"
[ "$(status_of)" = 1 ] || fail "podresources poller '$(status_of)': $(error_of)"
ok "primusPodResourceTable and primus_pod_resource_info: the 10 rows the server said, GPUs, MIG, VFs (mlx5_2 port 1), unknown resource"

# snmptable renders it with the MIB (where the IETF base MIBs exist): the
# table as an operator sees it, one line per row.
if [ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] && command -v snmptable >/dev/null; then
    MIBDIRS="+$PNA_IETF_MIBDIR:$PNA_MIBDIR" MIBS="+PRIMUS-NODE-MIB" \
        snmptable $V2 -Cb -Cw 150 "$TARGET" PRIMUS-NODE-MIB::primusPodResourceTable > "$WORK/snmptable" 2>&1
    cat "$WORK/snmptable"
    grep -q ' Name .* DeviceId ' "$WORK/snmptable" || fail "snmptable printed no header: $(head -3 "$WORK/snmptable")"
    [ "$(grep -c ' nvidia.com/\| intel.com/\| example.com/' "$WORK/snmptable")" -ge 10 ] ||
        fail "snmptable shows fewer than 10 rows: $(cat "$WORK/snmptable")"
    ok "snmptable primusPodResourceTable renders the 10 rows"
fi

# ---- holders ------------------------------------------------------------------------------------
gpu() { snmp_value "$GPU_ENTRY.$1.$2"; }
holder_is() {  # GPU-INDEX CONTAINER-ID POD NAMESPACE COUNT
    [ "$(gpu 48 "$1")" = "$2" ] && [ "$(gpu 49 "$1")" = "$3" ] && [ "$(gpu 50 "$1")" = "$4" ] &&
        [ "$(gpu 56 "$1")" = "$5" ]
}
holder_said() { echo "'$(gpu 48 "$1")' '$(gpu 49 "$1")' '$(gpu 50 "$1")' count $(gpu 56 "$1")"; }
# T4: the kubelet gave it to trainer, whose bundle names it only in its
# environment: one holder, with its container id.
wait_until 15 holder_is "$I_T4" "$ID" llm-0 ml 1 || fail "T4 holder $(holder_said "$I_T4")"
# A100: two time-sliced shares to serve/infer-0 and infer-1 (no bundle on this
# node), then tools/dbg-0's shell by NVIDIA_VISIBLE_DEVICES: three holders,
# the kubelet's first.
holder_is "$I_A100" "" infer-0 serve 3 || fail "A100 holder $(holder_said "$I_A100")"
# H100: a MIG device to research/mig-nb, then the shell's CDI device
# (nvidia.com/gpu=0 is /dev/nvidia0).
holder_is "$I_H100" "" mig-nb research 2 || fail "H100 holder $(holder_said "$I_H100")"
GI2=${GICI2%|*} CI2=${GICI2#*|} GI3=${GICI3%|*} CI3=${GICI3#*|}
mig() { snmp_value "$MIG_ENTRY.$1.$I_H100.$2"; }
[ "$(mig 10 "$GI2.$CI2")" = mig-nb ] && [ "$(mig 11 "$GI2.$CI2")" = research ] &&
    [ "$(mig 9 "$GI2.$CI2")" = "" ] || fail "MIG $GI2/$CI2 holder '$(mig 9 "$GI2.$CI2")' '$(mig 10 "$GI2.$CI2")' '$(mig 11 "$GI2.$CI2")'"
[ "$(mig 10 "$GI3.$CI3")" = "" ] || fail "MIG $GI3/$CI3 (allocatable, unassigned) has holder pod '$(mig 10 "$GI3.$CI3")'"
ok "holders: T4 trainer ($ID, by the kubelet), A100 infer-0 of 3, H100 mig-nb of 2; MIG $GI2/$CI2 mig-nb"

# The bridge: a holder series per holder, with the kubelet's names.
holder_series() {  # PCI: "namespace/pod/container" of each primus_gpu_holder_info series, sorted
    awk -v p="pci_bus_id=\"$1\"" 'index($0, "primus_gpu_holder_info{") == 1 && index($0, p)' "$WORK/metrics" |
        sed 's/.*container="\([^"]*\)",pod="\([^"]*\)",namespace="\([^"]*\)".*/\3\/\2\/\1/' | sort | tr '\n' ' '
}
[ "$(holder_series "$PCI_T4")" = "ml/llm-0/trainer " ] || fail "T4 holder series: $(holder_series "$PCI_T4")"
[ "$(holder_series "$PCI_A100")" = "serve/infer-0/server serve/infer-1/server tools/dbg-0/shell " ] ||
    fail "A100 holder series: $(holder_series "$PCI_A100")"
[ "$(holder_series "$PCI_H100")" = "research/mig-nb/jupyter tools/dbg-0/shell " ] ||
    fail "H100 holder series: $(holder_series "$PCI_H100")"
grep -q "^primus_gpu_holders{.*pci_bus_id=\"$PCI_A100\".*} 3\$" "$WORK/metrics" ||
    fail "primus_gpu_holders of the A100: $(grep '^primus_gpu_holders{' "$WORK/metrics")"
ok "bridge: primus_gpu_holder_info per holder (kubelet and runtime), primus_gpu_holders 3 on the A100"

# ---- the container devices, each with its source ------------------------------------------------------
# A GET that timed out (the sanitizer pass runs two suites' worth of load) is
# asked again once: a timeout is no answer, not a wrong one.
answer() {
    local v; v=$(snmp_value "$1")
    case "$v" in Timeout*) v=$(snmp_value "$1") ;; esac
    echo "$v"
}
devsrc() { answer "$DEV_ENTRY.7.$(str_index "$1").$(str_index "$2")"; }   # specDevice(1) ... nvidiaRuntimeEnv(6)
devgpu() { answer "$DEV_ENTRY.5.$(str_index "$1").$(str_index "$2")"; }
[ "$(devsrc "$SHELL_ID" /dev/nvidia0)" = 5 ] || fail "shell's /dev/nvidia0 source '$(devsrc "$SHELL_ID" /dev/nvidia0)', want cdi(5)"
[ "$(devgpu "$SHELL_ID" /dev/nvidia0)" = "$I_H100" ] || fail "shell's /dev/nvidia0 GPU '$(devgpu "$SHELL_ID" /dev/nvidia0)'"
[ "$(devsrc "$SHELL_ID" /dev/nvidiactl)" = 5 ] || fail "shell's /dev/nvidiactl (the spec's common node) source '$(devsrc "$SHELL_ID" /dev/nvidiactl)'"
[ "$(devsrc "$SHELL_ID" /dev/nvidia1)" = 6 ] || fail "shell's /dev/nvidia1 source '$(devsrc "$SHELL_ID" /dev/nvidia1)', want nvidiaRuntimeEnv(6)"
[ "$(devgpu "$SHELL_ID" /dev/nvidia1)" = "$I_A100" ] || fail "shell's /dev/nvidia1 GPU '$(devgpu "$SHELL_ID" /dev/nvidia1)'"
[ "$(devgpu "$ID" /dev/nvidia2)" = "$I_T4" ] || fail "trainer's /dev/nvidia2 GPU '$(devgpu "$ID" /dev/nvidia2)'"
# The kubelet gave trainer the T4 that its environment names too: one row,
# and pod-resources wins.  The device rows are the containers poller's, which
# takes the pod-resources snapshot as its input: a containers poll that ran
# before the first pod-resources answer still says nvidiaRuntimeEnv(6) until
# its next poll (every second here).
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $DEV_ENTRY.7.$(str_index "$ID").$(str_index /dev/nvidia2))\" = 4 ]" ||
    fail "trainer's /dev/nvidia2 source '$(devsrc "$ID" /dev/nvidia2)', want podResources(4)"
[ "$(devsrc "$ID" /dev/infiniband/uverbs0)" = 1 ] || fail "trainer's uverbs0 source '$(devsrc "$ID" /dev/infiniband/uverbs0)', want specDevice(1)"
grep -q "^primus_container_device_info{container_id=\"$SHELL_ID\",.*path=\"/dev/nvidia0\",.*source=\"cdi\"} 1\$" "$WORK/metrics" ||
    fail "no cdi source on the bridge: $(grep "^primus_container_device_info{container_id=\"$SHELL_ID\"" "$WORK/metrics")"
# The environment is read for NVIDIA_VISIBLE_DEVICES alone and never shown.
snmp_walk "$OBJ" > "$WORK/walk-all"
curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/pods" > "$WORK/pods.json"
for f in "$WORK/walk-all" "$WORK/metrics" "$WORK/pods.json"; do
    grep -F -e NVIDIA_VISIBLE_DEVICES -e PATH=/usr/bin "$f" && fail "the environment reached $(basename "$f")"
done
ok "container devices: CDI (/dev/nvidia0, nvidiactl) cdi(5), NVIDIA_VISIBLE_DEVICES nvidiaRuntimeEnv(6), trainer's T4 (env and kubelet) podResources(4)"

# ---- allocatable ---------------------------------------------------------------------------------
# The kubelet's count: 1 T4 + 4 A100 shares + 2 MIG devices.
alloc_is() { [ "$(snmp_value $K8S.2.0)" = "$1" ] && [ "$(snmp_value $K8S.6.0)" = "$2" ]; }
wait_until 15 alloc_is 7 1 || fail "allocatable '$(snmp_value $K8S.2.0)' source '$(snmp_value $K8S.6.0)', want 7 podResources(1)"
grep -q '^primus_k8s_gpus_allocatable 7$' "$WORK/metrics" || fail "bridge allocatable: $(grep '^primus_k8s_gpus_allocatable' "$WORK/metrics")"
grep -q '^primus_k8s_gpus_allocatable_source{source="podResources"} 1$' "$WORK/metrics" ||
    fail "bridge allocatable source: $(grep '^primus_k8s_gpus_allocatable_source' "$WORK/metrics")"
ok "primusK8sGpuAllocatable 7 from GetAllocatableResources, source podResources(1), the bridge agrees"

# ---- faults: the last good rows stay, with the poller's error ----------------------------------------
fault() {  # CONTROL-WORDS STATUS ERROR-PATTERN WHAT
    podres_control "$1"
    # The error column keeps the last error after a recovery: wait for both.
    wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $POLLER.9.$P_PODRES)\" = $2 ] &&
        snmpget $V2 -On -Oqv $TARGET $POLLER.7.$P_PODRES | grep -q -- \"$3\"" ||
        fail "$4: poller status '$(status_of)' error '$(error_of)', want $2 and /$3/"
    rows_are "$WORK/want-rows" || fail "$4: rows changed: $(diff "$WORK/want-rows" "$WORK/snmp-rows")"
    holder_is "$I_T4" "$ID" llm-0 ml 1 || fail "$4: T4 holder $(holder_said "$I_T4")"
    alloc_is 7 1 || fail "$4: allocatable $(snmp_value $K8S.2.0) source $(snmp_value $K8S.6.0)"
    ok "$4: status $2, '$(error_of)'; the 10 rows, holders and count kept"
}
fault hang 2 "timed out" "server hangs"
fault "error 14 kubelet is restarting" 2 "UNAVAILABLE" "error status"
fault garbage 2 "malformed" "garbage answer"
podres_control ok
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $POLLER.9.$P_PODRES)\" = 1 ]" ||
    fail "poller '$(status_of)' after the server recovered: $(error_of)"

# A kubelet without GetAllocatableResources (before 1.23): rows from List,
# none allocatable, the count from device nodes again.
podres_control no-allocatable
sed 's/^\(\([^|]*|\)\{6\}\)1|/\12|/' "$WORK/want-rows" | grep -v '^|||' | sort > "$WORK/want-noalloc"
wait_until 15 rows_are "$WORK/want-noalloc" ||
    fail "rows without GetAllocatableResources: $(diff "$WORK/want-noalloc" "$WORK/snmp-rows")"
alloc_is 3 2 || fail "no GetAllocatableResources: allocatable $(snmp_value $K8S.2.0) source $(snmp_value $K8S.6.0), want 3 deviceNodes(2)"
holder_is "$I_A100" "" infer-0 serve 3 || fail "no GetAllocatableResources: A100 holder $(holder_said "$I_A100")"
ok "no GetAllocatableResources: 6 assigned rows, none allocatable; 3 GPUs from device nodes, source deviceNodes(2)"
podres_control ok
wait_until 15 alloc_is 7 1 || fail "allocatable did not come back: $(snmp_value $K8S.2.0)"

# 500 pods: every assignment served (500 GPUs, 50 VFs), allocatable 500.
"$PODRES_PY" "$PODRES_SERVER" --pods 500 > "$WORK/scenario-500.json" || fail "cannot generate 500 pods"
cp "$WORK/scenario.json" "$WORK/scenario-small.json"
cp "$WORK/scenario-500.json" "$WORK/scenario.json"
count_is() { [ "$(snmp_rows | wc -l)" = "$1" ] && [ "$(metric_rows | wc -l)" = "$1" ]; }
wait_until 30 count_is 550 || fail "500 pods: $(wc -l < "$WORK/snmp-rows") SNMP rows, $(metric_rows | wc -l) series; want 550"
alloc_is 500 1 || fail "500 pods: allocatable $(snmp_value $K8S.2.0), want 500"
[ "$(status_of)" = 1 ] || fail "500 pods: poller '$(status_of)': $(error_of)"
ok "500 pods: 550 rows over SNMP and the bridge, allocatable 500"
cp "$WORK/scenario-small.json" "$WORK/scenario.json"
wait_until 20 rows_are "$WORK/want-rows" || fail "back to the small scenario: $(diff "$WORK/want-rows" "$WORK/snmp-rows")"

# The server goes away mid-call, then its socket is stale: failing, rows kept.
fault exit 2 "Connection refused" "server exits"
rm -f "$PODRES_SOCK"
fault ok 2 "No such file" "socket removed"

echo "PASS: $TEST_NAME"
