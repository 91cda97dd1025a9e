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
#   podres_three_gpus        the test NVML node of an H100 with MIG, an A100 and
#                            a T4 (see below)
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

# podres_three_gpus: the test NVML's node of the pod-resources tests, an H100
# (MIG on, the recorded DGX H100 table's rows of GPU 0), an A100 and a T4
# from their recorded nvidia-smi -q -x; sets XML_*, U_* (UUIDs), PCI_*
# (addresses), I_* (primusGpuIndex), LIST (the recorded nvidia-smi -L) and
# mig_gici N (GPU 0's MIG device N as "GI|CI").
podres_three_gpus() {
    local fix="$PNA_FIXTURES/nvidia"
    local table="$PNA_FIXTURES/mig/dgx-h100-8x-mixed-all-balanced-nvidia-smi.txt"
    LIST="$PNA_FIXTURES/mig/gpu-operator-h100-mig-mixed-nvidia-smi.txt"
    XML_H100="$fix/h100-nvidia-smi-q-x.xml"
    XML_A100="$fix/a100-sxm4-80gb-nvidia-smi-q-x.xml"
    XML_T4="$fix/tesla-t4-nvidia-smi-q-x.xml"
    export PNA_FAKE_NVML_XML="$XML_H100:$XML_A100:$XML_T4"
    export PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
    : > "$PNA_FAKE_NVML_CTL"
    # MIG on the H100 only: the capture's table without the other GPUs' rows.
    grep -Ev '^\| +[1-9][0-9]* +[0-9]+ +[0-9]+ +[0-9]+ +\|' "$table" > "$WORK/mig-table.txt"
    export PNA_FAKE_NVML_MIG="$WORK/mig-table.txt:$LIST"
    U_H100=$(uuid_of "$XML_H100") U_A100=$(uuid_of "$XML_A100") U_T4=$(uuid_of "$XML_T4")
    PCI_H100=$(pci_of "$XML_H100") PCI_A100=$(pci_of "$XML_A100") PCI_T4=$(pci_of "$XML_T4")
    I_H100=$(pci_index "$PCI_H100") I_A100=$(pci_index "$PCI_A100") I_T4=$(pci_index "$PCI_T4")
}
uuid_of() { sed -n 's/.*<uuid>\(GPU-[^<]*\)<.*/\1/p' "$1" | head -n 1; }
pci_of() {
    local id dom bus dev fn
    id=$(sed -n 's/.*<gpu id="\([^"]*\)".*/\1/p' "$1" | head -n 1)
    IFS=':.' read -r dom bus dev fn <<< "$id"
    printf '%04x:%02x:%02x.%x' $((0x$dom)) $((0x$bus)) $((0x$dev)) $((0x$fn))
}
# primusGpuIndex: the PCI address as domain<<16 | bus<<8 | device<<3 | function.
pci_index() { local d b v f; IFS=':.' read -r d b v f <<< "$1"; echo $(( (0x$d << 16) | (0x$b << 8) | (0x$v << 3) | 0x$f )); }
mig_gici() { awk -v d="$1" '$1 == "|" && $2 == "0" && $5 == d { print $3 "|" $4; exit }' "$WORK/mig-table.txt"; }
