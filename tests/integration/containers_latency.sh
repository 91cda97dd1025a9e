#!/bin/bash
# Container rows appear and vanish within a second of the runtime (three under
# valgrind or the sanitizers), with the
# DEFAULT containers interval (10 s): the change must come from inotify on
# containerd's state tree waking the poller, not from the periodic rescan.
#
# The agent starts before containerd has made its task directory (only the
# state directory exists), then bundles are created the ways containerd
# creates them: a new namespace directory with a bundle in it at once, a bundle
# directory whose config.json is written a moment later, and init.pid written
# when the task starts.  Each change is timed from the filesystem operation to
# the first snmpget that shows it through a real snmpd.  An OOM kill's count
# reaches the row and primusContainerOomKillsTotal as fast.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/containers_lib.sh"

R="$WORK/root" P="$WORK/proc"
STATE="$R/run/containerd"
TASKS="$STATE/io.containerd.runtime.v2.task"
CG="$WORK/sys/fs/cgroup"
mkdir -p "$STATE" "$R/var/lib/kubelet" "$CG/k8s.io/alpha" "$WORK/dev"
fake_procfs "$P"
echo "cpu memory pids" > "$CG/cgroup.controllers"
printf 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n' > "$CG/k8s.io/alpha/memory.events"
echo 4096 > "$CG/k8s.io/alpha/memory.current"
# A second natively; three where the agent runs under valgrind or the
# sanitizers (every answer is then several times slower, and a loaded CI
# machine adds to it): both far below the 10 s rescan this tells apart.
LIMIT_MS=1000
if [ "${PNA_VALGRIND:-0}" = 1 ] || ldd "$PNA_AGENT" 2>/dev/null | grep -q libasan; then
    LIMIT_MS=3000
fi

spec() {  # NAME
    printf '{"ociVersion":"1.1.0","annotations":{"io.kubernetes.cri.container-type":"container",'
    printf '"io.kubernetes.cri.container-name":"%s","io.kubernetes.cri.sandbox-name":"pod-%s",' "$1" "$1"
    printf '"io.kubernetes.cri.sandbox-namespace":"lat","io.kubernetes.cri.sandbox-uid":"uid-%s"},' "$1"
    printf '"linux":{"cgroupsPath":"/k8s.io/%s"}}\n' "$1"
}
count() { snmpget $V2 -On -Oqv "$TARGET" "$CONTAINERS.1.0" 2>/dev/null; }

# timed WHAT TEST-COMMAND...: poll (no sleep) until TEST-COMMAND succeeds,
# print the delay since T0 and fail past LIMIT_MS (giving up after 12 s, more
# than the 10 s interval, so a rescan-only agent is told apart from a dead one).
timed() {
    local what=$1; shift
    local took
    while ! "$@"; do
        took=$(( $(now_ms) - T0 ))
        [ "$took" -lt 12000 ] || fail "$what: not seen after $took ms"
    done
    took=$(( $(now_ms) - T0 ))
    echo "$what: $took ms"
    [ "$took" -lt "$LIMIT_MS" ] || fail "$what took $took ms (limit $LIMIT_MS ms, interval 10 s)"
}
count_is() { [ "$(count)" = "$1" ]; }
state_is() { [ "$(snmp_value "$CTR_ENTRY.8.$(str_index "$1")")" = "$2" ]; }

: > "$WORK/agent.conf"   # no pollInterval: the default 10 s
start_snmpd
start_agent --rootfs "$R" --procfs "$P" --sysfs "$WORK/sys" --devfs "$WORK/dev"
wait_agent
wait_until 15 count_is 0 || fail "primusContainerCount.0 is not 0 at start: $(count)"
interval=$(snmp_value "$OBJ.4.10.1.3.5")
[ "$interval" = 10000 ] || fail "containers poller interval is $interval, not the default 10000 ms"
ok "containers poller at its default interval ($interval ms), no task directory yet"
sleep 1   # let the first poll's watches settle; every step below is event-driven

# 1. containerd makes its task directory, a namespace and a bundle at once.
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
T0=$(now_ms)
mkdir -p "$TASKS/k8s.io/$A"
spec alpha > "$TASKS/k8s.io/$A/config.json"
timed "first bundle in a new task directory appears" count_is 1
timed "its state is created(1) before init.pid" state_is "$A" 1

# 2. The task starts: init.pid names a process the (fake) procfs has.
mkdir -p "$P/4242"
T0=$(now_ms)
echo 4242 > "$TASKS/k8s.io/$A/init.pid"
timed "init.pid written -> running(2)" state_is "$A" 2

# 2b. An OOM kill in its cgroup: the row's count and the total follow the
#     notification at once, not at the next rescan.
sleep 0.3
T0=$(now_ms)
printf 'low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n' > "$CG/k8s.io/alpha/memory.events"
oom_served() { [ "$(snmp_value "$CTR_ENTRY.13.$(str_index "$A")")" = 1 ] &&
               [ "$(snmp_value "$CONTAINERS.2.0")" = 1 ]; }
timed "oom_kill 1 -> primusContainerOomKills and the total at 1" oom_served

# 3. A bundle directory first, its config.json a moment later (as the shim
#    writes it), in another namespace that does not exist yet.
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
T0=$(now_ms)
mkdir -p "$TASKS/default/$B"
sleep 0.05
spec beta > "$TASKS/default/$B/config.json"
timed "bundle in a new namespace, spec written late, appears" count_is 2

# 4. Several rounds of add and remove in an existing namespace, at random
#    offsets from the 10 s rescan.
for round in 1 2 3; do
    C=$(printf 'c%063d' "$round")
    sleep "0.$(( RANDOM % 9 + 1 ))"
    T0=$(now_ms)
    mkdir "$TASKS/k8s.io/$C"
    spec "gamma$round" > "$TASKS/k8s.io/$C/config.json.tmp"
    mv "$TASKS/k8s.io/$C/config.json.tmp" "$TASKS/k8s.io/$C/config.json"
    timed "round $round: bundle added -> row" count_is 3
    [ "$(snmp_value "$CTR_ENTRY.3.$(str_index "$C")")" = "gamma$round" ] || fail "round $round: row name"
    sleep "0.$(( RANDOM % 9 + 1 ))"
    T0=$(now_ms)
    rm -rf "$TASKS/k8s.io/$C"
    timed "round $round: bundle removed -> row gone" count_is 2
done

# 5. The last bundles go, the namespace directories with them.
T0=$(now_ms)
rm -rf "$TASKS/default"
timed "namespace directory removed -> its row gone" count_is 1
T0=$(now_ms)
rm -rf "$TASKS/k8s.io/$A"
timed "last bundle removed -> no rows" count_is 0
[ "$(snmp_value "$OBJ.4.10.1.3.5")" = 10000 ] || fail "interval changed"
ok "rows followed every bundle within $LIMIT_MS ms at the 10 s default interval"
echo "PASS: $TEST_NAME"
