#!/bin/bash
# The kubelet pod-resources client (transport/grpc_client.c and
# sources/kubernetes/podresources.c) against a real gRPC server: python3-grpcio
# serving the scenarios of tests/fixtures/podresources/ on a unix socket
# (tests/integration/podresources_server.py).  Proves every row of a normal
# answer with its NUMA node, a generated 500-pod answer, the empty answer, a
# server without GetAllocatableResources, an error status (Trailers-Only),
# the deadline on a server that never answers, bytes that are not the
# message, a missing socket and a server that exits during the call.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/podres_lib.sh"
need_podres

FIX="$PNA_FIXTURES/podresources"
OUT="$WORK/out"
call() { podres_call "$PODRES_SOCK" "$@" > "$OUT" 2>&1; }
has() { grep -qxF -- "$1" "$OUT" || fail "expected line '$1' in: $(cat "$OUT")"; }

cp "$FIX/gpu_node.json" "$WORK/scenario.json"
start_podres_server "$WORK/scenario.json"

# ---- a normal answer: every row, in message order, with its NUMA node ----
call 5000 || fail "normal call failed: $(cat "$OUT")"
cat > "$WORK/want" <<'WANT'
assigned nvidia.com/gpu GPU-3b7c8a2e-1d4f-4c2a-9f00-5e6d7c8b9a01 ml/llm-train-0 trainer numa=0
assigned nvidia.com/gpu GPU-8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b ml/llm-train-0 trainer numa=0
assigned intel.com/sriov_netdevice 0000:3b:00.2 ml/llm-train-0 trainer numa=1
assigned nvidia.com/mig-1g.10gb MIG-6f4a2b1c-0e9d-5c8b-a7f6-e5d4c3b2a190 research/notebook-7f9c jupyter numa=0
assigned nvidia.com/gpu.shared GPU-c0ffee00-1111-2222-3333-444455556666::3 research/notebook-7f9c jupyter numa=-1
allocatable nvidia.com/gpu GPU-3b7c8a2e-1d4f-4c2a-9f00-5e6d7c8b9a01 numa=0
allocatable nvidia.com/gpu GPU-8f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b numa=0
allocatable nvidia.com/mig-1g.10gb MIG-6f4a2b1c-0e9d-5c8b-a7f6-e5d4c3b2a190 numa=0
allocatable intel.com/sriov_netdevice 0000:3b:00.2 numa=1
allocatable intel.com/sriov_netdevice 0000:3b:00.3 numa=1
dropped 0 0
allocatable yes
ok
WANT
diff -u "$WORK/want" "$OUT" || fail "normal answer differs from the scenario"
ok "List and GetAllocatableResources: 5 assigned and 5 allocatable rows, NUMA nodes, MIG, time-sliced and SR-IOV ids"

# ---- the scenario is re-read at every call: 500 pods, then none ----
"$PODRES_PY" "$PODRES_SERVER" --pods 500 > "$WORK/scenario.json" || fail "cannot generate 500 pods"
call 5000 || fail "500-pod call failed: $(cat "$OUT")"
[ "$(grep -c '^assigned nvidia.com/gpu ' "$OUT")" = 500 ] || fail "not 500 assigned GPUs: $(grep -c '^assigned' "$OUT")"
[ "$(grep -c '^assigned intel.com/sriov_netdevice ' "$OUT")" = 50 ] || fail "not 50 assigned VFs"
[ "$(grep -c '^allocatable ' "$OUT")" = 551 ] || fail "not 550 allocatable rows (+ the yes line)"
has "assigned nvidia.com/gpu GPU-000001f3-0000-4000-8000-0000000001f3 batch/worker-499 main numa=1"
has "dropped 0 0"
ok "500 pods: 550 assigned and 550 allocatable rows"

cp "$FIX/empty.json" "$WORK/scenario.json"
call 5000 || fail "empty call failed: $(cat "$OUT")"
[ "$(grep -c -e '^assigned' -e '^allocatable [a-z]*/' "$OUT")" = 0 ] || fail "rows from an empty answer"
has "allocatable yes"
ok "an empty answer (0-byte messages) is an empty set"
cp "$FIX/gpu_node.json" "$WORK/scenario.json"

# ---- no GetAllocatableResources (kubelet < 1.23): not an error ----
podres_control no-allocatable
call 5000 || fail "no-allocatable call failed: $(cat "$OUT")"
has "allocatable no"
[ "$(grep -c '^assigned' "$OUT")" = 5 ] || fail "List rows missing without GetAllocatableResources"
ok "GetAllocatableResources UNIMPLEMENTED: List rows kept, has_allocatable 0"

# ---- an error status (grpcio answers it Trailers-Only) ----
podres_control error 14 kubelet is shutting down
call 5000 && fail "an error status was taken for an answer"
has "error: List: grpc-status 14 (UNAVAILABLE): kubelet is shutting down"
podres_control error 7 access denied: 100% sure
call 5000 && fail "an error status was taken for an answer"
has "error: List: grpc-status 7 (PERMISSION_DENIED): access denied: 100% sure"
ok "error statuses: code, name and (percent-decoded) message"

# ---- bytes that are not the message ----
podres_control garbage
call 5000 && fail "garbage was decoded"
grep -q '^error: List: malformed ListPodResourcesResponse ([0-9]* bytes)$' "$OUT" ||
    fail "garbage: $(cat "$OUT")"
ok "garbage in a valid gRPC frame: malformed"

# ---- a server that never answers: the call ends at its deadline ----
podres_control hang
t0=$(date +%s)
call 1000 && fail "a hanging server gave an answer"
t1=$(date +%s)
has "error: List: timed out after 1000 ms"
[ $((t1 - t0)) -le 30 ] || fail "the call took $((t1 - t0)) s with a 1 s deadline"
ok "hang: ended by the deadline ($((t1 - t0)) s, 'timed out after 1000 ms')"

# The same server still answers afterwards (the stream was cancelled).
podres_control ok
call 5000 || fail "no answer after a timed-out call: $(cat "$OUT")"
ok "answers again after a timed-out call"

# ---- no socket ----
podres_call "$WORK/podres/absent.sock" 2000 > "$OUT" 2>&1 && fail "a missing socket gave an answer"
has "error: List: connect $WORK/podres/absent.sock: No such file or directory"
ok "missing socket: connect error with the errno's text"

# ---- the server exits during a call, then its socket is stale ----
podres_control exit
call 5000 && fail "a server that exited gave an answer"
grep -q '^error: List: ' "$OUT" || fail "exit: $(cat "$OUT")"
ok "server exit during the call: $(head -1 "$OUT")"
for _ in $(seq 50); do kill -0 "$PODRES_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PODRES_PID" 2>/dev/null && fail "the server did not exit"
call 2000 && fail "a stale socket gave an answer"
has "error: List: connect $PODRES_SOCK: Connection refused"
ok "stale socket after the server exited: connection refused"

echo "PASS: $TEST_NAME"
