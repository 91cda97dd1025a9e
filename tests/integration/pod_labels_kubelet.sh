#!/bin/bash
# Pod labels from the kubelet, through a real snmpd, the HTTP bridge and a
# real Prometheus: a kubelet stand-in (Python's http.server) serves the
# recorded /pods of a v1.35 node; podLabels allows a few keys and a glob.
# primusPodLabelTable (snmpwalk), primus_pod_labels_info (/metrics) and
# /podLabels (JSON) are each compared with what the recorded JSON says,
# read independently (pod_labels_lib.py); labels no pattern names appear
# nowhere; Prometheus joins a label onto a pod's figure.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
command -v /usr/bin/python3 >/dev/null || skip "python3 not installed (serves the recorded kubelet responses)"
PY=/usr/bin/python3
LIB="$top_srcdir/tests/integration/pod_labels_lib.py"

K="$WORK/kubelet"
FIX="$PNA_FIXTURES/kubelet/nri-kubernetes-k8s-1.35"
mkdir -p "$WORK/root/var/lib/kubelet"
kubelet_recorded "$K"
start_kubelet "$K"

PATTERNS="app,job-name,app.kubernetes.io/*,statefulset.kubernetes.io/pod-name"
# for the second pod list, built below
PATTERNS="$PATTERNS,bulk-*,team,queue,team.io/queue,team-io/queue,jobName,job_name,*.example.com/*"
cat > "$WORK/agent.conf" <<CONF
kubeletUrl http://127.0.0.1:$KPORT
kubeletTokenFile $WORK/no-token
pollInterval kubelet 2
podLabels app,job-name
podLabels app.kubernetes.io/* statefulset.kubernetes.io/pod-name
podLabels bulk-*,team,queue,team.io/queue,team-io/queue,jobName,job_name *.example.com/*
CONF
start_snmpd
start_http_agent --rootfs "$WORK/root"
wait_agent
wait_http
LABELS="$K8S.20.1"   # primusPodLabelEntry
wait_until 30 sh -c "snmpwalk $V2 -On -Oq $TARGET $LABELS | grep -q '^$LABELS\\.'" || fail "primusPodLabelTable is empty"

snmp_walk "$LABELS" > "$WORK/walk"
http_body /metrics > "$WORK/metrics"
http_body /podLabels > "$WORK/labels.json"
out=$($PY "$LIB" "$FIX/pods.json" "$PATTERNS" "$WORK/walk" "$LABELS" "$WORK/metrics" \
    "$WORK/labels.json") || fail "the front ends differ from the pod list: $out"
n=$(echo "$out" | tail -1)
case "$n" in 0\ *|*\ 0\ pods) fail "nothing compared: $n" ;; esac
ok "primusPodLabelTable, primus_pod_labels_info and /podLabels agree with /pods: $n"

# A value series carries no pod label: the labels are on the info series only.
others=$(grep -v -e '^#' -e '^primus_pod_labels_info{' "$WORK/metrics" | grep -E '[{,]label_[a-z0-9_]*=')
[ -z "$others" ] || fail "a label_ label outside primus_pod_labels_info: $(echo "$others" | head -2)"
ok "no value series carries a pod label"

# Keys no pattern names (and their values where no other field has them)
# are nowhere: not in the walk of the whole MIB, /metrics or any JSON.
snmp_walk "$OBJ" > "$WORK/walk-all"
for path in /pods /podLabels /node /health; do http_body "$path"; echo; done > "$WORK/json-all"
for word in pod-template-hash pod_template_hash controller-uid controller_uid helm.sh helm_sh \
    kube-state-metrics-6.1.5 9a709939-4c71-4c8d-a23d-c319134e80e1 e2e-statefulset-65bd577f59 \
    k8s-app k8s_app integration-test; do
    for f in walk-all metrics json-all; do
        grep -qF -- "$word" "$WORK/$f" && fail "'$word', not allowed, is served in $f: $(grep -F -- "$word" "$WORK/$f" | head -1)"
    done
done
ok "labels that podLabels does not name are served nowhere"

# The join of docs/metrics.md, in a real Prometheus: a pod's figure with
# the pod's label_app beside it.
if command -v prometheus >/dev/null; then
    PPORT=$(free_tcp_port)
    cat > "$WORK/prometheus.yml" <<YML
global: { scrape_interval: 1s }
scrape_configs:
  - job_name: agent
    static_configs: [ { targets: ["127.0.0.1:$HTTP_PORT"] } ]
YML
    start_prometheus "$WORK/prometheus.yml" "$PPORT"
    JOIN='primus_pod_ephemeral_storage_used_bytes * on(namespace,pod) group_left(label_app) primus_pod_labels_info'
    wait_until 30 sh -c "curl -sS '$PROM/api/v1/query' --data-urlencode 'query=$JOIN' | grep -q label_app" ||
        fail "the join gave nothing: $(query "$JOIN")"
    query "$JOIN" > "$WORK/join.json"
    $PY - "$WORK/join.json" "$FIX/pods.json" "$FIX/stats-summary.json" "$LIB" "$PATTERNS" <<'PY' ||
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[4]))
import pod_labels_lib
served = {(ns, pod) for (ns, pod, _v) in
          pod_labels_lib.expected_from_pods(sys.argv[2], sys.argv[5].split(",")).values()}
res = json.load(open(sys.argv[1]))["data"]["result"]
pods = {(i["metadata"]["namespace"], i["metadata"]["name"]): i["metadata"].get("labels", {})
        for i in json.load(open(sys.argv[2]))["items"]}
used = {(p["podRef"]["namespace"], p["podRef"]["name"]): p.get("ephemeral-storage", {}).get("usedBytes")
        for p in json.load(open(sys.argv[3]))["pods"]}
assert res, "no result"
for r in res:
    m = r["metric"]
    key = (m["namespace"], m["pod"])
    assert m.get("label_app") == pods[key].get("app"), (m, pods[key])
    assert float(r["value"][1]) == used[key], (r, used[key])
want = sum(1 for k in served if used.get(k) is not None)
assert len(res) == want, (len(res), want)
print(len(res), "pods")
PY
        fail "the join's answer is wrong"
    ok "Prometheus joins label_app onto primus_pod_ephemeral_storage_used_bytes"
else
    echo "# prometheus not installed: the live join is not run (Debian: prometheus)"
fi
# Bad input.  No recorded pod list has these, so this one is built from the
# PodList schema: a pod with 5,000 labels, one whose label value is 64 KiB,
# keys that kube-state-metrics' rule gives one name, and a key of 244
# characters (indexed by its head and hash).  Each label left out is counted
# and named in the kubelet poller's row; the rest is served, bounded.
$PY - "$K/pods" <<'PY'
import json, sys
def pod(name, uid, labels):
    return {"metadata": {"name": name, "namespace": "batch", "uid": uid, "labels": labels},
            "spec": {"containers": []}, "status": {"phase": "Running"}}
items = [
    pod("bulk", "00000000-0000-4000-8000-000000000001", {"bulk-%04d" % i: "v%d" % i for i in range(5000)}),
    pod("huge", "00000000-0000-4000-8000-000000000002", {"team": "x" * 65536, "queue": "gpu-a"}),
    pod("conflict", "00000000-0000-4000-8000-000000000003",
        {"team.io/queue": "q1", "team-io/queue": "q2", "jobName": "j1", "job_name": "j2"}),
    pod("long", "00000000-0000-4000-8000-000000000004",
        {"a" * 200 + ".example.com/" + "n" * 31: "long", "b.example.com/x": "short"}),
]
json.dump({"kind": "PodList", "apiVersion": "v1", "items": items}, open(sys.argv[1], "w"))
PY
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.4.10.1.7.6 | grep -q 'pod labels not served'" ||
    fail "the kubelet poller's row does not name the labels left out: $(snmp_value $OBJ.4.10.1.7.6)"
wait_until 10 sh -c "snmpwalk $V2 -On -Oq $TARGET $LABELS | grep -q 'bulk-0063'" || fail "no bulk rows"
err=$(snmp_value "$OBJ.4.10.1.7.6")
case "$err" in *"4937 pod labels not served"*) ;; *) fail "poller row: '$err', want 4937 left out" ;; esac
ok "kubelet poller row: $err"
snmp_walk "$LABELS" > "$WORK/walk"
http_body /metrics > "$WORK/metrics"
http_body /podLabels > "$WORK/labels.json"
out=$($PY "$LIB" "$K/pods" "$PATTERNS" "$WORK/walk" "$LABELS" "$WORK/metrics" "$WORK/labels.json") ||
    fail "the front ends differ from the built pod list: $out"
ok "built pod list: $(echo "$out" | tail -1) (64 of 5,000 labels, no 64 KiB value, conflicts, a hashed key)"
grep -q 'xxxxxxxxxxxxxxxx' "$WORK/walk" "$WORK/metrics" "$WORK/labels.json" && fail "the 64 KiB value is served"
conflict=$(grep 'pod="conflict"' "$WORK/metrics")
for want in 'label_team_io_queue_conflict1="q2"' 'label_team_io_queue_conflict2="q1"' \
    'label_job_name_conflict1="j1"' 'label_job_name_conflict2="j2"'; do
    echo "$conflict" | grep -qF "$want" ||
        fail "conflicting keys not named as kube-state-metrics names them ($want): $conflict"
done
grep -q "$(str_index 00000000-0000-4000-8000-000000000004).48.$(str_index aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | cut -d. -f2-).126." "$WORK/walk" ||
    fail "the long key is not indexed by its head, '~' and hash"
ok "bad input bounded; conflicts get _conflictN; a long key is indexed by its head and hash"
kill -0 "$AGENT_PID" || fail "the agent died"

echo "PASS: $TEST_NAME"
