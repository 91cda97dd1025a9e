#!/bin/bash
# The HTTP bridge's access controls, with the agent as a standalone SNMP agent
# (no master needed): basic auth (401 with a challenge without or with wrong
# credentials, 200 with right ones), the bound on concurrent connections (a
# newcomer is let in by closing the idle connection that waited longest), TLS
# with a self-signed certificate made here by openssl (skipped without it):
# TLS 1.2 and 1.3 only, and start-up refusing a bad key or a taken port with
# one log line.  Slow and greedy clients: http_slow_clients.sh and
# http_greedy_readers.sh.
. "$(dirname "$0")/http_lib.sh"

start_standalone() { # [agent options...]
    start_http_agent --standalone "udp:127.0.0.1:$SNMP_PORT" "$@"
}

# ---- basic auth -----------------------------------------------------------------
printf '# scrapers\nprometheus:scrape-secret\nops:an:other:pw\n' > "$WORK/users"
chmod 600 "$WORK/users"
{ echo "httpBasicAuthFile $WORK/users"; echo "httpMaxConnections 2"; } > "$WORK/agent.conf"
start_standalone
wait_until 20 sh -c "curl -s -o /dev/null -w '%{http_code}' $HTTP_BASE/metrics | grep -q 401" ||
    fail "the bridge did not come up with basic auth"

curl "${CURL_OPTS[@]}" -D "$WORK/h" -o "$WORK/body" "$HTTP_BASE/metrics"
head -1 "$WORK/h" | grep -q ' 401' || fail "no credentials: $(head -1 "$WORK/h")"
grep -qi '^WWW-Authenticate: Basic realm="primus-node-agent"' "$WORK/h" || fail "no Basic challenge"
ok "no credentials: 401 with WWW-Authenticate: Basic"
[ "$(http_code /metrics -u prometheus:wrong)" = 401 ] || fail "wrong password accepted"
[ "$(http_code /metrics -u prometheus:scrape-secre)" = 401 ] || fail "password prefix accepted"
[ "$(http_code /metrics -u nobody:scrape-secret)" = 401 ] || fail "unknown user accepted"
ok "wrong password, password prefix, unknown user: 401"
[ "$(http_code /metrics -u prometheus:scrape-secret)" = 200 ] || fail "right credentials refused"
[ "$(http_code /health -u ops:an:other:pw)" = 200 ] || fail "password with colons refused"
ok "right credentials: 200 (a password may contain ':')"
[ "$(http_code /metrics -X POST -u prometheus:scrape-secret)" = 405 ] || fail "POST with credentials"
ok "authenticated POST: 405"
# The probes stay open (Kubernetes probes carry no credentials); /health,
# with its poller details, does not.
[ "$(http_code /healthz)" = 200 ] || fail "/healthz without credentials: $(http_code /healthz)"
case "$(http_code /ready)" in 200|503) ;; *) fail "/ready without credentials: $(http_code /ready)" ;; esac
[ "$(http_code /health)" = 401 ] || fail "/health without credentials: $(http_code /health)"
[ "$(http_code /healthz -X POST)" = 405 ] || fail "POST /healthz without credentials"
ok "probes /healthz and /ready answer without credentials, /health does not"

# ---- the connection bound (httpMaxConnections 2) --------------------------------------
# Two idle connections hold both places; a newcomer is not left waiting: the
# connection that waited longest for its request is closed to make room.
exec 7<>/dev/tcp/127.0.0.1/"$HTTP_PORT" 8<>/dev/tcp/127.0.0.1/"$HTTP_PORT" ||
    fail "cannot open the two idle connections"
sleep 0.3
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -u prometheus:scrape-secret "$HTTP_BASE/metrics")
[ "$code" = 200 ] || fail "a third connection was not served ($code) with httpMaxConnections 2 held by idle ones"
rc=0
timeout 5 cat <&7 >/dev/null || rc=$?
[ "$rc" != 124 ] || fail "the idle connection that waited longest was not closed"
exec 7>&- 8>&-
ok "httpMaxConnections 2 held by idle connections: a newcomer served, the oldest idle one closed"
stop_agent_now

# httpProbeAuth yes: the probes need credentials too.
HTTP_PORT=$(free_tcp_port)
HTTP_BASE="http://127.0.0.1:$HTTP_PORT"
{ echo "httpBasicAuthFile $WORK/users"; echo "httpProbeAuth yes"; } > "$WORK/agent.conf"
start_standalone
wait_until 20 sh -c "curl -s -o /dev/null -w '%{http_code}' $HTTP_BASE/healthz | grep -q 401" ||
    fail "httpProbeAuth yes: /healthz answers $(http_code /healthz) without credentials"
[ "$(http_code /ready)" = 401 ] || fail "httpProbeAuth yes: /ready answers $(http_code /ready)"
[ "$(http_code /healthz -u prometheus:scrape-secret)" = 200 ] || fail "probe with credentials refused"
ok "httpProbeAuth yes: /healthz and /ready need credentials"
stop_agent_now

# ---- TLS ---------------------------------------------------------------------------------
if ! command -v openssl >/dev/null; then
    echo "openssl not installed: TLS part skipped"
else
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
        -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$WORK/key.pem" -out "$WORK/cert.pem" >"$WORK/openssl.log" 2>&1 ||
        fail "openssl could not make a certificate: $(cat "$WORK/openssl.log")"
    chmod 600 "$WORK/key.pem"
    { echo "httpTlsCert $WORK/cert.pem"; echo "httpTlsKey $WORK/key.pem"; } > "$WORK/agent.conf"
    HTTP_PORT=$(free_tcp_port)
    HTTP_BASE="https://127.0.0.1:$HTTP_PORT"
    start_standalone
    wait_until 20 sh -c "curl -s --cacert $WORK/cert.pem -o /dev/null -w '%{http_code}' $HTTP_BASE/healthz | grep -q 200" ||
        fail "the bridge did not come up with TLS"
    http_body /metrics --cacert "$WORK/cert.pem" > "$WORK/metrics.txt"
    grep -q '^primus_agent_info{' "$WORK/metrics.txt" || fail "no metrics over TLS"
    if command -v promtool >/dev/null; then
        promtool check metrics < "$WORK/metrics.txt" || fail "promtool over TLS"
    fi
    ok "https with the self-signed certificate: 200, metrics clean"
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$HTTP_PORT/metrics")
    [ "$code" != 200 ] || fail "plain HTTP answered 200 on the TLS port"
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$HTTP_BASE/metrics")
    [ "$code" = 000 ] || fail "an unverified certificate was accepted ($code)"
    ok "plain HTTP and unverified TLS refused"
    # TLS 1.2 or newer only (the priority string in server.c); the client is
    # allowed the old versions (security level 0) so that a refusal is the
    # server's.
    for v in 1 1_1 1_2 1_3; do
        got=$(echo | timeout 10 openssl s_client -connect "127.0.0.1:$HTTP_PORT" -CAfile "$WORK/cert.pem" \
                  "-tls$v" -cipher 'DEFAULT:@SECLEVEL=0' -brief 2>&1 | sed -n 's/^Protocol version: //p')
        case "$v" in
            1|1_1) [ -z "$got" ] || fail "TLS $v accepted ($got)" ;;
            1_2) [ "$got" = TLSv1.2 ] || fail "TLS 1.2 refused" ;;
            1_3) [ "$got" = TLSv1.3 ] || fail "TLS 1.3 refused" ;;
        esac
    done
    ok "TLS 1.0 and 1.1 refused, 1.2 and 1.3 accepted"
    stop_agent_now

    # A key that is not a key: the agent stops at start-up with one line.
    echo "not a key" > "$WORK/bad-key.pem"
    { echo "httpTlsCert $WORK/cert.pem"; echo "httpTlsKey $WORK/bad-key.pem"; } > "$WORK/bad.conf"
    rc=0
    timeout 20 "$PNA_AGENT" -f -Lf "$WORK/bad.log" -c "$WORK/bad.conf" \
        --standalone "udp:127.0.0.1:$(free_port)" --http "127.0.0.1:$(free_tcp_port)" || rc=$?
    [ "$rc" = 1 ] || fail "a bad TLS key: exit status $rc, expected 1"
    grep -q 'http: cannot start' "$WORK/bad.log" || fail "no log line for the bad key: $(cat "$WORK/bad.log")"
    ok "a bad TLS key stops start-up (exit 1, 'http: cannot start ...' logged)"
fi

# ---- a port already taken ---------------------------------------------------------------
: > "$WORK/agent.conf"
HTTP_PORT=$(free_tcp_port)
HTTP_BASE="http://127.0.0.1:$HTTP_PORT"
start_standalone
wait_http
rc=0
timeout 20 "$PNA_AGENT" -f -Lf "$WORK/taken.log" -c "$WORK/agent.conf" \
    --standalone "udp:127.0.0.1:$(free_port)" --http "127.0.0.1:$HTTP_PORT" || rc=$?
[ "$rc" = 1 ] || fail "a taken port: exit status $rc, expected 1"
grep -q "http: cannot start on 127.0.0.1:$HTTP_PORT" "$WORK/taken.log" ||
    fail "no log line for the taken port: $(cat "$WORK/taken.log")"
ok "a taken port stops start-up (exit 1, logged)"
rc=0
timeout 20 "$PNA_AGENT" -f -Lf "$WORK/badaddr.log" -c "$WORK/agent.conf" \
    --standalone "udp:127.0.0.1:$(free_port)" --http "9101" || rc=$?
[ "$rc" = 1 ] && grep -q 'http: bad HTTP address' "$WORK/badaddr.log" || fail "--http 9101 accepted (rc $rc)"
ok "--http without HOST: or : refused"
[ "$(http_code /healthz)" = 200 ] || fail "the first agent stopped answering"
stop_agent_now
echo "PASS: $TEST_NAME"
