#!/bin/bash
# quickstart.sh -- the README's two commands.
#
#   tools/quickstart.sh demo   install what is needed, build, run the agent as
#                              an AgentX subagent of a private snmpd on
#                              localhost and show snmpwalk/snmptable output
#   tools/quickstart.sh test   install what is needed, build, run the whole
#                              test suite (make check), and print
#                              "N passed, N failed, N skipped"
#
# Environment: PNA_IETF_MIBDIR=DIR where the IETF base MIBs are (Debian ships
# none; see docs/install.md), PNA_SANITIZE=1 to also run the suite under
# AddressSanitizer + UndefinedBehaviorSanitizer, PNA_VALGRIND=1 to run the
# agent of each integration test under valgrind (errors and leaks fail it).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tools/deps.sh

find_ietf_mibs() {
    for d in "${PNA_IETF_MIBDIR:-}" /usr/share/snmp/mibs/ietf /usr/share/snmp/mibs; do
        [ -n "$d" ] && [ -f "$d/SNMPv2-SMI.txt" ] && { echo "$d"; return; }
    done
    echo ""
}

build() { # BUILD_DIR [configure args...]
    local dir=$1; shift
    [ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >/dev/null
    mkdir -p "$dir"
    (cd "$dir" && { [ -f Makefile ] || "$top/configure" -q "$@"; } && make -j"$(nproc)" >/dev/null)
}

demo() {
    pna_install_deps build run
    build build
    demo_run build/primus-node-agent
}

# demo_run AGENT [PORT]: a private snmpd on 127.0.0.1:PORT (default 1161) with
# AGENT as its subagent; walks the MIB, shows the poller table, stops both.
demo_run() {
    local agent=$1 port=${2:-1161} work
    work=$(mktemp -d /tmp/primus-demo-XXXXXX)
    # WORK is expanded now: the trap runs after this function's locals are gone.
    # shellcheck disable=SC2064
    trap "kill \$(cat '$work'/*.pid 2>/dev/null) 2>/dev/null; sleep 0.5; rm -rf '$work'" EXIT
    cat > "$work/snmpd.conf" <<CONF
agentAddress udp:127.0.0.1:$port
master agentx
agentXSocket unix:$work/agentx.sock
agentXPerms 0660 0770
createUser demo SHA-256 "demo-auth-pass" AES "demo-priv-pass"
rouser demo priv
CONF
    MIBS= SNMP_PERSISTENT_DIR="$work" /usr/sbin/snmpd -Lf "$work/snmpd.log" -C -c "$work/snmpd.conf" \
        -I -smux -p "$work/snmpd.pid"
    "$agent" -Lf "$work/agent.log" -x "unix:$work/agentx.sock" -p "$work/agent.pid"
    local v3="-v3 -l authPriv -u demo -a SHA-256 -A demo-auth-pass -x AES -X demo-priv-pass"
    local mibs ietf
    ietf=$(find_ietf_mibs)
    sleep 6   # two node polls: CPU usage needs two samples
    echo "== snmpwalk $v3 127.0.0.1:$port PRIMUS-NODE-MIB::primusNodeMIB"
    if [ -n "$ietf" ]; then
        mibs="-M +$ietf:$top/mibs -m +PRIMUS-NODE-MIB"
        # shellcheck disable=SC2086
        MIBS= snmpwalk $v3 $mibs 127.0.0.1:$port PRIMUS-NODE-MIB::primusNodeMIB
        echo; echo "== snmptable ... PRIMUS-NODE-MIB::primusPollerTable"
        # shellcheck disable=SC2086
        MIBS= snmptable $v3 $mibs -Cib 127.0.0.1:$port PRIMUS-NODE-MIB::primusPollerTable
    else
        echo "(no IETF base MIBs found: numeric OIDs; see docs/install.md)"
        local root
        root=$(sed -n 's/^#define PNA_ENTERPRISE_OID[[:space:]]*\([0-9, ]*\).*/\1/p' src/model/oids.h | tr -d ' ' | tr ',' '.')
        # shellcheck disable=SC2086
        MIBS= snmpwalk $v3 -On 127.0.0.1:$port ".$root.1"
    fi
}

# count_results BUILD_DIR: print "P F S" from automake's .trs files, and
# the reason of each skipped test on stderr.
count_results() {
    local dir=$1 pass fail skip
    pass=$(cat "$dir"/tests/*/*.trs 2>/dev/null | grep -c '^:test-result: PASS' || true)
    fail=$(cat "$dir"/tests/*/*.trs 2>/dev/null |
           grep -c -e '^:test-result: FAIL' -e '^:test-result: XPASS' -e '^:test-result: ERROR' || true)
    skip=$(cat "$dir"/tests/*/*.trs 2>/dev/null | grep -c '^:test-result: SKIP' || true)
    for f in "$dir"/tests/*/*.log; do
        grep -q '^SKIP' "$f" 2>/dev/null && echo "  skipped $(basename "$f" .log): $(grep -m1 '^SKIP' "$f")" >&2
    done
    echo "$pass $fail $skip"
}

run_suite() { # BUILD_DIR [configure args...]
    local dir=$1; shift
    build "$dir" "$@"
    (cd "$dir" && make -j2 -k check >/dev/null 2>&1) || {
        echo "failing tests in $dir:"
        grep -l -e '^:test-result: FAIL' -e '^:test-result: ERROR' "$dir"/tests/*/*.trs 2>/dev/null |
            while read -r t; do
                echo "---- ${t%.trs}.log"; tail -n 40 "${t%.trs}.log"
            done
    }
}

# The Kubernetes manifest check validates against schemas from npm
# (tests/integration/k8s/package-lock.json); without npm that test skips.
install_npm_test_deps() {
    command -v npm >/dev/null 2>&1 || return 0
    npm ci --prefix tests/integration/k8s --silent --no-audit --no-fund >/dev/null 2>&1 ||
        echo "npm ci in tests/integration/k8s failed: the manifest schema check will skip"
}

test_suite() {
    pna_install_deps build run test
    install_npm_test_deps
    local ietf args=(--enable-werror) dirs=(build)
    ietf=$(find_ietf_mibs)
    [ -n "$ietf" ] && args+=("--with-ietf-mibs=$ietf")
    run_suite build "${args[@]}"
    if [ "${PNA_SANITIZE:-0}" = 1 ]; then
        # valgrind and ASan do not mix: the sanitizer pass runs the agent bare.
        echo "== again under AddressSanitizer + UndefinedBehaviorSanitizer"
        # The heavy tests (fuzzers, image and package builds) ran in the first pass.
        PNA_VALGRIND=0 PNA_FUZZ_SKIP=1 PNA_HEAVY_SKIP=1 run_suite build-sanitize "${args[@]}" --enable-sanitizers
        dirs+=(build-sanitize)
    fi
    local pass=0 fail=0 skip=0 p f s
    # Every optional library off must still build, warning-free (counted as one test).
    echo "== build without libibverbs, libibmad, rocm-smi-lib, libmnl and liblldpctl"
    if build build-minimal --enable-werror --without-ibverbs --without-ibmad --without-rocm-smi --without-libmnl --without-lldpctl; then
        echo "build-minimal: 1 passed"; pass=1
    else
        echo "build-minimal: FAILED"; fail=1
    fi
    for d in "${dirs[@]}"; do
        read -r p f s < <(count_results "$d")
        echo "$d: $p passed, $f failed, $s skipped"
        pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    done
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}

case "${1:-}" in
    demo) demo ;;
    test) test_suite ;;
    demo-run) shift; demo_run "$@" ;;   # no install, no build: the tests use it
    *) echo "usage: $0 demo|test" >&2; exit 2 ;;
esac
