#!/bin/sh
# mib_lint.sh -- PRIMUS-NODE-MIB must pass smilint and load in net-snmp.
#
# smilint (smitools) checks the module against SMIv2 at level 6; it exits 0
# even when it reports errors, so its output decides: any message of
# severity 0 to 3 ("[0]".."[3]" with -s) fails the test, warnings (4 to 6)
# are shown.  Then net-snmp's own parser must load the module (with the
# default MIB list, as snmpwalk would) and translate its objects, with
# nothing on stderr.
#
# Environment (set by `make check`, see AM_TESTS_ENVIRONMENT):
#   PNA_IETF_MIBDIR  directory with the IETF base modules (SNMPv2-SMI, ...);
#                    Debian ships none, so without it the test is skipped.
#   PNA_MIBDIR       directory with PRIMUS-NODE-MIB.txt (default: mibs/ next
#                    to this script's tree).
# Exit status: 0 pass, 1 fail, 77 skip (automake).

set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$here/../..}"
: "${PNA_MIBDIR:=$top_srcdir/mibs}"
: "${PNA_IETF_MIBDIR:=}"
mib="$PNA_MIBDIR/PRIMUS-NODE-MIB.txt"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ -n "$PNA_IETF_MIBDIR" ] ||
    skip "PNA_IETF_MIBDIR is not set (configure --with-ietf-mibs=DIR): no IETF base MIBs to lint against"
[ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] ||
    skip "PNA_IETF_MIBDIR=$PNA_IETF_MIBDIR has no SNMPv2-SMI.txt: no IETF base MIBs to lint against"
[ -f "$mib" ] || fail "$mib not found"
command -v smilint >/dev/null 2>&1 || skip "smilint not installed (Debian package smitools)"
command -v snmptranslate >/dev/null 2>&1 || skip "snmptranslate not installed (Debian package snmp)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pna-mib-lint.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT INT TERM

status=0

# --- smilint ----------------------------------------------------------------
SMIPATH="$PNA_IETF_MIBDIR:$PNA_MIBDIR" smilint -s -l 6 "$mib" >"$tmp/smilint.out" 2>&1
if [ -s "$tmp/smilint.out" ]; then
    echo "smilint -s -l 6 says:"
    sed 's/^/  /' "$tmp/smilint.out"
fi
# Messages look like "FILE:LINE: [N] text" (or "[N] text" for a file that
# cannot be read); N 0-3 are errors.
if grep -q '\[[0-3]\]' "$tmp/smilint.out"; then
    echo "FAIL: smilint reports errors (severity 0-3)"
    status=1
else
    echo "ok: smilint reports no error (severity 0-3)"
fi

# --- net-snmp ---------------------------------------------------------------
# A private, empty configuration and persistent directory, so that the host's
# snmp.conf ("mibs :" on Debian) and ~/.snmp change nothing and nothing is
# written under /var/lib/snmp.
mkdir -p "$tmp/conf" "$tmp/persist/cert_indexes"
translate() {
    SNMPCONFPATH="$tmp/conf" SNMP_PERSISTENT_DIR="$tmp/persist" HOME="$tmp" \
    MIBS=+PRIMUS-NODE-MIB MIBDIRS="+$PNA_IETF_MIBDIR:$PNA_MIBDIR" \
        snmptranslate "$@"
}

objects="primusNodeMIB primusNodeObjects primusPollerTable primusPollerName
primusEventText primusGpuUtilization primusIbPortRcvData
primusRoceNpEcnMarkedRocePackets primusHwCounterValue primusPfcRxFrames
primusContainerOomKills primusPodStorageUsed primusK8sGpuAllocRate
primusIbPortDown primusNodeCompliance"
args=""
for o in $objects; do args="$args PRIMUS-NODE-MIB::$o"; done

# shellcheck disable=SC2086  # $args is a list of words on purpose
translate -On $args >"$tmp/on.out" 2>"$tmp/on.err"
rc=$?
if [ $rc -ne 0 ] || [ -s "$tmp/on.err" ]; then
    echo "FAIL: snmptranslate -On exited $rc or complained:"
    sed 's/^/  /' "$tmp/on.err"
    status=1
fi
n_want=$(echo "$objects" | wc -w)
n_got=$(grep -c '^\.1\.3\.6\.1\.4\.1\.[0-9.]*$' "$tmp/on.out")
if [ "$n_got" -ne "$n_want" ]; then
    echo "FAIL: expected $n_want numeric OIDs under enterprises, got $n_got:"
    sed 's/^/  /' "$tmp/on.out"
    status=1
else
    echo "ok: net-snmp translates $n_want objects, e.g. primusNodeMIB = $(head -n 1 "$tmp/on.out")"
fi

# The whole tree must print without a parse complaint.
translate -Tp PRIMUS-NODE-MIB::primusNodeMIB >"$tmp/tp.out" 2>"$tmp/tp.err"
rc=$?
if [ $rc -ne 0 ] || [ -s "$tmp/tp.err" ] || ! grep -q 'primusNodeMIB' "$tmp/tp.out"; then
    echo "FAIL: snmptranslate -Tp exited $rc or complained:"
    sed 's/^/  /' "$tmp/tp.err" | head -n 40
    status=1
else
    echo "ok: snmptranslate -Tp prints the tree ($(wc -l <"$tmp/tp.out") lines), nothing on stderr"
fi

exit $status
