#!/bin/bash
# `primus-node-agent --probe URL`, the image's HEALTHCHECK: exit 0 on a 2xx
# answer (the bridge's /healthz and /ready), 1 with one line on stderr naming
# the URL and the reason otherwise: a 404 from the bridge, a 503 from a stub
# server, a refused connection, a server that accepts and never answers (the
# 5 s deadline), a URL that is not http(s).  It reads no config file (-c names
# one that does not exist) and starts nothing: it returns at once.
. "$(dirname "$0")/http_lib.sh"

command -v python3 >/dev/null || skip "python3 not installed (the 503 and silent stub servers)"

# probe URL [options...]: runs --probe (under valgrind with PNA_VALGRIND=1);
# sets RC and ERR (its stderr).
probe() {
    local url=$1; shift
    rm -f "$WORK/agent-valgrind.log"
    $(agent_wrapper) "$PNA_AGENT" "$@" --probe "$url" >"$WORK/probe.out" 2>"$WORK/probe.err"
    RC=$?
    ERR=$(cat "$WORK/probe.err")
    if [ -s "$WORK/agent-valgrind.log" ]; then
        head -60 "$WORK/agent-valgrind.log"
        fail "valgrind report for --probe $url"
    fi
    [ ! -s "$WORK/probe.out" ] || fail "--probe $url wrote to stdout: $(cat "$WORK/probe.out")"
}

# expect_failure URL REASON: exit 1, one stderr line with the URL and REASON.
expect_failure() {
    local url=$1 reason=$2
    [ "$RC" = 1 ] || fail "--probe $url: exit $RC, want 1 (stderr: $ERR)"
    [ "$(wc -l < "$WORK/probe.err")" = 1 ] || fail "--probe $url: not one line on stderr: $ERR"
    case $ERR in
        "primus-node-agent: probe $url: "*"$reason"*) ;;
        *) fail "--probe $url: stderr '$ERR' does not name the URL and '$reason'" ;;
    esac
}

start_snmpd
start_http_agent
wait_http

# ---- 2xx: exit 0, silent ---------------------------------------------------------
start=$(date +%s)
probe "$HTTP_BASE/healthz" -c "$WORK/no-such-file.conf"
[ "$RC" = 0 ] || fail "--probe /healthz: exit $RC: $ERR"
[ -z "$ERR" ] || fail "--probe /healthz succeeded but wrote: $ERR"
[ $(( $(date +%s) - start )) -le 5 ] || fail "--probe /healthz took more than 5 s"
ok "--probe $HTTP_BASE/healthz: exit 0, nothing written, no config file read"
wait_until 20 curl -sf -o /dev/null "$HTTP_BASE/ready" || fail "/ready never answered 200"
probe "$HTTP_BASE/ready"
[ "$RC" = 0 ] || fail "--probe /ready: exit $RC: $ERR"
ok "--probe /ready: exit 0 once ready"

# ---- errors from the bridge, a stub, the network -------------------------------------
probe "$HTTP_BASE/no-such-path"
expect_failure "$HTTP_BASE/no-such-path" "HTTP 404"
ok "--probe of a 404: exit 1, '$ERR'"

STUB_PORT=$(free_tcp_port)
python3 - "$STUB_PORT" <<'PY' >"$WORK/stub.log" 2>&1 &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"status":"not ready"}'
        self.send_response(503)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
PIDS+=("$!")
wait_for "the 503 stub" curl -s -o /dev/null "http://127.0.0.1:$STUB_PORT/ready"
probe "http://127.0.0.1:$STUB_PORT/ready"
expect_failure "http://127.0.0.1:$STUB_PORT/ready" "HTTP 503"
ok "--probe of a 503: exit 1, '$ERR'"

REFUSED_PORT=$(free_tcp_port)
probe "http://127.0.0.1:$REFUSED_PORT/healthz"
expect_failure "http://127.0.0.1:$REFUSED_PORT/healthz" "onnect"
ok "--probe of a closed port: exit 1, '$ERR'"

SILENT_PORT=$(free_tcp_port)
python3 - "$SILENT_PORT" <<'PY' >"$WORK/silent.log" 2>&1 &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
held = []
while True:
    held.append(s.accept()[0])
PY
PIDS+=("$!")
wait_until 10 sh -c "ss -Hltn 'sport = :$SILENT_PORT' | grep -q ." || fail "the silent stub did not listen"
start=$(date +%s)
probe "http://127.0.0.1:$SILENT_PORT/healthz"
took=$(( $(date +%s) - start ))
expect_failure "http://127.0.0.1:$SILENT_PORT/healthz" "timed out after 5000 ms"
[ "$took" -le 15 ] || fail "--probe of a silent server took $took s"
ok "--probe of a server that never answers: exit 1 after ${took} s, '$ERR'"

probe "ftp://127.0.0.1:$HTTP_PORT/healthz"
expect_failure "ftp://127.0.0.1:$HTTP_PORT/healthz" "not an http:// or https:// URL"
ok "--probe of an ftp:// URL: exit 1, '$ERR'"

# The agent itself went on serving through all of it.
kill -0 "$AGENT_PID" 2>/dev/null || fail "the agent died"
[ "$(http_code /healthz)" = 200 ] || fail "/healthz no longer 200"
exit 0
