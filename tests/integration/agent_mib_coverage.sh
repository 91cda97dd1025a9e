#!/bin/bash
# Walks the whole primusNodeMIB subtree through a real snmpd and checks it
# against the MIB file: every OID served must be a readable object the MIB
# defines, and every readable object of the node, CPU, memory, agent, poller
# and event groups must be served.  (Each hardware domain's own test checks
# its tables the same way with its fixture tree.)
. "$(dirname "$0")/lib.sh"

[ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] ||
    skip "no IETF base MIBs (configure --with-ietf-mibs=DIR or set PNA_IETF_MIBDIR)"
command -v snmptranslate >/dev/null || skip "snmptranslate not installed"
export MIBDIRS="+$PNA_IETF_MIBDIR:$PNA_MIBDIR" MIBS="+PRIMUS-NODE-MIB"
export SNMP_PERSISTENT_DIR="$WORK/translate-persist" SNMPCONFPATH="$WORK"

# Readable leaf objects, from net-snmp's own reading of the MIB.
readable_under() {
    snmptranslate -Tp "PRIMUS-NODE-MIB::$1" 2>/dev/null |
        sed -n 's/.* -R-- [A-Za-z0-9]* *\([A-Za-z0-9]*\)(.*/\1/p'
}
all_readable=$(readable_under primusNodeMIB | sort -u)
[ "$(echo "$all_readable" | wc -l)" -gt 100 ] || fail "could not read the MIB's objects"

PROC="$WORK/proc"
mkdir -p "$PROC/sys/kernel"
for f in stat meminfo cpuinfo loadavg uptime; do cat "/proc/$f" > "$PROC/$f"; done
for f in hostname osrelease arch; do cat "/proc/sys/kernel/$f" > "$PROC/sys/kernel/$f" 2>/dev/null; done
echo "pollInterval node 1" > "$WORK/agent.conf"
start_snmpd
start_agent --procfs "$PROC"
wait_agent
# One failure and recovery fill the event table; two polls give CPU usage.
mv "$PROC/meminfo" "$PROC/meminfo.away"; sleep 2.5
mv "$PROC/meminfo.away" "$PROC/meminfo"; sleep 2.5

served=$(MIBS= snmpwalk $V2 -On "$TARGET" "$ROOT" | cut -d' ' -f1)
[ -n "$served" ] || fail "nothing served"
names=$(snmptranslate $served 2>/dev/null | grep . | sed 's/^PRIMUS-NODE-MIB:://')
[ "$(echo "$names" | wc -l)" -eq "$(echo "$served" | wc -l)" ] || fail "snmptranslate lost OIDs"
labels=$(echo "$names" | cut -d. -f1 | sort -u)
undefined=$(comm -23 <(echo "$labels") <(echo "$all_readable"))
[ -z "$undefined" ] || fail "served but not readable objects in the MIB: $(echo $undefined)"
ok "$(echo "$served" | wc -l) OIDs served, all defined readable objects"

missing=""
for group in primusSystem primusCpu primusMemory primusAgent; do
    for obj in $(readable_under $group); do
        echo "$labels" | grep -qx "$obj" || missing="$missing $obj"
    done
done
[ -z "$missing" ] || fail "MIB objects not served:$missing"
ok "every object of primusSystem, primusCpu, primusMemory, primusAgent (pollers, events) served"
echo "PASS: $TEST_NAME"
