#!/bin/bash
# A real containerd: a private containerd (own root, state and sockets, CRI
# plugin off) imports an image built here from busybox-static's binary, runs a
# container with a memory limit and /dev/zero passed in, and then one that is
# OOM-killed under a 32 MiB limit.  The agent must show the row (name, state,
# cgroup path, memory limit from the cgroup, the device with its numbers)
# within seconds, paused(3) while `ctr tasks pause` holds it frozen, send one primusContainerOomKill trap to snmptrapd within a
# second of the kill, and drop the rows when the tasks are deleted.
# Skips, saying why, where containerd cannot run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/containers_lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root to run containerd"
for tool in containerd ctr runc containerd-shim-runc-v2 busybox sha256sum tar; do
    command -v "$tool" >/dev/null || skip "$tool not installed (Debian: containerd runc busybox-static)"
done
BUSYBOX=$(command -v busybox)
ldd "$BUSYBOX" >/dev/null 2>&1 && skip "$BUSYBOX is not static (Debian: busybox-static)"

NS="pnatest$$"
CTD="$WORK/ctd"
SOCK="$CTD/containerd.sock"
STATE="$CTD/state"
CTR="ctr -a $SOCK -n $NS"
IMAGE=docker.io/library/pna-busybox:test
CTD_PID=""

ctd_cleanup() {
    if [ -S "$SOCK" ]; then
        for t in $($CTR tasks ls -q 2>/dev/null); do $CTR tasks kill -s KILL "$t" >/dev/null 2>&1; done
        sleep 0.5
        for t in $($CTR tasks ls -q 2>/dev/null); do $CTR tasks delete -f "$t" >/dev/null 2>&1; done
        for c in $($CTR containers ls -q 2>/dev/null); do $CTR containers delete "$c" >/dev/null 2>&1; done
    fi
    [ -n "$CTD_PID" ] && kill "$CTD_PID" 2>/dev/null
    # runc leaves /<namespace>/<id> cgroups in every v1 hierarchy.
    for h in /sys/fs/cgroup/*/"$NS" /sys/fs/cgroup/"$NS"; do
        [ -d "$h" ] || continue
        for c in "$h"/*/; do [ -d "$c" ] && rmdir "$c" 2>/dev/null; done
        rmdir "$h" 2>/dev/null
    done
    cleanup
}
trap ctd_cleanup EXIT

mkdir -p "$CTD"
cat > "$CTD/config.toml" <<CONF
version = 2
root = "$CTD/root"
state = "$STATE"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
CONF
containerd -c "$CTD/config.toml" --log-level warn >"$WORK/containerd.log" 2>&1 &
CTD_PID=$!
wait_until 15 ctr -a "$SOCK" version ||
    skip "containerd did not start here: $(tail -n 3 "$WORK/containerd.log" | tr '\n' ' ')"

# An OCI image layout made by hand: one uncompressed layer with busybox.
L="$WORK/layer" I="$WORK/img"
mkdir -p "$L/bin" "$I/blobs/sha256"
cp "$BUSYBOX" "$L/bin/busybox"
for a in sh sleep dd cat; do ln -s busybox "$L/bin/$a"; done
tar -C "$L" -cf "$WORK/layer.tar" .
blob() { local d; d=$(sha256sum "$1" | cut -d' ' -f1); cp "$1" "$I/blobs/sha256/$d"; echo "$d $(stat -c %s "$1")"; }
read -r LD LS <<<"$(blob "$WORK/layer.tar")"
printf '{"architecture":"%s","os":"linux","config":{"Cmd":["/bin/sh"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$(dpkg --print-architecture 2>/dev/null || echo amd64)" "$LD" > "$WORK/config.json"
read -r CD CS <<<"$(blob "$WORK/config.json")"
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$CD" "$CS" "$LD" "$LS" > "$WORK/manifest.json"
read -r MD MS <<<"$(blob "$WORK/manifest.json")"
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"test"}}]}' \
    "$MD" "$MS" "$IMAGE" > "$I/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' > "$I/oci-layout"
tar -C "$I" -cf "$WORK/image.tar" .
$CTR images import "$WORK/image.tar" >"$WORK/import.log" 2>&1 ||
    skip "ctr images import failed here: $(tail -n 2 "$WORK/import.log" | tr '\n' ' ')"

cat > "$WORK/agent.conf" <<CONF
pollInterval containers 1
containerdState $STATE
CONF
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_agent
wait_agent

# A running container with a memory limit and a device.
$CTR run -d --memory-limit 67108864 --device /dev/zero "$IMAGE" pna-sleep /bin/sleep 600 \
    >"$WORK/run.log" 2>&1 || skip "ctr run failed here: $(tail -n 2 "$WORK/run.log" | tr '\n' ' ')"
IDX=$(str_index pna-sleep)
t0=$(now_ms)
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.8.$IDX | grep -qx 2" ||
    fail "pna-sleep not served as running(2): $(snmp_value $CTR_ENTRY.8.$IDX)"
echo "running container served $(( $(now_ms) - t0 )) ms after ctr run returned"
PID=$(cat "$STATE/io.containerd.runtime.v2.task/$NS/pna-sleep/init.pid")
CGPATH=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' "/proc/$PID/cgroup")
[ -n "$CGPATH" ] || CGPATH=$(awk -F: '$1 == "0" {print $3}' "/proc/$PID/cgroup")
if [ -d "/sys/fs/cgroup/memory" ]; then MEMCG="/sys/fs/cgroup/memory$CGPATH"; LIMF=memory.limit_in_bytes
else MEMCG="/sys/fs/cgroup$CGPATH"; LIMF=memory.max; fi
[ "$(snmp_value $CTR_ENTRY.3.$IDX)" = pna-sleep ] || fail "name"
[ "$(snmp_value $CTR_ENTRY.16.$IDX)" = "$NS" ] || fail "runtime namespace $(snmp_value $CTR_ENTRY.16.$IDX)"
[ "$(snmp_value $CTR_ENTRY.10.$IDX)" = "$CGPATH" ] || fail "cgroup path $(snmp_value $CTR_ENTRY.10.$IDX) != $CGPATH"
[ "$(snmp_value $CTR_ENTRY.12.$IDX)" = "$(cat "$MEMCG/$LIMF")" ] || fail "memory limit != $MEMCG/$LIMF"
[ "$(snmp_value $CTR_ENTRY.12.$IDX)" = 67108864 ] || fail "memory limit is not the 64 MiB asked for"
[ "$(snmp_value $CTR_ENTRY.11.$IDX)" -gt 0 ] || fail "memory usage not above 0"
start=$(snmp_value $CTR_ENTRY.9.$IDX)
[ $(( $(date +%s) - start )) -lt 120 ] || fail "start time $start is not recent"
ok "pna-sleep: running, $CGPATH, limit 64 MiB as the cgroup says"
ZERO=$(str_index /dev/zero)
[ "$(snmp_value $DEV_ENTRY.2.$IDX.$ZERO)" = 3 ] || fail "/dev/zero is not other(3)"
[ "$(snmp_value $DEV_ENTRY.3.$IDX.$ZERO)" = $((16#$(stat -c %t /dev/zero))) ] || fail "/dev/zero major"
[ "$(snmp_value $DEV_ENTRY.4.$IDX.$ZERO)" = $((16#$(stat -c %T /dev/zero))) ] || fail "/dev/zero minor"
ok "device table: /dev/zero $(stat -c '%t:%T' /dev/zero) passed in"

# ctr task pause freezes the task's cgroup (runc): paused(3), as the freezer
# says; resume: running(2) again.
if $CTR tasks pause pna-sleep >"$WORK/pause.log" 2>&1; then
    if [ -d /sys/fs/cgroup/freezer ]; then FRZ="/sys/fs/cgroup/freezer$CGPATH/freezer.state"
    else FRZ="/sys/fs/cgroup$CGPATH/cgroup.events"; fi
    grep -qE '^(FROZEN|frozen 1)$' "$FRZ" || fail "ctr paused pna-sleep but $FRZ says $(cat "$FRZ")"
    [ "$($CTR tasks ls | awk '$1 == "pna-sleep" {print $3}')" = PAUSED ] || fail "ctr does not list PAUSED"
    wait_until 5 sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.8.$IDX | grep -qx 3" ||
        fail "paused task not served as paused(3): $(snmp_value $CTR_ENTRY.8.$IDX)"
    $CTR tasks resume pna-sleep >>"$WORK/pause.log" 2>&1 || fail "ctr tasks resume: $(tail -n 1 "$WORK/pause.log")"
    wait_until 5 sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.8.$IDX | grep -qx 2" ||
        fail "resumed task not served as running(2): $(snmp_value $CTR_ENTRY.8.$IDX)"
    ok "ctr tasks pause -> paused(3) ($(basename "$FRZ") frozen), resume -> running(2)"
else
    echo "note: ctr tasks pause does not work here ($(tail -n 1 "$WORK/pause.log")): paused state not checked"
fi

# A real OOM kill: dd wants a 256 MiB buffer under a 32 MiB limit.
$CTR run -d --memory-limit 33554432 "$IMAGE" pna-oom /bin/sh -c \
    'sleep 2; dd if=/dev/zero of=/dev/null bs=256M count=1' >>"$WORK/run.log" 2>&1 || fail "ctr run pna-oom"
OIDX=$(str_index pna-oom)
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.8.$OIDX | grep -qx 2" || fail "pna-oom not served"
OPID=$(cat "$STATE/io.containerd.runtime.v2.task/$NS/pna-oom/init.pid")
OCG=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' "/proc/$OPID/cgroup" 2>/dev/null)
if [ -n "$OCG" ]; then OOMF="/sys/fs/cgroup/memory$OCG/memory.oom_control"
else OOMF="/sys/fs/cgroup$(awk -F: '$1 == "0" {print $3}' "/proc/$OPID/cgroup")/memory.events"; fi
t_kill=""
for _ in $(seq 500); do
    if grep -q '^oom_kill [1-9]' "$OOMF" 2>/dev/null; then t_kill=$(now_ms); break; fi
    sleep 0.01
done
[ -n "$t_kill" ] || fail "no OOM kill in $OOMF"
for _ in $(seq 150); do grep -q "$NOTIFY.5\b" "$WORK/traps.log" && break; sleep 0.01; done
t_trap=$(now_ms)
grep -q "$NOTIFY.5\b" "$WORK/traps.log" || fail "no primusContainerOomKill trap"
echo "OOM kill -> trap at snmptrapd: about $(( t_trap - t_kill )) ms"
[ $(( t_trap - t_kill )) -lt 1000 ] || fail "trap came $(( t_trap - t_kill )) ms after the kill"
trap_text=$(grep -A30 "$NOTIFY.5\b" "$WORK/traps.log")
echo "$trap_text" | grep -q "$CTR_ENTRY.3.$OIDX = STRING: \"pna-oom\"" || fail "trap lacks the container name"
echo "$trap_text" | grep -q "$CTR_ENTRY.13.$OIDX = Counter64: 1" || fail "trap lacks kill count 1"
sleep 3
[ "$(grep -c "$NOTIFY.5\b" "$WORK/traps.log")" -eq 1 ] || fail "more than one trap for one kill"
ok "one primusContainerOomKill trap for pna-oom, kills 1"

# Tasks deleted: rows gone.
for t in pna-sleep pna-oom; do $CTR tasks kill -s KILL "$t" >/dev/null 2>&1; done
sleep 0.5
for t in pna-sleep pna-oom; do $CTR tasks delete -f "$t" >/dev/null 2>&1; $CTR containers delete "$t" >/dev/null 2>&1; done
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $CONTAINERS.1.0 | grep -qx 0" ||
    fail "rows remain after the tasks were deleted: $(snmp_value $CONTAINERS.1.0)"
ok "rows gone with the tasks"
echo "PASS: $TEST_NAME"
