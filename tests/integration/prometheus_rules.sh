#!/bin/bash
# prometheus_rules.sh -- the alert rules of etc/prometheus/ pass
# `promtool check rules` and their unit tests (`promtool test rules`: input
# series on which each alert fires and series on which it does not); every
# alert has a test, a severity and component label, a summary and a
# description; the bridge and snmp_exporter files define the same alerts
# (the snmp_exporter file adds PrimusSubagentMissing, which only SNMP can see).
# Skips (77) without promtool (Debian: prometheus).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
TEST_NAME=$(basename "$0" .sh)
skip() { echo "SKIP: $TEST_NAME: $*"; exit 77; }
fail() { echo "FAIL: $TEST_NAME: $*"; exit 1; }
ok() { echo "ok - $*"; }

command -v promtool >/dev/null 2>&1 || skip "promtool not installed (Debian: prometheus)"
DIR="$top_srcdir/etc/prometheus"
BRIDGE="$DIR/alerts.yml"
SNMP="$DIR/alerts_snmp_exporter.yml"
for f in "$BRIDGE" "$SNMP" "$DIR/alerts_test.yml" "$DIR/alerts_snmp_exporter_test.yml"; do
    [ -f "$f" ] || fail "$f not found"
done

out=$(promtool check rules "$BRIDGE" "$SNMP" 2>&1) || fail "promtool check rules: $out"
ok "promtool check rules: $(echo "$out" | grep -o 'SUCCESS: [0-9]* rules found' | tr '\n' ' ')"

# promtool resolves a test file's rule_files beside it, whatever the cwd.
for t in alerts_test.yml alerts_snmp_exporter_test.yml; do
    out=$(promtool test rules "$DIR/$t" 2>&1) || fail "promtool test rules $t:
$out"
    ok "promtool test rules $t: SUCCESS"
done

# alerts FILE: the alert names a rules file defines, sorted.
alerts() { sed -n 's/^[[:space:]]*- alert:[[:space:]]*\([A-Za-z0-9_]*\).*/\1/p' "$1" | sort; }
# rule_blocks FILE: one line per alert, "NAME <the rule's text on one line>".
rule_blocks() {
    awk '/^[[:space:]]*- alert:/ { if (name != "") print name, body; name = $3; body = ""; next }
         /^[[:space:]]*- name:/ { if (name != "") print name, body; name = ""; body = ""; next }
         { body = body " " $0 }
         END { if (name != "") print name, body }' "$1"
}
for pair in "$BRIDGE:alerts_test.yml" "$SNMP:alerts_snmp_exporter_test.yml"; do
    rules=${pair%%:*}; tests="$DIR/${pair#*:}"
    n=0
    for a in $(alerts "$rules"); do
        grep -qE "^[[:space:]]*alertname: $a\$" "$tests" || fail "$(basename "$rules"): $a has no unit test in $(basename "$tests")"
        # a firing case: an exp_alerts list with an entry, for this alert
        awk -v a="$a" '$0 ~ "alertname: " a "$" { seen = 1; next }
                       seen && /exp_alerts: \[\]/ { seen = 0 }
                       seen && /exp_labels:/ { found = 1 }
                       /alertname:/ { seen = 0 }
                       END { exit !found }' "$tests" || fail "$(basename "$tests"): no firing case for $a"
        grep -qE "^[[:space:]]*exp_alerts: \[\]" "$tests" || fail "$(basename "$tests"): no not-firing case at all"
        n=$((n + 1))
    done
    [ "$(alerts "$rules" | uniq -d)" = "" ] || fail "$(basename "$rules"): duplicate alert names: $(alerts "$rules" | uniq -d)"
    while read -r name body; do
        for want in "severity: \(critical\|warning\)" "component: [a-z]" "summary: " "description: "; do
            echo "$body" | grep -q "$want" || fail "$(basename "$rules"): $name lacks '$want'"
        done
    done < <(rule_blocks "$rules")
    ok "$(basename "$rules"): $n alerts, each with a unit test that fires it, severity, component, summary, description"
done
# Every alert's test file also has cases where it does not fire: each test
# group evaluates at least one time with no alert expected.
for t in alerts_test.yml alerts_snmp_exporter_test.yml; do
    groups=$(grep -c '^- name:' "$DIR/$t")
    quiet=$(awk '/^- name:/ { if (g && q) n++; g = 1; q = 0 } /exp_alerts: \[\]/ { q = 1 } END { if (g && q) n++; print n + 0 }' "$DIR/$t")
    [ "$groups" = "$quiet" ] || fail "$t: $((groups - quiet)) of $groups test groups have no not-firing evaluation"
    ok "$t: all $groups test groups check a time where the alert must not fire"
done

diff <(alerts "$BRIDGE") <(alerts "$SNMP" | grep -vx PrimusSubagentMissing) >/dev/null ||
    fail "alerts.yml and alerts_snmp_exporter.yml define different alerts: $(diff <(alerts "$BRIDGE") <(alerts "$SNMP"))"
ok "alerts.yml and alerts_snmp_exporter.yml define the same alerts (+ PrimusSubagentMissing for SNMP)"
echo "PASS: $TEST_NAME"
