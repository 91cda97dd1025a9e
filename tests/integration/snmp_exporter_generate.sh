#!/bin/sh
# snmp_exporter_generate.sh -- the shipped etc/snmp_exporter/snmp.yml must be
# exactly what prometheus-snmp-generator makes today from
# etc/snmp_exporter/generator.yml and mibs/PRIMUS-NODE-MIB.txt.
#
# The generator copies names, OIDs, types and DESCRIPTION texts out of the MIB,
# so any change to the MIB or to generator.yml that was not followed by
# `make snmp-exporter-config` shows up here as a diff.  The generator's output
# is deterministic (checked: identical bytes on repeated runs).
#
# Environment (set by `make check`):
#   PNA_IETF_MIBDIR  directory with the IETF base modules; without it: skip.
#   PNA_MIBDIR       directory with PRIMUS-NODE-MIB.txt.
# Exit status: 0 pass, 1 fail, 77 skip (automake).

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$here/../..}"
: "${PNA_MIBDIR:=$top_srcdir/mibs}"
: "${PNA_IETF_MIBDIR:=}"
: "${PNA_SNMP_GENERATOR:=prometheus-snmp-generator}"
confdir="$top_srcdir/etc/snmp_exporter"

skip() { echo "SKIP: snmp_exporter_generate: $*"; exit 77; }
fail() { echo "FAIL: snmp_exporter_generate: $*"; exit 1; }

command -v "$PNA_SNMP_GENERATOR" >/dev/null 2>&1 ||
    skip "$PNA_SNMP_GENERATOR not installed (Debian package prometheus-snmp-exporter)"
[ -n "$PNA_IETF_MIBDIR" ] ||
    skip "PNA_IETF_MIBDIR is not set (configure --with-ietf-mibs=DIR): the generator needs the IETF base MIBs"
[ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] ||
    skip "PNA_IETF_MIBDIR=$PNA_IETF_MIBDIR has no SNMPv2-SMI.txt"
[ -f "$confdir/generator.yml" ] || fail "$confdir/generator.yml not found"
[ -f "$confdir/snmp.yml" ] || fail "$confdir/snmp.yml not found"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pna-snmp-gen.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM

# The generator reads generator.yml from its working directory.  MIBDIRS
# without a leading '+' is the whole search path: nothing from ~/.snmp or
# /usr/share/snmp/mibs can change the result.
cp "$confdir/generator.yml" "$tmp/generator.yml" || fail "cannot copy generator.yml"
mibdirs="$(cd "$PNA_IETF_MIBDIR" && pwd):$(cd "$PNA_MIBDIR" && pwd)"
if ! (cd "$tmp" && MIBDIRS="$mibdirs" MIBS= "$PNA_SNMP_GENERATOR" --fail-on-parse-errors \
        generate -o "$tmp/snmp.yml") >"$tmp/generator.log" 2>&1; then
    cat "$tmp/generator.log"
    fail "prometheus-snmp-generator failed (log above)"
fi
echo "ok - generator ran: $(grep -o 'module=[a-z_0-9]* metrics=[0-9]*' "$tmp/generator.log" | tr '\n' ' ')"

if ! diff -u "$confdir/snmp.yml" "$tmp/snmp.yml" >"$tmp/diff"; then
    head -n 60 "$tmp/diff"
    fail "etc/snmp_exporter/snmp.yml is out of date: run 'make snmp-exporter-config' and commit the result"
fi
echo "ok - etc/snmp_exporter/snmp.yml is what the generator makes today"

# The exporter itself must accept the file.
if command -v prometheus-snmp-exporter >/dev/null 2>&1; then
    prometheus-snmp-exporter --dry-run --config.file="$confdir/snmp.yml" >"$tmp/dry.log" 2>&1 ||
        { cat "$tmp/dry.log"; fail "prometheus-snmp-exporter --dry-run rejects snmp.yml"; }
    echo "ok - prometheus-snmp-exporter --dry-run accepts snmp.yml"
fi
exit 0
