#!/bin/bash
# GPU accounting end to end: the test NVML's energy counters moved by this
# test, a real gRPC pod-resources server (podresources_server.py) handing the
# GPUs to pods and between them, the agent as AgentX subagent of a real snmpd
# with its bridge.
#
# The node: the recorded H100 (held whole) and T4 (time-sliced between two
# pods, no process samples: evenly) of tests/fixtures/nvidia.  The energy
# figures and the pod-resources answers are written here (built, not
# captured: no capture of a kubelet's answer with GPU shares exists, see
# tests/fixtures/podresources/SOURCES.md).
#
# Checked, to the millijoule, through snmpd: every holder's energy against
# the steps the test fed, and on each GPU the holders' energy plus the idle
# residual against the GPU's own counter (primusGpuEnergy); across pod churn
# (a GPU handed to another pod, and handed again in the same interval as an
# energy step), a counter going backwards (nothing charged, counted, a new
# discontinuity time), a restart by SIGTERM (the counters carry on with their
# discontinuity times), by SIGKILL (they carry on with new ones) and with a
# truncated state file (they start anew, said in one log line).  /metrics
# (joules, the _created series) and /gpuUsage agree with SNMP.
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/podres_lib.sh"
need_podres
need_fake_nvml

FIX="$PNA_FIXTURES/nvidia"
XML_H100="$FIX/h100-nvidia-smi-q-x.xml" XML_T4="$FIX/tesla-t4-nvidia-smi-q-x.xml"
export PNA_FAKE_NVML_XML="$XML_H100:$XML_T4"
export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
uuid_of() { sed -n 's/.*<uuid>\(GPU-[^<]*\)<.*/\1/p' "$1" | head -n 1; }
bus_of() { sed -n 's/.*<gpu id="\([^"]*\)".*/\1/p' "$1" | head -n 1; }
U_H100=$(uuid_of "$XML_H100") U_T4=$(uuid_of "$XML_T4")
B_H100=$(bus_of "$XML_H100") B_T4=$(bus_of "$XML_T4")
pci_index() {
    local d b v f
    IFS=':.' read -r d b v f <<< "$1"
    echo $(( ((0x$d & 0xffff) << 16) | (0x$b << 8) | (0x$v << 3) | 0x$f ))
}
I_H100=$(pci_index "$B_H100") I_T4=$(pci_index "$B_T4")

# The energy counters, millijoules (the H100 limit is 700 W, the T4's 70 W:
# the steps below stay far under limit x the 1 s interval).
E_H100=1000000 E_T4=500000
set_energy() {
    printf 'set %s energy_mj %s\nset %s energy_mj %s\n' "$B_H100" "$E_H100" "$B_T4" "$E_T4" \
        > "$PNA_FAKE_NVML_CTL.new"
    mv "$PNA_FAKE_NVML_CTL.new" "$PNA_FAKE_NVML_CTL"
}
set_energy

# ---- the kubelet's assignments ----------------------------------------------------------------
R="$WORK/root"
PODRES_SOCK="$R/var/lib/kubelet/pod-resources/kubelet.sock"
PODRES_CONTROL="$WORK/podres-control"
mkdir -p "$(dirname "$PODRES_SOCK")"
scenario() {  # H100's POD: the pods that hold the GPUs
    local dev='{"resourceName":"nvidia.com/gpu","deviceIds":["%s"]}'
    {
        printf '{"list": {"podResources": ['
        printf '{"name":"%s","namespace":"ml","containers":[{"name":"trainer","devices":['"$dev"']}]},' \
            "$1" "$U_H100"
        printf '{"name":"share-b","namespace":"web","containers":[{"name":"server","devices":['"$dev"']}]},' \
            "$U_T4::0"
        printf '{"name":"share-c","namespace":"web","containers":[{"name":"server","devices":['"$dev"']}]}' \
            "$U_T4::1"
        printf ']}, "allocatable": {"devices": []}}\n'
    } > "$WORK/scenario.json.new"
    mv "$WORK/scenario.json.new" "$WORK/scenario.json"
}
scenario train-a

STATE="$WORK/state/accounting.state"
mkdir -p "$WORK/state"
{
    echo "nvmlLibrary $FAKE_NVML"
    echo "nvidiaSmi $WORK/no-nvidia-smi"
    echo "pollInterval gpu 1"
    echo "pollInterval podresources 1"
    echo "pollInterval accounting 1"
    echo "accountingStateFile $STATE"
    echo "accountingRetention 600"
} > "$WORK/agent.conf"
start_snmpd
start_podres_server "$WORK/scenario.json"
start_agent --rootfs "$R" --sysfs "$WORK/sys" --http "127.0.0.1:$HTTP_PORT"
wait_agent

GPU_ENTRY="$OBJ.5.10.1" USAGE="$OBJ.5.15.1" PODS="$OBJ.5.16.1" POLLER="$OBJ.4.10.1" P_ACCT=11
holder() { echo "1.$(str_index "$1").$2"; }   # kind container, holder id, GPU index
ROW_A=$(holder ml/train-a/trainer "$I_H100") ROW_D=$(holder ml/train-d/trainer "$I_H100")
ROW_E=$(holder ml/train-e/trainer "$I_H100")
ROW_B=$(holder web/share-b/server "$I_T4") ROW_C=$(holder web/share-c/server "$I_T4")
cell() { snmp_value "$USAGE.$1.$2"; }            # COLUMN ROW
energy() { cell 11 "$1"; }

# The holders' energy plus the idle residual is each GPU's counter, and the
# counter is what the test fed: one walk of each table.
adds_up() {
    snmp_walk "$USAGE.11" > "$WORK/usage-energy" && snmp_walk "$GPU_ENTRY.99" > "$WORK/idle" &&
        snmp_walk "$GPU_ENTRY.31" > "$WORK/counter" || return 1
    python3 - "$WORK" "$I_H100" "$E_H100" "$I_T4" "$E_T4" "${1:-}" <<'PY'
import sys
work, checks, skip = sys.argv[1], sys.argv[2:6], sys.argv[6]
def walk(name):
    out = {}
    for line in open(f"{work}/{name}"):
        oid, val = line.split()
        out[oid] = int(val)
    return out
usage, idle, counter = walk("usage-energy"), walk("idle"), walk("counter")
for gpu, fed in zip(checks[0::2], checks[1::2]):
    held = sum(v for k, v in usage.items() if k.endswith("." + gpu))
    i = [v for k, v in idle.items() if k.endswith("." + gpu)]
    c = [v for k, v in counter.items() if k.endswith("." + gpu)]
    if c != [int(fed)] or len(i) != 1:
        sys.exit(f"GPU {gpu}: counter {c} (fed {fed}), idle {i}")
    if gpu != skip and held + i[0] != c[0]:
        sys.exit(f"GPU {gpu}: holders {held} + idle {i[0]} != counter {c[0]}")
PY
}
settled() {  # wait until the accounting charged what was fed
    wait_until 30 adds_up "$@" || { adds_up "$@"; fail "${2:-the figures} do not add up: $(adds_up "$@" 2>&1)"; }
}

wait_until 30 sh -c "snmpget $V2 -On -Oqv $TARGET $USAGE.11.$ROW_B | grep -qv 'No Such'" ||
    fail "no primusGpuUsageTable row for web/share-b on the T4"
settled "" "the first figures"
A0=$(energy "$ROW_A") B0=$(energy "$ROW_B") C0=$(energy "$ROW_C")
[ "$(cell 9 "$ROW_A")" = 1 ] || fail "train-a share rule $(cell 9 "$ROW_A"), want whole(1)"
[ "$(cell 9 "$ROW_B")" = 4 ] || fail "share-b share rule $(cell 9 "$ROW_B"), want even(4)"
[ "$(cell 8 "$ROW_A")" = 1 ] || fail "train-a energy source $(cell 8 "$ROW_A"), want counter(1)"
ok "rows for ml/train-a (whole H100) and web/share-b, share-c (T4, even), holders + idle = counter"

# ---- three steps: each charged whole to train-a; the T4's evenly, rounded down ----------------
for step in 1 2 3; do
    E_H100=$((E_H100 + 123457)) E_T4=$((E_T4 + 12345))
    set_energy
    settled "" "step $step"
done
[ "$(energy "$ROW_A")" = $((A0 + 3 * 123457)) ] || fail "train-a $(energy "$ROW_A"), want $((A0 + 3 * 123457))"
[ "$(energy "$ROW_B")" = $((B0 + 3 * 6172)) ] || fail "share-b $(energy "$ROW_B"), want $((B0 + 3 * 6172))"
[ "$(energy "$ROW_C")" = $((C0 + 3 * 6172)) ] || fail "share-c $(energy "$ROW_C"), want $((C0 + 3 * 6172))"
held_cs=$(cell 12 "$ROW_A")
[ "$held_cs" -gt 100 ] || fail "train-a GPU time $held_cs cs after several polls"
ok "3 steps: train-a +370371 mJ, share-b and share-c +18516 mJ each (1 mJ a step idle), GPU time $held_cs cs"

# ---- pod churn: the H100 to train-d, then to train-e in the interval of a step -------------------
A1=$(energy "$ROW_A")
scenario train-d
wait_until 30 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $USAGE.10.$ROW_D)\" = 1 ] &&
                     [ \"\$(snmpget $V2 -On -Oqv $TARGET $USAGE.10.$ROW_A)\" = 2 ]" ||
    fail "train-d does not hold the H100 (held $(cell 10 "$ROW_D")), train-a held $(cell 10 "$ROW_A")"
E_H100=$((E_H100 + 123457)); set_energy; settled "" "after the hand-over"
[ "$(energy "$ROW_A")" = "$A1" ] || fail "train-a went on after it let go: $(energy "$ROW_A") != $A1"
D1=$(energy "$ROW_D")
[ "$D1" = 123457 ] || fail "train-d $D1, want 123457"
scenario train-e
E_H100=$((E_H100 + 123457)); set_energy
wait_until 30 sh -c "snmpget $V2 -On -Oqv $TARGET $USAGE.11.$ROW_E | grep -qv 'No Such'" ||
    fail "train-e has no row"
settled "" "after the hand-over within an interval"
D2=$(energy "$ROW_D") E2=$(energy "$ROW_E")
[ $((D2 - D1 + E2)) = 123457 ] || fail "the step split as train-d +$((D2 - D1)), train-e +$E2: not 123457"
ok "churn: train-a kept ($A1 mJ, held false), train-d 123457; the next step split d +$((D2 - D1)) / e +$E2"

# ---- a counter that goes backwards: nothing charged, counted, idle starts anew -----------------
errors0=$(snmp_value "$POLLER.6.$P_ACCT") created0=$(snmp_value "$GPU_ENTRY.100.$I_H100")
sleep 1.1   # a discontinuity time in another second
E_H100=$((E_H100 - 500000)); set_energy
wait_until 30 sh -c "snmpget $V2 -On -Oqv $TARGET $POLLER.7.$P_ACCT | grep -q backwards" ||
    fail "the backwards counter is not in the poller's error: $(snmp_value "$POLLER.7.$P_ACCT")"
[ "$(snmp_value "$POLLER.6.$P_ACCT")" -gt "$errors0" ] || fail "the backwards counter was not counted"
wait_until 30 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $GPU_ENTRY.99.$I_H100)\" = $E_H100 ]" ||
    fail "idle $(snmp_value "$GPU_ENTRY.99.$I_H100") after the counter went back, want $E_H100"
[ "$(snmp_value "$GPU_ENTRY.100.$I_H100")" -gt "$created0" ] || fail "no new discontinuity time"
[ "$(energy "$ROW_E")" = "$E2" ] || fail "train-e charged for a backwards interval"
grep -q "energy counter went backwards" "$WORK/agent.log" || fail "no log line for it"
E_H100=$((E_H100 + 123457)); set_energy; settled "$I_H100" "after the counter went back"
since_discontinuity() { [ "$(( $(energy "$ROW_E") - E2 + $(snmp_value "$GPU_ENTRY.99.$I_H100") ))" = "$E_H100" ]; }
wait_until 30 since_discontinuity ||
    fail "since the discontinuity, train-e $(energy "$ROW_E") - $E2 + idle $(snmp_value "$GPU_ENTRY.99.$I_H100") != the counter $E_H100"
ok "backwards: nothing charged, counted ($(snmp_value "$POLLER.6.$P_ACCT") errors), idle = counter, new discontinuity time"

# ---- /metrics and /gpuUsage agree ------------------------------------------------------------------
curl -s --max-time 5 "$HTTP_BASE/metrics" > "$WORK/metrics"
curl -s --max-time 5 "$HTTP_BASE/gpuUsage" > "$WORK/usage.json"
python3 - "$WORK/metrics" "$WORK/usage.json" "$(energy "$ROW_B")" "$(cell 15 "$ROW_B")" <<'PY' ||
import json, re, sys
metrics, usage, want_mj, want_created = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
text = open(metrics).read()
def sample(family, pod):
    m = re.search(r'^%s\{[^}]*pod="%s"[^}]*\} (\S+)$' % (family, pod), text, re.M)
    if not m:
        sys.exit(f"no {family} for {pod}")
    return float(m.group(1))
if round(sample("primus_gpu_usage_energy_joules_total", "share-b") * 1000) != want_mj:
    sys.exit("primus_gpu_usage_energy_joules_total of share-b is not primusGpuUsageEnergy / 1000")
if int(sample("primus_gpu_usage_energy_joules_created", "share-b")) != want_created:
    sys.exit("its _created is not primusGpuUsageCounterDiscontinuityTime")
pod_j = sample("primus_pod_gpu_energy_joules_total", "share-b")
if round(pod_j * 1000) != want_mj:
    sys.exit(f"primus_pod_gpu_energy_joules_total of share-b is {pod_j}")
data = json.load(open(usage))["data"]
row = [h for h in data["holders"] if h.get("pod") == "share-b"]
pod = [p for p in data["pods"] if p.get("pod") == "share-b"]
if len(row) != 1 or row[0]["energy_mj"] != want_mj or len(pod) != 1 or pod[0]["energy_mj"] != want_mj:
    sys.exit(f"/gpuUsage: {row} {pod}")
if len(data["gpus"]) != 2 or any("idle_energy_mj" not in g for g in data["gpus"]):
    sys.exit(f"/gpuUsage gpus: {data['gpus']}")
PY
    fail "/metrics or /gpuUsage disagree with SNMP"
ok "/metrics (joules, _created, pod sums) and /gpuUsage agree with SNMP"

# snmptable renders the tables with the MIB (where the IETF base MIBs exist);
# the log keeps them (docs/gpu.md shows them).
if [ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] && command -v snmptable >/dev/null; then
    for t in primusGpuUsageTable primusPodGpuUsageTable; do
        table=$(MIBDIRS="+$PNA_IETF_MIBDIR:$PNA_MIBDIR" MIBS="+PRIMUS-NODE-MIB" \
                snmptable $V2 -Cib "$TARGET" "PRIMUS-NODE-MIB::$t" 2>&1)
        echo "$table"
        echo "$table" | grep -q "share-b" || fail "snmptable $t has no row for share-b: $table"
    done
    ok "snmptable primusGpuUsageTable, primusPodGpuUsageTable: share-b's rows"
else
    echo "note: no IETF base MIBs: snmptable rendering not checked"
fi

# ---- restarts ----------------------------------------------------------------------------------------
# energy and discontinuity times (GPU time goes on growing at every poll)
snapshot() { snmp_walk "$USAGE" | grep -E "^\.?$USAGE\.(11|15)\." > "$1"; }
restart() {  # how: term | kill
    if [ "$1" = kill ]; then kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null; else stop_agent_now; fi
    start_agent --rootfs "$R" --sysfs "$WORK/sys" --http "127.0.0.1:$HTTP_PORT"
    wait_agent
    wait_until 30 sh -c "snmpget $V2 -On -Oqv $TARGET $USAGE.11.$ROW_B | grep -qv 'No Such'" ||
        fail "no rows after the restart ($1)"
}
snapshot "$WORK/before-term"
restart term
snapshot "$WORK/after-term"
cmp -s "$WORK/before-term" "$WORK/after-term" ||
    fail "SIGTERM: the counters did not carry on: $(diff "$WORK/before-term" "$WORK/after-term" | head)"
grep -q "restored from $STATE\$" "$WORK/agent.log" || fail "no log line for the restore"
# The first interval after a restart is the GPU's idle (nobody was seen holding it).
wait_until 30 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $POLLER.10.$P_ACCT)\" -ge 4 ]"
B3=$(energy "$ROW_B")
E_T4=$((E_T4 + 12345)); set_energy; settled "$I_H100" "after SIGTERM"
[ "$(energy "$ROW_B")" = $((B3 + 6172)) ] || fail "share-b $(energy "$ROW_B") after SIGTERM, want $((B3 + 6172))"
ok "SIGTERM: the same counters and discontinuity times after the restart, and they carry on"

created_b=$(cell 15 "$ROW_B")
sleep 1.1
restart kill
[ "$(energy "$ROW_B")" -le $((B3 + 6172)) ] || fail "SIGKILL: share-b above what it was"
[ "$(cell 15 "$ROW_B")" -gt "$created_b" ] ||
    fail "SIGKILL: discontinuity time $(cell 15 "$ROW_B") not after $created_b"
grep -q "not written at shutdown: new discontinuity time" "$WORK/agent.log" || fail "no log line for SIGKILL"
E_T4=$((E_T4 + 12345)); set_energy; settled "$I_H100" "after SIGKILL"
ok "SIGKILL: the counters carry on from the state file with a new discontinuity time"

stop_agent_now
size=$(stat -c %s "$STATE")
truncate -s $((size / 2)) "$STATE"
start_agent --rootfs "$R" --sysfs "$WORK/sys" --http "127.0.0.1:$HTTP_PORT"
wait_agent
wait_until 30 sh -c "snmpget $V2 -On -Oqv $TARGET $USAGE.11.$ROW_B | grep -qv 'No Such'" ||
    fail "no rows after a truncated state file"
[ "$(grep -c "state file $STATE unusable" "$WORK/agent.log")" = 1 ] ||
    fail "not one log line for the truncated state file"
[ "$(energy "$ROW_B")" = 0 ] || fail "share-b $(energy "$ROW_B") after a truncated state file, want 0"
E_T4=$((E_T4 + 12345)); set_energy; settled "$I_H100" "after a truncated state file"
ok "a truncated state file: one log line, the counters start anew, the agent runs"
