#!/bin/bash
# bench/soak.sh [MINUTES]: the agent under valgrind for MINUTES (default 10,
# or SOAK_MINUTES) on a generated node, as a subagent of a private snmpd with
# the HTTP bridge on, while everything that allocates keeps happening:
#   - every poller at a 1 s interval (gpu through the test NVML, ib, pfc,
#     node, containers);
#   - container create/exit churn (bench/churn.py) in batches, so rows, OOM
#     watches and indexes come and go;
#   - GPU thermal crossings (the test NVML's temperature moved above and
#     below the threshold), so notifications and event-table rows are made;
#   - full snmpbulkwalks of the agent's subtree and scrapes of /metrics and
#     every JSON endpoint.
# At the end the agent is stopped with SIGTERM; valgrind's report must be
# empty (no error, no definite leak; tests/valgrind.supp names the two
# net-snmp defects it skips).  Prints what was done and exits 1 on a report.
# `make soak` runs it; docs/performance.md records a run.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export PNA_VALGRIND=1
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/http_lib.sh"

MINUTES=${1:-${SOAK_MINUTES:-10}}
command -v valgrind >/dev/null || fail "valgrind not installed"
need_fake_nvml

GEN="$WORK/gen"
python3 "$top_srcdir/bench/gen_node.py" --fixtures "$PNA_FIXTURES" --out "$GEN" \
    --hcas 2 --hw-counters 40 --gpus 4 --containers 200 > "$WORK/gen.txt" ||
    fail "gen_node.py failed: $(cat "$WORK/gen.txt")"
export PNA_FAKE_NVML_XML="$GEN/nvml.xml"
export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
: > "$PNA_FAKE_NVML_CTL"
{
    echo "nvmlLibrary $FAKE_NVML"
    echo "gpuTempThreshold 60"
    for p in node gpu ib pfc containers; do echo "pollInterval $p 1"; done
} > "$WORK/agent.conf"

start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_agent --sysfs "$GEN/sys" --procfs "$GEN/proc" --devfs "$GEN/dev" --rootfs "$GEN/root" \
    --http "127.0.0.1:$HTTP_PORT"
wait_until 120 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.8.1.0 2>/dev/null)\" = 200 ]" ||
    fail "the agent did not serve the 200 containers under valgrind"
echo "agent under valgrind (pid $AGENT_PID), node: $(tr '\n' ';' < "$WORK/gen.txt")"

end=$(( $(date +%s) + MINUTES * 60 ))
walks=0 scrapes=0 heats=0 churns=0 varbinds=0 xids=0 xid_lines=""
mapfile -t BUSES < <(grep -o '<gpu id="[^"]*"' "$GEN/nvml.xml" | cut -d'"' -f2)
[ "${#BUSES[@]}" -gt 0 ] || fail "no GPU in $GEN/nvml.xml"
churn_pid=""
while [ "$(date +%s)" -lt "$end" ]; do
    if [ -z "$churn_pid" ] || ! kill -0 "$churn_pid" 2>/dev/null; then
        python3 "$top_srcdir/bench/churn.py" --gen "$GEN" --pid "$AGENT_PID" --cycles 200 \
            --batch 20 --settle 1.5 --samples 1 >> "$WORK/churn.txt" 2>&1 &
        churn_pid=$!
        PIDS+=("$churn_pid")
        churns=$((churns + 200))
    fi
    n=$(snmpbulkwalk $V2 -t 20 -On -Cr50 "$TARGET" "$ROOT" 2>/dev/null | wc -l)
    varbinds=$((varbinds + n)); walks=$((walks + 1))
    for path in /metrics /health /ready /node /metrics/json /healthz; do
        curl -s --max-time 20 -o /dev/null "$HTTP_BASE$path" && scrapes=$((scrapes + 1))
    done
    # every GPU above the 60 C threshold, then back below it; an XID now and
    # then (the test NVML delivers each "xid" line once, in order)
    temp=40
    if [ $((walks % 2)) = 0 ]; then temp=75; heats=$((heats + 1)); fi
    if [ $((walks % 5)) = 0 ]; then xid_lines+="xid ${BUSES[0]} 13"$'\n'; xids=$((xids + 1)); fi
    { for b in "${BUSES[@]}"; do echo "set $b temp $temp"; done; printf '%s' "$xid_lines"; } \
        > "$PNA_FAKE_NVML_CTL.new" && mv "$PNA_FAKE_NVML_CTL.new" "$PNA_FAKE_NVML_CTL"
    kill -0 "$AGENT_PID" 2>/dev/null || fail "the agent died; see $WORK"
done
kill "$churn_pid" 2>/dev/null; wait "$churn_pid" 2>/dev/null
traps=$(grep -cE '59888[.]1[.]0[.]7([^.0-9]|$)' "$WORK/traps.log" 2>/dev/null || true)
xid_traps=$(grep -cE '59888[.]1[.]0[.]6([^.0-9]|$)' "$WORK/traps.log" 2>/dev/null || true)
echo "soak: $MINUTES min, $walks full walks ($varbinds varbinds), $scrapes HTTP requests," \
     "up to $churns container cycles started, $heats thermal crossings on ${#BUSES[@]} GPUs" \
     "($traps primusGpuThermal traps), $xids XIDs ($xid_traps primusGpuXidError traps)"
[ "$walks" -gt 0 ] && [ "$scrapes" -gt 0 ] || fail "nothing was exercised"
[ "${traps:-0}" -gt 0 ] || fail "no thermal notification reached snmptrapd"
# lib.sh's cleanup stops the agent (SIGTERM), waits for valgrind's report and
# fails when it is not empty.
echo "stopping the agent; valgrind's report follows only if it found something"
