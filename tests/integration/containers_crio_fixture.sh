#!/bin/bash
# CRI-O's containers/storage layout, read by the real agent (a subagent of a
# private snmpd, the HTTP bridge on) from the CRI-O fixture tree
# (tests/fixtures/crio, built from the specification: see its README) with
# the default containersStorageRoot and containersStorageRunRoot under
# --rootfs.  Checked through snmpd, /metrics and the fixture's own files
# (read with jq, not with the agent's parser):
#   - the pod container: runtime crio(3), its name, pod, namespace, pod UID
#     and image from CRI-O's annotations, running(2) (the recorded start
#     time is the process's), the cgroup of its systemd cgroupsPath;
#     devices: the GPU of its CDI annotation through the node's CDI spec
#     (source cdi(5)), the RDMA device of linux.devices (specDevice(1));
#   - the sidecar whose pid was reused: stopped(4); the sandbox: no row;
#   - pod labels with no kubeletUrl: the sandbox's io.kubernetes.cri-o.Labels
#     (read with jq) that podLabels allows, in primusPodLabelTable and
#     primus_pod_labels_info; the others (pod-template-hash) nowhere;
#   - a state.json made malformed: the poller table says which file and
#     why (SNMP and /health), the container still served as it last was,
#     no crash; made good again, no more errors are counted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
command -v jq >/dev/null || skip "jq not installed"

# A copy, links followed, that the test may break.
cp -rL "$PNA_FIXTURES/crio" "$WORK/crio"
FX="$WORK/crio"
CTRS="$FX/rootfs/var/lib/containers/storage/overlay-containers"
TRAINER=c4f1a8e2b6d03957f1e8c2a4b6d8f0e2c4a6b8d0f2e4c6a8b0d2f4e6c8a0b2d4
SHIPPER=9a0b1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f
SANDBOX=7e1c5a0f3b9d2e8c4a6f1b0d9e3c7a5f2b8d4e6c1a9f3b7d5e2c8a4f6b1d0e9c
# The node poller's files from this machine, so the agent starts.
fake_procfs "$FX/proc"
# The RDMA devices of the distinct fixture: uverbs0 is mlx5_0's verbs node.
mkdir -p "$WORK/sys"
cp -a "$PNA_FIXTURES/distinct/sys/class" "$PNA_FIXTURES/distinct/sys/devices" "$WORK/sys/"
printf 'pollInterval containers 1\npollInterval ib 1\npodLabels app,team.example.com/*\n' > "$WORK/agent.conf"
start_snmpd
start_http_agent --rootfs "$FX/rootfs" --procfs "$FX/proc" --sysfs "$WORK/sys" --devfs "$WORK/sys"
wait_agent
wait_http

ctr() { snmp_value "$CTR_ENTRY.$1.$(str_index "$2")"; }
ann() { jq -r --arg k "$2" '.annotations[$k]' "$CTRS/$1/userdata/config.json"; }
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.2.$(str_index $TRAINER) | grep -qx 3" ||
    fail "the trainer is not served as crio(3): $(ctr 2 $TRAINER)"
[ "$(ctr 3 $TRAINER)" = "$(ann $TRAINER io.kubernetes.container.name)" ] || fail "name $(ctr 3 $TRAINER)"
[ "$(ctr 4 $TRAINER)" = "$(ann $TRAINER io.kubernetes.pod.name)" ] || fail "pod $(ctr 4 $TRAINER)"
[ "$(ctr 5 $TRAINER)" = "$(ann $TRAINER io.kubernetes.pod.namespace)" ] || fail "namespace $(ctr 5 $TRAINER)"
[ "$(ctr 6 $TRAINER)" = "$(ann $TRAINER io.kubernetes.pod.uid)" ] || fail "pod uid $(ctr 6 $TRAINER)"
[ "$(ctr 7 $TRAINER)" = "$(ann $TRAINER io.kubernetes.cri-o.ImageName)" ] || fail "image $(ctr 7 $TRAINER)"
[ "$(ctr 8 $TRAINER)" = 2 ] || fail "trainer state $(ctr 8 $TRAINER), not running(2)"
started=$(date -d "$(jq -r .started "$CTRS/$TRAINER/userdata/state.json")" +%s)
[ "$(ctr 9 $TRAINER)" = "$started" ] || fail "start time $(ctr 9 $TRAINER) != state.json's $started"
uid=$(ann $TRAINER io.kubernetes.pod.uid | tr - _)
want="/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$uid.slice/crio-$TRAINER.scope"
[ "$(ctr 10 $TRAINER)" = "$want" ] || fail "cgroup path $(ctr 10 $TRAINER) != $want"
[ "$(ctr 12 $TRAINER)" = "$(jq .linux.resources.memory.limit "$CTRS/$TRAINER/userdata/config.json")" ] ||
    fail "limit $(ctr 12 $TRAINER)"
ok "trainer: crio(3), name, pod, namespace, uid, image from CRI-O's annotations; running(2); start, cgroup, limit"
dev() { snmp_value "$DEV_ENTRY.$1.$(str_index $TRAINER).$(str_index "$2")"; }
[ "$(dev 2 /dev/nvidia0)" = 1 ] || fail "/dev/nvidia0 kind $(dev 2 /dev/nvidia0), not gpu(1)"
# primusContainerDeviceSource: column 9
src_col=$(snmpwalk $V2 -On "$TARGET" "$DEV_ENTRY" | grep -F ".$(str_index $TRAINER).$(str_index /dev/nvidia0) = INTEGER: 5" | head -1)
[ -n "$src_col" ] || fail "/dev/nvidia0 not from cdi(5): $(snmpwalk $V2 -On "$TARGET" "$DEV_ENTRY" | grep -F "$(str_index /dev/nvidia0)")"
[ "$(dev 3 /dev/infiniband/uverbs0)" = 231 ] && [ "$(dev 4 /dev/infiniband/uverbs0)" = 192 ] ||
    fail "/dev/infiniband/uverbs0 is not 231:192"
[ "$(dev 2 /dev/infiniband/uverbs0)" = 2 ] || fail "uverbs0 kind $(dev 2 /dev/infiniband/uverbs0), not rdma(2)"
ok "devices: /dev/nvidia0 gpu(1) by the CDI annotation nvidia.com/gpu=0, /dev/infiniband/uverbs0 rdma(2) 231:192"
# The RDMA device's holder columns name the trainer (uverbs0 is mlx5_0's).
RDMA_ENTRY="$OBJ.6.10.1"
rdma() { snmp_value "$RDMA_ENTRY.$1.$(str_index "$2")"; }
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $RDMA_ENTRY.22.$(str_index mlx5_0) | grep -q $TRAINER" ||
    fail "primusRdmaHolderContainer of mlx5_0 is '$(rdma 22 mlx5_0)', not the trainer"
[ "$(rdma 21 mlx5_0)" = 1 ] && [ "$(rdma 23 mlx5_0)" = trainer-0 ] && [ "$(rdma 24 mlx5_0)" = ml-team ] ||
    fail "mlx5_0 holders $(rdma 21 mlx5_0) pod '$(rdma 23 mlx5_0)' namespace '$(rdma 24 mlx5_0)'"
[ "$(rdma 21 mlx5_1)" = 0 ] && [ -z "$(rdma 22 mlx5_1 | tr -d '"')" ] || fail "mlx5_1 has a holder: $(rdma 22 mlx5_1)"
ok "primusRdmaDeviceTable: mlx5_0 held by the trainer (1 holder, trainer-0 in ml-team), mlx5_1 by none"
[ "$(ctr 8 $SHIPPER)" = 4 ] || fail "the sidecar (its pid reused) is $(ctr 8 $SHIPPER), not stopped(4)"
case $(ctr 2 $SANDBOX) in *"No Such"*) ;; *) fail "the sandbox is served: $(ctr 2 $SANDBOX)" ;; esac
ok "sidecar with a reused pid: stopped(4); the pod sandbox: no row"

http_body /metrics > "$WORK/metrics.txt"
info=$(grep -F "primus_container_info{container_id=\"$TRAINER\"" "$WORK/metrics.txt")
for pair in container:3 pod:4 namespace:5 pod_uid:6 image:7 cgroup_path:10; do
    echo "$info" | grep -qF "${pair%%:*}=\"$(ctr "${pair#*:}" $TRAINER)\"" ||
        fail "/metrics ${pair%%:*} disagrees with SNMP: $info"
done
echo "$info" | grep -qF 'runtime="crio"' || fail "/metrics runtime: $info"
grep -F "primus_container_state{container_id=\"$SHIPPER\"" "$WORK/metrics.txt" | grep -qF 'state="stopped"' ||
    fail "/metrics: the sidecar not stopped"
grep '^primus_rdma_holder_info{' "$WORK/metrics.txt" | grep 'device="mlx5_0"' |
    grep -F "container_id=\"$TRAINER\"" | grep -qF 'pod="trainer-0"' ||
    fail "/metrics: no primus_rdma_holder_info of mlx5_0 for the trainer: $(grep rdma_holder "$WORK/metrics.txt")"
grep -F "primus_container_device_info{container_id=\"$TRAINER\"" "$WORK/metrics.txt" |
    grep -F 'path="/dev/nvidia0"' | grep -qF 'source="cdi"' || fail "/metrics: /dev/nvidia0 not from cdi"
[ "$(metric_value "$WORK/metrics.txt" primus_container_start_time_seconds \
     "container_id=\"$TRAINER\",container=\"trainer\",pod=\"trainer-0\",namespace=\"ml-team\"")" = "$(ctr 9 $TRAINER)" ] ||
    fail "/metrics start time disagrees with SNMP"
for rt in crio:1 podman:1 containerd:0 docker:0; do
    [ "$(metric_value "$WORK/metrics.txt" primus_containers_runtime_up "runtime=\"${rt%%:*}\"")" = "${rt#*:}" ] ||
        fail "primus_containers_runtime_up{runtime=\"${rt%%:*}\"} is not ${rt#*:}: $(grep runtime_up "$WORK/metrics.txt")"
done
ok "/metrics agrees with SNMP (info labels, runtime crio, states, the CDI device, start time, runtime_up: the store read)"

# ---- pod labels from the sandbox, no kubelet -------------------------------------------
LABELS="$K8S.20.1"   # primusPodLabelEntry
sandbox_labels() { jq -r '.annotations["io.kubernetes.cri-o.Labels"]' "$CTRS/$SANDBOX/userdata/config.json"; }
pod_uid=$(sandbox_labels | jq -r '.["io.kubernetes.pod.uid"]')
for key in app team.example.com/queue; do
    want=$(sandbox_labels | jq -r --arg k "$key" '.[$k]')
    [ -n "$want" ] && [ "$want" != null ] || fail "the fixture's sandbox has no label $key"
    got=$(snmp_value "$LABELS.6.$(str_index "$pod_uid").$(str_index "$key")")
    [ "$got" = "$want" ] || fail "primusPodLabelValue of $key: '$got', want '$want'"
    [ "$(snmp_value "$LABELS.4.$(str_index "$pod_uid").$(str_index "$key")")" = "$(ann $SANDBOX io.kubernetes.pod.name)" ] ||
        fail "primusPodLabelPod of $key"
done
rows=$(snmpwalk $V2 -On -Oq "$TARGET" "$LABELS.5" | grep -c "^$LABELS\.5\.")
[ "$rows" = 2 ] || fail "primusPodLabelTable has $rows rows, want the 2 allowed labels: $(snmp_walk "$LABELS.5")"
info=$(grep '^primus_pod_labels_info{' "$WORK/metrics.txt")
for want in 'namespace="ml-team"' 'pod="trainer-0"' 'label_app="trainer"' 'label_team_example_com_queue="gpu-a100"'; do
    echo "$info" | grep -qF "$want" || fail "primus_pod_labels_info lacks $want: $info"
done
[ "$(echo "$info" | wc -l)" = 1 ] || fail "not one primus_pod_labels_info series: $info"
for word in pod-template-hash pod_template_hash 6d8f7c9b5; do
    snmp_walk "$OBJ" | grep -qF -- "$word" && fail "'$word', not allowed, is in the MIB"
    grep -qF -- "$word" "$WORK/metrics.txt" && fail "'$word', not allowed, is on /metrics"
done
ok "pod labels from CRI-O's sandbox (no kubeletUrl): primusPodLabelTable and primus_pod_labels_info agree with the spec; pod-template-hash nowhere"

# ---- bad input: a state.json cut half-way ---------------------------------------------
# Written in place of the good one by a rename, as CRI-O writes it.
cp "$CTRS/$TRAINER/userdata/state.json" "$WORK/state.json.good"
printf '{"status": "stopp' > "$CTRS/$TRAINER/userdata/state.json.new"
mv "$CTRS/$TRAINER/userdata/state.json.new" "$CTRS/$TRAINER/userdata/state.json"
poller_error() { snmpwalk $V2 -On -Oqv "$TARGET" "$OBJ.4.10.1.7" | grep -F "$TRAINER state.json"; }
wait_until 10 poller_error || fail "the poller table does not name the bad state.json: $(snmpwalk $V2 -On -Oqv "$TARGET" "$OBJ.4.10.1.7")"
http_body /health | jq -e '.pollers[] | select(.name == "containers")' | grep -qF "state.json" ||
    fail "/health does not name the bad state.json"
[ "$(ctr 8 $TRAINER)" = 2 ] || fail "with a bad state.json the trainer is $(ctr 8 $TRAINER), not its last state running(2)"
kill -0 "$AGENT_PID" || fail "the agent died"
ok "malformed state.json: named in primusPollerLastError and /health, the last good state served"
cp "$WORK/state.json.good" "$CTRS/$TRAINER/userdata/state.json.new"
mv "$CTRS/$TRAINER/userdata/state.json.new" "$CTRS/$TRAINER/userdata/state.json"
# primusPollerLastError keeps the last failure; primusPollerErrors (column 6)
# counts each poll that had one: it stops growing (the containers poller's
# row: the RDMA poller reads a fixture with problems of its own).
errors() { snmp_value "$OBJ.4.10.1.6.5"; }   # the containers poller's row
sleep 2
e1=$(errors); sleep 3; e2=$(errors)
case $e1 in ''|*[!0-9]*) fail "primusPollerErrors.5 is '$e1', not a count" ;; esac
[ "$e1" = "$e2" ] || fail "the poller still counts errors after state.json is good again: $e1 -> $e2"
[ "$(ctr 8 $TRAINER)" = 2 ] || fail "trainer $(ctr 8 $TRAINER) after the good state.json came back"
ok "state.json good again: no more errors counted (primusPollerErrors steady over 3 polls)"
