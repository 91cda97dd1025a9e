# nms_lib.sh -- the fixture node the enterprise NMS tests (Zabbix, Nagios
# check_snmp) poll: a standalone agent (its own SNMP agent, no snmpd) on
# fixture trees whose every table has rows.  Sourced after lib.sh.
#
#   GPUs         the test NVML library answering from three recorded
#                nvidia-smi files (H100, Tesla T4, A100); $PNA_FAKE_NVML_CTL
#                moves a GPU's temperature
#   RDMA         the InfiniBand/RoCE sysfs fixture (mlx5_0 port 1's state file
#                is $IB_STATE), its congestion counters set
#   containers   one containerd container of pod ml/llm-0 with a memory limit
#                and an RDMA device; a recorded kubelet (pods, storage)
#   node         a copy of this machine's /proc node files, so that CPU and
#                memory figures hold still between two reads
#
# nms_fixture_node [agent.conf lines...] starts it; SNMP v2c community
# "public" on $TARGET; traps go to 127.0.0.1:$TRAP_PORT.

. "$(dirname "$0")/containers_lib.sh"

# The Tesla T4 of tesla-t4-nvidia-smi-q-x.xml (40 C, slowdown at 93 C): its bus
# id as the XML and the test NVML control file write it, and as primusGpuPciBusId
# (and so the Zabbix macro {#GPU_BUS_ID}) serves it.
T4_BUS=00000000:00:1E.0
T4_PCI=0000:00:1e.0

nms_fixture_node() {
    [ -f "$FAKE_NVML" ] || skip "$FAKE_NVML not built (make check builds it)"
    local x
    fixture_node_trees
    IB_STATE="$S/class/infiniband/mlx5_0/ports/1/state"
    IB_PORT_INDEX="6.109.108.120.53.95.48.1"   # "mlx5_0", port 1
    local k="$WORK/kubelet" kf="$PNA_FIXTURES/kubelet/nri-kubernetes-k8s-1.35" kport
    mkdir -p "$k/stats"
    cp "$kf/pods.json" "$k/pods"
    cp "$kf/stats-summary.json" "$k/stats/summary"
    for x in 0 1 2; do : > "$D/nvidia$x"; done
    kport=$(free_tcp_port)
    python3 -m http.server "$kport" --bind 127.0.0.1 --directory "$k" >"$WORK/kubelet.log" 2>&1 &
    PIDS+=("$!")
    wait_for "kubelet stand-in" curl -fsS -o /dev/null "http://127.0.0.1:$kport/pods"
    {
        echo "nvmlLibrary $FAKE_NVML"
        echo "kubeletUrl http://127.0.0.1:$kport"
        echo "kubeletTokenFile $WORK/no-token"
        echo "rocommunity public 127.0.0.1"
        echo "trap2sink 127.0.0.1:$TRAP_PORT public"
        for x in "$@"; do echo "$x"; done
    } > "$WORK/agent.conf"
    $(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" 2>>"$WORK/agent-stderr.log" \
        --standalone "udp:127.0.0.1:$SNMP_PORT" --rootfs "$R" --sysfs "$S" --procfs "$P" --devfs "$D" &
    AGENT_PID=$!
    PIDS+=("$AGENT_PID")
    wait_agent
    # every poller has run once: the tables have their rows
    wait_until 30 sh -c "snmpwalk $V2 -On -Oqv $TARGET $OBJ.4.10.1.9 | grep -qv '^5$' &&
        ! snmpwalk $V2 -On -Oqv $TARGET $OBJ.4.10.1.9 | grep -qx 5" ||
        fail "pollers still pending: $(snmp_walk $OBJ.4.10.1.9)"
}
