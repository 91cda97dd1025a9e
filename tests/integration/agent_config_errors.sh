#!/bin/bash
# A bad config line stops start-up with file, line and reason.
. "$(dirname "$0")/lib.sh"

check_bad() { # LINE_CONTENT EXPECTED_REASON
    printf '# comment\npollInterval node 5\n%s\n' "$1" > "$WORK/bad.conf"
    # timeout: an agent that took the line would run on
    out=$(timeout 10 "$PNA_AGENT" -f -c "$WORK/bad.conf" -x "unix:$WORK/none.sock" 2>&1)
    rc=$?
    [ $rc -ne 0 ] || fail "'$1' was accepted"
    echo "$out" | grep -q "$WORK/bad.conf:3: .*$2" || fail "'$1': message '$out' lacks file:3 and '$2'"
    ok "'$1' -> $(echo "$out" | head -1 | sed "s|$WORK/||")"
}
check_bad "pollIntervl node 5" "unknown token 'pollIntervl'"
check_bad "pollInterval gpuz 5" "no poller named 'gpuz'"
check_bad "pollInterval node five" "not a number"
check_bad "pollInterval node 0" "out of range"
check_bad "eventHistory" "expected exactly one value"
check_bad "kubeletInsecure maybe" "not yes or no"
check_bad "rwcommunity private" "unknown token 'rwcommunity'"
check_bad "rocommunity" "missing value"
check_bad "staleAfter 10 20" "expected exactly one value"
check_bad "prometheusCompat dcgm nvidia" "prometheusCompat: unknown exporter 'nvidia'"
check_bad "podLabels" "podLabels: expected at least one label key"
check_bad "podLabels team,,queue" "podLabels: '' is not a label key"
check_bad "podLabels team,na?me" "podLabels: 'na?me' is not a label key"
check_bad "podLabels a/b/c" "podLabels: 'a/b/c' is not a label key"
check_bad "accountingIdleThreshold" "accountingIdleThreshold: expected PERCENT .WINDOW."
check_bad "accountingIdleThreshold 120 10m" "accountingIdleThreshold: '120' is not a percentage from 0 to 100"
check_bad "accountingIdleThreshold 5 10x" "accountingIdleThreshold: '10x' is not a window of 0 to 604800 seconds"
# A '#' inside quotes is no comment; a quote left open is an error, not a cut line.
check_bad 'createUser u1 SHA-256 "pass#word' "unterminated quoted string"
check_bad 'nodeName "a"b' "text right after a closing quote"
check_bad '"rocommunity" public' "a token is written plainly"
check_bad 'createUser u1 SHA-256 short' "createUser: authentication passphrase shorter than 8 characters"
check_bad 'createUser u1 default abcdefgh' "createUser: unknown authentication protocol 'default'"
check_bad 'createUser u1 SHA abcdefgh AES abcdefgh extra' "createUser: unexpected 'extra'"

# A NUL byte is named as such (it was "line longer than 1022 characters").
printf 'pollInterval node 5\nnodeName a\0b\n' > "$WORK/nul.conf"
out=$("$PNA_AGENT" -f -c "$WORK/nul.conf" -x "unix:$WORK/none.sock" 2>&1) && fail "a NUL byte was accepted"
echo "$out" | grep -q "nul.conf:2: NUL byte in the line" || fail "NUL byte: message '$out'"
ok "NUL byte -> $(echo "$out" | sed "s|$WORK/||")"

# A directory is no config file (it read as an empty one).
out=$("$PNA_AGENT" -f -c "$WORK" -x "unix:$WORK/none.sock" 2>&1) && fail "a directory was accepted as config"
echo "$out" | grep -q "$WORK: is a directory" || fail "directory: message '$out'"
ok "a directory as config file refused"

# check_refused_by_netsnmp WHAT CONFIG EXPECTED: the standalone agent reads
# CONFIG (printf format), net-snmp refuses a line of it, and start-up stops
# with exit status 1 and the message EXPECTED (file:line included).
check_refused_by_netsnmp() {
    local what=$1 conf="$WORK/refused.conf"
    printf "$2" > "$conf"
    out=$(timeout 20 "$PNA_AGENT" -f -Le -c "$conf" --standalone "udp:127.0.0.1:$SNMP_PORT" 2>&1)
    rc=$?
    [ $rc -eq 1 ] || fail "$what: exit status $rc, output '$out'"
    echo "$out" | grep -q "refused.conf:$3" || fail "$what: message '$out'"
    ok "$what -> exit 1, '$(echo "$out" | grep "refused.conf:" | head -1 | sed "s|$WORK/||")'"
}
# A createUser that passes the parser but that net-snmp refuses (a master key
# of the wrong length) stops the standalone agent with file, line and user.
check_refused_by_netsnmp "createUser net-snmp refuses" \
    'rocommunity public 127.0.0.1\ncreateUser u9 SHA-256 -m 0x0102\n' \
    "2: createUser: net-snmp did not create user 'u9'"
# Any other line net-snmp refuses (it logs "(null): line 0: Error: ..." and
# goes on without it) stops the standalone agent with file, line and reason.
check_refused_by_netsnmp "a mask net-snmp refuses" \
    'rocommunity public 127.0.0.1\ncom2sec c1 127.0.0.1 c1\nrocommunity public 10.0.0.0/33\n' \
    "3: net-snmp refused this line: bad mask length"

# In subagent mode, standalone-only lines are named as ignored, with file and line.
printf 'pollInterval node 5\nrocommunity public 127.0.0.1\n' > "$WORK/sub.conf"
out=$(timeout 2 "$PNA_AGENT" -f -Le -c "$WORK/sub.conf" -x "unix:$WORK/none.sock" 2>&1)
echo "$out" | grep -q "sub.conf:2: ignored: rocommunity applies to the standalone agent only" ||
    fail "subagent: no warning for rocommunity: '$out'"
echo "$out" | grep -q "(null)" && fail "subagent: net-snmp's '(null): line 0' message: '$out'"
ok "subagent: rocommunity named as ignored, with file and line"

out=$("$PNA_AGENT" -f -c "$WORK/does-not-exist.conf" 2>&1) && fail "missing config file accepted"
echo "$out" | grep -q "does-not-exist.conf: cannot open" || fail "missing file message: $out"
ok "missing config file refused"
"$PNA_AGENT" --bogus >/dev/null 2>&1 && fail "unknown option accepted"
"$PNA_AGENT" --version | grep -q "^primus-node-agent [0-9]" || fail "--version"
"$PNA_AGENT" --help | grep -q -- "--standalone" || fail "--help"
ok "options: unknown refused, --version, --help"
echo "PASS: $TEST_NAME"
