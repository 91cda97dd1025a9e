#!/bin/bash
# A real Docker: a private dockerd (docker_lib.sh) runs busybox containers and
# the agent, as a subagent of a private snmpd with the HTTP bridge on, follows
# them through the Engine API and dockerd's own containerd task bundles.  The
# containers poll is left at 10 s, so what shows within a few seconds came by
# events.  Checked through snmpd and /metrics, against `docker inspect` and the
# cgroup:
#   - a container with a memory limit and devices, one passed under another
#     name (--device HOST-renderD129:/dev/dri/renderD128): every field, the
#     working set as `docker stats` counts it, the device attributed by its
#     numbers to the GPU of renderD129 (a sysfs tree of the test's own maps
#     render nodes to PCI addresses);
#   - pause/unpause, rename, update (memory limit), restart (new pid, same row),
#     stop, start and removal;
#   - OOM kills of a child process (the container lives on) and of PID 1 (the
#     container dies, OOMKilled as Docker says): one primusContainerOomKill trap each;
#   - dockerd restarted: a container started right after it is served within seconds;
#   - an agent that may not open the Docker socket says "permission denied",
#     and its /ready answers 503 naming the containers poller.
# Skips, saying why, where dockerd cannot run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
. "$(dirname "$0")/docker_lib.sh"
need_dockerd
command -v jq >/dev/null || skip "jq not installed"
command -v setpriv >/dev/null || skip "setpriv not installed (util-linux)"
start_dockerd
IMAGE=pna-busybox:test
busybox_image "$IMAGE"
RUN="$DOCKER run -d --network none"

# Host device nodes for the containers: a render node numbered as renderD129
# (226:129), made here, and /dev/zero.
RENDER_NODE="/dev/pna-render129-$$"
mknod "$RENDER_NODE" c 226 129 || skip "cannot mknod here"
trap 'rm -f "$RENDER_NODE"; dk_cleanup' EXIT
# sysfs as the host has it, but for class/drm: renderD128 and renderD129 are
# two GPUs of the test's own, so an attribution by name would pick the wrong one.
S="$WORK/sys"
mkdir -p "$S/class"
for e in /sys/*; do [ "$e" = /sys/class ] || ln -s "$e" "$S/"; done
for e in /sys/class/*; do [ "$e" = /sys/class/drm ] || ln -s "$e" "$S/class/"; done
for n in 128:c1 129:c2; do
    mkdir -p "$S/class/drm/renderD${n%%:*}/device"
    printf 'DRIVER=amdgpu\nPCI_SLOT_NAME=0000:%s:00.0\n' "${n#*:}" > "$S/class/drm/renderD${n%%:*}/device/uevent"
done

cat > "$WORK/agent.conf" <<CONF
dockerSocket $DK/docker.sock
containerdState ${DK_TASKS%/io.containerd.runtime.v2.task/moby}
CONF
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_http_agent --sysfs "$S"
wait_agent
wait_http

ctr() { snmp_value "$CTR_ENTRY.$1.$(str_index "$2")"; }
metric_of() { # FAMILY ID: the value of FAMILY for container ID in a fresh /metrics
    http_body /metrics > "$WORK/metrics.txt"
    awk -v k="$1{container_id=\"$2\"" 'index($0, k) == 1 {print $NF; exit}' "$WORK/metrics.txt"
}
inspect() { $DOCKER inspect -f "$1" "$2"; }
containers_poller() { curl -s "$HTTP_BASE/health" | jq -c '.pollers[] | select(.name == "containers")'; }
# wait_field COL ID VALUE SECONDS: until the column reads VALUE.
wait_field() {
    wait_until "$4" sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.$1.$(str_index "$2") 2>/dev/null | sed 's/^\"//; s/\"$//' | grep -qx -- '$3'"
}
memcg_dir() { # PID: the container's memory cgroup directory and the v1/v2 file names
    local p
    p=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' "/proc/$1/cgroup")
    if [ -n "$p" ]; then echo "/sys/fs/cgroup/memory$p"; else echo "/sys/fs/cgroup$(awk -F: '$1 == "0" {print $3}' "/proc/$1/cgroup")"; fi
}

# ---- a container, every field -------------------------------------------------------
t0=$(now_ms)
ID=$($RUN --name pna-web -m 64m --memory-swap 64m --device /dev/zero:/dev/pna-zero \
     --device "$RENDER_NODE:/dev/dri/renderD128" "$IMAGE" \
     sh -c 'dd if=/dev/zero of=/tmp/cache bs=1M count=8 2>/dev/null; exec sleep 600') ||
    fail "docker run pna-web"
wait_field 8 "$ID" 2 10 || fail "pna-web not served as running(2): $(ctr 8 "$ID")"
echo "running container served $(( $(now_ms) - t0 )) ms after docker run returned (poll interval 10 s)"
PID=$(inspect '{{.State.Pid}}' "$ID")
CG=$(memcg_dir "$PID")
CGPATH=${CG#/sys/fs/cgroup}; CGPATH=${CGPATH#/memory}
[ "$(ctr 2 "$ID")" = 2 ] || fail "runtime $(ctr 2 "$ID") is not docker(2)"
[ "$(ctr 3 "$ID")" = "$(inspect '{{.Name}}' "$ID" | sed 's|^/||')" ] || fail "name $(ctr 3 "$ID")"
[ "$(ctr 7 "$ID")" = "$(inspect '{{.Config.Image}}' "$ID")" ] || fail "image $(ctr 7 "$ID")"
started=$(date -d "$(inspect '{{.State.StartedAt}}' "$ID")" +%s)
[ "$(ctr 9 "$ID")" = "$started" ] || fail "start time $(ctr 9 "$ID") != docker's $started"
[ "$(ctr 10 "$ID")" = "$CGPATH" ] || fail "cgroup path $(ctr 10 "$ID") != $CGPATH"
[ "$(ctr 12 "$ID")" = "$(inspect '{{.HostConfig.Memory}}' "$ID")" ] || fail "limit != HostConfig.Memory"
if [ -f "$CG/memory.limit_in_bytes" ]; then LIMF=memory.limit_in_bytes USEF=memory.usage_in_bytes INACT=total_inactive_file
else LIMF=memory.max USEF=memory.current INACT=inactive_file; fi
[ "$(ctr 12 "$ID")" = "$(cat "$CG/$LIMF")" ] || fail "limit != $LIMF"
# Usage moves by a page now and then even in an idle container, and the
# agent's figure is from its last poll (the container was still starting):
# within a poll interval, both agree with the cgroup within 1 %.
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b / 100 + 8192) }'; }
memory_agrees() {
    use=$(cat "$CG/$USEF"); inact=$(awk -v k="$INACT" '$1 == k {print $2}' "$CG/memory.stat")
    near "$(ctr 11 "$ID")" "$use" && near "$(ctr 17 "$ID")" $((use - inact))
}
wait_until 12 memory_agrees ||
    fail "usage $(ctr 11 "$ID") / working set $(ctr 17 "$ID") vs cgroup $use / $((use - inact))"
[ "$(ctr 17 "$ID")" -lt "$(ctr 11 "$ID")" ] || fail "working set not below usage with 8 MiB of page cache"
ok "pna-web: docker(2), name, image, start time, cgroup, limit as docker inspect and $LIMF; working set $(ctr 17 "$ID") = usage less $INACT"
for pair in 11:primus_container_memory_usage_bytes 12:primus_container_memory_limit_bytes \
            17:primus_container_memory_working_set_bytes 9:primus_container_start_time_seconds; do
    s=$(ctr "${pair%%:*}" "$ID"); m=$(metric_of "${pair#*:}" "$ID")
    case ${pair%%:*} in 11|17) near "$m" "$s" ;; *) [ "$m" = "$s" ] ;; esac ||
        fail "${pair#*:} $m != SNMP $s"
done
ns_snmp=$(ctr 16 "$ID")
http_body /metrics | grep -F "primus_container_info{container_id=\"$ID\"" | grep -qF "runtime_namespace=\"$ns_snmp\"" ||
    fail "runtime namespace: /metrics disagrees with primusContainerRuntimeNs '$ns_snmp'"
ok "/metrics agrees with SNMP (usage, limit, working set, start time, runtime namespace '$ns_snmp')"

dev() { snmp_value "$DEV_ENTRY.$1.$(str_index "$ID").$(str_index "$2")"; }
[ "$(dev 3 /dev/pna-zero)" = 1 ] && [ "$(dev 4 /dev/pna-zero)" = 5 ] || fail "/dev/pna-zero is not 1:5"
[ "$(dev 3 /dev/dri/renderD128)" = 226 ] && [ "$(dev 4 /dev/dri/renderD128)" = 129 ] ||
    fail "/dev/dri/renderD128 in the container is not the host's 226:129: $(dev 3 /dev/dri/renderD128):$(dev 4 /dev/dri/renderD128)"
http_body /metrics | grep -F "primus_container_device_info{container_id=\"$ID\"" |
    grep -F 'path="/dev/dri/renderD128"' | grep -qF 'gpu_pci_bus_id="0000:c2:00.0"' ||
    fail "renderD128 (host renderD129) not attributed to renderD129's GPU 0000:c2:00.0: $(http_body /metrics | grep -F 'path="/dev/dri/renderD128"')"
ok "devices: /dev/pna-zero 1:5; /dev/dri/renderD128 in the container is 226:129, renderD129's GPU"

# ---- pause, rename, update, restart, stop, start, remove --------------------------------
$DOCKER pause "$ID" >/dev/null || fail "docker pause"
wait_field 8 "$ID" 3 5 || fail "paused container not paused(3): $(ctr 8 "$ID")"
http_body /metrics | grep -F "primus_container_state{container_id=\"$ID\"" | grep -F 'state="paused"' | grep -q ' 1$' ||
    fail "/metrics does not say paused"
$DOCKER unpause "$ID" >/dev/null || fail "docker unpause"
wait_field 8 "$ID" 2 5 || fail "unpaused container not running(2): $(ctr 8 "$ID"); docker: $(inspect '{{.State.Status}}' "$ID"); $(containers_poller)"
ok "docker pause -> paused(3), unpause -> running(2)"
$DOCKER rename pna-web pna-web2 || fail "docker rename"
wait_field 3 "$ID" pna-web2 5 || fail "renamed container still '$(ctr 3 "$ID")'"
http_body /metrics | grep -qF "primus_container_info{container_id=\"$ID\",container=\"pna-web2\"" ||
    fail "/metrics does not name the container pna-web2"
ok "docker rename -> pna-web2 (SNMP and /metrics)"
$DOCKER update -m 128m --memory-swap 128m "$ID" >/dev/null || fail "docker update"
wait_field 12 "$ID" 134217728 5 || fail "updated limit not served: $(ctr 12 "$ID")"
[ "$(cat "$CG/$LIMF")" = 134217728 ] || fail "the cgroup does not say 128 MiB"
[ "$(metric_of primus_container_memory_limit_bytes "$ID")" = 134217728 ] || fail "/metrics limit after update"
ok "docker update -m 128m -> limit 134217728, as $LIMF and /metrics"
old_pid=$PID old_start=$(ctr 9 "$ID")
sleep 1   # so the new start time is another second
$DOCKER restart -t 1 "$ID" >/dev/null || fail "docker restart"
PID=$(inspect '{{.State.Pid}}' "$ID")
[ "$PID" != "$old_pid" ] || fail "docker restart kept pid $PID"
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.9.$(str_index "$ID"))\" -gt $old_start ]" ||
    fail "start time not renewed after restart: $(ctr 9 "$ID")"
[ "$(ctr 9 "$ID")" = "$(date -d "$(inspect '{{.State.StartedAt}}' "$ID")" +%s)" ] || fail "start time != docker's after restart"
[ "$(ctr 8 "$ID")" = 2 ] || fail "restarted container not running(2)"
ok "docker restart: same row, new start time"
$DOCKER stop -t 1 "$ID" >/dev/null || fail "docker stop"
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.8.$(str_index "$ID") | grep -q 'No Such'" ||
    fail "stopped container still served: $(ctr 8 "$ID")"
$DOCKER start "$ID" >/dev/null || fail "docker start"
wait_field 8 "$ID" 2 10 || fail "started container not served again"
$DOCKER rm -f "$ID" >/dev/null || fail "docker rm"
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $CTR_ENTRY.8.$(str_index "$ID") | grep -q 'No Such'" ||
    fail "removed container still served"
ok "docker stop -> row gone (the Engine API lists running and paused containers), start -> back, rm -> gone"

# ---- OOM kills ------------------------------------------------------------------------
trap_for() { grep -A30 "$NOTIFY.5\b" "$WORK/traps.log" | grep -q "$CTR_ENTRY.3.$(str_index "$1") = STRING: \"$2\""; }
CHILD=$($RUN --name pna-oom-child -m 32m --memory-swap 32m "$IMAGE" \
        sh -c 'sleep 3; dd if=/dev/zero of=/dev/null bs=256M count=1; exec sleep 600') || fail "docker run pna-oom-child"
wait_field 8 "$CHILD" 2 10 || fail "pna-oom-child not served"
wait_until 15 trap_for "$CHILD" pna-oom-child || fail "no primusContainerOomKill trap for pna-oom-child"
wait_field 13 "$CHILD" 1 5 || fail "pna-oom-child's OomKills is $(ctr 13 "$CHILD"), not 1"
[ "$(metric_of primus_container_oom_kills_total "$CHILD")" = 1 ] || fail "/metrics OOM kills of pna-oom-child"
[ "$(inspect '{{.State.Running}}' "$CHILD")" = true ] || fail "pna-oom-child died: its PID 1 was not the one killed"
ok "child process OOM-killed: one trap, OomKills 1, the container runs on"
t_oom=$(date +%s)
PID1=$($RUN --name pna-oom-pid1 -m 32m --memory-swap 32m "$IMAGE" \
       sh -c 'sleep 3; exec dd if=/dev/zero of=/dev/null bs=256M count=1') || fail "docker run pna-oom-pid1"
wait_field 8 "$PID1" 2 10 || fail "pna-oom-pid1 not served"
pid1_cgroup=$(ctr 10 "$PID1")   # what the agent knew before the kill, for a failure's report
wait_until 15 trap_for "$PID1" pna-oom-pid1 ||
    fail "no primusContainerOomKill trap for pna-oom-pid1 (cgroup path served before the kill: '$pid1_cgroup'; Docker's events: $($DOCKER events --since "$t_oom" --until "$(date +%s)" --filter container="$PID1" --format '{{.Action}}' | tr '\n' ' '))"
wait_until 10 sh -c "[ \"\$($DOCKER inspect -f '{{.State.Running}}' $PID1)\" = false ]" || fail "pna-oom-pid1 still running"
[ "$(inspect '{{.State.OOMKilled}}' "$PID1")" = true ] || fail "docker does not say OOMKilled"
[ "$(inspect '{{.State.ExitCode}}' "$PID1")" = 137 ] || fail "exit code $(inspect '{{.State.ExitCode}}' "$PID1")"
sleep 2
# The child's one kill: one trap.  PID 1's container: the kernel may take more
# than one process down before the cgroup goes, so one trap or more, each with
# a higher count than the one before (never the same kill twice).
[ "$(grep -c "pna-oom-child" "$WORK/traps.log")" -eq 1 ] || fail "more than one trap for the child's one kill"
kills=$(grep "pna-oom-pid1" "$WORK/traps.log" | grep -o 'OOM-killed (kills: [0-9]*)' | grep -o '[0-9]*' | tr '\n' ' ')
echo "$kills" | awk '{ if (NF < 1) exit 1; for (i = 2; i <= NF; i++) if ($i <= $(i - 1)) exit 1 }' ||
    fail "pna-oom-pid1's traps say kills '$kills': none, or a count repeated"
ok "PID 1 OOM-killed: one trap per kill (kills $kills); Docker says OOMKilled, exit 137"
$DOCKER rm -f "$CHILD" "$PID1" >/dev/null

# ---- dockerd restarts -----------------------------------------------------------------
restart_dockerd
t0=$(now_ms)
AFTER=$($RUN --name pna-after "$IMAGE" sleep 600) || fail "docker run after the restart"
wait_field 8 "$AFTER" 2 6 || fail "container started after dockerd's restart not served within 6 s"
echo "dockerd restarted: new container served $(( $(now_ms) - t0 )) ms after docker run"
ok "dockerd restart: a container started at once after it is served"

# ---- a socket the agent may not open ----------------------------------------------------
stop_agent_now
chmod 755 "$WORK"
NOBODY_PORT=$(free_port) NOBODY_HTTP=$(free_tcp_port)
printf 'dockerSocket %s\ncontainerdState %s/none\n' "$DK/docker.sock" "$WORK" > "$WORK/nobody.conf"
chmod 644 "$WORK/nobody.conf"
chmod 660 "$DK/docker.sock"
setpriv --reuid=65534 --regid=65534 --clear-groups "$PNA_AGENT" -f -Le \
    -c "$WORK/nobody.conf" --standalone "udp:127.0.0.1:$NOBODY_PORT" --http "127.0.0.1:$NOBODY_HTTP" \
    --sysfs "$S" 2>"$WORK/agent-nobody.log" &
PIDS+=("$!")
nb_ready() { curl -s -o "$WORK/ready.json" -w '%{http_code}' "http://127.0.0.1:$NOBODY_HTTP/ready"; }
wait_until 30 sh -c "curl -s http://127.0.0.1:$NOBODY_HTTP/ready | grep -q containers" ||
    fail "/ready of the agent without socket access never named the containers poller: $(curl -s http://127.0.0.1:$NOBODY_HTTP/ready)"
[ "$(nb_ready)" = 503 ] || fail "/ready answered $(nb_ready) while the containers poller fails"
jq -e '.failing[] | select(.poller == "containers") | .error | test("permission denied")' "$WORK/ready.json" >/dev/null ||
    fail "the error does not say permission denied: $(cat "$WORK/ready.json")"
grep -q "Failed to connect to localhost port 80" "$WORK/agent-nobody.log" && fail "libcurl's misleading message logged"
ok "no access to the socket: /ready 503, $(jq -r '.failing[0].error' "$WORK/ready.json")"
echo "PASS: $TEST_NAME"
