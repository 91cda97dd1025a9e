#!/bin/bash
# Sources that hang forever, all at once, after a first good poll: the test
# NVML blocks inside nvmlDeviceGetPowerUsage, a kubelet and a dockerd
# (tests/integration/fault_stub.py) accept requests and never answer, and
# /proc/meminfo becomes a named pipe whose writer never writes.  SNMP keeps
# answering at once from the last good snapshots (GPU, container and
# Kubernetes rows stay), each poller's row shows the failure (gpu timedOut,
# kubelet/containers/node failing, with the reason), and everything recovers
# when the sources do.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
[ -f "$FAKE_NVML" ] || skip "$FAKE_NVML not built (make check builds it)"

gen_node
start_stub
echo "hang-test-token" > "$WORK/token"
fault_conf "kubeletUrl http://127.0.0.1:$(cat "$WORK/stub.port")" "kubeletTokenFile $WORK/token" \
    "pollInterval kubelet 1" "pollTimeout gpu 2"
export PNA_FAKE_NVML_HANG=nvmlDeviceGetPowerUsage PNA_FAKE_NVML_HANG_FILE="$WORK/nvml.hang"
start_snmpd
start_agent $(node_args)
wait_agent
for p in $P_NODE $P_GPU $P_IB $P_CONTAINERS $P_KUBELET; do
    wait_status "$p" 1 20 || fail "poller $p not ok before the hang: $(status_of $p) $(error_of $p)"
done
node_name=$(snmp_value "$OBJ.10.1.0")
[ -n "$node_name" ] || fail "no Kubernetes node name before the hang"
ok "every poller ok; kubelet node $node_name, $(snmp_value $OBJ.5.1.0) GPUs, $(snmp_value $OBJ.8.1.0) containers"

# --- everything hangs -----------------------------------------------------
touch "$PNA_FAKE_NVML_HANG_FILE"
echo stall > "$WORK/stub.mode"
rm "$NODE/proc/meminfo"
mkfifo "$NODE/proc/meminfo"
exec 3<>"$NODE/proc/meminfo"      # a writer that holds the pipe open and never writes
wait_status $P_GPU 3 15 || fail "gpu poller not timedOut(3) while NVML hangs: $(status_of $P_GPU)"
wait_status $P_KUBELET 2 15 || fail "kubelet poller not failing(2) on a stalled kubelet: $(status_of $P_KUBELET)"
expect_docker_error_shown "a stalled dockerd"
wait_status $P_NODE 2 15 || fail "node poller not failing(2) on a FIFO meminfo: $(status_of $P_NODE)"
for p in $P_GPU $P_KUBELET $P_CONTAINERS $P_NODE; do
    echo "   poller $(snmp_value $POLLER.2.$p): status $(status_of $p), errors $(errors_of $p), last error: $(error_of $p)"
done
error_of $P_KUBELET | grep -qi "time" || fail "kubelet error does not say it timed out: $(error_of $P_KUBELET)"
error_of $P_CONTAINERS | grep -qi "docker" || fail "containers error does not name docker: $(error_of $P_CONTAINERS)"
error_of $P_NODE | grep -q "meminfo" || fail "node error does not name meminfo: $(error_of $P_NODE)"
ok "each hung source is visible in primusPollerTable"

slowest=0
for i in $(seq 20); do
    t0=$(date +%s%N)
    snmp_answers "hang round $i"
    gpus=$(snmp_value "$OBJ.5.1.0"); ctrs=$(snmp_value "$OBJ.8.1.0"); node=$(snmp_value "$OBJ.10.1.0")
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    [ "$ms" -gt "$slowest" ] && slowest=$ms
    [ "$gpus" = 2 ] || fail "GPU rows lost while NVML hangs: $gpus"
    [ "$ctrs" = 6 ] || fail "container rows lost while dockerd hangs: $ctrs"
    [ "$node" = "$node_name" ] || fail "Kubernetes data lost while the kubelet hangs: $node"
    sleep 0.2
done
[ "$slowest" -lt 2000 ] || fail "five GETs took $slowest ms while the sources hung"
agent_alive
ok "20 rounds of 5 GETs while everything hangs: last good data served, slowest round $slowest ms"

# --- the sources come back ----------------------------------------------------
rm -f "$PNA_FAKE_NVML_HANG_FILE"
echo ok > "$WORK/stub.mode"
exec 3>&-
rm "$NODE/proc/meminfo"
cp /proc/meminfo "$NODE/proc/meminfo"
for p in $P_NODE $P_GPU $P_CONTAINERS $P_KUBELET; do
    wait_status "$p" 1 20 || fail "poller $p did not recover: $(status_of $p) $(error_of $p)"
done
agent_alive
ok "every poller ok again"
echo "PASS: $TEST_NAME"
