#!/bin/bash
# The join of docs/metrics.md that puts a pod's label on a GPU figure, in a
# real Prometheus scraping the agent: an H100 from the test NVML library,
# shared (time-slicing) by two containerd containers of two pods (their
# bundles shaped as the CRI plugin writes them), and a kubelet stand-in
# whose pod list, built here from the PodList schema (no recorded list has
# these pods), gives the pods a team label.  With podLabels team, the query
# of docs/metrics.md on the GPU's temperature (set to 61 C through the test
# NVML library, a figure no other series has)
#   primus_gpu_temperature_celsius * on (pci_bus_id) group_right ()
#     (primus_gpu_holder_info * on (namespace, pod) group_left (label_team)
#      primus_pod_labels_info)
# must give one result per holder, with its pod's team and the GPU's
# temperature, each checked against the pod list and the SNMP cell.
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
need_fake_nvml
command -v prometheus >/dev/null || skip "prometheus not installed (Debian: prometheus)"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "python3 not installed (the kubelet stand-in)"

GPU_ENTRY="$OBJ.5.10.1"
P="$WORK/proc" D="$WORK/dev" R="$WORK/root"
TASKS="$R/run/containerd/io.containerd.runtime.v2.task"
mkdir -p "$P" "$D" "$TASKS/k8s.io" "$R/var/lib/kubelet"
fake_procfs "$P"
NV_XML="$PNA_FIXTURES/nvidia/h100-nvidia-smi-q-x.xml"
export PNA_FAKE_NVML_XML="$NV_XML" PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
NV_BUS=$(sed -n 's/.*<gpu id="\([^"]*\)".*/\1/p' "$NV_XML" | head -n 1)
echo "set $NV_BUS temp 61" > "$PNA_FAKE_NVML_CTL"
NV_MINOR=$(sed -n 's/.*<minor_number>\([0-9]*\)<.*/\1/p' "$NV_XML" | head -n 1)
IFS=':.' read -r dom bus dev fn <<< "$NV_BUS"
NV_PCI=$(printf '%04x:%02x:%02x.%x' $((0x$dom)) $((0x$bus)) $((0x$dev)) $((0x$fn)))
NV_IDX=$(( (0x$dom << 16) | (0x$bus << 8) | (0x$dev << 3) | 0x$fn ))
mkdir -p "$P/driver/nvidia/gpus/$NV_PCI"
printf 'Model: \t\t NVIDIA H100\nIRQ:   \t\t 42\nGPU UUID: \t GPU-x\nDevice Minor: \t %s\n' \
    "$NV_MINOR" > "$P/driver/nvidia/gpus/$NV_PCI/information"
cri_bundle "$(printf 'c%063d' 1)" cuda infer-0 serve "$(devnode "/dev/nvidia$NV_MINOR" 195 "$NV_MINOR")"
cri_bundle "$(printf 'd%063d' 2)" cuda2 infer-1 serve "$(devnode "/dev/nvidia$NV_MINOR" 195 "$NV_MINOR")"

# The kubelet: the two pods (UIDs as cri_bundle writes them) with a team label each.
K="$WORK/kubelet"
mkdir -p "$K/stats"
$PY - "$K/pods" <<'PY'
import json, sys
def pod(name, team):
    return {"metadata": {"name": name, "namespace": "serve", "uid": "uid-" + name,
                         "labels": {"team": team, "pod-template-hash": "5d8f7c9b6"}},
            "spec": {"containers": [{"name": "x"}]}, "status": {"phase": "Running"}}
json.dump({"kind": "PodList", "items": [pod("infer-0", "vision"), pod("infer-1", "speech")]},
          open(sys.argv[1], "w"))
PY
echo '{"node":{"nodeName":"gpu-node-1"},"pods":[]}' > "$K/stats/summary"
start_kubelet "$K"

cat > "$WORK/agent.conf" <<CONF
nvmlLibrary $FAKE_NVML
nvidiaSmi $WORK/no-nvidia-smi
pollInterval gpu 1
kubeletUrl http://127.0.0.1:$KPORT
kubeletTokenFile $WORK/no-token
pollInterval kubelet 2
podLabels team
CONF
start_snmpd
start_agent --procfs "$P" --devfs "$D" --rootfs "$R" --http "127.0.0.1:$HTTP_PORT"
wait_agent
wait_http
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $GPU_ENTRY.56.$NV_IDX | grep -qx 2" ||
    fail "the GPU is not held by the two containers: $(snmp_value "$GPU_ENTRY.56.$NV_IDX")"
wait_until 15 sh -c "curl -s $HTTP_BASE/metrics | grep -q '^primus_pod_labels_info{.*pod=\"infer-1\"'" ||
    fail "no primus_pod_labels_info for infer-1"

PPORT=$(free_tcp_port)
cat > "$WORK/prometheus.yml" <<YML
global: { scrape_interval: 1s }
scrape_configs:
  - job_name: agent
    static_configs: [ { targets: ["127.0.0.1:$HTTP_PORT"] } ]
YML
start_prometheus "$WORK/prometheus.yml" "$PPORT"
JOIN='primus_gpu_temperature_celsius * on (pci_bus_id) group_right () (primus_gpu_holder_info * on (namespace, pod) group_left (label_team) primus_pod_labels_info)'
wait_until 30 sh -c "curl -sS '$PROM/api/v1/query' --data-urlencode 'query=$JOIN' | grep -q speech" ||
    fail "the GPU join gave nothing: $(query "$JOIN")"
query "$JOIN" > "$WORK/join.json"
TEMP=$(snmp_value "$GPU_ENTRY.25.$NV_IDX")   # primusGpuTemperature, degrees C
[ "$TEMP" = 61 ] || fail "primusGpuTemperature is '$TEMP', not the 61 set"
$PY - "$WORK/join.json" "$K/pods" "$NV_PCI" "$TEMP" <<'PY' || fail "the GPU join's answer is wrong: $(cat "$WORK/join.json")"
import json, sys
res = json.load(open(sys.argv[1]))["data"]["result"]
teams = {i["metadata"]["name"]: i["metadata"]["labels"]["team"] for i in json.load(open(sys.argv[2]))["items"]}
got = {r["metric"]["pod"]: r for r in res}
assert sorted(got) == sorted(teams), (sorted(got), teams)
for pod, r in got.items():
    m = r["metric"]
    assert m["label_team"] == teams[pod], m
    assert m["pci_bus_id"] == sys.argv[3] and m["namespace"] == "serve", m
    assert "label_pod_template_hash" not in m, m
    assert float(r["value"][1]) == int(sys.argv[4]), (r, sys.argv[4])
print(len(res), "holders")
PY
ok "Prometheus: the GPU's temperature ($TEMP C) with each holder's label_team (vision, speech)"
echo "PASS: $TEST_NAME"
