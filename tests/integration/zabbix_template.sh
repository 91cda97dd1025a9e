#!/bin/sh
# zabbix_template.sh -- etc/zabbix/primus-node-agent.yaml is what
# etc/zabbix/template.py generates today from mibs/PRIMUS-NODE-MIB.txt, covers
# every object of the MIB, and has the shape of a Zabbix 6.0 export.
#
#   1. the committed file equals the generator's output (`make zabbix-template`);
#   2. every scalar, column and notification of the MIB is covered by an item,
#      an item prototype or a trap item, or is in the generator's reviewed
#      EXCLUDED list (not-accessible INDEX columns, accessible-for-notify
#      objects) -- a new MIB object without an item fails here;
#   3. the YAML parses: version 6.0, one template, numeric OIDs, discovery
#      rules on discovery[{#MACRO},OID,...], prototypes' OIDs ending in
#      .{#SNMPINDEX}, unique keys and UUIDs, value maps that exist, triggers
#      naming only the template's items and defined macros.
# Environment: PNA_IETF_MIBDIR (smidump needs the IETF base MIBs); skip without.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$here/../..}"
: "${PNA_IETF_MIBDIR:=}"
skip() { echo "SKIP: zabbix_template: $*"; exit 77; }
fail() { echo "FAIL: zabbix_template: $*"; exit 1; }

command -v smidump >/dev/null 2>&1 || skip "smidump not installed (Debian: smitools)"
[ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] ||
    skip "PNA_IETF_MIBDIR is not set or has no SNMPv2-SMI.txt (configure --with-ietf-mibs=DIR)"
PY=""
for p in /usr/bin/python3 python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import yaml' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || skip "no python3 with PyYAML (Debian: python3-yaml)"
GEN="$top_srcdir/etc/zabbix/template.py"
YAML="$top_srcdir/etc/zabbix/primus-node-agent.yaml"
[ -f "$YAML" ] || fail "$YAML not found"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pna-zabbix-template.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM

# ---- 1. generated ------------------------------------------------------------------------
"$PY" "$GEN" --ietf-mibdir "$PNA_IETF_MIBDIR" --out "$tmp/gen.yaml" || fail "template.py failed"
if ! diff -u "$YAML" "$tmp/gen.yaml" > "$tmp/diff"; then
    head -40 "$tmp/diff"
    fail "etc/zabbix/primus-node-agent.yaml is out of date: run 'make zabbix-template' and commit the result"
fi
echo "ok - etc/zabbix/primus-node-agent.yaml is what template.py generates today"

# ---- 2. coverage -------------------------------------------------------------------------
"$PY" "$GEN" --ietf-mibdir "$PNA_IETF_MIBDIR" --coverage > "$tmp/coverage" || fail "template.py --coverage failed"
n=$(wc -l < "$tmp/coverage")
[ "$n" -gt 280 ] || fail "only $n MIB objects listed by --coverage"
if grep -q "NOT COVERED" "$tmp/coverage"; then
    grep "NOT COVERED" "$tmp/coverage"
    fail "MIB objects without an item, item prototype or trap item (add them, or to EXCLUDED with a reason)"
fi
echo "ok - $n MIB objects: $(grep -c "	item primus" "$tmp/coverage") items, $(grep -c "	item prototype" "$tmp/coverage") item prototypes, $(grep -c "	trap item" "$tmp/coverage") trap items, $(grep -c "	excluded" "$tmp/coverage") excluded with a reason"

# ---- 3. shape ------------------------------------------------------------------------------
"$PY" - "$YAML" "$tmp/coverage" <<'PYEOF' || fail "shape check failed (above)"
import re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
errors = []
def err(m): errors.append(m)
ex = doc.get("zabbix_export") or {}
if ex.get("version") != "6.0": err("version is %r, not '6.0'" % ex.get("version"))
tpls = ex.get("templates") or []
if len(tpls) != 1: err("%d templates, expected 1" % len(tpls))
t = tpls[0]
name = t["template"]
vms = {v["name"] for v in t.get("valuemaps", [])}
macros = {m["macro"] for m in t.get("macros", [])}
uuids, keys = [], set()
OID = re.compile(r"^1(\.[0-9]+)+$")
def item_checks(it, proto):
    uuids.append(it["uuid"])
    if not re.fullmatch(r"[0-9a-f]{32}", it["uuid"]): err("bad uuid %s" % it["uuid"])
    if it["key"] in keys: err("duplicate key %s" % it["key"])
    keys.add(it["key"])
    if "valuemap" in it and it["valuemap"]["name"] not in vms: err("%s: value map %s not defined" % (it["key"], it["valuemap"]["name"]))
    typ = it.get("type")
    if typ == "SNMP_AGENT":
        oid = it["snmp_oid"]
        if proto:
            if not oid.endswith(".{#SNMPINDEX}") or not OID.match(oid[:-len(".{#SNMPINDEX}")]):
                err("%s: prototype OID %s does not end in .{#SNMPINDEX}" % (it["key"], oid))
        elif not OID.match(oid) or not oid.endswith(".0"):
            err("%s: scalar OID %s is not numeric .0" % (it["key"], oid))
    elif typ == "DEPENDENT":
        if "master_item" not in it: err("%s: dependent without master" % it["key"])
    elif typ == "SNMP_TRAP":
        if not (it["key"].startswith("snmptrap[") or it["key"] == "snmptrap.fallback"): err("trap key %s" % it["key"])
    else:
        err("%s: unexpected type %s" % (it["key"], typ))
    for f in ("delay",):
        for m in re.findall(r"\{\$[A-Z0-9_.]+\}", str(it.get(f, ""))):
            if m not in macros: err("%s: %s uses undefined macro %s" % (it["key"], f, m))
for it in t.get("items", []):
    item_checks(it, False)
n_rules = n_protos = 0
trig = list(ex.get("triggers", []))
for r in t.get("discovery_rules", []):
    n_rules += 1
    uuids.append(r["uuid"])
    m = re.fullmatch(r"discovery\[(.*)\]", r.get("snmp_oid", ""))
    if not m: err("rule %s: snmp_oid is not discovery[...]" % r["key"])
    else:
        parts = m.group(1).split(",")
        if len(parts) % 2 or not all(re.fullmatch(r"\{#[A-Z0-9_]+\}", p) for p in parts[0::2]) or not all(OID.match(p) for p in parts[1::2]):
            err("rule %s: discovery[] is not {#MACRO},OID pairs: %s" % (r["key"], r["snmp_oid"]))
    for p in r.get("item_prototypes", []):
        n_protos += 1
        item_checks(p, True)
        if "{#SNMPINDEX}" not in p["key"]: err("prototype key %s lacks {#SNMPINDEX}" % p["key"])
    trig += r.get("trigger_prototypes", [])
for tr in trig:
    uuids.append(tr["uuid"])
    for host, key in re.findall(r"\(/([^/()]+)/([A-Za-z0-9_.]+(?:\[[^\]]*\])?)[,)]", tr["expression"]):
        if host != name: err("trigger %s: host %s" % (tr["name"], host))
        if key not in keys: err("trigger %s: item %s is not in the template" % (tr["name"], key))
    for m in re.findall(r"\{\$[A-Z0-9_.]+\}", tr["expression"] + tr["name"] + tr.get("description", "")):
        if m not in macros: err("trigger %s: undefined macro %s" % (tr["name"], m))
if len(uuids) != len(set(uuids)): err("duplicate UUIDs")
if errors:
    print("\n".join(errors[:30]))
    sys.exit(1)
print("ok - Zabbix 6.0 export: %d items, %d discovery rules, %d item prototypes, %d triggers and prototypes, "
      "%d value maps, %d macros; numeric OIDs, discovery[] rules, .{#SNMPINDEX} prototypes"
      % (len(t.get("items", [])), n_rules, n_protos, len(trig), len(vms), len(macros)))
PYEOF
echo "PASS: zabbix_template"
