#!/bin/bash
# Logs stay bounded under floods (docs/security.md, "Log floods"):
#  - one SNMPv3 packet with a wrong key, replayed thousands of times at the
#    standalone agent, is one "Authentication failed" line and, at the end of
#    the interval, one "suppressed N similar messages" line; the agent still
#    answers;
#  - OOM notifications (they carry a Counter64) sent to an SNMPv2c sink log
#    nothing about SNMPv1, and a memory.events rewritten a thousand times a
#    second adds a bounded number of lines;
#  - with an SNMPv1 sink configured, one line of the agent's says what that
#    sink misses, instead of net-snmp's two per notification;
#  - HTTPS requests with a 40 KB header and broken TLS handshakes, 200 of
#    each, are a line each kind and a summary per interval.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
command -v python3 >/dev/null || skip "python3 not installed (it replays the packet)"
command -v openssl >/dev/null || skip "openssl not installed (it makes the bridge's certificate)"

R="$WORK/root" S="$WORK/sys" P="$WORK/proc" D="$WORK/dev"
trainer_task "$R" "$S" "$P" "$D"

# start_standalone EXTRA-CONFIG-LINE...: a standalone agent on the fixture
# tree, logging to $WORK/agent.log, with a 5-second rate-limit interval so
# that the test sees a summary.  AGENT_OPTS: more options.
AGENT_OPTS=()
start_standalone() {
    {
        echo "pollInterval containers 1"
        echo "logRateInterval ${LOG_RATE_INTERVAL:-5}"
        echo "rocommunity public 127.0.0.1"
        echo "createUser $V3_USER SHA-256 \"$V3_AUTH\" AES \"$V3_PRIV\""
        echo "rouser $V3_USER priv"
        printf '%s\n' "$@"
    } > "$WORK/agent.conf"
    : > "$WORK/agent.log"
    $(agent_wrapper) "$PNA_AGENT" -f -Lf "$WORK/agent.log" -c "$WORK/agent.conf" \
        --standalone "udp:127.0.0.1:$SNMP_PORT" \
        --rootfs "$R" --sysfs "$S" --procfs "$P" --devfs "$D" "${AGENT_OPTS[@]}" \
        2>>"$WORK/agent-stderr.log" &
    AGENT_PID=$!
    PIDS+=("$AGENT_PID")
    wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $CONTAINERS.1.0 | grep -qx 1" ||
        fail "standalone agent does not serve the container"
}

stop_standalone() {
    kill "$AGENT_PID" 2>/dev/null
    wait "$AGENT_PID" 2>/dev/null
}

start_trapd
start_standalone "trap2sink 127.0.0.1:$TRAP_PORT public"

# ---- a wrong-key SNMPv3 packet, replayed ------------------------------------------
# snmpget -d dumps what it sends: the second packet is the request with the
# wrong key's digest (the first is engine discovery).
snmpget -d -v3 -l authNoPriv -u "$V3_USER" -a SHA-256 -A not-the-right-key -t 1 -r 0 \
    "$TARGET" "$OBJ.4.1.0" > "$WORK/dump" 2>&1
REPLAYS=3000
# One at a time: the agent answers each with a report (usmStatsWrongDigests),
# so the client knows how many it handled; the summary must count them all.
handled=$(python3 - "$WORK/dump" "$SNMP_PORT" "$REPLAYS" <<'PY'
import re, socket, sys
dump, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
packets, cur = [], None
for line in open(dump, errors="replace"):
    if line.startswith("Sending "):
        cur = bytearray(); packets.append(cur); continue
    if line.startswith("Received "):
        cur = None; continue
    # "0000: 30 3E 02 01  03 30 ...    0>...0..": hex in the first 58 columns
    if re.match(r"^[0-9]{4}: ", line) and cur is not None:
        cur.extend(bytes.fromhex(line[6:58].replace(" ", "")))
if len(packets) < 2:
    sys.exit("snmpget -d showed %d packets" % len(packets))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
answered = 0
for i in range(count):
    s.sendto(bytes(packets[1]), ("127.0.0.1", port))
    try:
        s.recv(2048)
        answered += 1
    except socket.timeout:
        pass
print(answered)
PY
) || fail "could not replay the packet"
[ "$handled" -ge $((REPLAYS * 9 / 10)) ] || fail "the agent answered only $handled of $REPLAYS replays"
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $OBJ.4.1.0 | grep -q '[0-9]'" ||
    fail "the agent stopped answering after the replay"
failed=$(grep -v '^suppressed' "$WORK/agent.log" | grep -c 'Authentication failed')
[ "$failed" -ge 1 ] || fail "no 'Authentication failed' line at all: is the packet wrong?"
[ "$failed" -eq 1 ] || fail "$failed 'Authentication failed' lines for one replayed packet"
ok "$REPLAYS replays of a wrong-key packet ($handled answered): 1 'Authentication failed' line"
# The summaries (one per interval while the flood lasts) add up to every
# replay the agent handled.
summed() {
    sed -n 's/.*suppressed \([0-9]*\) similar messages in the last [0-9]* s: Authentication failed.*/\1/p' \
        "$WORK/agent.log" | awk '{ n += $1 } END { print n + 0 }'
}
for _ in $(seq 75); do [ "$(summed)" -ge "$handled" ] && break; sleep 0.2; done
[ "$(summed)" -ge "$handled" ] || fail "summaries count $(summed) of the $handled replays handled"
n=$(summed)
summaries=$(grep -c 'similar messages in the last' "$WORK/agent.log")
ok "then $summaries summary line(s): suppressed $n similar messages in all"
[ "$(snmpget $V3 -On -Oqv "$TARGET" $OBJ.4.4.0)" = 2 ] || fail "the right key no longer works"
ok "the right key still answers"

# ---- OOM notifications without an SNMPv1 sink -------------------------------------
sleep 1.2   # the OOM watch is armed at the poll that found the container
lines_before=$(wc -l < "$WORK/agent.log")
python3 - "$CG/memory.events" <<'PY'
import os, sys, time
path = sys.argv[1]
end = time.time() + 3
kills = 0
while time.time() < end:
    kills += 1
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("low 0\nhigh 0\nmax 9\noom %d\noom_kill %d\noom_group_kill 0\n" % (kills, kills))
    os.rename(tmp, path)
    time.sleep(0.001)
PY
wait_until 10 grep -q "$NOTIFY.5\b" "$WORK/traps.log" || fail "no primusContainerOomKill trap"
sleep 2
grep -q "v1 traps\|v2->v1" "$WORK/agent.log" && fail "SNMPv1 lines with no SNMPv1 sink: $(grep -m1 'v1' "$WORK/agent.log")"
added=$(( $(wc -l < "$WORK/agent.log") - lines_before ))
[ "$added" -le 10 ] || fail "memory.events rewritten for 3 s added $added log lines: $(tail -5 "$WORK/agent.log")"
ok "OOM notifications to a v2c sink: no SNMPv1 lines; a 3-second memory.events flood added $added lines"
stop_standalone

# ---- with an SNMPv1 sink ---------------------------------------------------------
printf 'low 0\nhigh 0\nmax 9\noom 0\noom_kill 0\noom_group_kill 0\n' > "$CG/memory.events"
start_standalone "trap2sink 127.0.0.1:$TRAP_PORT public" "trapsink 127.0.0.1:$TRAP_PORT public"
sleep 1.2
printf 'low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\noom_group_kill 0\n' > "$CG/memory.events"
wait_until 10 grep -q 'not sent to SNMPv1 sinks' "$WORK/agent.log" ||
    fail "no line saying the SNMPv1 sink misses the OOM notification"
grep -q "v1 traps\|v2->v1" "$WORK/agent.log" && fail "net-snmp's own SNMPv1 lines still logged"
ok "with an SNMPv1 sink: one line of the agent's, none of net-snmp's"
stop_standalone

# ---- HTTPS: huge headers and broken handshakes ----------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" >"$WORK/openssl.log" 2>&1 ||
    fail "openssl could not make a certificate: $(cat "$WORK/openssl.log")"
AGENT_OPTS=(--http "127.0.0.1:$HTTP_PORT")
start_standalone "httpTlsCert $WORK/cert.pem" "httpTlsKey $WORK/key.pem"
wait_until 10 sh -c "curl -sk -o /dev/null https://127.0.0.1:$HTTP_PORT/healthz" ||
    fail "the bridge does not answer HTTPS"
ATTACKS=200
lines_before=$(wc -l < "$WORK/agent.log")
t0=$(date +%s)
python3 - "$HTTP_PORT" "$ATTACKS" <<'PY' || fail "the HTTPS attack client failed"
import socket, ssl, sys
port, ATTACKS = int(sys.argv[1]), int(sys.argv[2])
ctx = ssl.create_default_context()
ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
def talk(sock, data):
    try:
        sock.sendall(data)
        sock.recv(100)
    except OSError:
        pass
    sock.close()
for _ in range(ATTACKS):    # a 40 KB header line: 431, one log line each before
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5))
    talk(s, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
for _ in range(ATTACKS):    # a handshake record with garbage in it
    talk(socket.create_connection(("127.0.0.1", port), timeout=5),
         b"\x16\x03\x01\x00\x05hello-not-tls" * 3)
PY
sleep 1
elapsed=$(( $(date +%s) - t0 ))
added=$(( $(wc -l < "$WORK/agent.log") - lines_before ))
firsts() { grep -v '^suppressed' "$WORK/agent.log" | grep -c "$1"; }
big=$(firsts 'header was too big')
bad=$(firsts 'handshake message out of context')
# One first line per kind, then a summary per kind per 5 s interval at most
# (a loaded machine takes longer over the handshakes).
bound=$(( 2 + 2 * (elapsed / 5 + 1) ))
[ "$big" -eq 1 ] && [ "$bad" -eq 1 ] && [ "$added" -le "$bound" ] ||
    fail "$ATTACKS huge headers and $ATTACKS bad handshakes in $elapsed s: $big + $bad first lines, $added lines in all (bound $bound): $(tail -5 "$WORK/agent.log")"
[ "$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$HTTP_PORT/healthz")" = 200 ] ||
    fail "the bridge no longer answers"
ok "$ATTACKS huge headers and $ATTACKS broken TLS handshakes in $elapsed s: $added log lines, the bridge answers"
stop_standalone
echo "PASS: $TEST_NAME"
