# fault_lib.sh -- helpers shared by the fault-injection tests (sourced after
# lib.sh): a small generated node (bench/gen_node.py: HCAs with hw counters,
# GPUs behind the test NVML, containerd bundles with cgroup v2 files), the
# agent started on it, and readers of primusPollerTable.

command -v python3 >/dev/null || skip "python3 not installed (generates the node tree)"

NODE="$WORK/node"
POLLER="$OBJ.4.10.1"                 # primusPollerEntry
# primusPollerIndex of each poller (fixed, see src/pollers/*_poller.c)
P_NODE=1 P_GPU=2 P_IB=3 P_PFC=4 P_CONTAINERS=5 P_KUBELET=6 P_STORAGE=7

# gen_node [gen_node.py options]: a small node under $NODE.
gen_node() {
    python3 "$top_srcdir/bench/gen_node.py" --fixtures "$PNA_FIXTURES" --out "$NODE" \
        --hcas 2 --hw-counters 40 --gpus 2 --containers 6 "$@" > "$WORK/gen_node.log" ||
        fail "bench/gen_node.py failed: $(cat "$WORK/gen_node.log")"
    export PNA_FAKE_NVML_XML="$NODE/nvml.xml"
}

# The agent's options for the generated node.
node_args() {
    echo --sysfs "$NODE/sys" --procfs "$NODE/proc" --devfs "$NODE/dev" --rootfs "$NODE/root"
}

# fault_conf [extra lines...]: agent.conf polling everything every second.
fault_conf() {
    {
        [ -f "$FAKE_NVML" ] && echo "nvmlLibrary $FAKE_NVML"
        echo "agentXPingInterval 1"
        for p in node gpu ib pfc containers storage; do echo "pollInterval $p 1"; done
        for line in "$@"; do echo "$line"; done
    } > "$WORK/agent.conf"
}

status_of() { snmp_value "$POLLER.9.$1"; }     # 1 ok 2 failing 3 timedOut 4 disabled 5 pending
error_of() { snmp_value "$POLLER.7.$1"; }
errors_of() { snmp_value "$POLLER.6.$1"; }

# wait_status POLLER_INDEX STATUS SECONDS
wait_status() {
    wait_until "$3" sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $POLLER.9.$1)\" = $2 ]"
}

# The agent still answers, and fast: three GETs (a node scalar, the poller
# table, a table count) each well under a second.
snmp_answers() {
    local t0 t1 host
    t0=$(date +%s%N)
    host=$(snmp_value "$OBJ.1.1.0")
    snmp_value "$POLLER.2.$P_NODE" | grep -qx node || fail "${1:-}: poller table not served"
    t1=$(date +%s%N)
    case "$host" in ""|*"No Such"*|*Timeout*) fail "${1:-}: hostname not served: '$host'" ;; esac
    [ $(( (t1 - t0) / 1000000 )) -lt 1500 ] || fail "${1:-}: two GETs took $(( (t1 - t0) / 1000000 )) ms"
}

agent_alive() {
    kill -0 "$AGENT_PID" 2>/dev/null || fail "the agent died: $(tail -5 "$WORK/agent-stderr.log" 2>/dev/null)"
}

# rss_kb PID
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# identity_walk FILE: the identity columns of every table (names, PCI bus
# ids, ports, container ids...), OID and value, to compare rows and indexes
# across restarts.
identity_walk() {
    {
        snmp_walk "$POLLER.2"          # poller names
        snmp_walk "$OBJ.5.10.1.7"      # GPU PCI bus id
        snmp_walk "$OBJ.5.10.1.5"      # GPU UUID
        snmp_walk "$OBJ.6.10.1.6"      # RDMA device node GUID
        snmp_walk "$OBJ.6.20.1.2"      # IB port columns: link layer
        snmp_walk "$OBJ.6.40.1.4"      # hw counter rows (wraps32; the name is in the index)
        snmp_walk "$OBJ.8.10.1.3"      # container names
        snmp_walk "$OBJ.8.20.1.2"      # container devices
    } > "$1"
}

# start_stub: a kubelet (recorded /pods and /stats/summary on loopback) and a
# dockerd (no containers, on the node's docker.sock) stand-in; write ok, stall,
# garbage or close into $WORK/stub.mode to change how it answers.
start_stub() {
    STUB="$WORK/stub"
    mkdir -p "$STUB/containers" "$STUB/stats"
    echo '[]' > "$STUB/containers/json"
    cp "$PNA_FIXTURES/kubelet/nri-kubernetes-k8s-1.35/pods.json" "$STUB/pods"
    cp "$PNA_FIXTURES/kubelet/nri-kubernetes-k8s-1.35/stats-summary.json" "$STUB/stats/summary"
    echo ok > "$WORK/stub.mode"
    python3 "$(dirname "$0")/fault_stub.py" --dir "$STUB" --mode-file "$WORK/stub.mode" \
        --port-file "$WORK/stub.port" --unix "$NODE/root/run/docker.sock" 2>"$WORK/stub.log" &
    PIDS+=("$!")
    wait_for "HTTP stub" test -s "$WORK/stub.port"
}

# expect_docker_error_shown WHAT: dockerd misbehaves (WHAT, for the message).
# It runs its containers through containerd, whose tasks are read fresh: the
# containers poller stays ok(1), counts the docker error and shows it, and the
# containerd rows stay.
expect_docker_error_shown() {
    for _ in $(seq 75); do error_of $P_CONTAINERS | grep -q docker && break; sleep 0.2; done
    error_of $P_CONTAINERS | grep -q docker ||
        fail "containers poller does not show the docker error on $1: '$(error_of $P_CONTAINERS)'"
    [ "$(status_of $P_CONTAINERS)" = 1 ] ||
        fail "containers poller $(status_of $P_CONTAINERS), want ok(1): containerd's rows are fresh"
    [ "$(snmp_value $OBJ.8.1.0)" -ge 1 ] || fail "containerd rows lost while dockerd misbehaves"
}
