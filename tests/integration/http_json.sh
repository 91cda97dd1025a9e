#!/bin/bash
# The HTTP bridge's JSON endpoints and errors against a real snmpd: /ready goes
# from 503 (if a poll is still pending when asked) to 200, /health, /healthz,
# /node and /metrics/json in their shapes with values equal to snmpget's, the
# node exporter's device endpoints in theirs (empty lists on a machine without
# GPUs or RDMA devices), 404 for unknown paths and 405 with Allow for other
# methods.
. "$(dirname "$0")/http_lib.sh"

command -v jq >/dev/null || skip "jq not installed (Debian: jq)"

echo "pollInterval node 2" > "$WORK/agent.conf"
start_snmpd
start_http_agent

# ---- /ready from the first moment the port answers ---------------------------------
seen=""
for _ in $(seq 500); do
    code=$(curl -s -o "$WORK/ready.json" -w '%{http_code}' "$HTTP_BASE/ready")
    case "$code" in
    000) sleep 0.02 ;;                      # not listening yet
    503) if [ -z "$seen" ]; then
             jq -e '.status == "not ready" and (.pending | type == "array" and length > 0)' \
                 "$WORK/ready.json" >/dev/null || fail "503 /ready body: $(cat "$WORK/ready.json")"
         fi
         seen=503; sleep 0.02 ;;
    200) break ;;
    *) fail "/ready answered $code" ;;
    esac
done
[ "$code" = 200 ] || fail "/ready never answered 200"
jq -e '.status == "ready"' "$WORK/ready.json" >/dev/null || fail "200 /ready body: $(cat "$WORK/ready.json")"
ok "/ready 200 after the first polls${seen:+ (503 with the pending pollers before)}"
wait_agent

# ---- /healthz, /health -----------------------------------------------------------------
http_body /healthz > "$WORK/healthz.json"
jq -e '. == {"status":"ok"}' "$WORK/healthz.json" >/dev/null || fail "/healthz: $(cat "$WORK/healthz.json")"
ok "/healthz {\"status\":\"ok\"}"
http_body /health > "$WORK/health.json"
jq -e '.status == "ok" and .ready == true and (.pollers | type == "array")' "$WORK/health.json" \
    >/dev/null || fail "/health: $(cat "$WORK/health.json")"
[ "$(jq -r .version "$WORK/health.json")" = "$(snmp_value $OBJ.4.1.0)" ] ||
    fail "/health version != primusAgentVersion"
jq -e '.pollers[] | select(.name == "node") | .status == "ok" and .interval_seconds == 2
       and (.last_success | type == "number") and (.data_age_seconds | type == "number")' \
    "$WORK/health.json" >/dev/null || fail "/health node poller: $(cat "$WORK/health.json")"
ok "/health: ok, ready, version = primusAgentVersion, node poller row"

# ---- /node and /metrics/json against snmpget ------------------------------------------
http_body /node > "$WORK/node.json"
expect_json() { # JQ-PATH FILE WANT
    local got; got=$(jq -r "$1" "$2")
    [ "$got" = "$3" ] || fail "$(basename "$2") $1 = '$got', snmpget says '$3'"
    ok "$(basename "$2" .json) $1 = $3"
}
expect_json .hostname "$WORK/node.json" "$(snmp_value $OBJ.1.1.0)"
expect_json .os_pretty_name "$WORK/node.json" "$(snmp_value $OBJ.1.2.0)"
expect_json .kernel "$WORK/node.json" "$(snmp_value $OBJ.1.3.0)"
expect_json .cpu_model "$WORK/node.json" "$(snmp_value $OBJ.1.4.0)"
expect_json .architecture "$WORK/node.json" "$(snmp_value $OBJ.1.6.0)"
expect_json .boot_time "$WORK/node.json" "$(snmp_value $OBJ.1.7.0)"
expect_json .cpu.cores "$WORK/node.json" "$(snmp_value $OBJ.2.1.0)"
expect_json .cpu.threads "$WORK/node.json" "$(snmp_value $OBJ.2.2.0)"
expect_json .cpu.sockets "$WORK/node.json" "$(snmp_value $OBJ.2.4.0)"
expect_json .memory.total_bytes "$WORK/node.json" "$(snmp_value $OBJ.3.1.0)"
expect_json .memory.swap_total_bytes "$WORK/node.json" "$(snmp_value $OBJ.3.5.0)"
expect_json .node "$WORK/node.json" "$(cat /proc/sys/kernel/hostname)"
# os and os_version are PRETTY_NAME split at its first number
pretty=$(. /etc/os-release; echo "$PRETTY_NAME")
[ "$(jq -r '.os + (if .os_version == "" then "" else " " + .os_version end)' "$WORK/node.json")" = \
  "$(echo "$pretty" | awk '{ out = ""; for (i = 1; i <= NF; i++) { out = out (i > 1 ? " " : "") $i; if ($i ~ /^[0-9]/) break } print out }')" ] ||
    fail "/node os/os_version do not split '$pretty'"
ok "/node os + os_version from PRETTY_NAME '$pretty'"

http_body /metrics/json > "$WORK/metrics.json"
jq -e '(.cpu | has("cores") and has("threads") and has("model") and has("usage_percent"))
       and (.memory | has("total_bytes") and has("used_bytes") and has("available_bytes") and has("usage_percent"))
       and (.gpu | has("count") and has("used_count") and (.gpus | type == "array"))
       and (.timestamp | type == "number")' "$WORK/metrics.json" >/dev/null ||
    fail "/metrics/json shape: $(cat "$WORK/metrics.json")"
expect_json .cpu.threads "$WORK/metrics.json" "$(snmp_value $OBJ.2.2.0)"
expect_json .memory.total_bytes "$WORK/metrics.json" "$(snmp_value $OBJ.3.1.0)"
expect_json .gpu.count "$WORK/metrics.json" "$(snmp_value $OBJ.5.1.0 | grep -E '^[0-9]+$' || echo 0)"

# ---- the node exporter's endpoints: envelope and shapes -----------------------------
for e in /gpus /cardMetrics /rdma; do
    http_body "$e" > "$WORK/e.json"
    jq -e '.code == 0 and .message == "success" and (.data | type == "array")' "$WORK/e.json" \
        >/dev/null || fail "$e: $(cat "$WORK/e.json")"
done
http_body /driMapping > "$WORK/e.json"
jq -e '.code == 0 and (.data | type == "object")' "$WORK/e.json" >/dev/null || fail "/driMapping: $(cat "$WORK/e.json")"
http_body /gpuDriverVersion > "$WORK/e.json"
jq -e '.code == 0 and (.data | type == "string")' "$WORK/e.json" >/dev/null ||
    fail "/gpuDriverVersion: $(cat "$WORK/e.json")"
http_body /pods > "$WORK/e.json"
jq -e 'type == "array" and all(.[]; has("id") and has("pod_name") and has("pod_namespace")
       and has("pod_uuid") and (.devices | has("gpu") and has("infiniband")))' "$WORK/e.json" \
    >/dev/null || fail "/pods: $(cat "$WORK/e.json")"
rdma=$(jq -r '[.data[].if_name] | join(" ")' <(http_body /rdma))
want=$(ls /sys/class/infiniband 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')
if jq -e '.pollers[] | select(.name == "ib" and .status == "ok")' "$WORK/health.json" >/dev/null; then
    [ "$rdma" = "$want" ] || fail "/rdma devices '$rdma', /sys/class/infiniband has '$want'"
fi
ok "/gpus /gpuDriverVersion /cardMetrics /driMapping /rdma /pods: the node exporter's shapes"

# ---- errors ------------------------------------------------------------------------------
[ "$(http_code /nope)" = 404 ] || fail "/nope did not answer 404"
[ "$(http_body /nope)" = "404 page not found" ] || fail "404 body"
[ "$(http_code /metrics/)" = 404 ] || fail "/metrics/ did not answer 404"
ok "unknown paths: 404 with a short text body"
for method in POST PUT DELETE PATCH OPTIONS; do
    curl "${CURL_OPTS[@]}" -X "$method" -D "$WORK/h" -o /dev/null --data x=1 "$HTTP_BASE/metrics"
    head -1 "$WORK/h" | grep -q ' 405' || fail "$method /metrics: $(head -1 "$WORK/h")"
    grep -qi '^Allow: GET, HEAD' "$WORK/h" || fail "$method /metrics: no Allow header"
done
ok "POST PUT DELETE PATCH OPTIONS: 405 with Allow: GET, HEAD"
[ "$(curl "${CURL_OPTS[@]}" -I -o /dev/null -w '%{http_code}' "$HTTP_BASE/node")" = 200 ] ||
    fail "HEAD /node"
ok "HEAD answers like GET"
# The SNMP side is untouched by all this.
[ "$(snmp_value $OBJ.1.1.0)" = "$(cat /proc/sys/kernel/hostname)" ] || fail "SNMP after the HTTP requests"
ok "SNMP still answers"
echo "PASS: $TEST_NAME"
