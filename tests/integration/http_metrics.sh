#!/bin/bash
# The HTTP bridge's /metrics against a real snmpd: promtool finds the exposition
# clean, the system-info exporter's hw_* names carry their exact label sets, and every value
# equals what snmpget returns for the same MIB object in the same cache
# generation (poller runs and last success read before and after; a poll in
# between means try again), and the independent reading of this machine.
. "$(dirname "$0")/http_lib.sh"

command -v promtool >/dev/null || skip "promtool not installed (Debian: prometheus)"

echo "pollInterval node 2" > "$WORK/agent.conf"
start_snmpd
start_http_agent
wait_agent
wait_http
wait_until 20 sh -c "curl -s -o /dev/null -w '%{http_code}' $HTTP_BASE/ready | grep -q 200" ||
    fail "/ready never answered 200"
ok "/ready 200 once the pollers ran"

# CPU usage needs two polls; wait for it so that every node metric is there.
wait_until 15 sh -c "curl -s $HTTP_BASE/metrics | grep -q '^primus_cpu_usage_ratio '" ||
    fail "primus_cpu_usage_ratio never appeared"

# ---- promtool ---------------------------------------------------------------
http_body /metrics > "$WORK/metrics.txt"
promtool check metrics < "$WORK/metrics.txt" > "$WORK/promtool.log" 2>&1 ||
    { cat "$WORK/promtool.log"; fail "promtool check metrics is not clean"; }
ok "promtool check metrics: clean ($(grep -c '^# TYPE' "$WORK/metrics.txt") families)"

head_code=$(curl "${CURL_OPTS[@]}" -I -o /dev/null -w '%{http_code}' "$HTTP_BASE/metrics")
[ "$head_code" = 200 ] || fail "HEAD /metrics answered $head_code"
ok "HEAD /metrics 200"
curl "${CURL_OPTS[@]}" -D "$WORK/headers" -o /dev/null "$HTTP_BASE/metrics"
grep -qi '^Content-Type: text/plain; version=0.0.4' "$WORK/headers" || fail "wrong Content-Type"
ok "Content-Type text/plain; version=0.0.4"

# ---- one cache generation -------------------------------------------------------
P=$OBJ.4.10.1            # primusPollerEntry; the node poller is row 1
snmp_all() {
    snmpget $V2 -On -Oqv "$TARGET" \
        $OBJ.1.1.0 $OBJ.1.3.0 $OBJ.1.4.0 $OBJ.1.5.0 $OBJ.1.7.0 \
        $OBJ.2.1.0 $OBJ.2.2.0 $OBJ.2.3.0 $OBJ.2.4.0 $OBJ.2.5.0 $OBJ.2.6.0 $OBJ.2.7.0 $OBJ.2.8.0 \
        $OBJ.3.1.0 $OBJ.3.2.0 $OBJ.3.3.0 $OBJ.3.4.0 $OBJ.3.5.0 $OBJ.3.6.0 \
        $OBJ.4.5.0 $OBJ.4.3.0 $P.3.1 $P.4.1 $P.6.1 $P.10.1 $P.12.1 | sed 's/^"//; s/"$//'
}
generation() { # FILE: the node poller's runs and last success in a scrape
    echo "$(metric_value "$1" primus_poller_runs_total 'poller="node"')" \
         "$(metric_value "$1" primus_poller_last_success_timestamp_seconds 'poller="node"')"
}
same=
for attempt in 1 2 3 4 5 6; do
    http_body /metrics > "$WORK/before.txt"
    mapfile -t S < <(snmp_all)
    http_body /metrics > "$WORK/after.txt"
    g1=$(generation "$WORK/before.txt"); g2=$(generation "$WORK/after.txt")
    snmp_runs=${S[24]}; snmp_success=${S[22]}
    b_success=$(echo "$g1" | awk '{printf "%d", $2}')
    if [ "$g1" = "$g2" ] && [ "$snmp_runs" = "$(echo "$g1" | cut -d' ' -f1)" ] &&
       [ "$snmp_success" = "$b_success" ]; then
        same=1; break
    fi
    echo "a poll ran between the readings (attempt $attempt: $g1 / $g2 / snmp $snmp_runs $snmp_success); again"
    sleep 0.3
done
[ -n "$same" ] || fail "could not read both front ends within one cache generation"
ok "SNMP and HTTP read within one cache generation (node poller run $snmp_runs)"
M=$WORK/before.txt

HOST=${S[0]}
NODE="node=\"$HOST\""
expect() { # WHAT HTTP SNMP
    [ "$2" = "$3" ] || fail "$1: /metrics says '$2', snmpget says '$3'"
    ok "$1 = $3"
}
# hundredths (MIB) -> the exact decimal the bridge prints for a ratio/percent
ratio() { awk -v v="$1" -v d="$2" 'BEGIN { s = sprintf("%.*f", d, v / 10^d); sub(/0+$/, "", s); sub(/\.$/, "", s); print s }'; }

# The system-info exporter's label sets, exactly, in order.
grep -Eq "^hw_node_info\{node=\"[^\"]*\",os=\"[^\"]*\",os_version=\"[^\"]*\",kernel=\"[^\"]*\",cpu_model=\"[^\"]*\"\} 1$" "$M" ||
    fail "hw_node_info does not have the system-info exporter's labels node, os, os_version, kernel, cpu_model"
ok "hw_node_info{node,os,os_version,kernel,cpu_model}"
for m in hw_cpu_cores hw_cpu_threads hw_cpu_usage_percent hw_memory_total_bytes hw_memory_used_bytes \
         hw_memory_available_bytes hw_memory_usage_percent hw_node_uptime_seconds; do
    grep -Eq "^$m\{node=\"[^\"]*\"\} [0-9.e+]+$" "$M" || fail "$m{node} missing or with other labels"
done
ok "hw_cpu_*, hw_memory_*, hw_node_uptime_seconds carry {node} only"

grep -F "hw_node_info{$NODE," "$M" | grep -qF "kernel=\"${S[1]}\"" || fail "hw_node_info kernel != primusNodeKernel"
grep -F "hw_node_info{$NODE," "$M" | grep -qF "cpu_model=\"${S[2]}\"" || fail "hw_node_info cpu_model != primusNodeCpuModel"
ok "hw_node_info node/kernel/cpu_model = primusNodeHostname/Kernel/CpuModel"
expect "node uptime" "$(metric_value "$M" primus_node_uptime_seconds '')" "${S[3]}"
expect "hw_node_uptime_seconds" "$(metric_value "$M" hw_node_uptime_seconds "$NODE")" "${S[3]}"
expect "boot time" "$(metric_value "$M" primus_node_boot_time_seconds '')" "${S[4]}"
expect "hw_cpu_cores" "$(metric_value "$M" hw_cpu_cores "$NODE")" "${S[5]}"
expect "hw_cpu_threads" "$(metric_value "$M" hw_cpu_threads "$NODE")" "${S[6]}"
expect "primus_cpu_threads" "$(metric_value "$M" primus_cpu_threads '')" "${S[6]}"
expect "hw_cpu_usage_percent" "$(metric_value "$M" hw_cpu_usage_percent "$NODE")" "$(ratio "${S[7]}" 2)"
expect "primus_cpu_usage_ratio" "$(metric_value "$M" primus_cpu_usage_ratio '')" "$(ratio "${S[7]}" 4)"
expect "cpu sockets" "$(metric_value "$M" primus_cpu_sockets '')" "${S[8]}"
expect "load1" "$(metric_value "$M" primus_cpu_load1 '')" "$(ratio "${S[9]}" 2)"
expect "load5" "$(metric_value "$M" primus_cpu_load5 '')" "$(ratio "${S[10]}" 2)"
expect "load15" "$(metric_value "$M" primus_cpu_load15 '')" "$(ratio "${S[11]}" 2)"
expect "iowait" "$(metric_value "$M" primus_cpu_iowait_ratio '')" "$(ratio "${S[12]}" 4)"
expect "hw_memory_total_bytes" "$(metric_value "$M" hw_memory_total_bytes "$NODE")" "${S[13]}"
expect "hw_memory_used_bytes" "$(metric_value "$M" hw_memory_used_bytes "$NODE")" "${S[14]}"
expect "hw_memory_available_bytes" "$(metric_value "$M" hw_memory_available_bytes "$NODE")" "${S[15]}"
expect "hw_memory_usage_percent" "$(metric_value "$M" hw_memory_usage_percent "$NODE")" "$(ratio "${S[16]}" 2)"
expect "primus_memory_usage_ratio" "$(metric_value "$M" primus_memory_usage_ratio '')" "$(ratio "${S[16]}" 4)"
expect "swap total" "$(metric_value "$M" primus_memory_swap_total_bytes '')" "${S[17]}"
expect "swap used" "$(metric_value "$M" primus_memory_swap_used_bytes '')" "${S[18]}"
expect "events total" "$(metric_value "$M" primus_agent_events_total '')" "${S[19]}"
expect "agent degraded" "$(metric_value "$M" primus_agent_degraded '')" "$([ "${S[20]}" = 2 ] && echo 1 || echo 0)"
expect "poller interval (ms)" "$(awk -v v="$(metric_value "$M" primus_poller_interval_seconds 'poller="node"')" 'BEGIN{printf "%d", v * 1000}')" "${S[21]}"
expect "poller errors" "$(metric_value "$M" primus_poller_errors_total 'poller="node"')" "${S[23]}"
expect "poller timeout (ms)" "$(awk -v v="$(metric_value "$M" primus_poller_timeout_seconds 'poller="node"')" 'BEGIN{printf "%d", v * 1000}')" "${S[25]}"
expect "poller status ok" "$(metric_value "$M" primus_poller_status 'poller="node",status="ok"')" 1

# ---- and this machine, read independently ----------------------------------------
expect "hw_cpu_threads vs /proc/cpuinfo" "$(metric_value "$M" hw_cpu_threads "$NODE")" \
    "$(grep -c '^processor' /proc/cpuinfo)"
expect "hw_memory_total_bytes vs /proc/meminfo" "$(metric_value "$M" hw_memory_total_bytes "$NODE")" \
    "$(awk '/^MemTotal:/ {printf "%.0f\n", $2 * 1024}' /proc/meminfo)"
expect "node label vs hostname" "$HOST" "$(cat /proc/sys/kernel/hostname)"
grep -F "hw_node_info{$NODE," "$M" | grep -qF "kernel=\"$(uname -r)\"" || fail "kernel label != uname -r"
ok "kernel label = uname -r"
age=$(metric_value "$M" primus_poller_data_age_seconds 'poller="node"')
awk -v a="$age" 'BEGIN { exit !(a >= 0 && a < 6) }' || fail "node data age $age s with a 2 s interval"
ok "node data age ${age}s"
echo "PASS: $TEST_NAME"
