#!/bin/bash
# lldp_source.sh -- the LLDP neighbour source (sources/pfc/lldp.c) against
# real lldpd daemons: two network namespaces joined by a veth pair, an lldpd
# in each (lldp_lib.sh).  In namespace A, tests/unit/lldp_read_probe prints
# what pna_lldp_read() found on A's socket; every field must equal what
# `lldpcli -f json0 show neighbors details` says (lldp_oracle.py), and what
# B was set up to send: its hostname, its veth as port id and description,
# its chassis MAC, its management address, a PVID and a PFC TLV.  Then B
# stops and its neighbour is gone within the TTL; B comes back sending no
# PVID, no PFC TLV and its MAC as port id; a socket that accepts and never
# answers costs the timeout and says so; a missing, a stale and a hanging-up
# socket each give their one-line error.  PNA_VALGRIND=1 runs the probe
# under valgrind: an error or a definite leak fails the test.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lldp_lib.sh"

PROBE="$top_builddir/tests/unit/lldp_read_probe"
[ -x "$PROBE" ] || fail "$PROBE not built (make check builds it)"
grep -q '^#define HAVE_LLDPCTL 1' "$top_builddir/pna_autoconf.h" 2>/dev/null ||
    skip "built without liblldpctl (configure --with-lldpctl; Debian: liblldpctl-dev)"
need_lldp

# probe SIDE ARGS...: the probe in SIDE's namespace (under valgrind with
# PNA_VALGRIND=1; lib.sh's cleanup fails the test on a non-empty
# agent-valgrind.log).
probe() {
    local side=$1
    shift
    if [ "${PNA_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
        local vlog="$WORK/probe-valgrind.log" rc
        : >"$vlog"
        lldp_in "$side" valgrind --quiet --leak-check=full --show-leak-kinds=definite \
            --errors-for-leak-kinds=definite --track-fds=no \
            --suppressions="$top_srcdir/tests/valgrind.supp" --log-file="$vlog" \
            "$PROBE" "$@"
        rc=$?
        [ -s "$vlog" ] && { echo "== lldp_read_probe $*"; cat "$vlog"; } >>"$WORK/agent-valgrind.log"
        return $rc
    fi
    lldp_in "$side" "$PROBE" "$@"
}

# field FILE IF FIELD: the value of IF.FIELD in FILE.
field() { sed -n "s/^$2\.$3=//p" "$1"; }

# Ages have lldpd's one-second resolution: lldpd stamps a neighbour with
# time(2) when it takes its advertisement as new, and the age that lldpcli
# and the probe print is their own time(2) minus that stamp.  A read between
# wall-clock seconds T0 and T1 (date +%s before and after) that says A
# seconds puts the stamp between T0-A and T1-A, and that range is all a read
# proves: two reads of one stamp give ranges that overlap, however slow the
# machine was between them, and two ages taken N seconds apart may differ by
# N-1 to N+1.  No fixed tolerance in seconds holds on a loaded machine; the
# overlap does, and it still fails an age that does not grow with the clock.
#
# overlap T0 T1 A T0' T1' A': the stamp ranges of two reads overlap.
overlap() { [ $(($1 - $3)) -le $(($5 - $6)) ] && [ $(($4 - $6)) -le $(($2 - $3)) ]; }

# agree NAME: the probe's and the oracle's views of A's neighbours, taken one
# after the other, are the same but for the age, whose stamp ranges overlap
# (saved in $WORK/NAME-clock.txt: T0 T1 probe-age lldpcli-age).  lldpd may
# restart the age between the two reads (B's daemon still applying its
# configuration sends a changed frame): lldpcli's age then reads younger than
# the probe's, and both are read once more.
agree() {
    local a b t0 t1 try
    for try in 1 2; do
        t0=$(date +%s)
        probe A "$LLDP_SOCK_A" 2000 >"$WORK/$1-probe.txt" || fail "probe failed: $(cat "$WORK/$1-probe.txt")"
        lldp_oracle A >"$WORK/$1-oracle.txt" || fail "lldpcli's JSON could not be read"
        t1=$(date +%s)
        diff -u <(grep -v '\.age_s=' "$WORK/$1-oracle.txt") <(grep -v '\.age_s=' "$WORK/$1-probe.txt") ||
            fail "$1: pna_lldp_read() differs from lldpcli (- lldpcli, + probe)"
        a=$(field "$WORK/$1-probe.txt" "$LLDP_IF_A" age_s)
        b=$(field "$WORK/$1-oracle.txt" "$LLDP_IF_A" age_s)
        echo "$t0 $t1 $a $b" >"$WORK/$1-clock.txt"
        [ -z "$a$b" ] && return 0 # no neighbour
        [ -n "$a" ] && [ -n "$b" ] || fail "$1: age '${a}' from the probe, '${b}' from lldpcli"
        overlap "$t0" "$t1" "$a" "$t0" "$t1" "$b" && return 0
        [ "$b" -lt "$a" ] || break
    done
    fail "$1: age ${a}s, lldpcli says ${b}s, both read between $t0 and $t1 (date +%s)"
}

# expect NAME FIELD VALUE: the probe's FIELD of A's veth end.
expect() {
    local got
    got=$(field "$WORK/$1-probe.txt" "$LLDP_IF_A" "$2")
    [ "$got" = "$3" ] || fail "$1: $LLDP_IF_A.$2 is '$got', expected '$3'"
}

lldp_setup
MAC_B=$(lldp_in B cat "/sys/class/net/$LLDP_IF_B/address")
lldp_start A
lldp_start B "configure lldp portidsubtype ifname" "$(lldp_pfc_line 3,4)" "$(lldp_pvid_line 100)"
lldp_wait_neighbor A

# ---- B advertises everything ------------------------------------------------
agree full
expect full sys_name "$LLDP_HOST_B"
expect full chassis_id "$MAC_B"
expect full port_id "$LLDP_IF_B"
expect full port_descr "$LLDP_IF_B"
expect full mgmt_addr "${LLDP_ADDR_B%/*}"
expect full pvid 100
expect full pfc_known 1
expect full pfc_en 3,4
grep -qx 'ok 1' "$WORK/full-probe.txt" || fail "full: not exactly one entry: $(tail -1 "$WORK/full-probe.txt")"
ok "every field equals lldpcli's: $LLDP_HOST_B, port $LLDP_IF_B, chassis $MAC_B, mgmt ${LLDP_ADDR_B%/*}, PVID 100, PFC on 3,4"

# The age is seconds since lldpd took the advertisement as new: it grows
# with the clock while B repeats the same frame every second, so after 3 s
# the probe's new read must give a stamp range that overlaps the first one
# (and so an age at least 2 s older: see overlap above).  lldpd restarts the
# age itself when a frame differs from the last (B's daemon may still be
# applying its configuration): when lldpcli's own stamp moved too, the later
# read becomes the base and the age is measured again.
read -r b0 b1 age0 cli0 <"$WORK/full-clock.txt"
for round in 1 2 3; do
    sleep 3
    agree "aged$round"
    read -r r0 r1 age1 cli1 <"$WORK/aged$round-clock.txt"
    overlap "$b0" "$b1" "$age0" "$r0" "$r1" "$age1" && break
    overlap "$b0" "$b1" "$cli0" "$r0" "$r1" "$cli1" &&
        fail "age went from ${age0}s to ${age1}s (read at $b0..$b1, then $r0..$r1), while lldpcli's went from ${cli0}s to ${cli1}s"
    [ "$round" = 3 ] && fail "lldpd restarted the neighbour's age in each of 3 rounds (last: ${cli0}s, then ${cli1}s)"
    b0=$r0 b1=$r1 age0=$age1 cli0=$cli1
done
ok "age ${age0}s then ${age1}s, as lldpcli says"

# ---- B stops: gone within the TTL (4 x tx-interval) --------------------------
lldp_stop B
no_neighbor() { probe A "$LLDP_SOCK_A" 2000 | grep -qx 'ok 0'; }
wait_until $((4 * LLDP_TX_INTERVAL + 6)) no_neighbor ||
    fail "B's neighbour still listed $((4 * LLDP_TX_INTERVAL + 6)) s after B stopped"
agree gone
grep -qx 'ok 0' "$WORK/gone-oracle.txt" || fail "lldpcli still lists a neighbour"
ok "B stopped: no entry, as lldpcli says"

# ---- B again, sending no PVID and no PFC TLV, its MAC as port id -------------
lldp_start B
lldp_wait_neighbor A
agree bare
expect bare port_id "$MAC_B"
expect bare pvid 0
expect bare pfc_known 0
expect bare pfc_en ""
ok "B without PVID and PFC TLV: pvid 0, pfc_known 0, port id $MAC_B, as lldpcli says"

# ---- sockets that are not a working lldpd ------------------------------------
# A listener that accepts and never answers.
SILENT="$LLDP_DIR/silent.socket"
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
held = []
while True:
    held.append(s.accept()[0])
' "$SILENT" &
PIDS+=("$!")
wait_for "silent listener" test -S "$SILENT"
t0=$(date +%s%N)
out=$(probe A "$SILENT" 700)
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" = 1 ] && [ "$out" = "error: lldpd did not answer within 700 ms" ] ||
    fail "silent socket: rc $rc, '$out'"
limit=3000
[ "${PNA_VALGRIND:-0}" = 1 ] && limit=8000
[ "$ms" -ge 650 ] && [ "$ms" -le "$limit" ] || fail "silent socket: gave up after $ms ms, not about 700"
ok "a socket that never answers: '$out' after $ms ms"

# A listener that hangs up at once.
HANGUP="$LLDP_DIR/hangup.socket"
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
while True:
    s.accept()[0].close()
' "$HANGUP" &
PIDS+=("$!")
wait_for "hanging-up listener" test -S "$HANGUP"
out=$(probe A "$HANGUP" 2000)
[ "$out" = "error: lldpd closed the connection before answering" ] || fail "hanging-up socket: '$out'"
ok "a socket that hangs up: '$out'"

# A stale socket: the file of an lldpd that is gone.
STALE="$LLDP_DIR/stale.socket"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$STALE"
out=$(probe A "$STALE" 2000)
[ "$out" = "error: lldpd is not running ($STALE refuses connections)" ] || fail "stale socket: '$out'"
ok "a stale socket: '$out'"

out=$(probe A "$LLDP_DIR/none.socket" 2000)
[ "$out" = "error: lldpd is not running (no $LLDP_DIR/none.socket)" ] || fail "missing socket: '$out'"
ok "a missing socket: '$out'"
echo "PASS: $TEST_NAME"
