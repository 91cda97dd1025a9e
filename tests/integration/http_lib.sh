# http_lib.sh -- shared set-up for the HTTP bridge's integration tests, on top
# of lib.sh: a free TCP port, the agent started with --http on loopback, and
# small curl wrappers.  Sourced by tests/integration/http_*.sh.
declare -F start_snmpd >/dev/null || . "$(dirname "$0")/lib.sh"   # once, also when a bench script sourced it

command -v curl >/dev/null || skip "curl not installed"

HTTP_PORT=$(free_tcp_port)
HTTP_SCHEME=http
HTTP_BASE="http://127.0.0.1:$HTTP_PORT"
CURL_OPTS=(--silent --show-error --max-time 10)

# http_body PATH [curl options...]: the body; fails the test if curl fails.
http_body() {
    local path=$1; shift
    curl "${CURL_OPTS[@]}" "$@" "$HTTP_BASE$path" || fail "curl $path failed"
}

# http_code PATH [curl options...]: only the status code.
http_code() {
    local path=$1; shift
    curl "${CURL_OPTS[@]}" -o /dev/null -w '%{http_code}' "$@" "$HTTP_BASE$path"
}

# start_http_agent [agent options...]: the subagent with the bridge on HTTP_PORT.
start_http_agent() {
    start_agent --http "127.0.0.1:$HTTP_PORT" "$@"
}

# wait_http [curl options...]: until the bridge answers /healthz.
wait_http() {
    wait_until 20 sh -c "curl -s -o /dev/null -w '%{http_code}' $* $HTTP_BASE/healthz | grep -q 200" ||
        fail "the HTTP bridge did not answer on $HTTP_BASE"
}

# metric_value FILE NAME LABELS: the value of NAME{LABELS} (LABELS exactly as
# written, "" for none) in an exposition saved in FILE; empty when absent.
metric_value() {
    local file=$1 name=$2 labels=$3 key
    if [ -n "$labels" ]; then key="$name{$labels} "; else key="$name "; fi
    awk -v key="$key" 'index($0, key) == 1 { print $NF; exit }' "$file"
}

# stop_agent_now: stop the agent started last and wait for it; under
# PNA_VALGRIND=1 its report is checked here, before the next agent's replaces it.
stop_agent_now() {
    kill "$AGENT_PID" 2>/dev/null
    for _ in $(seq 150); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$AGENT_PID" 2>/dev/null && fail "the agent did not stop"
    if [ -s "$WORK/agent-valgrind.log" ]; then
        head -60 "$WORK/agent-valgrind.log"
        fail "valgrind report for the agent"
    fi
    return 0
}

# start_prometheus CONFIG PORT: a private Prometheus on 127.0.0.1:PORT with
# its data under $WORK, stopped with the test; PROM is its URL.
start_prometheus() {
    prometheus --config.file="$1" --storage.tsdb.path="$WORK/tsdb" \
        --web.listen-address="127.0.0.1:$2" --log.level=warn >"$WORK/prometheus.log" 2>&1 &
    PIDS+=("$!")
    PROM="http://127.0.0.1:$2"
    wait_for "prometheus" curl -fsS -o /dev/null "$PROM/-/ready"
}
# query EXPR: that Prometheus's answer to an instant query.
query() { curl -sS --max-time 10 "$PROM/api/v1/query" --data-urlencode "query=$1"; }

# start_kubelet DIR: a kubelet stand-in (Python's http.server) serving DIR's
# files (pods, stats/summary) on 127.0.0.1:$KPORT, a free port this sets;
# waits until /pods answers.  kubelet_recorded DIR copies the recorded pods and
# summary of a v1.35 node there first.
start_kubelet() {
    KPORT=$(free_tcp_port)
    /usr/bin/python3 -m http.server "$KPORT" --bind 127.0.0.1 --directory "$1" >"$WORK/kubelet.log" 2>&1 &
    PIDS+=("$!")
    wait_for "kubelet stand-in" curl -fsS -o /dev/null "http://127.0.0.1:$KPORT/pods"
}
kubelet_recorded() {
    local fix="$PNA_FIXTURES/kubelet/nri-kubernetes-k8s-1.35"
    mkdir -p "$1/stats"
    cp "$fix/pods.json" "$1/pods"
    cp "$fix/stats-summary.json" "$1/stats/summary"
}
