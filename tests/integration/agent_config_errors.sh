#!/bin/bash
# A bad config line stops start-up with file, line and reason.
. "$(dirname "$0")/lib.sh"

check_bad() { # LINE_CONTENT EXPECTED_REASON
    printf '# comment\npollInterval node 5\n%s\n' "$1" > "$WORK/bad.conf"
    out=$("$PNA_AGENT" -f -c "$WORK/bad.conf" -x "unix:$WORK/none.sock" 2>&1)
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

out=$("$PNA_AGENT" -f -c "$WORK/does-not-exist.conf" 2>&1) && fail "missing config file accepted"
echo "$out" | grep -q "does-not-exist.conf: cannot open" || fail "missing file message: $out"
ok "missing config file refused"
"$PNA_AGENT" --bogus >/dev/null 2>&1 && fail "unknown option accepted"
"$PNA_AGENT" --version | grep -q "^primus-node-agent [0-9]" || fail "--version"
"$PNA_AGENT" --help | grep -q -- "--standalone" || fail "--help"
ok "options: unknown refused, --version, --help"
echo "PASS: $TEST_NAME"
