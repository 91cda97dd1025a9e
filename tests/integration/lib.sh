# lib.sh -- shared set-up for the integration tests: a private snmpd master,
# snmptrapd and the agent, all on loopback and unix sockets in one temp dir,
# and all stopped when the test exits, whatever happens.
#
# Tests source this file, call the start_* functions they need, and use the
# snmp_* wrappers.  OIDs are numeric (taken from src/model/oids.h) so that the
# core tests run on machines without the IETF base MIBs.

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${PNA_AGENT:=$top_builddir/primus-node-agent}"
: "${PNA_FIXTURES:=$top_srcdir/tests/fixtures}"
: "${PNA_MIBDIR:=$top_srcdir/mibs}"
: "${PNA_IETF_MIBDIR:=}"
export MIBS=
TEST_NAME=$(basename "$0" .sh)

skip() { echo "SKIP: $TEST_NAME: $*"; exit 77; }
# The reason twice: before the logs, and after them for readers of the tail.
fail() { echo "FAIL: $TEST_NAME: $*"; dump_logs; echo "FAIL: $TEST_NAME: $*"; exit 1; }
ok() { echo "ok - $*"; }

for tool in snmpd snmpget snmpwalk snmpbulkwalk snmptrapd; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] ||
        skip "$tool not installed (Debian: snmpd snmp snmptrapd)"
done
PATH=$PATH:/usr/sbin
[ -x "$PNA_AGENT" ] || fail "agent binary $PNA_AGENT not built"

# The enterprise root, read from the one C header that mirrors the MIB.
PNA_ENTERPRISE=$(sed -n 's/^#define PNA_ENTERPRISE_OID[[:space:]]*\([0-9, ]*\).*/\1/p' \
                 "$top_srcdir/src/model/oids.h" | tr -d ' ' | tr ',' '.')
[ -n "$PNA_ENTERPRISE" ] || fail "cannot read PNA_ENTERPRISE_OID from src/model/oids.h"
ROOT=".$PNA_ENTERPRISE.1"          # primusNodeMIB
OBJ="$ROOT.1"                      # primusNodeObjects
NOTIFY="$ROOT.0"                   # primusNodeNotifications

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pna-$TEST_NAME-XXXXXX")
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${PIDS[@]}"; do
        # valgrind needs a moment to write its leak report
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    # A sanitizer build reports into the agent's log: that fails the test.
    local sanitizer_report=""
    if grep -q -e "ERROR: AddressSanitizer" -e "ERROR: LeakSanitizer" -e "runtime error:" \
            "$WORK"/agent*.log 2>/dev/null; then
        sanitizer_report=yes
        echo "FAIL: $TEST_NAME: sanitizer report in the agent's log:"
        grep -h -A15 -e "ERROR: AddressSanitizer" -e "ERROR: LeakSanitizer" -e "runtime error:" \
            "$WORK"/agent*.log | head -40
    fi
    if [ -s "$WORK/agent-valgrind.log" ]; then
        sanitizer_report=yes
        echo "FAIL: $TEST_NAME: valgrind report for the agent:"
        head -60 "$WORK/agent-valgrind.log"
    fi
    if [ -n "${KEEP_WORK:-}" ]; then echo "work dir kept: $WORK"; else rm -rf "$WORK"; fi
    [ -z "$sanitizer_report" ] || exit 1
}
trap cleanup EXIT
trap 'exit 1' INT TERM

dump_logs() {
    for f in "$WORK"/*.log; do
        [ -f "$f" ] || continue
        echo "---- $(basename "$f") (last 30 lines)"
        tail -n 30 "$f"
    done
}

# A free UDP port on 127.0.0.1.
free_port() {
    local p
    for _ in $(seq 50); do
        p=$(( (RANDOM % 20000) + 10000 ))  # below the ephemeral range (32768-60999)
        if ! ss -Hlun "sport = :$p" 2>/dev/null | grep -q .; then echo "$p"; return; fi
    done
    fail "no free port"
}

SNMP_PORT=$(free_port)
TRAP_PORT=$(free_port)
AGENTX="unix:$WORK/agentx.sock"
V3_USER=primus
V3_AUTH=primus-auth-secret
V3_PRIV=primus-priv-secret

# start_snmpd [extra snmpd.conf lines...]
start_snmpd() {
    mkdir -p "$WORK/snmpd-persist"
    {
        echo "agentAddress udp:127.0.0.1:$SNMP_PORT"
        echo "master agentx"
        echo "agentXSocket $AGENTX"
        echo "agentXPerms 0660 0770"
        echo "rocommunity public 127.0.0.1"
        echo "rwcommunity private 127.0.0.1"
        echo "createUser $V3_USER SHA-256 \"$V3_AUTH\" AES \"$V3_PRIV\""
        echo "rouser $V3_USER priv"
        echo "dontLogTCPWrappersConnects yes"
        for line in "$@"; do echo "$line"; done
    } > "$WORK/snmpd.conf"
    SNMP_PERSISTENT_DIR="$WORK/snmpd-persist" \
        snmpd -f -Lf "$WORK/snmpd.log" -C -c "$WORK/snmpd.conf" -I -smux \
        -p "$WORK/snmpd.pid" &
    SNMPD_PID=$!
    PIDS+=("$SNMPD_PID")
    wait_for "snmpd" snmpget -v2c -c public -t 0.5 -r 0 "127.0.0.1:$SNMP_PORT" .1.3.6.1.2.1.1.3.0
}

stop_snmpd() {
    kill "$SNMPD_PID" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$SNMPD_PID" 2>/dev/null || break; sleep 0.1; done
}

start_trapd() {
    {
        echo "disableAuthorization yes"
        echo "doNotLogTraps no"
    } > "$WORK/snmptrapd.conf"
    snmptrapd -f -On -Lf "$WORK/traps.log" -C -c "$WORK/snmptrapd.conf" \
        -p "$WORK/snmptrapd.pid" "udp:127.0.0.1:$TRAP_PORT" &
    PIDS+=("$!")
    for _ in $(seq 50); do
        grep -q "NET-SNMP version" "$WORK/traps.log" 2>/dev/null && return
        sleep 0.1
    done
    fail "snmptrapd did not start"
}

# PNA_VALGRIND=1 runs the agent under valgrind; any error or definite leak
# it reports fails the test (see cleanup).
agent_wrapper() {
    if [ "${PNA_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
        # --fair-sched: the main thread (SNMP answers) gets its turn while
        # pollers run flat out, as the kernel gives it natively.
        echo valgrind --quiet --fair-sched=yes --leak-check=full --show-leak-kinds=definite \
            --errors-for-leak-kinds=definite --track-fds=no \
            --suppressions="$top_srcdir/tests/valgrind.supp" \
            --log-file="$WORK/agent-valgrind.log"
    fi
}

# start_agent [agent options...]: AgentX subagent of the test master.
start_agent() {
    [ -f "$WORK/agent.conf" ] || : > "$WORK/agent.conf"
    $(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" -x "$AGENTX" \
        -p "$WORK/agent.pid" "$@" 2>>"$WORK/agent-stderr.log" &
    AGENT_PID=$!
    PIDS+=("$AGENT_PID")
}

# wait_for WHAT COMMAND...: retry COMMAND for up to 15 s.
wait_for() {
    local what=$1; shift
    for _ in $(seq 75); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    fail "$what did not come up"
}

# wait_until SECONDS COMMAND...: retry until COMMAND succeeds; 1 on timeout.
wait_until() {
    local secs=$1; shift
    local end=$(( $(date +%s) + secs ))
    while [ "$(date +%s)" -lt "$end" ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    return 1
}

# The test NVML library (tests/nvml/fake_nvml.c), built by make check.
FAKE_NVML="$top_builddir/tests/nvml/libnvidia-ml.so.1"
need_fake_nvml() { [ -f "$FAKE_NVML" ] || fail "$FAKE_NVML not built (make check builds it)"; }

V2="-v2c -c public -t 2 -r 1"
V3="-v3 -l authPriv -u $V3_USER -a SHA-256 -A $V3_AUTH -x AES -X $V3_PRIV -t 2 -r 1"
TARGET="127.0.0.1:$SNMP_PORT"

# snmp_value OID: the bare value (strings unquoted) through the master, v2c.
snmp_value() { snmpget $V2 -On -Oqv "$TARGET" "$1" 2>&1 | sed 's/^"//; s/"$//'; }
snmp_walk() { snmpwalk $V2 -On -Oq "$TARGET" "$@"; }
# str_index STRING: the OID index of a DisplayString (its length, then one
# sub-identifier per octet): "mlx5_0" -> "6.109.108.120.53.95.48".
str_index() {
    local s=$1 out=${#1} i
    for ((i = 0; i < ${#s}; i++)); do out="$out.$(printf '%d' "'${s:i:1}")"; done
    echo "$out"
}

# The agent answers once its node scalars are served through the master.
wait_agent() {
    wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.1.1.0 | grep -qv 'No Such'" ||
        fail "agent did not register with the master"
}

# busybox_import TOOL NAME: import, with TOOL ("docker" or "podman", and
# their options), a one-layer image NAME of busybox-static ($BUSYBOX) and
# its applets, for the container runtime tests.
busybox_import() {
    local tool=$1 name=$2 d="$WORK/busybox-root" a
    mkdir -p "$d/bin" "$d/tmp" "$d/proc" "$d/sys" "$d/dev" "$d/etc"
    cp "$BUSYBOX" "$d/bin/busybox"
    for a in $("$BUSYBOX" --list); do [ -e "$d/bin/$a" ] || ln -s busybox "$d/bin/$a"; done
    echo "root:x:0:0:root:/:/bin/sh" > "$d/etc/passwd"
    # shellcheck disable=SC2086
    tar --numeric-owner -C "$d" -c . | $tool import --change 'CMD ["/bin/sh"]' - "$name" \
        >"$WORK/import-busybox.log" 2>&1 ||
        fail "import of busybox with ${tool%% *} failed: $(tail -n 2 "$WORK/import-busybox.log")"
}

# A free TCP port on 127.0.0.1, none this test was given already: a port is
# only taken when its server starts, so two calls before that could agree
# (each call runs in its own subshell; $WORK/ports remembers them).
free_tcp_port() {
    local p
    for _ in $(seq 50); do
        p=$(( (RANDOM % 20000) + 10000 ))  # below the ephemeral range (32768-60999)
        grep -qx "$p" "$WORK/ports" 2>/dev/null && continue
        if ! ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; then
            echo "$p" >> "$WORK/ports"
            echo "$p"
            return
        fi
    done
    fail "no free TCP port"
}
