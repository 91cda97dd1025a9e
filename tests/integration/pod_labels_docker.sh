#!/bin/bash
# Pod labels without a kubelet: a private dockerd (docker_lib.sh) runs pod
# sandbox containers labelled as cri-dockerd labels them (the pod's own
# labels, the kubelet's io.kubernetes.* ones, the pod's annotations as
# "annotation.<key>"; no recorded cri-dockerd sandbox exists, so the labels
# are written from its naming scheme) and an ordinary container of the pod.
# The agent, with no kubeletUrl, serves the sandboxes' allowed labels:
# primusPodLabelTable through a real snmpd, primus_pod_labels_info and
# /podLabels, each compared with `docker inspect` read independently.
# Annotations and the kubelet's labels are never served, even where a
# pattern names them; labels no pattern names appear nowhere.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
. "$(dirname "$0")/docker_lib.sh"
need_dockerd
command -v /usr/bin/python3 >/dev/null || skip "python3 not installed"
PY=/usr/bin/python3
LIB="$top_srcdir/tests/integration/pod_labels_lib.py"
start_dockerd
IMAGE=pna-busybox:test
busybox_image "$IMAGE"
trap 'dk_cleanup' EXIT

PATTERNS="team,queue,app.kubernetes.io/*,annotation.*,io.kubernetes.*"
cat > "$WORK/agent.conf" <<CONF
dockerSocket $DK/docker.sock
containerdState ${DK_TASKS%/io.containerd.runtime.v2.task/moby}
pollInterval containers 2
podLabels $PATTERNS
CONF
start_snmpd
start_http_agent
wait_agent
wait_http

UID1=4f1b6a52-0c7e-4d8e-9a41-7b2f0a9c1d01
UID2=4f1b6a52-0c7e-4d8e-9a41-7b2f0a9c1d02
sandbox() { # NAME UID NAMESPACE LABEL=VALUE...
    local name=$1 uid=$2 ns=$3; shift 3
    local args=(--label io.kubernetes.docker.type=podsandbox --label io.kubernetes.pod.name="$name"
        --label io.kubernetes.pod.namespace="$ns" --label io.kubernetes.pod.uid="$uid"
        --label io.kubernetes.container.name=POD)
    for l in "$@"; do args+=(--label "$l"); done
    $DOCKER run -d --network none --name "k8s_POD_${name}_${ns}_${uid}_0" "${args[@]}" "$IMAGE" sleep 600
}
sandbox trainer-0 "$UID1" ml team=vision queue=gpu-a app.kubernetes.io/name=trainer \
    owner-email=nobody-should-see-this 'annotation.kubernetes.io/config.seen=2026-12-07T20:00:00Z' \
    annotation.secret-token=annotation-value-never-served >/dev/null || fail "docker run (sandbox 1)"
sandbox eval-7 "$UID2" ml team=eval app.kubernetes.io/instance=e7 >/dev/null || fail "docker run (sandbox 2)"
# An ordinary container of the first pod: its labels are not the pod's.
$DOCKER run -d --network none --name "k8s_main_trainer-0_ml_${UID1}_0" \
    --label io.kubernetes.docker.type=container --label io.kubernetes.pod.uid="$UID1" \
    --label io.kubernetes.pod.name=trainer-0 --label io.kubernetes.pod.namespace=ml \
    --label team=from-container-label "$IMAGE" sleep 600 >/dev/null || fail "docker run (container)"

LABELS="$K8S.20.1"   # primusPodLabelEntry
wait_until 20 sh -c "snmpwalk $V2 -On -Oq $TARGET $LABELS | grep -q eval" ||
    fail "primusPodLabelTable has no sandbox labels: $(snmp_walk "$LABELS" | head -3)"
$DOCKER inspect $($DOCKER ps -q) > "$WORK/inspect.json" || fail "docker inspect"
snmp_walk "$LABELS" > "$WORK/walk"
http_body /metrics > "$WORK/metrics"
http_body /podLabels > "$WORK/labels.json"
out=$($PY "$LIB" --sandboxes "$WORK/inspect.json" "$PATTERNS" "$WORK/walk" "$LABELS" \
    "$WORK/metrics" "$WORK/labels.json") || fail "the front ends differ from docker inspect: $out"
case "$(echo "$out" | tail -1)" in "5 rows 2 pods") ;; *) fail "want 5 rows of 2 pods: $out" ;; esac
ok "sandbox labels served alike by SNMP, /metrics and /podLabels: $(echo "$out" | tail -1)"

snmp_walk "$OBJ" > "$WORK/walk-all"
for path in /pods /podLabels /node; do http_body "$path"; echo; done > "$WORK/json-all"
for word in nobody-should-see-this owner-email owner_email annotation-value-never-served \
    secret-token secret_token config.seen config_seen from-container-label label_io_kubernetes; do
    for f in walk-all metrics json-all; do
        grep -qF -- "$word" "$WORK/$f" && fail "'$word' is served in $f: $(grep -F -- "$word" "$WORK/$f" | head -1)"
    done
done
ok "no annotation, kubelet label, container label or label podLabels does not name is served"

# The sandbox goes: its labels go with it.
$DOCKER rm -f "k8s_POD_eval-7_ml_${UID2}_0" >/dev/null
wait_until 15 sh -c "! snmpwalk $V2 -On -Oq $TARGET $LABELS | grep -q eval" ||
    fail "the removed sandbox's labels are still served"
ok "a removed sandbox's labels are no longer served"
echo "PASS: $TEST_NAME"
