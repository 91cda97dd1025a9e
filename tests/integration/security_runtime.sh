#!/bin/bash
# Security properties of a running agent (docs/security.md):
#  - the master's AgentX socket gets the mode and owner agentXPerms sets;
#  - the agent runs as "nobody" (no root, no capability) on a node tree where
#    some sources are root-only: the readable ones are served, the others
#    show "Permission denied" in primusPollerTable, nothing crashes;
#  - the MIB refuses a SET (agent_subagent.sh checks the same on a scalar);
#  - the HTTP bridge listens on the loopback address it was given only, and
#    the agent on nothing else (no SMUX port, no AgentX master socket);
#  - a secret never leaves: a kubelet token, an environment variable of the
#    agent and the env/args/annotations of a container spec, each holding a
#    unique marker, appear in no log, no snmpwalk, no trap, no /metrics and no
#    JSON endpoint, even while the kubelet fails (the stub proves the token
#    was sent).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
command -v setpriv >/dev/null || skip "setpriv not installed (util-linux)"
[ "$(id -u)" = 0 ] || skip "needs root to start the agent as nobody"
NOBODY_UID=$(id -u nobody 2>/dev/null) || skip "no user nobody"
NOBODY_GID=$(id -g nobody)
# Can nobody reach the binary at all (a build in a private home cannot)?
setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups "$PNA_AGENT" --version >/dev/null 2>&1 ||
    skip "user nobody cannot run $PNA_AGENT (a directory on its path is closed)"

MARK="PNA-SECRET-$$-$RANDOM$RANDOM"
gen_node
# A container spec carrying the marker where the runtime puts secrets.
python3 - "$NODE" "$MARK" <<'PY'
import glob, json, sys
spec = sorted(glob.glob(sys.argv[1] + "/root/run/containerd/io.containerd.runtime.v2.task/k8s.io/*/config.json"))[0]
d = json.load(open(spec))
d["process"]["env"].append("API_TOKEN=" + sys.argv[2])
d["process"]["args"].append("--password=" + sys.argv[2])
d["annotations"]["example.com/secret"] = sys.argv[2]
json.dump(d, open(spec, "w"))
PY
STUB="$WORK/stub"
mkdir -p "$STUB/stats"
cp "$PNA_FIXTURES/kubelet/nri-kubernetes-k8s-1.35/pods.json" "$STUB/pods"
cp "$PNA_FIXTURES/kubelet/nri-kubernetes-k8s-1.35/stats-summary.json" "$STUB/stats/summary"
echo ok > "$WORK/stub.mode"
python3 "$(dirname "$0")/fault_stub.py" --dir "$STUB" --mode-file "$WORK/stub.mode" \
    --port-file "$WORK/stub.port" --auth-log "$WORK/auth.log" 2>"$WORK/stub.log" &
PIDS+=("$!")
wait_for "kubelet stub" test -s "$WORK/stub.port"

# Files for nobody: the token (0600, nobody's own, as a pod's token is the
# pod user's), the log and pid files (in $WORK, where lib.sh looks for
# sanitizer reports); the node tree is world-readable except two root-only
# sources.
RUN="$WORK/run"
mkdir -p "$RUN"
echo "$MARK" > "$RUN/token"
chmod 600 "$RUN/token"
touch "$WORK/agent.log" "$WORK/agent-stderr.log" "$WORK/agent.pid"
chown nobody "$RUN" "$RUN/token" "$WORK/agent.log" "$WORK/agent-stderr.log" "$WORK/agent.pid"
chmod 755 "$WORK"
chmod -R a+rX "$NODE"
chmod 700 "$NODE/sys/class/infiniband" "$NODE/root/run/containerd/io.containerd.runtime.v2.task"
fault_conf "kubeletUrl http://127.0.0.1:$(cat "$WORK/stub.port")" "kubeletTokenFile $RUN/token" \
    "pollInterval kubelet 1"
chmod 644 "$WORK/agent.conf"

start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public" "agentXPerms 0660 0770 nobody"
sock="$WORK/agentx.sock"
[ "$(stat -c %a "$sock")" = 660 ] || fail "AgentX socket mode $(stat -c %a "$sock"), agentXPerms says 0660"
[ "$(stat -c %U "$sock")" = nobody ] || fail "AgentX socket owner $(stat -c %U "$sock"), agentXPerms says nobody"
ok "AgentX socket: mode 0660, owner nobody, as agentXPerms sets"

HTTP_PORT=$(free_port)
HTTP_OPT=()
"$PNA_AGENT" --help 2>&1 | grep -q -- "--http" && HTTP_OPT=(--http "127.0.0.1:$HTTP_PORT")
PNA_SECRET_ENV="$MARK" setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups \
    "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" -x "$AGENTX" -p "$WORK/agent.pid" \
    $(node_args) "${HTTP_OPT[@]}" 2>>"$WORK/agent-stderr.log" &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
wait_agent
[ "$(awk '/^Uid:/ {print $2 $3 $4 $5}' "/proc/$AGENT_PID/status")" = "$NOBODY_UID$NOBODY_UID$NOBODY_UID$NOBODY_UID" ] ||
    fail "the agent does not run as nobody"
caps=$(awk '/^CapEff:/ {print $2}' "/proc/$AGENT_PID/status")
[ "$caps" = 0000000000000000 ] || fail "the agent as nobody has capabilities $caps"
wait_status $P_NODE 1 15 || fail "node poller not ok as nobody: $(error_of $P_NODE)"
wait_status $P_KUBELET 1 15 || fail "kubelet poller not ok as nobody: $(error_of $P_KUBELET)"
[ -f "$FAKE_NVML" ] && { wait_status $P_GPU 1 15 || fail "gpu poller not ok as nobody: $(error_of $P_GPU)"; }
wait_status $P_IB 2 15 || fail "ib poller not failing(2) on a root-only sysfs dir: $(status_of $P_IB)"
wait_status $P_CONTAINERS 2 15 || fail "containers poller not failing(2) on root-only containerd state: $(status_of $P_CONTAINERS)"
for p in $P_IB $P_CONTAINERS; do
    echo "   poller $(snmp_value $POLLER.2.$p): last error: '$(error_of $p)'"
    error_of "$p" | grep -q "Permission denied" || fail "poller $p does not say Permission denied"
done
snmp_answers "as nobody"
agent_alive
ok "as nobody, no capabilities: node, kubelet$([ -f "$FAKE_NVML" ] && echo ", gpu") served; ib and containers say Permission denied"

out=$(snmpset -v2c -c private "$TARGET" "$POLLER.3.$P_NODE" u 1000 2>&1)
echo "$out" | grep -q -e notWritable -e noAccess -e noCreation || fail "SET on primusPollerInterval not refused: $out"
out=$(snmpset $V3 "$TARGET" "$OBJ.1.1.0" s changed 2>&1)
echo "$out" | grep -q -e notWritable -e noAccess -e noCreation -e authorizationError || fail "v3 SET not refused: $out"
ok "SET refused (v2c private community, v3 authPriv user)"

if [ "${#HTTP_OPT[@]}" -gt 0 ]; then
    wait_for "HTTP bridge" curl -sf -o /dev/null "http://127.0.0.1:$HTTP_PORT/healthz"
    listen=$(ss -Hltn "sport = :$HTTP_PORT" | awk '{print $4}' | sort -u | tr '\n' ' ')
    [ "$listen" = "127.0.0.1:$HTTP_PORT " ] || fail "the bridge listens on '$listen', expected 127.0.0.1:$HTTP_PORT only"
    ok "HTTP bridge listens on 127.0.0.1:$HTTP_PORT only"
else
    echo "note: this agent has no --http: the bridge is not checked"
fi
# Every socket the agent listens on (TCP, UDP unconnected, unix): the
# bridge's, if any, and nothing else.
want=$([ "${#HTTP_OPT[@]}" -gt 0 ] && echo "tcp 127.0.0.1:$HTTP_PORT")
listening=$({ ss -Hanptu; ss -Hlxp; } 2>/dev/null | grep "pid=$AGENT_PID," |
            awk '$2 == "LISTEN" || $2 == "UNCONN" {print $1, $5}' | sort -u)
[ "$listening" = "$want" ] ||
    fail "the agent listens on '$(echo "$listening" | tr '\n' ';')', expected '${want:-nothing}'"
ok "the agent listens on ${want:-nothing} and nothing else"

# --- the secrets -------------------------------------------------------------
grep -q "Bearer $MARK" "$WORK/auth.log" || fail "the kubelet token was not sent: the marker proves nothing"
ok "the kubelet stub received the token"
for m in close garbage stall ok; do   # kubelet error paths log and trap
    echo "$m" > "$WORK/stub.mode"
    sleep 3
done
wait_status $P_KUBELET 1 15 || fail "kubelet poller did not recover"
: > "$WORK/exposed"
snmpbulkwalk $V2 -Cr50 -On "$TARGET" "$ROOT" > "$WORK/exposed.walk" 2>&1
snmpbulkwalk $V3 -Cr50 -On "$TARGET" "$ROOT" >> "$WORK/exposed.walk" 2>&1
[ "$(grep -c . "$WORK/exposed.walk")" -gt 200 ] || fail "the walk returned too little to prove anything"
if [ "${#HTTP_OPT[@]}" -gt 0 ]; then
    for path in /metrics /metrics/json /node /health /healthz /ready /gpus /gpuDriverVersion \
                /cardMetrics /driMapping /rdma /pods; do
        curl -s "http://127.0.0.1:$HTTP_PORT$path" > "$WORK/exposed.http.$(echo "$path" | tr / _)"
    done
    grep -q "primus_" "$WORK/exposed.http._metrics" || fail "/metrics returned nothing to check"
fi
leaks=$(grep -l -- "$MARK" "$WORK"/agent*.log "$WORK"/exposed.* "$WORK/traps.log" "$WORK/snmpd.log" 2>/dev/null)
[ -z "$leaks" ] || fail "the secret marker appears in: $leaks"
grep -q "poller kubelet" "$WORK/agent.log" || fail "no kubelet error was logged: the log check proves nothing"
ok "no trace of the token, the agent's environment or the container's secrets in logs, traps, walks or HTTP"
echo "PASS: $TEST_NAME"
