#!/bin/bash
# DRA (Dynamic Resource Allocation) devices of the kubelet's pod-resources API,
# end to end: a real gRPC server (podresources_server.py, python3-grpcio)
# answering List with dynamic_resources, the node's CDI spec files under the
# agent's rootfs, the agent as AgentX subagent of a real snmpd, and its bridge.
#
# The node: three GPUs from the test NVML (the recorded H100, A100 and T4
# files; the H100 in MIG mode with the recorded DGX H100 instances of its
# GPU 0 and their `nvidia-smi -L` UUIDs), a RoCE function mlx5_2 behind the
# interface eth1 and an SR-IOV VF 0000:3b:00.3 (mlx5_3) in sysfs, an AMD
# render node in sysfs, and the containerd bundle of ml/llm-0's "trainer".
#
# Built here, not recorded (no capture of either exists; see
# tests/fixtures/dra/SOURCES.md): the pod-resources answer, in the shapes the
# v1 API defines and the drivers fill (NVIDIA's gpu.nvidia.com devices
# "gpu-N" and "gpu-N-mig-...", each with its base spec's CDI device and its
# claim's; AMD's gpu.amd.com with its "common" and claim devices; dranet's
# dra.net named by its interface; an SR-IOV driver's VF by its PCI address),
# the CDI specs (tests/fixtures/dra/, from the drivers' source), the driver's
# procfs minors and mig-minors, the sysfs entries of the NICs and the AMD GPU.
#
# Checked through snmpd, /metrics and /pods for every row: the claim, driver,
# pool, device and CDI device columns, the kind and GPU, MIG and RDMA columns
# as the CDI specs and sysfs resolve them (a GPU by its /dev/nvidiaN, a MIG
# device by its access capability, a shared claim of two pods, an AMD GPU
# the GPU table does not have, NICs by interface and PCI address); the GPU
# and MIG holder columns and the holder series; the trainer's container
# device rows with source draClaim(7) on SNMP and the bridge; the
# allocatable count (DRA devices are not allocatable: 0, from the kubelet).
# Bad input: a claim whose CDI device no spec defines and an unknown
# driver's device are plain rows, the first said in the poller's error; the
# CDI specs removed: every device a plain row, the rows kept, the error said;
# specs back: resolved again.
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
. "$(dirname "$0")/podres_lib.sh"
need_podres
need_fake_nvml

podres_three_gpus
# MIG device 2 of GPU 0: its GPU and compute instance from the table's row.
GICI2=$(mig_gici 2)
[ -n "$GICI2" ] || fail "MIG device 2 not found in the capture"
GI2=${GICI2%|*} CI2=${GICI2#*|}

S="$WORK/sys" P="$WORK/proc" D="$WORK/dev" R="$WORK/root"
mkdir -p "$S" "$D" "$R/etc/cdi" "$R/var/run/cdi"
cp -R "$PNA_FIXTURES/ib-sysfs/procfs/sys/." "$S/"
rdma_trainer_task "$R" "$S" "$P" "$D"        # ml/llm-0 "trainer": ID, TASKS, CG
# The driver's procfs GPU files (minors: H100 0, A100 1, T4 2) and nodes.
minor=0
for g in "$PCI_H100 $U_H100" "$PCI_A100 $U_A100" "$PCI_T4 $U_T4"; do
    set -- $g
    mkdir -p "$P/driver/nvidia/gpus/$1"
    printf 'Model: \t\t NVIDIA\nIRQ:   \t\t 42\nGPU UUID: \t %s\nDevice Minor: \t %d\n' "$2" "$minor" \
        > "$P/driver/nvidia/gpus/$1/information"
    : > "$D/nvidia$minor"
    minor=$((minor + 1))
done
# mig-minors: MIG device 2's GPU instance and compute instance access
# capabilities are 21 and 22, the numbers the base spec's gpu-0-mig-14-0-2
# injects; another instance's around them.
mkdir -p "$P/driver/nvidia-caps"
printf 'config 1\nmonitor 2\ngpu0/gi%s/access 21\ngpu0/gi%s/ci%s/access 22\ngpu0/gi99/access 66\ngpu0/gi99/ci0/access 67\n' \
    "$GI2" "$GI2" "$CI2" > "$P/driver/nvidia-caps/mig-minors"
# The NVIDIA driver's base spec and a claim spec, AMD's claim spec (the
# fixtures), and the claim spec of the shared claim, in the fixture's shape.
for f in k8s.gpu.nvidia.com-device_base.yaml \
         k8s.gpu.nvidia.com-claim_c0ffee00-0000-4000-8000-000000000001.yaml \
         k8s.gpu.amd.com-gpu_c0ffee00-0000-4000-8000-000000000002.yaml; do
    cp "$PNA_FIXTURES/dra/$f" "$R/var/run/cdi/$f"
done
SHARED=c0ffee00-0000-4000-8000-000000000003
cat > "$R/var/run/cdi/k8s.gpu.nvidia.com-claim_$SHARED.yaml" <<YAML
cdiVersion: 0.5.0
kind: k8s.gpu.nvidia.com/claim
devices:
- name: $SHARED-gpu-1
  containerEdits:
    env:
    - NVIDIA_VISIBLE_DEVICES=void
YAML
# AMD: renderD128 is the GPU at 0000:c1:00.0 (not one of the test NVML's).
mkdir -p "$S/class/drm/renderD128/device"
printf 'DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\n' > "$S/class/drm/renderD128/device/uevent"
# NICs: eth1 is a RoCE function with one port (mlx5_2), 0000:3b:00.3 a VF (mlx5_3).
mkdir -p "$S/class/net/eth1/device/infiniband/mlx5_2" "$S/bus/pci/devices/0000:3b:00.3/infiniband/mlx5_3"
VF="$S/class/infiniband/mlx5_2"
mkdir -p "$VF/ports/1"
echo "1: CA" > "$VF/node_type"
echo "MT4126" > "$VF/hca_type"
echo "4: ACTIVE" > "$VF/ports/1/state"
echo "5: LinkUp" > "$VF/ports/1/phys_state"
echo "200 Gb/sec (4X HDR)" > "$VF/ports/1/rate"
echo "Ethernet" > "$VF/ports/1/link_layer"

# ---- what the kubelet says ------------------------------------------------------------------
NV=c0ffee00-0000-4000-8000-000000000001 AMD=c0ffee00-0000-4000-8000-000000000002
res() {  # DRIVER DEVICE [CDI...]: one ClaimResource of pool node-1
    local driver=$1 device=$2 cdi="" c
    shift 2
    for c in "$@"; do cdi="$cdi${cdi:+,}{\"name\":\"$c\"}"; done
    printf '{"driverName":"%s","poolName":"node-1","deviceName":"%s","cdiDevices":[%s]}' "$driver" "$device" "$cdi"
}
claim() { local ns=$1 name=$2; shift 2; local IFS=,; printf '{"claimName":"%s","claimNamespace":"%s","claimResources":[%s]}' "$name" "$ns" "$*"; }
ctr() { local name=$1; shift; local IFS=,; printf '{"name":"%s","dynamicResources":[%s]}' "$name" "$*"; }
pod() { printf '{"name":"%s","namespace":"%s","containers":[%s]}' "$@"; }
NVD=k8s.gpu.nvidia.com/device NVC=k8s.gpu.nvidia.com/claim
GPU_T4=$(res gpu.nvidia.com gpu-2 "$NVD=gpu-2" "$NVC=$NV-gpu-2")
MIG=$(res gpu.nvidia.com gpu-0-mig-14-0-2 "$NVC=$NV-gpu-0-mig-14-0-2" "$NVD=gpu-0-mig-14-0-2")
GPU_A100=$(res gpu.nvidia.com gpu-1 "$NVD=gpu-1" "$NVC=$SHARED-gpu-1")
A100_CLAIM=$(claim serve a100-shared "$GPU_A100")
cat > "$WORK/scenario.json" <<JSON
{"list": {"podResources": [
  $(pod llm-0 ml "$(ctr trainer "$(claim ml llm-0-gpu "$GPU_T4")" \
        "$(claim ml llm-0-net "$(res dra.net eth1)" "$(res sriov.example.com 0000-3b-00-3)")" \
        "$(claim ml llm-0-extra "$(res gpu.nvidia.com gpu-7 "$NVD=gpu-7")")")"),
  $(pod mig-nb research "$(ctr jupyter "$(claim research mig-nb-mig "$MIG")")"),
  $(pod infer-0 serve "$(ctr server "$A100_CLAIM")"),
  $(pod infer-1 serve "$(ctr server "$A100_CLAIM")"),
  $(pod render-0 viz "$(ctr main "$(claim viz amd-gpu "$(res gpu.amd.com gpu-0 k8s.gpu.amd.com/gpu=common "k8s.gpu.amd.com/gpu=$AMD-gpu-0")")")"),
  $(pod fpga-0 tools "$(ctr main "$(claim tools fpga "$(res fpga.example.com slot0)")")")]},
 "allocatable": {"devices": []}}
JSON
python3 -m json.tool "$WORK/scenario.json" > /dev/null || fail "scenario is not JSON"
# namespace|pod|container|claim ns|claim|driver|pool|device|CDI device|kind
# (1 gpu 2 mig 3 rdma 4 other)|GPU index|GI|CI|RDMA device|port
cat > "$WORK/want-rows" <<ROWS
ml|llm-0|trainer|ml|llm-0-gpu|gpu.nvidia.com|node-1|gpu-2|$NVD=gpu-2|1|$I_T4|-|-||-
ml|llm-0|trainer|ml|llm-0-net|dra.net|node-1|eth1||3|0|-|-|mlx5_2|1
ml|llm-0|trainer|ml|llm-0-net|sriov.example.com|node-1|0000-3b-00-3||3|0|-|-|mlx5_3|-
ml|llm-0|trainer|ml|llm-0-extra|gpu.nvidia.com|node-1|gpu-7||4|0|-|-||-
research|mig-nb|jupyter|research|mig-nb-mig|gpu.nvidia.com|node-1|gpu-0-mig-14-0-2|$NVD=gpu-0-mig-14-0-2|2|$I_H100|$GI2|$CI2||-
serve|infer-0|server|serve|a100-shared|gpu.nvidia.com|node-1|gpu-1|$NVD=gpu-1|1|$I_A100|-|-||-
serve|infer-1|server|serve|a100-shared|gpu.nvidia.com|node-1|gpu-1|$NVD=gpu-1|1|$I_A100|-|-||-
viz|render-0|main|viz|amd-gpu|gpu.amd.com|node-1|gpu-0|k8s.gpu.amd.com/gpu=$AMD-gpu-0|1|0|-|-||-
tools|fpga-0|main|tools|fpga|fpga.example.com|node-1|slot0||4|0|-|-||-
ROWS
sort -o "$WORK/want-rows" "$WORK/want-rows"

# ---- the agent ------------------------------------------------------------------------------
# A kubelet stand-in serves the recorded pods (the Kubernetes scalars need it).
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
start_podres_server "$WORK/scenario.json"
start_snmpd
start_agent --sysfs "$S" --procfs "$P" --devfs "$D" --rootfs "$R" --http "127.0.0.1:$HTTP_PORT"
wait_agent

POLLER="$OBJ.4.10.1" P_PODRES=8
GPU_ENTRY="$OBJ.5.10.1" MIG_ENTRY="$OBJ.5.13.1" PR_ENTRY="$K8S.10.1"
status_of() { snmp_value "$POLLER.9.$P_PODRES"; }   # 1 ok 2 failing 3 timedOut 4 disabled
error_of() { snmp_value "$POLLER.7.$P_PODRES"; }

# ---- readers: SNMP, /metrics and /pods, each row as namespace|pod|...|port -------------------
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
    print("|".join(cells.get(c, "-") for c in (4, 5, 6, 15, 16, 17, 18, 19, 20, 9, 10, 11, 12, 13, 14)))
PY
}
metric_rows() {
    curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics" || return 1
    python3 - "$WORK/metrics" "$I_H100:$PCI_H100" "$I_A100:$PCI_A100" "$I_T4:$PCI_T4" <<'PY'
import re, sys
index_of = {p.split(":", 1)[1]: p.split(":", 1)[0] for p in sys.argv[2:]}
kinds = {"gpu": "1", "mig": "2", "rdma": "3", "other": "4"}
label = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
for line in open(sys.argv[1]):
    if not line.startswith("primus_pod_resource_info{"):
        continue
    l = dict(label.findall(line[len("primus_pod_resource_info{"):line.rindex("}")]))
    g = lambda k: l.get(k, "")
    print("|".join([g("namespace"), g("pod"), g("container"), g("claim_namespace"), g("claim"),
                    g("driver"), g("pool"), g("dra_device"), g("cdi_device"),
                    kinds.get(g("kind"), g("kind")), index_of.get(g("gpu_pci_bus_id"), "0"),
                    g("mig_gpu_instance") or "-", g("mig_compute_instance") or "-",
                    g("rdma_device"), g("rdma_port") or "-"]))
PY
}
# /pods: each container's pod_resources entries (no GPU or RDMA columns there).
json_rows() {
    curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/pods" > "$WORK/pods.json" || return 1
    python3 - "$WORK/pods.json" <<'PY'
import json, sys
for e in json.load(open(sys.argv[1])):
    for r in e["pod_resources"]:
        print("|".join([e["pod_namespace"], e["pod_name"], e["container"], r["claim_namespace"],
                        r["claim"], r["driver"], r["pool"], r["dra_device"], r["cdi_device"],
                        {"gpu": "1", "mig": "2", "rdma": "3", "other": "4"}[r["kind"]]]))
PY
}
rows_are() {  # FILE-WITH-WANTED-ROWS: the three front ends serve exactly these rows
    snmp_rows | sort > "$WORK/snmp-rows" && cmp -s "$1" "$WORK/snmp-rows" &&
        metric_rows | sort > "$WORK/metric-rows" && cmp -s "$1" "$WORK/metric-rows" &&
        json_rows | sort > "$WORK/json-rows" && cut -d'|' -f1-10 "$1" | cmp -s - "$WORK/json-rows"
}
wait_until 20 rows_are "$WORK/want-rows" ||
    fail "DRA rows differ from the scenario: $(diff "$WORK/want-rows" "$WORK/snmp-rows"; \
          echo '-- bridge:'; diff "$WORK/want-rows" "$WORK/metric-rows"; \
          echo '-- /pods:'; cut -d'|' -f1-10 "$WORK/want-rows" | diff - "$WORK/json-rows"); poller $(status_of): $(error_of)"
ok "primusPodResourceTable, primus_pod_resource_info and /pods: the 9 DRA rows (GPU by CDI, MIG by capability, shared claim, AMD, NICs, plain rows)"

# The claim whose CDI device no spec defines is said; the unknown driver's
# device (nothing to resolve by) is not an error.
err=$(error_of)
case $err in
    *"1 DRA device(s) not resolved, kept as plain rows: gpu.nvidia.com/node-1/gpu-7: no CDI spec defines $NVD=gpu-7"*) ;;
    *) fail "poller error '$err', want the unresolved gpu-7" ;;
esac
[ "$(status_of)" = 1 ] || fail "podresources poller '$(status_of)' with a partial error, want ok(1)"
ok "gpu-7 (no CDI spec entry): a plain row and the poller's error '$err'"

# The NIC a claim gave ml/llm-0's trainer: its RDMA device's holder columns
# name the pod (the DRA device resolved to mlx5_2), in SNMP and /metrics.
RDMA_ENTRY="$OBJ.6.10.1" MLX2=$(str_index mlx5_2)
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $RDMA_ENTRY.23.$MLX2 | grep -qx '\"*llm-0\"*'" ||
    fail "primusRdmaHolderPod of mlx5_2 is '$(snmp_value "$RDMA_ENTRY.23.$MLX2")', not llm-0"
[ "$(snmp_value "$RDMA_ENTRY.24.$MLX2")" = ml ] && [ "$(snmp_value "$RDMA_ENTRY.21.$MLX2")" = 1 ] ||
    fail "mlx5_2: namespace '$(snmp_value "$RDMA_ENTRY.24.$MLX2")', holders $(snmp_value "$RDMA_ENTRY.21.$MLX2")"
curl -s --max-time 5 "$HTTP_BASE/metrics" | grep '^primus_rdma_holder_info{device="mlx5_2"' |
    grep 'pod="llm-0"' | grep -q 'namespace="ml"' || fail "no primus_rdma_holder_info of mlx5_2 for ml/llm-0"
ok "mlx5_2, given by a DRA claim: primusRdmaHolderPod llm-0 in ml, and its primus_rdma_holder_info series"

if [ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] && command -v snmptable >/dev/null; then
    MIBDIRS="+$PNA_IETF_MIBDIR:$PNA_MIBDIR" MIBS="+PRIMUS-NODE-MIB" \
        snmptable $V2 -Cb -Cw 200 "$TARGET" PRIMUS-NODE-MIB::primusPodResourceTable > "$WORK/snmptable" 2>&1
    cat "$WORK/snmptable"
    [ "$(grep -c 'node-1' "$WORK/snmptable")" -ge 9 ] || fail "snmptable shows fewer than 9 DRA rows: $(cat "$WORK/snmptable")"
    ok "snmptable primusPodResourceTable renders the DRA rows"
fi

# ---- holders ------------------------------------------------------------------------------------
gpu() { snmp_value "$GPU_ENTRY.$1.$2"; }
holder_is() {  # GPU-INDEX CONTAINER-ID POD NAMESPACE COUNT
    [ "$(gpu 48 "$1")" = "$2" ] && [ "$(gpu 49 "$1")" = "$3" ] && [ "$(gpu 50 "$1")" = "$4" ] &&
        [ "$(gpu 56 "$1")" = "$5" ]
}
holder_said() { echo "'$(gpu 48 "$1")' '$(gpu 49 "$1")' '$(gpu 50 "$1")' count $(gpu 56 "$1")"; }
wait_until 15 holder_is "$I_T4" "$ID" llm-0 ml 1 || fail "T4 holder $(holder_said "$I_T4")"
holder_is "$I_A100" "" infer-0 serve 2 || fail "A100 holder (shared claim) $(holder_said "$I_A100")"
holder_is "$I_H100" "" mig-nb research 1 || fail "H100 holder $(holder_said "$I_H100")"
mig() { snmp_value "$MIG_ENTRY.$1.$I_H100.$2"; }
[ "$(mig 10 "$GI2.$CI2")" = mig-nb ] && [ "$(mig 11 "$GI2.$CI2")" = research ] ||
    fail "MIG $GI2/$CI2 holder '$(mig 10 "$GI2.$CI2")' '$(mig 11 "$GI2.$CI2")'"
holder_series() {  # PCI: "namespace/pod/container" of each primus_gpu_holder_info series, sorted
    awk -v p="pci_bus_id=\"$1\"" 'index($0, "primus_gpu_holder_info{") == 1 && index($0, p)' "$WORK/metrics" |
        sed 's/.*container="\([^"]*\)",pod="\([^"]*\)",namespace="\([^"]*\)".*/\3\/\2\/\1/' | sort | tr '\n' ' '
}
curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics"
[ "$(holder_series "$PCI_T4")" = "ml/llm-0/trainer " ] || fail "T4 holder series: $(holder_series "$PCI_T4")"
[ "$(holder_series "$PCI_A100")" = "serve/infer-0/server serve/infer-1/server " ] ||
    fail "A100 holder series: $(holder_series "$PCI_A100")"
[ "$(holder_series "$PCI_H100")" = "research/mig-nb/jupyter " ] || fail "H100 holder series: $(holder_series "$PCI_H100")"
# /gpus: the MIG device's holder members.
curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/gpus" > "$WORK/gpus.json"
python3 - "$WORK/gpus.json" "$GI2" "$CI2" <<'PY' || fail "/gpus MIG holder: $(head -c 600 "$WORK/gpus.json")"
import json, sys
doc = json.load(open(sys.argv[1]))
gpus = doc if isinstance(doc, list) else doc.get("gpus", [])
def walk(o):
    if isinstance(o, dict):
        if str(o.get("gpu_instance")) == sys.argv[2] and str(o.get("compute_instance")) == sys.argv[3]:
            yield o
        for v in o.values():
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)
found = [m for m in walk(doc) if "pod" in m]
sys.exit(0 if found and found[0]["pod"] == "mig-nb" and found[0]["namespace"] == "research" else 1)
PY
ok "holders: T4 trainer ($ID), A100 infer-0 of 2 (one shared claim), H100 mig-nb; MIG $GI2/$CI2 mig-nb on SNMP, the bridge and /gpus"

# ---- the trainer's container devices: the claim's nodes, source draClaim(7) ------------------------
answer() {
    local v; v=$(snmp_value "$1")
    case "$v" in Timeout*) v=$(snmp_value "$1") ;; esac
    echo "$v"
}
devsrc() { answer "$DEV_ENTRY.7.$(str_index "$1").$(str_index "$2")"; }
devgpu() { answer "$DEV_ENTRY.5.$(str_index "$1").$(str_index "$2")"; }
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $DEV_ENTRY.7.$(str_index "$ID").$(str_index /dev/nvidia2))\" = 7 ]" ||
    fail "trainer's /dev/nvidia2 source '$(devsrc "$ID" /dev/nvidia2)', want draClaim(7)"
[ "$(devgpu "$ID" /dev/nvidia2)" = "$I_T4" ] || fail "trainer's /dev/nvidia2 GPU '$(devgpu "$ID" /dev/nvidia2)'"
[ "$(devsrc "$ID" /dev/nvidiactl)" = 7 ] || fail "trainer's /dev/nvidiactl (the base spec's common node) source '$(devsrc "$ID" /dev/nvidiactl)'"
[ "$(devsrc "$ID" /dev/infiniband/uverbs0)" = 1 ] || fail "trainer's uverbs0 source '$(devsrc "$ID" /dev/infiniband/uverbs0)', want specDevice(1)"
curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics"
for p in /dev/nvidia2 /dev/nvidiactl /dev/dri/renderD130; do
    grep -q "^primus_container_device_info{container_id=\"$ID\",.*path=\"$p\",.*source=\"draClaim\"} 1\$" "$WORK/metrics" ||
        fail "no draClaim source for $p on the bridge: $(grep "^primus_container_device_info{container_id=\"$ID\"" "$WORK/metrics")"
done
curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/pods" > "$WORK/pods.json"
python3 - "$WORK/pods.json" "$ID" "$PCI_T4" <<'PY' || fail "/pods: the trainer's T4 node is not listed: $(head -c 800 "$WORK/pods.json")"
import json, sys
e = next(e for e in json.load(open(sys.argv[1])) if e["id"] == sys.argv[2])
sys.exit(0 if any(g["path"] == "/dev/nvidia2" and g["slot"] == sys.argv[3] for g in e["devices"]["gpu"]) else 1)
PY
ok "container devices: the claim's /dev/nvidia2 (the T4), nvidiactl and renderD130 draClaim(7) on SNMP and the bridge, the T4 in /pods"

# ---- allocatable: DRA devices are not in GetAllocatableResources ----------------------------------
alloc_is() { [ "$(snmp_value $K8S.2.0)" = "$1" ] && [ "$(snmp_value $K8S.6.0)" = "$2" ]; }
wait_until 15 alloc_is 0 1 ||
    fail "allocatable '$(snmp_value $K8S.2.0)' source '$(snmp_value $K8S.6.0)', want 0 podResources(1)"
curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics"
# 0 is the MIB's stand-in for none (no GPU to allocate): the bridge has no sample.
grep -q '^primus_k8s_gpus_allocatable ' "$WORK/metrics" &&
    fail "bridge allocatable: $(grep '^primus_k8s_gpus_allocatable ' "$WORK/metrics"), want no sample (none)"
grep -q '^primus_k8s_gpus_allocatable_source{source="podResources"} 1$' "$WORK/metrics" ||
    fail "bridge allocatable source: $(grep '^primus_k8s_gpus_allocatable_source' "$WORK/metrics")"
grep -q '^primus_pod_resource_allocatable{.*driver="gpu.nvidia.com".*} 1$' "$WORK/metrics" &&
    fail "a DRA device is allocatable on the bridge"
ok "primusK8sGpuAllocatable 0 (none) from the kubelet: DRA devices are not allocatable; source podResources(1), the bridge agrees"

# ---- the CDI specs go away: plain rows, kept, said; back: resolved --------------------------------
mv "$R/var/run/cdi" "$WORK/cdi-away"
awk -F'|' 'BEGIN { OFS = "|" } { if ($6 != "dra.net" && $6 != "sriov.example.com") { $9 = ""; $10 = 4; $11 = 0; $12 = "-"; $13 = "-" } print }' \
    "$WORK/want-rows" | sort > "$WORK/want-plain"
wait_until 15 rows_are "$WORK/want-plain" ||
    fail "rows without CDI specs: $(diff "$WORK/want-plain" "$WORK/snmp-rows"; echo '-- bridge:'; diff "$WORK/want-plain" "$WORK/metric-rows")"
err=$(error_of)
case $err in *"DRA device(s) not resolved"*"no CDI spec defines"*) ;; *) fail "no CDI specs: poller error '$err'" ;; esac
[ "$(status_of)" = 1 ] || fail "no CDI specs: poller '$(status_of)'"
# The claim's nodes left the trainer's device rows at the containers poll:
# nothing names the T4 now.
wait_until 15 holder_is "$I_T4" "" "" "" 0 || fail "no CDI specs: T4 holder $(holder_said "$I_T4"), want none"
ok "CDI specs removed: the 9 rows kept, plain where they named GPUs, NICs still resolved, no T4 holder; '$err'"
mv "$WORK/cdi-away" "$R/var/run/cdi"
wait_until 15 rows_are "$WORK/want-rows" || fail "CDI specs back: $(diff "$WORK/want-rows" "$WORK/snmp-rows")"
ok "CDI specs back: resolved again"

# The server answers garbage: the last rows stay, with the poller's error.
podres_control garbage
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $POLLER.9.$P_PODRES)\" = 2 ]" ||
    fail "garbage: poller '$(status_of)' '$(error_of)'"
rows_are "$WORK/want-rows" || fail "garbage: rows changed: $(diff "$WORK/want-rows" "$WORK/snmp-rows")"
ok "garbage answer: status failing(2), '$(error_of)'; the DRA rows kept"
podres_control ok

echo "PASS: $TEST_NAME"
