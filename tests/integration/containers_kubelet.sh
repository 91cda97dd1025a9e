#!/bin/bash
# Kubernetes through a real snmpd: a kubelet stand-in (Python's http.server
# serving the recorded /pods and /stats/summary of a v1.35 node) feeds
# primusKubernetes, primusPodStorageTable and the node storage scalars
# (source kubelet), each checked against the recorded JSON read independently.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/containers_lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (serves the recorded kubelet responses)"

K="$WORK/kubelet"
FIX="$PNA_FIXTURES/kubelet/nri-kubernetes-k8s-1.35"
mkdir -p "$K/stats" "$WORK/root/var/lib/kubelet" "$WORK/dev"
cp "$FIX/pods.json" "$K/pods"
cp "$FIX/stats-summary.json" "$K/stats/summary"
for i in 0 1 2 3; do : > "$WORK/dev/nvidia$i"; done   # four GPUs on this "node"
KPORT=$(( (RANDOM % 20000) + 10000 ))  # below the ephemeral range (32768-60999)
python3 -m http.server "$KPORT" --bind 127.0.0.1 --directory "$K" >"$WORK/kubelet.log" 2>&1 &
KPID=$!
PIDS+=("$KPID")
wait_for "kubelet stand-in" python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$KPORT/pods')"

# What the recorded responses say, read with Python's json module.
read -r NODE CAP AVAIL USED RUNNING <<<"$(python3 - "$FIX" <<'PY'
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/stats-summary.json"))
p = json.load(open(d + "/pods.json"))
fs = s["node"]["fs"]
running = sum(1 for i in p["items"] if i["status"].get("phase") == "Running")
print(s["node"]["nodeName"], fs["capacityBytes"], fs["availableBytes"], fs["usedBytes"], running)
PY
)"

cat > "$WORK/agent.conf" <<CONF
kubeletUrl http://127.0.0.1:$KPORT
kubeletTokenFile $WORK/no-token
pollInterval kubelet 2
CONF
start_snmpd
start_agent --rootfs "$WORK/root" --devfs "$WORK/dev"
wait_agent
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $K8S.1.0 | grep -q $NODE" ||
    fail "primusK8sNodeName.0 is not $NODE: $(snmp_value $K8S.1.0)"
[ "$(snmp_value $K8S.2.0)" = 4 ] || fail "GPU allocatable $(snmp_value $K8S.2.0), want 4"
[ "$(snmp_value $K8S.3.0)" = 0 ] || fail "GPU allocated $(snmp_value $K8S.3.0), want 0"
[ "$(snmp_value $K8S.4.0)" = 0 ] || fail "GPU allocation rate $(snmp_value $K8S.4.0), want 0"
[ "$(snmp_value $K8S.5.0)" = "$RUNNING" ] || fail "pod count $(snmp_value $K8S.5.0), want $RUNNING"
ok "primusKubernetes: $NODE, 4 GPUs, 0 allocated, $RUNNING running pods"

wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $STORAGE.5.0 | grep -qx 1" || fail "storage source is not kubelet(1)"
[ "$(snmp_value $STORAGE.1.0)" = "$CAP" ] || fail "capacity $(snmp_value $STORAGE.1.0) != $CAP"
[ "$(snmp_value $STORAGE.2.0)" = "$AVAIL" ] || fail "available"
[ "$(snmp_value $STORAGE.3.0)" = "$USED" ] || fail "used"
[ "$(snmp_value $STORAGE.4.0)" = $(( (USED * 10000 + CAP / 2) / CAP )) ] || fail "usage"
ok "node storage from the kubelet: $USED of $CAP bytes"

# Every pod of the summary: its ephemeral storage row.
python3 - "$FIX/stats-summary.json" > "$WORK/want-pods" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["pods"]:
    e = p.get("ephemeral-storage", {})
    print(p["podRef"]["uid"], p["podRef"]["name"], e.get("usedBytes"), e.get("inodesUsed"))
PY
n=0
while read -r uid name used inodes; do
    idx=$(str_index "$uid")
    [ "$(snmp_value $POD_ENTRY.2.$idx)" = "$name" ] || fail "pod $uid name"
    [ "$(snmp_value $POD_ENTRY.4.$idx)" = "$used" ] || fail "pod $name used $(snmp_value $POD_ENTRY.4.$idx) != $used"
    [ "$(snmp_value $POD_ENTRY.5.$idx)" = "$inodes" ] || fail "pod $name inodes"
    n=$((n + 1))
done < "$WORK/want-pods"
[ "$n" -gt 10 ] || fail "only $n pods checked"
ok "primusPodStorageTable: $n pods match /stats/summary"

# The kubelet goes away: the last good data stays until staleAfter.
kill "$KPID"
sleep 3
[ "$(snmp_value $K8S.1.0)" = "$NODE" ] || fail "node name lost when the kubelet stopped"
snmp_walk "$OBJ.4.10.1.2" | grep -q kubelet || fail "no kubelet poller row"
ok "kubelet gone: last good data still served"
echo "PASS: $TEST_NAME"
