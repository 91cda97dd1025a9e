#!/bin/bash
# Sources that vanish while they are read: for ten seconds the sysfs
# InfiniBand tree, the containerd bundles, the cgroup files and the procfs
# node files are removed and put back (a copy at a time, so polls also see
# half-written trees) while SIGHUP makes every poller poll again every 50 ms.
# The agent never crashes and SNMP keeps answering; with the whole node tree
# gone the node poller shows the missing file in primusPollerTable and the
# RDMA and container rows go (a source that is not there has no rows); when
# the tree is back every row returns under its old index.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"

gen_node --containers 40
fault_conf
cp -a "$NODE" "$WORK/node.good"
start_snmpd
start_agent $(node_args)
wait_agent
wait_until 20 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0)\" = 40 ] &&
                     [ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.6.1.0)\" = 2 ]" ||
    fail "node not served at start"
identity_walk "$WORK/before"
ok "start: $(grep -c . "$WORK/before") identity cells"

IB=sys/class/infiniband
TASKS=root/run/containerd/io.containerd.runtime.v2.task/k8s.io
# flap REL: remove NODE/REL and copy it back, again and again.
flap() {
    local rel=$1 end=$(( $(date +%s) + 10 ))
    while [ "$(date +%s)" -lt "$end" ]; do
        rm -rf "${NODE:?}/$rel"
        sleep 0.0$(( RANDOM % 9 + 1 ))
        mkdir -p "$(dirname "$NODE/$rel")"
        cp -a "$WORK/node.good/$rel" "$NODE/$rel" 2>/dev/null
        sleep 0.0$(( RANDOM % 9 + 1 ))
    done
}
flappers=()
for rel in "$IB" "$TASKS" sys/fs/cgroup/kubepods.slice proc/meminfo proc/stat; do
    flap "$rel" & flappers+=("$!")
done
end=$(( $(date +%s) + 10 ))
rounds=0
while [ "$(date +%s)" -lt "$end" ]; do
    kill -HUP "$AGENT_PID" 2>/dev/null
    sleep 0.05
    rounds=$((rounds + 1))
    (( rounds % 10 )) || snmp_answers "while flapping"
done
for f in "${flappers[@]}"; do wait "$f"; done
agent_alive
runs=$(snmp_value "$POLLER.10.$P_IB")
ok "10 s of vanishing trees, $rounds SIGHUPs: alive, answering ($runs ib polls)"

# The whole tree gone.
rm -rf "${NODE:?}"
kill -HUP "$AGENT_PID"
wait_status $P_NODE 2 10 || fail "node poller not failing(2) without procfs: $(status_of $P_NODE)"
echo "   poller node: last error: '$(error_of $P_NODE)'"
error_of $P_NODE | grep -q "No such file" || fail "node error does not say the file is missing"
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.6.1.0)\" = 0 ]" ||
    fail "RDMA devices still counted without sysfs: $(snmp_value $OBJ.6.1.0)"
wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0)\" = 0 ]" ||
    fail "containers still counted without containerd state: $(snmp_value $OBJ.8.1.0)"
snmp_answers "tree gone"
[ -n "$(snmp_value "$OBJ.1.1.0")" ] || fail "last good node data not served"
ok "tree gone: node poller failing with the missing file, RDMA and container rows gone, SNMP answers"

cp -a "$WORK/node.good" "$NODE"
kill -HUP "$AGENT_PID"
for p in $P_NODE $P_IB $P_CONTAINERS; do
    wait_status "$p" 1 15 || fail "poller $p did not recover: $(status_of $p) $(error_of $p)"
done
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0)\" = 40 ] &&
                     [ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.6.1.0)\" = 2 ]" || fail "rows not back"
identity_walk "$WORK/after"
diff "$WORK/before" "$WORK/after" > "$WORK/diff" || fail "rows or indexes differ: $(head -10 "$WORK/diff")"
agent_alive
ok "tree back: every row under its old index"
echo "PASS: $TEST_NAME"
