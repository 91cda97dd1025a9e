# lldp_lib.sh -- two network namespaces joined by a veth pair, a real lldpd in
# each, for the tests of LLDP neighbours.  Source after lib.sh (it uses WORK,
# skip, fail, wait_until and lib.sh's cleanup); needs root.
#
# Side A and side B: namespace $LLDP_NS_A holds veth end $LLDP_IF_A, whose peer
# $LLDP_IF_B is in $LLDP_NS_B; each namespace gets its own lldpd with its own
# control socket, so A's lldpd sees B as the neighbour of $LLDP_IF_A, as a
# node's lldpd sees the switch port behind a NIC.
#
# Variables (defaults unique per run; set any of them before lldp_setup):
#   LLDP_NS_A, LLDP_NS_B        namespace names
#   LLDP_IF_A, LLDP_IF_B        the veth ends (at most 15 characters)
#   LLDP_HOST_A, LLDP_HOST_B    the system name each lldpd advertises
#   LLDP_ADDR_A, LLDP_ADDR_B    IPv4 address/prefix of each end: lldpd sends
#                               it as its management address
#   LLDP_TX_INTERVAL            seconds between LLDPDUs (1); the TTL is 4 times it
# Set by lldp_setup / lldp_start:
#   LLDP_DIR                    mode 755 directory (lldpd drops privileges and
#                               must reach its socket): sockets and configs
#   LLDP_SOCK_A, LLDP_SOCK_B    each lldpd's control socket
#   LLDP_PID_A, LLDP_PID_B      each lldpd's pid (lldpd's log: $WORK/lldpd-A.log)
#
# Functions (SIDE is A or B):
#   need_lldp                   skip (77) unless root, with ip, lldpd,
#                               lldpcli and python3
#   lldp_setup                  make the namespaces, the veth pair (up, with
#                               the addresses) and LLDP_DIR, or skip (77)
#                               where namespaces or veth do not work; all
#                               stopped and removed at exit (it sets
#                               trap 'lldp_cleanup; cleanup' EXIT: a test
#                               with a trap of its own calls lldp_cleanup)
#   lldp_start SIDE [LINE...]   start SIDE's lldpd: its hostname, the tx
#                               interval, then each LINE, an lldpcli command
#                               ("configure lldp portidsubtype ifname")
#                               applied before the first LLDPDU is sent
#   lldp_stop SIDE              stop SIDE's lldpd and wait for it to exit
#   lldp_in SIDE CMD...         run CMD in SIDE's namespace (a probe, snmpget).
#                               For a daemon, `ip netns exec "$LLDP_NS_A" CMD &`
#                               keeps $! the daemon's pid ("lldp_in ... &"
#                               would give a subshell's)
#   lldpcli_in SIDE ARGS...     lldpcli on SIDE's socket, in SIDE's namespace
#   lldp_oracle SIDE            what SIDE's `lldpcli -f json0 show neighbors
#                               details` says, one IF.field=value a line in
#                               tests/unit/lldp_read_probe's format
#                               (tests/integration/lldp_oracle.py)
#   lldp_wait_neighbor SIDE [HOSTNAME [SECS]]
#                               wait until SIDE's lldpd sees HOSTNAME (the
#                               other side's) on its veth end; fail after SECS (20)
#   lldp_pfc_line PRIOS [WILLING]
#                               an lldpcli command for lldp_start that makes
#                               that lldpd send an IEEE 802.1Qaz PFC
#                               Configuration TLV (OUI 00-80-C2, subtype 11):
#                               PFC on PRIOS ("3,4", "" none), capability 8
#   lldp_pvid_line VID          the same for the 802.1 Port VLAN ID TLV
#                               (subtype 1), which the peer decodes as a PVID
#   lldp_cleanup                stop both lldpd, then whatever else still
#                               runs in the namespaces (TERM, and KILL after
#                               10 s: time for valgrind's report), delete the
#                               namespaces and LLDP_DIR

: "${LLDP_NS_A:=pna-lldpa-$$-$RANDOM}"
: "${LLDP_NS_B:=pna-lldpb-$$-$RANDOM}"
: "${LLDP_IF_A:=lla$$}"
: "${LLDP_IF_B:=llb$$}"
: "${LLDP_HOST_A:=pna-host-a-$$}"
: "${LLDP_HOST_B:=pna-switch-b-$$}"
: "${LLDP_ADDR_A:=192.0.2.1/24}"
: "${LLDP_ADDR_B:=192.0.2.2/24}"
: "${LLDP_TX_INTERVAL:=1}"
LLDP_DIR=
LLDP_SOCK_A=
LLDP_SOCK_B=
LLDP_PID_A=
LLDP_PID_B=
LLDP_ORACLE="$top_srcdir/tests/integration/lldp_oracle.py"
PATH=$PATH:/usr/sbin:/sbin

need_lldp() {
    [ "$(id -u)" = 0 ] || skip "needs root for network namespaces and lldpd"
    command -v ip >/dev/null || skip "ip (iproute2) not installed"
    command -v lldpd >/dev/null || skip "lldpd not installed (Debian: lldpd)"
    command -v lldpcli >/dev/null || skip "lldpcli not installed (Debian: lldpd)"
    command -v python3 >/dev/null || skip "python3 not installed (reads lldpcli's JSON)"
}

# The value of variable LLDP_<NAME>_<SIDE>.
lldp_var() { local v="LLDP_$1_$2"; echo "${!v}"; }

lldp_side_ok() {
    case $1 in A | B) ;; *) fail "lldp_lib: side '$1' is neither A nor B" ;; esac
}

lldp_setup() {
    ip netns add "$LLDP_NS_A" 2>/dev/null || skip "network namespaces not supported here"
    trap 'lldp_cleanup; cleanup' EXIT
    ip netns add "$LLDP_NS_B" || fail "cannot create namespace $LLDP_NS_B"
    ip -n "$LLDP_NS_A" link add "$LLDP_IF_A" type veth peer name "$LLDP_IF_B" \
        netns "$LLDP_NS_B" 2>/dev/null || skip "veth not supported here"
    local s
    for s in A B; do
        ip -n "$(lldp_var NS $s)" link set lo up
        ip -n "$(lldp_var NS $s)" addr add "$(lldp_var ADDR $s)" dev "$(lldp_var IF $s)" ||
            fail "cannot address $(lldp_var IF $s)"
        ip -n "$(lldp_var NS $s)" link set "$(lldp_var IF $s)" up
    done
    LLDP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pna-lldp-XXXXXX") || fail "mktemp failed"
    chmod 755 "$LLDP_DIR"
    LLDP_SOCK_A="$LLDP_DIR/lldpd-a.socket"
    LLDP_SOCK_B="$LLDP_DIR/lldpd-b.socket"
}

lldp_in() {
    lldp_side_ok "$1"
    local ns
    ns=$(lldp_var NS "$1")
    shift
    ip netns exec "$ns" "$@"
}

lldpcli_in() {
    lldp_side_ok "$1"
    local side=$1
    shift
    lldp_in "$side" lldpcli -u "$(lldp_var SOCK "$side")" "$@"
}

# lldp_start SIDE [LINE...]: lldpd runs the lines (through lldpcli, -O) while
# it is still paused, so even its first LLDPDU carries them.
lldp_start() {
    lldp_side_ok "$1"
    local side=$1 conf="$LLDP_DIR/lldpd-$1.conf" line
    shift
    {
        echo "configure system hostname $(lldp_var HOST "$side")"
        echo "configure lldp tx-interval $LLDP_TX_INTERVAL"
        for line in "$@"; do echo "$line"; done
    } >"$conf"
    chmod 644 "$conf"
    # ip execs lldpd in the namespace: $! is lldpd's pid (not a subshell's)
    ip netns exec "$(lldp_var NS "$side")" lldpd -d -I "$(lldp_var IF "$side")" \
        -u "$(lldp_var SOCK "$side")" -O "$conf" >>"$WORK/lldpd-$side.log" 2>&1 &
    printf -v "LLDP_PID_$side" '%s' "$!"
    wait_until 10 test -S "$(lldp_var SOCK "$side")" ||
        fail "lldpd $side did not create its socket"
    wait_until 10 lldpcli_in "$side" show configuration ||
        fail "lldpd $side does not answer on its socket"
}

lldp_stop() {
    lldp_side_ok "$1"
    local pid
    pid=$(lldp_var PID "$1")
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null
    # its privileged half exits with it
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    printf -v "LLDP_PID_$1" '%s' ""
}

lldp_oracle() {
    lldpcli_in "$1" -f json0 show neighbors details | python3 "$LLDP_ORACLE"
}

# True when SIDE's lldpd sees HOSTNAME on its veth end.
lldp_sees() {
    lldp_oracle "$1" | grep -qxF "$(lldp_var IF "$1").sys_name=$2"
}

lldp_wait_neighbor() {
    lldp_side_ok "$1"
    local side=$1 other=B
    [ "$side" = B ] && other=A
    local host=${2:-$(lldp_var HOST $other)}
    wait_until "${3:-20}" lldp_sees "$side" "$host" ||
        fail "lldpd $side did not see $host on $(lldp_var IF "$side") within ${3:-20} s"
}

# Two octets: willing (bit 8), MBC 0, reserved 0, PFC capability 8; then the
# enable vector, bit p for priority p.
lldp_pfc_line() {
    local prios=$1 willing=${2:-0} en=0 p
    for p in ${prios//,/ }; do en=$((en | (1 << p))); done
    printf 'configure lldp custom-tlv oui 00,80,c2 subtype 11 oui-info %02X,%02X\n' \
        $(((willing ? 0x80 : 0) | 8)) "$en"
}

lldp_pvid_line() {
    printf 'configure lldp custom-tlv oui 00,80,c2 subtype 1 oui-info %02X,%02X\n' \
        $(($1 >> 8)) $(($1 & 0xff))
}

# Stop what the test started in namespace NS and left running.
lldp_stop_ns_pids() {
    local pids
    pids=$(ip netns pids "$1" 2>/dev/null)
    [ -n "$pids" ] || return 0
    kill $pids 2>/dev/null
    for _ in $(seq 100); do
        [ -z "$(ip netns pids "$1" 2>/dev/null)" ] && return 0
        sleep 0.1
    done
    kill -9 $(ip netns pids "$1" 2>/dev/null) 2>/dev/null
}

lldp_cleanup() {
    local s ns
    lldp_stop A
    lldp_stop B
    for s in A B; do
        ns=$(lldp_var NS $s)
        ip netns list 2>/dev/null | grep -q "^$ns\b" || continue
        lldp_stop_ns_pids "$ns"
        ip netns del "$ns" 2>/dev/null
    done
    if [ -n "$LLDP_DIR" ] && [ -z "${KEEP_WORK:-}" ]; then rm -rf "$LLDP_DIR"; fi
}
