#!/bin/bash
# The kubelet client over real HTTPS: Python's http.server wrapped in TLS with
# a self-signed certificate made here by openssl, on 127.0.0.1, serving the
# recorded /pods and /stats/summary of a v1.35 node only to a request with the
# right bearer token.  Four agents in turn, through a real snmpd:
#   1. kubeletCaFile = that certificate: verified, served (primusK8sNodeName);
#   2. kubeletCaFile = another CA: refused, and the kubelet row of
#      primusPollerTable says failing with a certificate error in words;
#   3. kubeletInsecure yes (no CA): served;
#   4. the right CA and a wrong token: HTTP 401 in the poller row.
# The server records the Authorization header it received: the token was
# sent.  The token never appears in the agent's log, its stderr, the event
# table or anything under primusNodeMIB.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/containers_lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (serves the recorded kubelet responses)"
command -v openssl >/dev/null || skip "openssl not installed (makes the test certificates)"

K="$WORK/kubelet"
FIX="$PNA_FIXTURES/kubelet/nri-kubernetes-k8s-1.35"
mkdir -p "$K" "$WORK/root/var/lib/kubelet" "$WORK/dev"
cp "$FIX/pods.json" "$K/pods"
cp "$FIX/stats-summary.json" "$K/summary"
NODE=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["node"]["nodeName"])' \
       "$FIX/stats-summary.json")
TOKEN="pna-test-token-$RANDOM$RANDOM-do-not-log"
printf '%s\n' "$TOKEN" > "$WORK/token"
printf 'wrong-%s\n' "$RANDOM" > "$WORK/bad-token"

for name in kubelet other; do
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
        -addext "subjectAltName=IP:127.0.0.1" -keyout "$WORK/$name-key.pem" \
        -out "$WORK/$name-cert.pem" >"$WORK/openssl.log" 2>&1 ||
        skip "openssl cannot make a self-signed certificate here: $(tail -n 1 "$WORK/openssl.log")"
done

cat > "$WORK/kubelet.py" <<'PY'
# A kubelet stand-in: /pods and /stats/summary over TLS, bearer token required.
import http.server, ssl, sys
port, cert, key, token, root, seen = sys.argv[1:7]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        auth = self.headers.get("Authorization", "")
        with open(seen, "a") as f:
            f.write(auth + "\n")
        if auth != "Bearer " + token:
            self.send_response(401); self.end_headers(); return
        name = {"/pods": "pods", "/stats/summary": "summary"}.get(self.path)
        if not name:
            self.send_response(404); self.end_headers(); return
        body = open(root + "/" + name, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
srv = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
KPORT=$(( (RANDOM % 20000) + 10000 ))  # below the ephemeral range (32768-60999)
python3 "$WORK/kubelet.py" "$KPORT" "$WORK/kubelet-cert.pem" "$WORK/kubelet-key.pem" "$TOKEN" \
    "$K" "$WORK/auth-seen" >"$WORK/kubelet.log" 2>&1 &
PIDS+=("$!")
# Independent check that the stand-in serves TLS with that certificate.
wait_for "TLS kubelet stand-in" python3 -c "
import ssl, urllib.request
ctx = ssl.create_default_context(cafile='$WORK/kubelet-cert.pem')
req = urllib.request.Request('https://127.0.0.1:$KPORT/pods', headers={'Authorization': 'Bearer $TOKEN'})
urllib.request.urlopen(req, context=ctx).read()"
: > "$WORK/auth-seen"

KUBELET_ROW="$OBJ.4.10.1"   # primusPollerEntry; the kubelet poller is index 6
poller_status() { snmp_value "$KUBELET_ROW.9.6"; }
poller_error() { snmp_value "$KUBELET_ROW.7.6"; }
node_served() { [ "$(snmp_value "$K8S.1.0")" = "$NODE" ]; }
poller_failing() { [ "$(poller_status)" = 2 ]; }

# run_agent CONFIG-LINES...: a fresh agent with these kubelet settings.
run_agent() {
    if [ -n "${AGENT_PID:-}" ]; then
        kill "$AGENT_PID" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.1; done
        # the master answers for the old session until it notices it is gone
        sleep 1
    fi
    {
        echo "kubeletUrl https://127.0.0.1:$KPORT"
        echo "pollInterval kubelet 2"
        for line in "$@"; do echo "$line"; done
    } > "$WORK/agent.conf"
    start_agent --rootfs "$WORK/root" --devfs "$WORK/dev"
    wait_agent
}

start_snmpd

# 1. The right CA.
run_agent "kubeletTokenFile $WORK/token" "kubeletCaFile $WORK/kubelet-cert.pem"
wait_until 15 node_served ||
    fail "with the right CA: primusK8sNodeName.0 is '$(snmp_value $K8S.1.0)', not $NODE; poller: $(poller_error)"
[ "$(poller_status)" = 1 ] || fail "with the right CA: kubelet poller status $(poller_status), not ok(1)"
grep -qx "Bearer $TOKEN" "$WORK/auth-seen" || fail "the server never received the bearer token"
ok "kubeletCaFile = the server's certificate: verified, node $NODE served, token sent"

# 2. Another CA: the certificate is refused, the error says so.
run_agent "kubeletTokenFile $WORK/token" "kubeletCaFile $WORK/other-cert.pem"
wait_until 15 poller_failing ||
    fail "with a wrong CA: poller status $(poller_status), not failing(2)"
err=$(poller_error)
echo "poller row with a wrong CA: $err"
echo "$err" | grep -qi "certificate" || fail "the error does not name the certificate problem: $err"
echo "$err" | grep -q "/pods" || fail "the error does not say which request: $err"
echo "$err" | grep -q "$WORK/other-cert.pem" || fail "the error does not name the CA file used: $err"
[ "$(snmp_value $K8S.1.0)" != "$NODE" ] || fail "served kubelet data through an unverified certificate"
ok "wrong kubeletCaFile: refused, poller row: $err"

# 3. No verification.
run_agent "kubeletTokenFile $WORK/token" "kubeletCaFile $WORK/none.pem" "kubeletInsecure yes"
wait_until 15 node_served ||
    fail "with kubeletInsecure: node name '$(snmp_value $K8S.1.0)'; poller: $(poller_error)"
ok "kubeletInsecure yes: served without verification"

# 4. The right CA, a token the kubelet does not accept.
run_agent "kubeletTokenFile $WORK/bad-token" "kubeletCaFile $WORK/kubelet-cert.pem"
wait_until 15 poller_failing ||
    fail "with a wrong token: poller status $(poller_status), not failing(2)"
echo "$(poller_error)" | grep -q "HTTP 401" || fail "wrong token: error '$(poller_error)' lacks HTTP 401"
ok "wrong token: $(poller_error)"

# The token is nowhere the agent writes or serves.
snmp_walk "$ROOT" > "$WORK/walk.txt" 2>&1
for f in "$WORK/agent.log" "$WORK/agent-stderr.log" "$WORK/walk.txt"; do
    ! grep -q "$TOKEN" "$f" || fail "the bearer token appears in $(basename "$f")"
    ! grep -q "$(cat "$WORK/bad-token")" "$f" || fail "the wrong token appears in $(basename "$f")"
done
grep -q "kubelet" "$WORK/agent.log" || fail "the agent logged nothing about the kubelet poller"
ok "the token is in no log line and no served value ($(wc -l < "$WORK/walk.txt") varbinds walked)"
echo "PASS: $TEST_NAME"
