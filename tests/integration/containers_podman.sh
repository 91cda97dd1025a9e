#!/bin/bash
# Real Podman: Debian's podman (rootful, its own store under the test's work
# dir: podman_lib.sh) runs busybox containers, and the agent, a subagent of a
# private snmpd with the HTTP bridge on, reads them from the containers/storage
# store alone (containersStorageRoot, containersStorageRunRoot): no daemon,
# no socket.  Checked through snmpd and /metrics against `podman inspect`,
# `podman ps` and the cgroup:
#   - a container with a memory limit and a device passed under another name
#     (--device /dev/zero:/dev/pna-zero): runtime podman(4), name, image,
#     state, start time, the cgroup of podman's pid, limit, the device 1:5;
#   - a container stopped: exited(4), as podman ps says (its pidfile stays,
#     its pid is not taken for it); removed: its row goes;
#   - pause: paused(3) (the cgroup's freezer), unpause: running(2);
#   - a child process OOM-killed (the container lives on): OomKills 1 on
#     both front ends and one primusContainerOomKill trap.
#   - a new container served within seconds with a 60 s poll (the watch of
#     the store's directories).
# Skips, saying why, where rootful podman cannot run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
. "$(dirname "$0")/podman_lib.sh"
need_podman
command -v jq >/dev/null || skip "jq not installed"
start_podman
IMAGE=localhost/pna-busybox:test
podman_busybox_image "$IMAGE"

agent_conf() { # INTERVAL
    cat > "$WORK/agent.conf" <<CONF
containersStorageRoot $PM_GRAPH
containersStorageRunRoot $PM_RUN
containerdState $WORK/no-containerd
dockerSocket $WORK/no-docker.sock
pollInterval containers $1
CONF
}
# First with a 60 s poll: a new container is seen through the watch of the
# store's directories, not by the poll.
agent_conf 60
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_http_agent
wait_agent
wait_http

ctr() { snmp_value "$CTR_ENTRY.$1.$(str_index "$2")"; }
metric_of() { # FAMILY ID: the value of FAMILY for container ID in a fresh /metrics
    http_body /metrics > "$WORK/metrics.txt"
    awk -v k="$1{container_id=\"$2\"" 'index($0, k) == 1 {print $NF; exit}' "$WORK/metrics.txt"
}
inspect() { $PODMAN inspect -f "$1" "$2"; }
wait_field() { # COL ID VALUE SECONDS: until the column reads VALUE
    wait_until "$4" sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.$1.$(str_index "$2") 2>/dev/null | sed 's/^\"//; s/\"$//' | grep -qx -- '$3'"
}
memcg_path() { # PID: its memory cgroup path, relative to the hierarchy
    local p
    p=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' "/proc/$1/cgroup")
    [ -n "$p" ] || p=$(awk -F: '$1 == "0" {print $3}' "/proc/$1/cgroup")
    echo "$p"
}

# ---- a container, every field ------------------------------------------------------
sleep 2   # the first poll has set the watches
t0=$(now_ms)
ID=$(podman_run --name pna-web -m 64m --device /dev/zero:/dev/pna-zero "$IMAGE" sleep 600) ||
    fail "podman run pna-web"
wait_field 8 "$ID" 2 10 || fail "pna-web not served as running(2) within 10 s with a 60 s poll: '$(ctr 8 "$ID")'"
ok "a new container served $(( $(now_ms) - t0 )) ms after podman run began (poll interval 60 s: the directory watch)"
# The rest with a 1 s poll: pause and stop change no file of the store.
stop_agent_now
agent_conf 1
start_http_agent
wait_agent
wait_http
wait_field 8 "$ID" 2 10 || fail "pna-web not served after the restart"
PID=$(inspect '{{.State.Pid}}' "$ID")
[ "$(ctr 2 "$ID")" = 4 ] || fail "runtime $(ctr 2 "$ID") is not podman(4)"
[ "$(ctr 3 "$ID")" = "$(inspect '{{.Name}}' "$ID")" ] || fail "name $(ctr 3 "$ID")"
[ "$(ctr 7 "$ID")" = "$(inspect '{{.ImageName}}' "$ID")" ] || fail "image '$(ctr 7 "$ID")' != $(inspect '{{.ImageName}}' "$ID")"
started=$(date -d "$(inspect '{{.State.StartedAt}}' "$ID" | sed 's/ +0000 UTC$//')" +%s)
d=$(( $(ctr 9 "$ID") - started )); d=${d#-}
[ "$d" -le 1 ] || fail "start time $(ctr 9 "$ID") vs podman's $started"
[ "$(ctr 10 "$ID")" = "$(memcg_path "$PID")" ] || fail "cgroup path $(ctr 10 "$ID") != $(memcg_path "$PID")"
[ "$(ctr 12 "$ID")" = "$(inspect '{{.HostConfig.Memory}}' "$ID")" ] || fail "limit $(ctr 12 "$ID") != HostConfig.Memory"
ok "pna-web: podman(4), name, image, start time, cgroup of podman's pid $PID, limit as podman inspect"
dev() { snmp_value "$DEV_ENTRY.$1.$(str_index "$ID").$(str_index "$2")"; }
[ "$(dev 3 /dev/pna-zero)" = 1 ] && [ "$(dev 4 /dev/pna-zero)" = 5 ] || fail "/dev/pna-zero is not 1:5"
http_body /metrics > "$WORK/metrics.txt"
grep -F "primus_container_info{container_id=\"$ID\"" "$WORK/metrics.txt" | grep -F 'container="pna-web"' |
    grep -qF 'runtime="podman"' || fail "/metrics: no podman info series for pna-web"
grep -F "primus_container_device_info{container_id=\"$ID\"" "$WORK/metrics.txt" |
    grep -F 'path="/dev/pna-zero"' | grep -qF 'major="1",minor="5"' || fail "/metrics: /dev/pna-zero"
for pair in 12:primus_container_memory_limit_bytes 9:primus_container_start_time_seconds; do
    s=$(ctr "${pair%%:*}" "$ID"); m=$(metric_of "${pair#*:}" "$ID")
    [ "$m" = "$s" ] || fail "${pair#*:} $m != SNMP $s"
done
grep -F "primus_container_info{container_id=\"$ID\"" "$WORK/metrics.txt" |
    grep -qF "cgroup_path=\"$(ctr 10 "$ID")\"" || fail "/metrics cgroup_path disagrees with SNMP"
ok "devices and /metrics agree with SNMP (info, device, limit, start time)"

# ---- pause, stop, remove -----------------------------------------------------------
$PODMAN pause "$ID" >/dev/null || fail "podman pause"
wait_field 8 "$ID" 3 5 || fail "paused container not paused(3): $(ctr 8 "$ID")"
$PODMAN unpause "$ID" >/dev/null || fail "podman unpause"
wait_field 8 "$ID" 2 5 || fail "unpaused container not running(2): $(ctr 8 "$ID")"
ok "podman pause -> paused(3), unpause -> running(2)"
$PODMAN stop -t 0 "$ID" >/dev/null 2>&1 || fail "podman stop"
[ "$(inspect '{{.State.Status}}' "$ID")" = exited ] || fail "podman does not say exited"
wait_field 8 "$ID" 4 5 || fail "stopped container not exited(4): $(ctr 8 "$ID")"
$PODMAN ps -a --format '{{.ID}} {{.Status}}' | grep "^${ID:0:12} " | grep -q Exited || fail "podman ps"
ok "podman stop -> exited(4) (its pidfile's pid no longer alive), as podman inspect and podman ps say"
$PODMAN rm "$ID" >/dev/null || fail "podman rm"
wait_until 5 sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.8.$(str_index "$ID") | grep -q 'No Such'" ||
    fail "removed container still served"
ok "podman rm -> the row goes"

# ---- OOM kill of a child process ---------------------------------------------------
trap_for() { grep -A30 "$NOTIFY.5\b" "$WORK/traps.log" | grep -q "$CTR_ENTRY.3.$(str_index "$1") = STRING: \"$2\""; }
CHILD=$(podman_run --name pna-oom-child -m 32m --memory-swap 32m "$IMAGE" \
        sh -c 'sleep 3; dd if=/dev/zero of=/dev/null bs=256M count=1; exec sleep 600') ||
    fail "podman run pna-oom-child"
wait_field 8 "$CHILD" 2 10 || fail "pna-oom-child not served"
wait_until 15 trap_for "$CHILD" pna-oom-child || fail "no primusContainerOomKill trap for pna-oom-child"
wait_field 13 "$CHILD" 1 5 || fail "pna-oom-child's OomKills is $(ctr 13 "$CHILD"), not 1"
[ "$(metric_of primus_container_oom_kills_total "$CHILD")" = 1 ] || fail "/metrics OOM kills of pna-oom-child"
[ "$(inspect '{{.State.Running}}' "$CHILD")" = true ] || fail "pna-oom-child died: its PID 1 was not the one killed"
CG=$(memcg_path "$(inspect '{{.State.Pid}}' "$CHILD")")
kills=$(awk '$1 == "oom_kill" {print $2}' "/sys/fs/cgroup/memory$CG/memory.oom_control" 2>/dev/null ||
        awk '$1 == "oom_kill" {print $2}' "/sys/fs/cgroup$CG/memory.events")
[ "$kills" = 1 ] || fail "the cgroup counts $kills OOM kills, not 1"
[ "$(grep -c "pna-oom-child" "$WORK/traps.log")" -eq 1 ] || fail "more than one trap for one kill"
ok "child process OOM-killed: one trap, OomKills 1 (as the cgroup's oom_kill), the container runs on"
