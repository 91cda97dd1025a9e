# podres_lib.sh -- a real gRPC pod-resources server for the integration tests
# (tests/integration/podresources_server.py under Debian's /usr/bin/python3),
# and the command-line client tests/unit/podres_call.  Source after lib.sh.
#
#   need_podres              skip unless the build has protobuf-c and
#                            /usr/bin/python3 has grpc and grpc_tools
#   start_podres_server SCENARIO
#                            serve SCENARIO (a JSON file) on $PODRES_SOCK,
#                            steered by $PODRES_CONTROL (podres_control WORDS);
#                            waits until it answers; its pid joins PIDS
#   podres_call ARGS...      run the client (under valgrind with PNA_VALGRIND=1,
#                            whose reports fail the test like the agent's)

PODRES_PY=/usr/bin/python3
PODRES_SERVER="$top_srcdir/tests/integration/podresources_server.py"
PODRES_CALL="$top_builddir/tests/unit/podres_call"
PODRES_SOCK="$WORK/podres/kubelet.sock"
PODRES_CONTROL="$WORK/podres/control"

need_podres() {
    grep -q '^#define HAVE_PROTOBUF_C 1' "$top_builddir/pna_autoconf.h" 2>/dev/null ||
        skip "built without protobuf-c (configure --with-protobuf-c; Debian: libprotobuf-c-dev protobuf-c-compiler)"
    [ -x "$PODRES_CALL" ] || fail "$PODRES_CALL not built (make check builds it)"
    [ -x "$PODRES_PY" ] && "$PODRES_PY" -c 'import grpc, grpc_tools.protoc, google.protobuf' 2>/dev/null ||
        skip "/usr/bin/python3 lacks grpc (Debian: python3-grpcio python3-grpc-tools python3-protobuf)"
}

podres_control() { echo "$*" > "$PODRES_CONTROL"; }

start_podres_server() {
    local scenario=$1
    mkdir -p "$WORK/podres"
    [ -f "$PODRES_CONTROL" ] || podres_control ok
    rm -f "$PODRES_SOCK"
    "$PODRES_PY" "$PODRES_SERVER" --socket "$PODRES_SOCK" --scenario "$scenario" \
        --control "$PODRES_CONTROL" 2>>"$WORK/podres-server.log" &
    PODRES_PID=$!
    PIDS+=("$PODRES_PID")
    # Answers: an HTTP/2 connection is set up (generating the messages takes
    # about a second first).
    wait_for "pod-resources server" "$PODRES_PY" -c "
import grpc, sys
grpc.channel_ready_future(grpc.insecure_channel('unix:' + sys.argv[1])).result(timeout=2)" \
        "$PODRES_SOCK"
}

podres_call() {
    if [ "${PNA_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
        local vlog="$WORK/podres-valgrind.log"
        : > "$vlog"
        valgrind --quiet --leak-check=full --show-leak-kinds=definite \
            --errors-for-leak-kinds=definite --track-fds=no \
            --suppressions="$top_srcdir/tests/valgrind.supp" --log-file="$vlog" \
            "$PODRES_CALL" "$@"
        local rc=$?
        # lib.sh's cleanup fails the test on a non-empty agent-valgrind.log.
        [ -s "$vlog" ] && { echo "== podres_call $*" ; cat "$vlog"; } >> "$WORK/agent-valgrind.log"
        return $rc
    fi
    "$PODRES_CALL" "$@"
}
