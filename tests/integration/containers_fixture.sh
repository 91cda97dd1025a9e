#!/bin/bash
# Containers on a fixture tree, through a real snmpd: containerd bundles under
# --rootfs become primusContainerTable rows (identity from the CRI annotations,
# memory from cgroup v2 files under --sysfs, devices mapped to a GPU PCI key and
# an RDMA device), rows follow bundles as they come and go, bumping oom_kill in
# memory.events is one primusContainerOomKill trap at snmptrapd within a second
# and one event row, and node storage is statvfs of the kubelet root (checked
# against df).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/containers_lib.sh"

R="$WORK/root" S="$WORK/sys" P="$WORK/proc" D="$WORK/dev"
trainer_task "$R" "$S" "$P" "$D"

cat > "$WORK/agent.conf" <<CONF
pollInterval containers 1
CONF
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_agent --rootfs "$R" --sysfs "$S" --procfs "$P" --devfs "$D"
wait_agent
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $CONTAINERS.1.0 | grep -qx 1" ||
    fail "primusContainerCount.0 is not 1: $(snmp_value $CONTAINERS.1.0)"
ok "one container row"

IDX=$(str_index "$ID")
[ "$(snmp_value $CTR_ENTRY.3.$IDX)" = trainer ] || fail "name: $(snmp_value $CTR_ENTRY.3.$IDX)"
[ "$(snmp_value $CTR_ENTRY.4.$IDX)" = llm-0 ] || fail "pod name"
[ "$(snmp_value $CTR_ENTRY.5.$IDX)" = ml ] || fail "pod namespace"
[ "$(snmp_value $CTR_ENTRY.6.$IDX)" = uid-llm-0 ] || fail "pod uid"
[ "$(snmp_value $CTR_ENTRY.7.$IDX)" = registry.local/train:1.2 ] || fail "image"
[ "$(snmp_value $CTR_ENTRY.2.$IDX)" = 1 ] || fail "runtime is not containerd(1)"
[ "$(snmp_value $CTR_ENTRY.8.$IDX)" = 2 ] || fail "state is not running(2)"
[ "$(snmp_value $CTR_ENTRY.10.$IDX)" = /kubepods.slice/pod-llm/ctr-trainer ] || fail "cgroup path"
[ "$(snmp_value $CTR_ENTRY.11.$IDX)" = "$(cat "$CG/memory.current")" ] || fail "memory usage != memory.current"
[ "$(snmp_value $CTR_ENTRY.12.$IDX)" = "$(cat "$CG/memory.max")" ] || fail "memory limit != memory.max"
ws=$(( $(cat "$CG/memory.current") - $(awk '$1 == "inactive_file" {print $2}' "$CG/memory.stat") ))
[ "$(snmp_value $CTR_ENTRY.17.$IDX)" = "$ws" ] || fail "working set $(snmp_value $CTR_ENTRY.17.$IDX) != memory.current - inactive_file ($ws)"
[ "$(snmp_value $CTR_ENTRY.13.$IDX)" = 0 ] || fail "oom kills not 0"
[ "$(snmp_value $CTR_ENTRY.14.$IDX)" = 1 ] || fail "gpu count not 1"
[ "$(snmp_value $CTR_ENTRY.15.$IDX)" = 1 ] || fail "rdma count not 1"
[ "$(snmp_value $CTR_ENTRY.16.$IDX)" = k8s.io ] || fail "runtime namespace"
ok "container columns match the bundle and the cgroup files"
snmp_walk "$CONTAINERS" | grep -q TOPSECRET && fail "a secret from env/args/annotations is served"
ok "nothing from env, args or foreign annotations"

R128=$(str_index /dev/dri/renderD128)
UV0=$(str_index /dev/infiniband/uverbs0)
[ "$(snmp_value $DEV_ENTRY.2.$IDX.$R128)" = 1 ] || fail "renderD128 is not gpu(1)"
[ "$(snmp_value $DEV_ENTRY.3.$IDX.$R128)" = 226 ] || fail "renderD128 major"
[ "$(snmp_value $DEV_ENTRY.4.$IDX.$R128)" = 128 ] || fail "renderD128 minor"
[ "$(snmp_value $DEV_ENTRY.5.$IDX.$R128)" = $(( 0xc1 << 8 )) ] || fail "renderD128 not mapped to the GPU at 0000:c1:00.0"
[ "$(snmp_value $DEV_ENTRY.2.$IDX.$UV0)" = 2 ] || fail "uverbs0 is not rdma(2)"
[ "$(snmp_value $DEV_ENTRY.6.$IDX.$UV0)" = mlx5_0 ] || fail "uverbs0 not mapped to mlx5_0"
ok "device table: renderD128 -> GPU 0000:c1:00.0, uverbs0 -> mlx5_0"

# Bundles come and go; the living row keeps its index.
ID2=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
mkdir -p "$TASKS/k8s.io/$ID2"
trainer_spec loader llm-1 /dev/dri/renderD129 > "$TASKS/k8s.io/$ID2/config.json.tmp"
mv "$TASKS/k8s.io/$ID2/config.json.tmp" "$TASKS/k8s.io/$ID2/config.json"
t0=$(now_ms)
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $CONTAINERS.1.0 | grep -qx 2" || fail "new bundle: no second row"
echo "row appeared after $(( $(now_ms) - t0 )) ms"
[ "$(snmp_value $CTR_ENTRY.3.$(str_index $ID2))" = loader ] || fail "second row name"
[ "$(snmp_value $CTR_ENTRY.8.$(str_index $ID2))" = 1 ] || fail "second row not created(1) (no init.pid)"
rm -rf "$TASKS/k8s.io/$ID2"
t0=$(now_ms)
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $CONTAINERS.1.0 | grep -qx 1" || fail "removed bundle: row stays"
echo "row vanished after $(( $(now_ms) - t0 )) ms"
[ "$(snmp_value $CTR_ENTRY.3.$IDX)" = trainer ] || fail "first row lost its index"
ok "rows follow bundles"

# An OOM kill: one trap within a second, one event row.
sleep 1.2   # the watch is armed at the poll that found the container
t0=$(now_ms)
printf 'low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\noom_group_kill 0\n' > "$CG/memory.events"
for _ in $(seq 100); do grep -q "$NOTIFY.5\b" "$WORK/traps.log" && break; sleep 0.02; done
took=$(( $(now_ms) - t0 ))
grep -q "$NOTIFY.5\b" "$WORK/traps.log" || fail "no primusContainerOomKill trap"
echo "OOM kill -> trap at snmptrapd in $took ms"
[ "$took" -lt 1000 ] || fail "trap took $took ms"
trap_text=$(grep -A30 "$NOTIFY.5\b" "$WORK/traps.log")
echo "$trap_text" | grep -q "$CTR_ENTRY.3.$IDX = STRING: \"trainer\"" || fail "trap lacks the container name"
echo "$trap_text" | grep -q "$CTR_ENTRY.4.$IDX = STRING: \"llm-0\"" || fail "trap lacks the pod"
echo "$trap_text" | grep -q "$CTR_ENTRY.5.$IDX = STRING: \"ml\"" || fail "trap lacks the namespace"
echo "$trap_text" | grep -q "$CTR_ENTRY.13.$IDX = Counter64: 1" || fail "trap lacks the kill count 1"
ok "primusContainerOomKill: trainer, llm-0, ml, kills 1"
sleep 2.5   # polls read the same count: no second trap
[ "$(grep -c "$NOTIFY.5\b" "$WORK/traps.log")" -eq 1 ] || fail "more than one trap for one kill"
[ "$(snmp_value $CTR_ENTRY.13.$IDX)" = 1 ] || fail "oom kills column not 1"
[ "$(snmp_value $CONTAINERS.2.0)" = 1 ] || fail "primusContainerOomKillsTotal not 1"
events=$(snmp_walk $OBJ.4.20.1.3)
echo "$events" | awk '{print $NF}' | grep -qx 5 || fail "no containerOomKill(5) event row: $events"
ok "one trap, one event row, counters at 1"

# Node storage without a kubelet: statvfs of the kubelet root, as df sees it.
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $STORAGE.5.0 | grep -qx 2" || fail "storage source is not statvfs(2)"
read -r size used avail < <(df -B1 --output=size,used,avail "$R/var/lib/kubelet" | tail -n 1)
[ "$(snmp_value $STORAGE.1.0)" = "$size" ] || fail "capacity $(snmp_value $STORAGE.1.0) != df $size"
[ "$(snmp_value $STORAGE.6.0)" = /var/lib/kubelet ] || fail "storage path"
served_used=$(snmp_value $STORAGE.3.0)
diff=$(( served_used > used ? served_used - used : used - served_used ))
[ "$diff" -lt $(( 256 << 20 )) ] || fail "used $served_used far from df $used"
ok "node storage from statvfs matches df ($size bytes)"
echo "PASS: $TEST_NAME"
