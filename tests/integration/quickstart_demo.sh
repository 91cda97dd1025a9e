#!/bin/bash
# The README's first command, less its apt-get and build steps
# (tools/quickstart.sh demo-run AGENT PORT): a private snmpd with the agent as
# its subagent, a walk of the MIB and the poller table printed, and then
# nothing left behind: both processes stopped and the temporary directory gone.
. "$(dirname "$0")/lib.sh"

before=$(ls -d /tmp/primus-demo-* 2>/dev/null | sort)
PNA_IETF_MIBDIR=${PNA_IETF_MIBDIR:-} "$top_srcdir/tools/quickstart.sh" demo-run "$PNA_AGENT" \
    "$SNMP_PORT" > "$WORK/demo.out" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "demo-run exited $rc: $(tail -20 "$WORK/demo.out")"
grep -q '^== snmpwalk ' "$WORK/demo.out" || fail "no walk in the output: $(head "$WORK/demo.out")"
if grep -q 'primusPollerTable' "$WORK/demo.out"; then
    grep -Eq '^ +1 +node .* ok ' "$WORK/demo.out" || fail "no node row ok in the poller table"
    ok "demo: walk and poller table (node ok) printed"
else
    # without the IETF base MIBs the demo walks numeric OIDs
    grep -q "^\.$PNA_ENTERPRISE\.1\.1\." "$WORK/demo.out" || fail "no numeric walk of the subtree"
    ok "demo: numeric walk of the subtree printed (no IETF MIBs)"
fi
after=$(ls -d /tmp/primus-demo-* 2>/dev/null | sort)
[ "$before" = "$after" ] || fail "demo left a directory behind: $(comm -13 <(echo "$before") <(echo "$after"))"
if pgrep -f "primus-demo-" >/dev/null; then
    fail "demo left processes running: $(pgrep -af primus-demo-)"
fi
ok "demo stopped snmpd and the agent and removed its directory"
