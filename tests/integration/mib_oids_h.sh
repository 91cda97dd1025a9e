#!/bin/sh
# mib_oids_h.sh -- src/model/oids.h and the model's descriptors must say
# exactly what PRIMUS-NODE-MIB says.
#
# The C code takes the OIDs, index columns, notification objects and
# enumeration values from src/model/oids.h, and the column (or scalar
# sub-identifier) of every served value from its descriptor
# (src/model/<domain>_metrics.c, listed by primus-node-agent --list-metrics).
# Each number in oids.h carries, in its line's comment, the name of the MIB
# object it mirrors (see the header's opening comment).  This test asks
# net-snmp's MIB parser for the same objects and compares:
#   #define NAME LIST  /* mibName */        expanded LIST == OID of mibName
#   enum { /* in mibParent */  NAME = N,  /* mibName */
#                                           OID of mibName == mibParent.N
#   enum { /* values of mibObject */  NAME = N,  /* label */
#                                           mibObject's SYNTAX has label(N)
#   #define NAME N  /* mibName size max */  mibName's SIZE ends at N
#   a descriptor (table, object, column, syntax, max)
#                                           OID of object == table's entry.column
#                                           (a scalar group: group.column), its
#                                           SYNTAX is the descriptor's, and a
#                                           range's upper bound is its max
#   a table's declaration (table, kind, OID, index objects; --list-tables)
#                                           OID of table == the declared OID, its
#                                           entry is OID.1, and the entry's INDEX
#                                           clause names the key's index objects
#                                           in the key's order
# and the other way round: every object of the module (conformance
# statements aside) is named in oids.h, by a descriptor or by a table's
# declaration, and every
# enumeration in it has its line in oids.h.  A #define or enum member of
# another form fails the test, so nothing escapes.
#
# Environment as for mib_lint.sh (PNA_IETF_MIBDIR, PNA_MIBDIR, top_srcdir).
# Exit status: 0 pass, 1 fail, 77 skip (automake).

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$here/../..}"
: "${PNA_MIBDIR:=$top_srcdir/mibs}"
: "${PNA_IETF_MIBDIR:=}"
: "${PNA_AGENT:=$here/../../primus-node-agent}"
mib="$PNA_MIBDIR/PRIMUS-NODE-MIB.txt"
header="$top_srcdir/src/model/oids.h"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ -n "$PNA_IETF_MIBDIR" ] ||
    skip "PNA_IETF_MIBDIR is not set (configure --with-ietf-mibs=DIR): net-snmp cannot load the MIB without the IETF base MIBs"
[ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] ||
    skip "PNA_IETF_MIBDIR=$PNA_IETF_MIBDIR has no SNMPv2-SMI.txt: net-snmp cannot load the MIB without the IETF base MIBs"
[ -f "$mib" ] || fail "$mib not found"
[ -f "$header" ] || fail "$header not found"
command -v snmptranslate >/dev/null 2>&1 || skip "snmptranslate not installed (Debian package snmp)"
[ -x "$PNA_AGENT" ] || fail "$PNA_AGENT not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pna-mib-oids.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM
"$PNA_AGENT" --list-metrics >"$tmp/catalogue" || fail "$PNA_AGENT --list-metrics failed"
grep -qv '^#' "$tmp/catalogue" || fail "the descriptor catalogue is empty"
"$PNA_AGENT" --list-tables >"$tmp/tables" || fail "$PNA_AGENT --list-tables failed"
grep -qv '^#' "$tmp/tables" || fail "the table catalogue is empty"
mkdir -p "$tmp/conf" "$tmp/persist/cert_indexes"

translate() {
    SNMPCONFPATH="$tmp/conf" SNMP_PERSISTENT_DIR="$tmp/persist" HOME="$tmp" \
    MIBS=+PRIMUS-NODE-MIB MIBDIRS="+$PNA_IETF_MIBDIR:$PNA_MIBDIR" \
        snmptranslate "$@"
}

# Every name net-snmp knows, with its OID; keep the module's subtree.
translate -Tz >"$tmp/all.tz" 2>"$tmp/tz.err" || { cat "$tmp/tz.err"; fail "snmptranslate -Tz failed"; }
root=$(translate -On PRIMUS-NODE-MIB::primusNodeMIB 2>/dev/null | sed 's/^\.//')
[ -n "$root" ] || fail "net-snmp cannot translate PRIMUS-NODE-MIB::primusNodeMIB"
ent=${root%.*}
# "label"<tabs>"oid" -> label oid, for the enterprise node and everything below it.
sed -n 's/^"\([^"]*\)"[[:space:]]*"\([0-9.]*\)"$/\1 \2/p' "$tmp/all.tz" |
    awk -v ent="$ent" '$2 == ent || index($2, ent ".") == 1' >"$tmp/mib.map"
[ -s "$tmp/mib.map" ] || fail "no object under $ent in snmptranslate -Tz output"

# Definitions (SYNTAX with enumerations and sizes) of every object but the
# conformance statements.
conf=$(awk '$1 == "primusNodeConformance" { print $2 }' "$tmp/mib.map")
awk -v root="$root" -v conf="$conf" \
    'index($2, root ".") == 1 && $2 != conf && index($2, conf ".") != 1 { print "PRIMUS-NODE-MIB::" $1 }' \
    "$tmp/mib.map" >"$tmp/objects"
# shellcheck disable=SC2046  # one argument per object name
translate -Td $(cat "$tmp/objects") >"$tmp/all.td" 2>"$tmp/td.err" ||
    { cat "$tmp/td.err"; fail "snmptranslate -Td failed"; }

awk -v root="$root" -v conf="$conf" -v hdr="$header" '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function err(msg) { print "FAIL: " msg; bad++ }
# Expand a comma list of numbers and earlier PNA_ macros to a dotted OID.
function expand(v,    n, parts, i, t, out) {
    n = split(v, parts, ",")
    out = ""
    for (i = 1; i <= n; i++) {
        t = trim(parts[i])
        if (t ~ /^[0-9]+$/) { }
        else if (t in macro) t = macro[t]
        else return ""
        out = out (out == "" ? "" : ".") t
    }
    return out
}
# The comment of a header line, or "" when none.
function comment(line,    c) {
    if (line !~ /\/\*.*\*\/[ \t]*$/) return ""
    c = line
    sub(/^.*\/\*[ \t]*/, "", c)
    sub(/[ \t]*\*\/[ \t]*$/, "", c)
    return c
}
phase == 1 { oid[$1] = $2; name_of[$2] = $1; next }
phase == 2 {
    if ($0 ~ /^PRIMUS-NODE-MIB::/) { cur = substr($0, 18); next }
    if ($0 ~ /^  -- TEXTUAL CONVENTION /) { tc[cur] = $4; next }
    if ($0 ~ /^  SYNTAX/) { syn = $0; sub(/^  SYNTAX[ \t]*/, "", syn); syntax[cur] = syn }
    if ($0 ~ /^  INDEX/) {
        ix = $0; sub(/^  INDEX[ \t]*\{[ \t]*/, "", ix); sub(/[ \t]*\}.*$/, "", ix)
        gsub(/[ \t]/, "", ix); index_clause[cur] = ix
    }
    next
}
# phase 3: the header
FNR == 1 { inenum = 0 }
/^[ \t]*\/?\*/ && inenum == 0 { next }            # comment lines
/^#define PNA_MODEL_OIDS_H[ \t]*$/ { next }     # include guard
/^#define/ {
    name = $2
    c = comment($0)
    val = $0
    sub(/^#define[ \t]+[A-Za-z0-9_]+[ \t]+/, "", val)
    sub(/[ \t]*\/\*.*$/, "", val)
    if (c ~ /^[A-Za-z][A-Za-z0-9]* size max$/) {
        split(c, w, " ")
        sizes[++nsize] = name " " w[1] " " val
        next
    }
    if (c !~ /^[A-Za-z][A-Za-z0-9]*$/) { err(hdr ": #define " name " names no MIB object in its comment"); next }
    e = expand(val)
    if (e == "") { err(hdr ": cannot expand " name " = " val); next }
    macro[name] = e
    seen[c] = 1
    if (!(c in oid)) err(name ": MIB has no object " c)
    else if (oid[c] != e) err(name " = " e " but MIB " c " is " oid[c])
    else good++
    next
}
/^enum/ {
    c = comment($0)
    if (c ~ /^in [A-Za-z0-9]+$/) { inenum = 1; parent = substr(c, 4) }
    else if (c ~ /^values of [A-Za-z0-9]+$/) { inenum = 2; obj = substr(c, 11) }
    else err(hdr ": enum without /* in X */ or /* values of X */: " $0)
    if (inenum == 1 && !(parent in oid)) err(hdr ": enum parent " parent " is not in the MIB")
    next
}
/^};/ { inenum = 0; next }
inenum && /^[ \t]*PNA_[A-Z0-9_]+[ \t]*=[ \t]*-?[0-9]+,/ {
    line = $0
    name = trim(line); sub(/[ \t=].*$/, "", name)
    num = line; sub(/^[^=]*=[ \t]*/, "", num); sub(/,.*$/, "", num)
    c = comment(line)
    if (c == "") { err(name ": no comment naming its MIB object or label"); next }
    if (inenum == 1) {
        seen[c] = 1
        if (!(c in oid)) err(name ": MIB has no object " c)
        else if (oid[c] != oid[parent] "." num)
            err(name " = " num " but MIB " c " is " oid[c] ", not " parent "." num)
        else good++
    } else {
        vals[++nval] = name " " obj " " c " " num
    }
    next
}
phase == 4 {
    if ($0 ~ /^#/) next
    n = split($0, f, "\t")
    if (f[2] == "-") next                        # a bridge-only value, or an info family
    tab = f[1]; obj = f[2]; col = f[3]; syn = f[4]; max = f[5]
    seen[obj] = 1
    base = tab
    if (tab ~ /Table$/) { base = tab; sub(/Table$/, "Entry", base) }
    if (!(obj in oid)) { err("descriptor " tab "/" obj ": MIB has no object " obj); next }
    if (!(base in oid)) { err("descriptor " tab "/" obj ": MIB has no " base); next }
    if (oid[obj] != oid[base] "." col)
        err("descriptor " obj " says column " col " of " tab ", but MIB " obj " is " oid[obj] ", not " oid[base] "." col)
    else good++
    s = syntax[obj]
    want = syn
    if (syn == "Counter64") ok = (s ~ /^Counter64/)
    else if (syn == "Unsigned32") ok = (s ~ /^(Unsigned32|Gauge32)/)
    else if (syn == "Counter32") ok = (s ~ /^Counter32/)
    else if (syn == "INTEGER") ok = (s ~ /^(INTEGER|Integer32)/) && tc[obj] != "TruthValue"
    else if (syn == "TruthValue") ok = (tc[obj] == "TruthValue")
    else if (syn == "OCTET STRING") ok = (s ~ /^OCTET STRING/)
    else ok = 0
    if (!ok) { err("descriptor " obj ": syntax " syn " but MIB SYNTAX is " s); next }
    good++
    # The upper bound of a numeric range is the max of the descriptor (0: the whole type).
    if (syn != "OCTET STRING" && s ~ /\([0-9-]+\.\.[0-9]+\)/) {
        hi = s; sub(/^[^(]*\([0-9-]+\.\./, "", hi); sub(/\).*$/, "", hi)
        full = (hi == "4294967295" || hi == "2147483647")
        if ((full && max != 0 && max != hi) || (!full && max != hi))
            err("descriptor " obj ": max " max " but MIB SYNTAX is " s)
        else good++
    } else if (max != 0 && syn != "OCTET STRING") {
        err("descriptor " obj ": max " max " but MIB SYNTAX " s " has no range")
    }
    next
}
phase == 5 {
    if ($0 ~ /^#/) next
    split($0, f, "\t")
    tab = f[1]; kind = f[2]; toid = f[3]; ix = f[4]
    seen[tab] = 1
    if (!(tab in oid)) { err("table " tab ": MIB has no object " tab); next }
    if (oid[tab] != toid) { err("table " tab " is declared at " toid ", but MIB " tab " is " oid[tab]); next }
    good++
    if (kind != "table") next
    entry = tab; sub(/Table$/, "Entry", entry)
    seen[entry] = 1
    if (!(entry in oid) || oid[entry] != toid ".1") { err("table " tab ": MIB has no " entry " at " toid ".1"); next }
    if (index_clause[entry] != ix)
        err("table " tab " is indexed by " ix " but MIB " entry " has INDEX { " index_clause[entry] " }")
    else good++
    n = split(ix, parts, ",")
    for (i = 1; i <= n; i++) seen[parts[i]] = 1
    next
}
inenum && /^[ \t]*$/ { next }
inenum { err(hdr ": line not understood inside enum: " $0); next }
/^[ \t]*$/ { next }
/^#(ifndef|endif)/ { next }
/ \*|\*\// { next }                              # rest of a block comment
{ err(hdr ": line not understood: " $0) }
END {
    # enumeration values
    for (i = 1; i <= nval; i++) {
        split(vals[i], w, " ")
        s = syntax[w[2]]
        if (s == "") { err(w[1] ": no SYNTAX known for " w[2]); continue }
        if (index(s, "{" w[3] "(" w[4] ")") == 0 && index(s, " " w[3] "(" w[4] ")") == 0)
            err(w[1] " = " w[4] " but " w[2] " SYNTAX is " s)
        else good++
        key = (w[2] in tc) ? tc[w[2]] : w[2]
        covered[key, w[3] "(" w[4] ")"] = 1
    }
    # sizes
    for (i = 1; i <= nsize; i++) {
        split(sizes[i], w, " ")
        s = syntax[w[2]]
        if (s !~ /\([0-9]+\.\.[0-9]+\)/) { err(w[1] ": " w[2] " has no SIZE (" s ")"); continue }
        hi = s; sub(/^.*\.\./, "", hi); sub(/\).*$/, "", hi)
        if (hi != w[3]) err(w[1] " = " w[3] " but " w[2] " SYNTAX is " s)
        else good++
    }
    # completeness: every object of the module is mirrored ...
    for (n in oid) {
        o = oid[n]
        if (o != root && index(o, root ".") != 1 && n != "primus") continue
        if (o == conf || index(o, conf ".") == 1) continue
        if (!(n in seen)) err("MIB object " n " (" o ") has no line in oids.h, no descriptor and no table")
    }
    # ... and every enumeration (once per textual convention).
    for (n in syntax) {
        s = syntax[n]
        if (s !~ /\{.*\}/) continue
        key = (n in tc) ? tc[n] : n
        if (key in done) continue
        done[key] = 1
        body = s; sub(/^[^{]*\{/, "", body); sub(/\}.*$/, "", body)
        m = split(body, labels, ",")
        for (j = 1; j <= m; j++) {
            l = trim(labels[j])
            if (!((key, l) in covered))
                err("enumeration " l " of " n (key != n ? " (" key ")" : "") " has no line in oids.h")
        }
    }
    printf "%d checks passed, %d failed\n", good, bad
    exit bad ? 1 : 0
}
 ' phase=1 "$tmp/mib.map" phase=2 "$tmp/all.td" phase=3 "$header" phase=4 "$tmp/catalogue" \
   phase=5 "$tmp/tables"
