#!/bin/bash
# The event table over HTTP, against the same table through a real snmpd: the
# test NVML raises three XIDs and a thermal crossing with eventHistory 3, then
# /events must hold exactly primusEventTable's rows (index, type, severity,
# subject, text) with their details, "total" must be primusAgentEventsTotal,
# and /metrics' primus_events_total{type} must count every event by type.
. "$(dirname "$0")/http_lib.sh"
command -v jq >/dev/null || skip "jq not installed (Debian: jq)"
need_fake_nvml

export PNA_FAKE_NVML_XML="$PNA_FIXTURES/nvidia/h100-nvidia-smi-q-x.xml"
export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
: > "$PNA_FAKE_NVML_CTL"
BUS=00000000:00:06.0
mkdir -p "$WORK/sys"
{
    echo "nvmlLibrary $FAKE_NVML"
    echo "nvidiaSmi $WORK/no-nvidia-smi"
    echo "pollInterval gpu 1"
    echo "gpuTempThreshold 60"
    echo "eventHistory 3"
} > "$WORK/agent.conf"
start_snmpd
start_http_agent --sysfs "$WORK/sys"
wait_agent
wait_http
wait_until 15 sh -c "grep -q 'XID listener watching 1' '$WORK/agent.log'" || fail "XID listener not armed"

for x in 13 31 43; do echo "xid $BUS $x" >> "$PNA_FAKE_NVML_CTL"; done
echo "set $BUS temp 75" >> "$PNA_FAKE_NVML_CTL"
EVENT="$OBJ.4.20.1"
wait_until 20 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $OBJ.4.5.0)\" -ge 4 ] 2>/dev/null" ||
    fail "four events did not happen: primusAgentEventsTotal $(snmp_value $OBJ.4.5.0)"
sleep 1.5   # one more gpu poll: nothing else is expected, but let it show

total=$(snmp_value "$OBJ.4.5.0")
snmp_walk "$EVENT" > "$WORK/table.txt"
http_body /events > "$WORK/events.json"
python3 - "$EVENT" "$WORK/table.txt" "$WORK/events.json" "$total" <<'PY' || fail "/events differs from primusEventTable"
import json, sys
prefix, tablef, jsonf, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
TYPES = {1: "pollerFailed", 2: "pollerRecovered", 3: "ibPortDown", 4: "ibPortUp",
         5: "containerOomKill", 6: "gpuXid", 7: "gpuThermal", 8: "gpuLost", 9: "pfcPauseStorm"}
SEVS = {1: "info", 2: "warning", 3: "error", 4: "critical"}
rows = {}
for line in open(tablef):
    oid, _, val = line.rstrip("\n").partition(" ")
    col, idx = oid[len(prefix) + 1:].split(".")
    rows.setdefault(int(idx), {})[int(col)] = val.strip('"')
doc = json.load(open(jsonf))
bad = []
if doc["capacity"] != 3 or doc["total"] != total:
    bad.append("capacity %r total %r (SNMP total %d)" % (doc["capacity"], doc["total"], total))
got = [e["index"] for e in doc["events"]]
if got != sorted(rows):
    bad.append("indexes %s, the table has %s" % (got, sorted(rows)))
for e in doc["events"]:
    r = rows.get(e["index"], {})
    want = (TYPES.get(int(r.get(3, 0))), SEVS.get(int(r.get(4, 0))), r.get(5), r.get(6))
    have = (e["type"], e["severity"], e["subject"], e["text"])
    if want != have:
        bad.append("event %d: %r, the table says %r" % (e["index"], have, want))
    if not e["time"].endswith("Z") or "T" not in e["time"]:
        bad.append("event %d: time %r" % (e["index"], e["time"]))
    d = e["details"]
    if e["type"] == "gpuXid" and (d.get("pci_bus_id") != "0000:00:06.0" or d.get("xid") not in (13, 31, 43)):
        bad.append("event %d details %r" % (e["index"], d))
    if e["type"] == "gpuThermal" and (d.get("temperature_celsius") != 75 or d.get("threshold_celsius") != 60):
        bad.append("event %d details %r" % (e["index"], d))
print("\n".join(bad) if bad else "agree: %d events of %d" % (len(got), total))
sys.exit(1 if bad else 0)
PY
ok "/events: the 3 kept rows of primusEventTable, total $total, details of XID and thermal"

http_body /metrics > "$WORK/metrics.txt"
count() { sed -n "s/^primus_events_total{type=\"$1\"} //p" "$WORK/metrics.txt"; }
[ "$(count gpuXid)" = 3 ] || fail "primus_events_total{type=gpuXid} = '$(count gpuXid)'"
[ "$(count gpuThermal)" = 1 ] || fail "primus_events_total{type=gpuThermal} = '$(count gpuThermal)'"
[ "$(count ibPortDown)" = 0 ] || fail "primus_events_total{type=ibPortDown} = '$(count ibPortDown)' (want 0, present)"
sum=$(awk '/^primus_events_total[{]/ { s += $2 } END { print s + 0 }' "$WORK/metrics.txt")
[ "$sum" = "$total" ] || fail "primus_events_total sums to $sum, primusAgentEventsTotal is $total"
[ "$(sed -n 's/^primus_agent_events_total //p' "$WORK/metrics.txt")" = "$total" ] || fail "primus_agent_events_total"
ok "primus_events_total by type: gpuXid 3, gpuThermal 1, zeros present, sum = primusAgentEventsTotal"
