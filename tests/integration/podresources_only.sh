#!/bin/bash
# The pod-resources-only node: the kubelet's pod-resources socket is there,
# kubeletUrl is not (the kubelet's read-only port is off in most clusters).
# The primusKubernetes group must be served from the pod-resources poller
# alone: primusK8sGpuAllocatable is the kubelet's own count, allocated the
# GPUs List gave to containers, the node name absent (not empty) until
# nodeName is configured, the pod count absent (pod-resources gives no phase).
#
# A real gRPC server (podresources_server.py) answers; the agent is an AgentX
# subagent of a real snmpd, with its bridge.  The expected counts are read
# from the scenario here with jq, not from the agent.  The answers are
# written here, not recorded (see tests/fixtures/podresources/SOURCES.md).
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
. "$(dirname "$0")/podres_lib.sh"
need_podres
command -v jq >/dev/null || skip "jq not installed (Debian: jq)"

R="$WORK/root"
PODRES_SOCK="$R/var/lib/kubelet/pod-resources/kubelet.sock"
PODRES_CONTROL="$WORK/podres-control"
mkdir -p "$(dirname "$PODRES_SOCK")"

# Two whole GPUs, one of them given away; a GPU shared four ways (two
# replicas given); two MIG devices (one given); a NIC VF (not a GPU).
dev() { printf '{"resourceName":"%s","deviceIds":["%s"]}' "$1" "$2"; }
pod() { printf '{"name":"%s","namespace":"%s","containers":[{"name":"%s","devices":[%s]}]}' "$@"; }
G1=GPU-11111111-2222-3333-4444-555555555555 G2=GPU-66666666-7777-8888-9999-000000000000
G3=GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee
M1=MIG-12345678-1234-5678-9abc-def012345678 M2=MIG-87654321-4321-8765-cba9-876543210fed
cat > "$WORK/scenario.json" <<JSON
{"list": {"podResources": [
  $(pod train-0 ml trainer "$(dev nvidia.com/gpu $G1),$(dev intel.com/sriov_netdevice 0000:3b:00.2)"),
  $(pod serve-0 web server "$(dev nvidia.com/gpu "$G3::0")"),
  $(pod serve-1 web server "$(dev nvidia.com/gpu "$G3::1")"),
  $(pod nb-0 research jupyter "$(dev nvidia.com/mig-1g.10gb $M1)"),
  {"name":"coredns-5d78c9869d-abcde","namespace":"kube-system","containers":[{"name":"coredns"}]}]},
 "allocatable": {"devices": [
  $(dev nvidia.com/gpu $G1), $(dev nvidia.com/gpu $G2),
  $(dev nvidia.com/gpu "$G3::0"), $(dev nvidia.com/gpu "$G3::1"), $(dev nvidia.com/gpu "$G3::2"),
  $(dev nvidia.com/gpu "$G3::3"),
  $(dev nvidia.com/mig-1g.10gb $M1), $(dev nvidia.com/mig-1g.10gb $M2),
  $(dev intel.com/sriov_netdevice 0000:3b:00.2), $(dev intel.com/sriov_netdevice 0000:3b:00.3)]}}
JSON
# The kubelet's own counts: distinct GPU and MIG device ids it offers and gives.
gpu_ids='select(.resourceName | test("^nvidia.com/(gpu|mig-)")) | .resourceName + " " + .deviceIds[]'
WANT_ALLOC=$(jq -r ".allocatable.devices[] | $gpu_ids" "$WORK/scenario.json" | sort -u | wc -l)
WANT_USED=$(jq -r ".list.podResources[].containers[].devices[]? | $gpu_ids" "$WORK/scenario.json" |
            sort -u | wc -l)
[ "$WANT_ALLOC" = 8 ] && [ "$WANT_USED" = 4 ] || fail "scenario counts $WANT_ALLOC/$WANT_USED, want 8/4"
WANT_RATE=$(( (WANT_USED * 10000 + WANT_ALLOC / 2) / WANT_ALLOC ))

write_conf() {  # [nodeName NAME]
    {
        echo "pollInterval podresources 1"
        [ $# -gt 0 ] && echo "$*"
    } > "$WORK/agent.conf"
}
write_conf
start_podres_server "$WORK/scenario.json"
start_snmpd
start_agent --rootfs "$R" --http "127.0.0.1:$HTTP_PORT"
wait_agent

k8s_is() {  # ALLOCATABLE SOURCE ALLOCATED RATE
    [ "$(snmp_value "$K8S.2.0")" = "$1" ] && [ "$(snmp_value "$K8S.6.0")" = "$2" ] &&
        [ "$(snmp_value "$K8S.3.0")" = "$3" ] && [ "$(snmp_value "$K8S.4.0")" = "$4" ]
}
said() { for c in 1 2 3 4 5 6; do printf '%s=%s ' "$c" "$(snmp_value "$K8S.$c.0")"; done; }
wait_until 15 k8s_is "$WANT_ALLOC" 1 "$WANT_USED" "$WANT_RATE" ||
    fail "primusKubernetes: $(said), want 2=$WANT_ALLOC 6=1 3=$WANT_USED 4=$WANT_RATE"
snmp_value "$K8S.1.0" | grep -q "No Such Instance" ||
    fail "primusK8sNodeName '$(snmp_value "$K8S.1.0")' with no kubelet and no nodeName, want absent"
snmp_value "$K8S.5.0" | grep -q "No Such Instance" ||
    fail "primusK8sPodCount '$(snmp_value "$K8S.5.0")' without the kubelet, want absent"
ok "no kubeletUrl: allocatable $WANT_ALLOC (the kubelet's count), source podResources(1), allocated $WANT_USED, rate $WANT_RATE; node name and pod count absent"

curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics" || fail "no /metrics"
for want in "primus_k8s_gpus_allocatable $WANT_ALLOC" "primus_k8s_gpus_allocated $WANT_USED" \
            'primus_k8s_gpus_allocatable_source{source="podResources"} 1' \
            "primus_k8s_gpu_allocation_ratio $(awk -v r="$WANT_RATE" 'BEGIN { print r / 10000 }')"; do
    grep -qxF "$want" "$WORK/metrics" || fail "bridge lacks '$want': $(grep '^primus_k8s' "$WORK/metrics")"
done
! grep -q '^primus_k8s_pods_running' "$WORK/metrics" ||
    fail "bridge serves a pod count no source knows: $(grep '^primus_k8s_pods' "$WORK/metrics")"
# An empty label is no label to Prometheus: the node is a Kubernetes node of no known name.
[ "$(grep '^primus_k8s_node_info' "$WORK/metrics")" = 'primus_k8s_node_info{node=""} 1' ] ||
    fail "bridge node info: $(grep '^primus_k8s_node_info' "$WORK/metrics")"
ok "bridge agrees: allocatable, allocated, source and ratio; no pod count; node info without a name"

# nodeName configured: the name is known, and served.
stop_agent_now
write_conf nodeName gpu-node-7
start_agent --rootfs "$R" --http "127.0.0.1:$HTTP_PORT"
wait_agent
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $K8S.1.0)\" = '\"gpu-node-7\"' ]" ||
    fail "primusK8sNodeName '$(snmp_value "$K8S.1.0")' with nodeName gpu-node-7"
curl -s --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics" > "$WORK/metrics" || fail "no /metrics"
grep -q '^primus_k8s_node_info{.*node="gpu-node-7".*} 1$' "$WORK/metrics" ||
    fail "bridge node info: $(grep '^primus_k8s_node_info' "$WORK/metrics")"
ok "nodeName gpu-node-7: primusK8sNodeName and primus_k8s_node_info serve it"

# A kubelet before 1.23 (no GetAllocatableResources) and no kubeletUrl: no
# source counts allocatable GPUs, so that and the ratio are absent; allocated
# still comes from List.
podres_control no-allocatable
absent_alloc() {
    snmp_value "$K8S.2.0" | grep -q "No Such Instance" && snmp_value "$K8S.6.0" | grep -q "No Such Instance" &&
        [ "$(snmp_value "$K8S.3.0")" = "$WANT_USED" ]
}
wait_until 15 absent_alloc || fail "no GetAllocatableResources: $(said), want 2 and 6 absent, 3=$WANT_USED"
ok "no GetAllocatableResources: allocatable and its source absent, allocated $WANT_USED"

# The socket goes away for good: the last snapshot is served until it is
# stale, then the group goes (not a row of zeros).
podres_control ok
wait_until 15 k8s_is "$WANT_ALLOC" 1 "$WANT_USED" "$WANT_RATE" || fail "did not recover: $(said)"
kill "$PODRES_PID"; wait "$PODRES_PID" 2>/dev/null
rm -f "$PODRES_SOCK"
POLLER_STATUS="$OBJ.4.10.1.9.8"   # primusPollerStatus of podresources: 2 failing
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $POLLER_STATUS)\" = 2 ]" ||
    fail "podresources poller '$(snmp_value "$POLLER_STATUS")' with the socket gone, want failing(2)"
k8s_is "$WANT_ALLOC" 1 "$WANT_USED" "$WANT_RATE" || fail "last good values not kept: $(said)"
ok "server gone: the poller fails, the last values are still served"
