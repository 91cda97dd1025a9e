#!/bin/bash
# topology_table.sh -- primusTopoTable through a real snmpd and /metrics: the
# topology poller places the GPU the test NVML reports (0000:4e:00.0, GPU0),
# the AMD GPU of the amdgpu sysfs tree (0000:9f:00.0, GPU1) and the two RDMA
# devices of tests/fixtures/distinct/sys (built, see its README.md: each
# function on a host bridge of its own, NUMA nodes 11, 19, 13 and 17), so
# every pair is sys(7).  Then mlx5_1's numa_node becomes mlx5_0's: that pair
# is node(6); then -1: the pair is unknown(0) and the poller row names mlx5_1.
# Every primus_topology_distance sample equals its SNMP cell, and the state set
# primus_topology_link has the same class; GPU0's primusGpuNearestRdma (both
# NICs at sys) is the nearest_rdma label of its primus_gpu_info.
. "$(dirname "$0")/http_lib.sh"

need_fake_nvml
TOPO="$OBJ.12.10.1"                       # primusTopoEntry
POLLER="$OBJ.4.10.1" P_TOPO=12
SYS="$WORK/sys"
mkdir -p "$SYS"
cp -a "$PNA_FIXTURES/distinct/sys/." "$SYS/"
export PNA_FAKE_NVML_XML="$PNA_FIXTURES/distinct/nvidia/h100-distinct-nvidia-smi-q-x.xml"
export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
: > "$PNA_FAKE_NVML_CTL"
{
    echo "nvmlLibrary $FAKE_NVML"
    echo "nvidiaSmi $WORK/no-nvidia-smi"
    echo "pollInterval gpu 1"
    echo "pollInterval ib 1"
    echo "pollInterval topology 1"
} > "$WORK/agent.conf"

# idx A B: the index of pair (A, B), each string as its length and octets.
idx() {
    local s out=""
    for s in "$1" "$2"; do
        out="$out.${#s}$(printf '%s' "$s" | od -An -tu1 | tr -s ' \n' '..' | sed 's/\.$//')"
    done
    echo "${out#.}"
}
class_of() { snmp_value "$TOPO.3.$(idx "$1" "$2")"; }

start_snmpd
start_http_agent --sysfs "$SYS"
wait_agent
wait_http
wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $TOPO.3.$(idx GPU0 mlx5_0) | grep -q '^[0-9]'" ||
    fail "primusTopoClass.GPU0.mlx5_0 not served"

for pair in "GPU0 mlx5_0" "mlx5_0 GPU0" "GPU0 mlx5_1" "mlx5_0 mlx5_1" "mlx5_1 mlx5_0" \
            "GPU0 GPU1" "GPU1 mlx5_1"; do
    set -- $pair
    [ "$(class_of "$1" "$2")" = 7 ] || fail "primusTopoClass.$1.$2 is '$(class_of "$1" "$2")', not sys(7)"
done
rows=$(snmp_walk "$TOPO.3" | grep -c .)
[ "$rows" -eq 12 ] || fail "primusTopoTable has $rows rows, not 12 (4 devices, ordered pairs)"
ok "every pair of GPU0, GPU1, mlx5_0, mlx5_1 is sys(7), each pair both ways"

# /metrics: each sample equals its cell; the state set names the same class.
check_metrics() {
    http_body /metrics > "$WORK/metrics.txt"
    local names=(unknown self nvlink pix pxb phb node sys) a b want got
    for pair in "GPU0 mlx5_0" "GPU0 mlx5_1" "mlx5_0 mlx5_1" "mlx5_1 GPU0" "GPU1 GPU0"; do
        set -- $pair
        want=$(class_of "$1" "$2")
        got=$(sed -n "s/^primus_topology_distance{a=\"$1\",b=\"$2\"} //p" "$WORK/metrics.txt")
        [ "$got" = "$want" ] || fail "primus_topology_distance{$1,$2} is '$got', SNMP says $want"
        if [ "$want" = 0 ]; then   # unknown: no class of the set is the pair's
            ! grep -q "^primus_topology_link{a=\"$1\",b=\"$2\",class=\"[a-z]*\"} 1\$" \
                "$WORK/metrics.txt" || fail "primus_topology_link{$1,$2} has a class while unknown"
        else
            grep -q "^primus_topology_link{a=\"$1\",b=\"$2\",class=\"${names[$want]}\"} 1\$" \
                "$WORK/metrics.txt" || fail "primus_topology_link{$1,$2} is not ${names[$want]}"
        fi
    done
}
check_metrics
ok "/metrics: primus_topology_distance and primus_topology_link equal the SNMP cells"

NEAREST="$OBJ.5.10.1.105.19968"           # primusGpuNearestRdma of 0000:4e:00.0
[ "$(snmp_value "$NEAREST")" = "mlx5_0,mlx5_1" ] ||
    fail "primusGpuNearestRdma of GPU0 is '$(snmp_value "$NEAREST")', not mlx5_0,mlx5_1"
grep '^primus_gpu_info{' "$WORK/metrics.txt" | grep 'pci_bus_id="0000:4e:00.0"' |
    grep -q 'nearest_rdma="mlx5_0,mlx5_1"' || fail "primus_gpu_info of GPU0 has no nearest_rdma label"
ok "primusGpuNearestRdma of GPU0: both RDMA devices, at sys; the same label on /metrics"

# /topology: the same pairs, read by python3's json module.
http_body /topology > "$WORK/topology.json"
python3 - "$WORK/topology.json" <<'PY' || fail "/topology: $(head -c 400 "$WORK/topology.json")"
import json, sys
d = json.load(open(sys.argv[1]))["data"]
pairs = {(p["a"], p["b"]): p for p in d["pairs"]}
assert len(pairs) == 12, len(pairs)
assert pairs[("GPU0", "mlx5_0")]["class"] == "sys", pairs[("GPU0", "mlx5_0")]
assert pairs[("GPU0", "mlx5_0")]["matrix"] == "SYS"
devs = {x["name"]: x for x in d["devices"]}
assert devs["mlx5_1"]["numa_node"] == 17 and devs["mlx5_1"]["host_bridge"] == "pci0000:97", devs
assert devs["GPU0"]["kind"] == "gpu" and devs["GPU0"]["pci_addr"] == "0000:4e:00.0"
PY
ok "/topology: 4 devices and their 12 pairs, as SNMP has them"

if [ -n "$PNA_IETF_MIBDIR" ]; then
    snmptable $V2 -M "+$PNA_MIBDIR:$PNA_IETF_MIBDIR" -m +PRIMUS-NODE-MIB -Cib "$TARGET" \
        PRIMUS-NODE-MIB::primusTopoTable > "$WORK/snmptable.txt" 2>&1 || fail "snmptable: $(cat "$WORK/snmptable.txt")"
    cat "$WORK/snmptable.txt"
    grep -q 'mlx5_0.*mlx5_1.*sys' "$WORK/snmptable.txt" || fail "snmptable shows no mlx5_0 mlx5_1 sys row"
    ok "snmptable reads primusTopoTable by the MIB"
fi

# mlx5_1 moves to mlx5_0's NUMA node: across host bridges of one node.
echo 13 > "$SYS/devices/pci0000:97/0000:97:02.0/0000:98:00.0/numa_node"
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $TOPO.3.$(idx mlx5_0 mlx5_1))\" = 6 ]" ||
    fail "mlx5_0/mlx5_1 is '$(class_of mlx5_0 mlx5_1)', not node(6) after the NUMA node change"
[ "$(class_of GPU0 mlx5_1)" = 7 ] || fail "GPU0/mlx5_1 is no longer sys(7)"
check_metrics
ok "one NUMA node, two host bridges: node(6)"

# numa_node -1: NODE or SYS cannot be told; the pair is unknown, never a guess.
echo -1 > "$SYS/devices/pci0000:97/0000:97:02.0/0000:98:00.0/numa_node"
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $TOPO.3.$(idx mlx5_0 mlx5_1))\" = 0 ]" ||
    fail "mlx5_0/mlx5_1 is '$(class_of mlx5_0 mlx5_1)', not unknown(0) with numa_node -1"
err=$(snmp_value "$POLLER.7.$P_TOPO")
case $err in *"NIC1 mlx5_1: numa_node is -1"*) ;; *) fail "topology poller error is '$err'" ;; esac
[ "$(class_of GPU0 mlx5_0)" = 7 ] || fail "GPU0/mlx5_0 changed with mlx5_1's NUMA node"
check_metrics
ok "numa_node -1: the pair is unknown(0) and primusPollerLastError names mlx5_1"
