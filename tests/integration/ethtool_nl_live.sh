#!/bin/bash
# ethtool_nl_live.sh -- the ethtool netlink reader (sources/phy/ethtool_nl.c)
# on a real veth pair, against the ethtool command (Debian's ethtool 6.1
# reads the link state over the same netlink family itself, so it is an
# independent reader of the same kernel answer).
#
# The test re-runs itself in a network namespace of its own (unshare -n as
# root, unshare -rn, a user namespace, otherwise), makes a veth pair there,
# and reads it through tests/unit/ethtool_nl_probe with both ends down, both
# up, and the peer down (no carrier): the link state must be what `ethtool
# veth0` says each time.  veth has no FEC, pause, 802.3 statistics or module
# EEPROM: those parts must be absent, the statistics answered without
# counters, and the EEPROM read refused as the recording in
# tests/fixtures/ethtool-nl/ says.  A missing interface gives the recorded
# error line.  Then, through tests/ethtool-nl/libethnlshim.so, the kernel
# refuses ETHTOOL_FLAG_STATS on LINKSTATE_GET as Linux 5.10-6.1 (Debian 12)
# do: the link state must still be read, the flag dropped after the first
# refusal and not sent again on that socket.  The namespace and the veth
# pair vanish with the process.
#
# Skips (77) without the probe (a build without libmnl), ip, ethtool or
# unshare, or where no network namespace can be made.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
TEST_NAME=ethtool_nl_live
PROBE="$top_builddir/tests/unit/ethtool_nl_probe"

skip() { echo "SKIP: $TEST_NAME: $*"; exit 77; }
fail() { echo "FAIL: $TEST_NAME: $*"; exit 1; }
ok() { echo "ok - $*"; }

if [ -z "${PNA_ETHNL_IN_NS:-}" ]; then
    [ -x "$PROBE" ] || fail "$PROBE not built (make check builds it)"
    grep -q '^#define HAVE_LIBMNL 1' "$top_builddir/pna_autoconf.h" 2>/dev/null ||
        skip "built without libmnl (configure --with-libmnl; Debian: libmnl-dev)"
    PATH=$PATH:/usr/sbin:/sbin
    for tool in ip ethtool unshare; do
        command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed (Debian: iproute2 ethtool util-linux)"
    done
    if [ "$(id -u)" = 0 ]; then ns_cmd=(unshare -n); else ns_cmd=(unshare -rn); fi
    "${ns_cmd[@]}" true 2>/dev/null ||
        skip "cannot make a network namespace (${ns_cmd[*]}: not permitted here)"
    export PNA_ETHNL_IN_NS=1 top_srcdir top_builddir PATH
    exec "${ns_cmd[@]}" bash "$0" "$@"
fi

# ---- inside the namespace ----------------------------------------------------
ip link set lo up || fail "cannot set lo up"
ip link add veth0 type veth peer name veth1 2>/dev/null || skip "veth not supported here"

OUT=$(mktemp "${TMPDIR:-/tmp}/pna-ethnl-live-XXXXXX")
trap 'rm -f "$OUT"' EXIT

# field IF FIELD: the probe's IF.FIELD from the last run.
field() { sed -n "s/^$1\.$2=//p" "$OUT"; }
probe() { "$PROBE" "$@" >"$OUT" || fail "probe failed: $(cat "$OUT")"; }
ethtool_link() { ethtool "$1" 2>/dev/null | sed -n 's/^[[:space:]]*Link detected: \([a-z]*\).*/\1/p'; }

# check_link STATE IF: the probe and ethtool agree that IF's link is STATE.
check_link() {
    local want=$1 ifname=$2 got cli
    probe "$ifname"
    [ "$(field "$ifname" rc)" = 0 ] || fail "$ifname ($want): $(field "$ifname" error)"
    got=$(field "$ifname" link)
    cli=$(ethtool_link "$ifname")
    [ "$got" = "$cli" ] || fail "$ifname: the reader says link $got, ethtool says $cli"
    [ "$got" = "$want" ] || fail "$ifname: link $got, expected $want"
    # (not sysfs: /sys still shows the namespace it was mounted in)
    local idx
    idx=$(ip -o link show dev "$ifname" | cut -d: -f1)
    [ "$(field "$ifname" ifindex)" = "$idx" ] ||
        fail "$ifname: ifindex $(field "$ifname" ifindex), ip says $idx"
}

check_link no veth0
ok "veth0 down: link no, as ethtool says"
ip link set veth0 up && ip link set veth1 up
for _ in $(seq 50); do [ "$(ethtool_link veth0)" = yes ] && break; sleep 0.1; done
check_link yes veth0
ok "veth0 and its peer up: link yes, as ethtool says"
ip link set veth1 down
for _ in $(seq 50); do [ "$(ethtool_link veth0)" = no ] && break; sleep 0.1; done
check_link no veth0
ok "veth0 up, its peer down (no carrier): link no, as ethtool says"
ip link set veth1 up
for _ in $(seq 50); do [ "$(ethtool_link veth0)" = yes ] && break; sleep 0.1; done
check_link yes veth0
check_link yes lo
ok "lo: link yes, as ethtool says"

# What veth does not have stays absent; what it answers is read.
probe veth0
[ "$(field veth0 fec)" = absent ] || fail "veth0 has no FEC, yet fec=$(field veth0 fec)"
[ "$(field veth0 stats)" = read ] || fail "veth0's statistics groups were not read"
[ "$(field veth0 counters)" = 0 ] || fail "veth0 has no counters, yet $(field veth0 counters) are present"
[ "$(field veth0 pause_tx)" = absent ] || fail "veth0 has no pause statistics"
[ "$(field veth0 down_events)" = absent ] || fail "veth0 has no link down counter"
[ "$(field veth0 ext_state)" = 0 ] || fail "veth0 has no extended link state"
eeprom=$(field veth0 eeprom)
case $eeprom in
    "module EEPROM: not supported by the driver (EOPNOTSUPP)") ;;
    *) fail "veth0's module EEPROM: '$eeprom'" ;;
esac
ok "veth0: FEC, pause and link down counter absent, statistics without counters, EEPROM: $eeprom"

probe pna-nosuch0
[ "$(field pna-nosuch0 rc)" = -ENODEV ] || fail "a missing interface was read (rc $(field pna-nosuch0 rc))"
[ "$(field pna-nosuch0 error)" = "link state: no such interface (ENODEV): no device matches name" ] ||
    fail "a missing interface: '$(field pna-nosuch0 error)'"
[ "$(field pna-nosuch0 link)" = unknown ] || fail "a missing interface has a link state"
ok "a missing interface: $(field pna-nosuch0 error)"

# A kernel whose LINKSTATE_GET refuses ETHTOOL_FLAG_STATS (5.10-6.1).
SHIM="$top_builddir/tests/ethtool-nl/libethnlshim.so"
[ -f "$SHIM" ] || fail "$SHIM not built (make check builds it)"
LOG="$OUT.shim"
: >"$LOG"
# ASan would refuse a preload placed before its runtime: the shim does not
# need it checked.
LD_PRELOAD="$SHIM" PNA_TEST_ETHNL_LOG="$LOG" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    "$PROBE" veth0 lo veth0 >"$OUT" ||
    fail "probe under the shim failed: $(cat "$OUT")"
refusals=$(grep -c "ETHTOOL_FLAG_STATS refused" "$LOG")
rm -f "$LOG"
[ "$refusals" = 1 ] || fail "the kernel refused ETHTOOL_FLAG_STATS $refusals times, expected once"
# three reads (veth0, lo, veth0 again), each with its link state
[ "$(grep -c '\.rc=0$' "$OUT")" = 3 ] || fail "old kernel: $(grep '\.error=' "$OUT" | tr '\n' ' ')"
[ "$(grep -c '\.link=yes$' "$OUT")" = 3 ] || fail "old kernel: $(grep '\.link=' "$OUT" | tr '\n' ' ')"
ok "a kernel refusing ETHTOOL_FLAG_STATS on LINKSTATE_GET: asked again without it, once per socket"
exit 0
