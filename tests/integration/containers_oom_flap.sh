#!/bin/bash
# A container's cgroup files as an attacker would write them, through a real
# snmpd (docs/security.md):
#  - numbers read as C literals: memory.current "010" is served as 10 bytes
#    (not 8), "0x10" not at all (not 16);
#  - an oom_kill that flips between 0 and 1000, fast and slow enough for the
#    polls to see both values, is 1000 kills: one primusContainerOomKill trap,
#    one event row, primusContainerOomKillsTotal and the row's
#    primusContainerOomKills at 1000 (never back to 0), one log line;
#  - the cgroup directory really made anew, with oom_kill 3, is a reset: three
#    new kills, one more trap, the total at 1003.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/containers_lib.sh"

R="$WORK/root" S="$WORK/sys" P="$WORK/proc" D="$WORK/dev"
trainer_task "$R" "$S" "$P" "$D"
cat > "$WORK/agent.conf" <<CONF
pollInterval containers 1
CONF
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_agent --rootfs "$R" --sysfs "$S" --procfs "$P" --devfs "$D"
wait_agent
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $CONTAINERS.1.0 | grep -qx 1" ||
    fail "primusContainerCount.0 is not 1"
IDX=$(str_index "$ID")
MEM="$CTR_ENTRY.11.$IDX" KILLS="$CTR_ENTRY.13.$IDX" TOTAL="$CONTAINERS.2.0"

# ---- decimal ---------------------------------------------------------------------
usage=$(cat "$CG/memory.current")
echo 010 > "$CG/memory.current"
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $MEM | grep -qx 10" ||
    fail "memory.current 010 served as $(snmp_value "$MEM"), not 10"
echo 0x10 > "$CG/memory.current"
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $MEM | grep -q 'No Such Instance'" ||
    fail "memory.current 0x10 served as $(snmp_value "$MEM"), not absent"
echo "$usage" > "$CG/memory.current"
ok "memory.current: 010 is 10 bytes, 0x10 is no value"

# ---- oom_kill flipping between 0 and 1000 ---------------------------------------------
events() { printf 'low 0\nhigh 0\nmax 9\noom 1\noom_kill %s\noom_group_kill 0\n' "$1" > "$CG/memory.events"; }
sleep 1.2   # the watch is armed at the poll that found the container
lines_before=$(wc -l < "$WORK/agent.log")
flips=0
for _ in 1 2 3 4; do
    end=$(( ${EPOCHREALTIME/./} + 1000000 ))   # microseconds, without a fork
    while [ "${EPOCHREALTIME/./}" -lt "$end" ]; do   # a second, as fast as the shell goes
        events 1000; events 0; flips=$((flips + 1))
    done
    events 1000; sleep 1.2                 # long enough for a poll to read each
    events 0; sleep 1.2
done
events 1000
sleep 2.5
traps=$(grep -c "$NOTIFY.5\b" "$WORK/traps.log")
total=$(snmp_value "$TOTAL")
lines=$(( $(wc -l < "$WORK/agent.log") - lines_before ))
down=$(grep -c 'went down' "$WORK/agent.log")
oom_rows=$(snmp_walk $OBJ.4.20.1.3 | awk '{print $NF}' | grep -cx 5)
echo "$flips fast flips and 4 slow ones: $traps trap(s), total $total, $oom_rows event row(s)," \
     "$lines log line(s) ($down about the decrease)"
[ "$traps" -eq 1 ] || fail "$traps primusContainerOomKill traps for one climb to 1000"
[ "$total" = 1000 ] || fail "primusContainerOomKillsTotal is $total, not 1000"
[ "$oom_rows" -eq 1 ] || fail "$oom_rows containerOomKill event rows"
[ "$down" -eq 1 ] || fail "$down log lines about the count going down"
[ "$(snmp_value "$KILLS")" = 1000 ] || fail "row's oom kills $(snmp_value "$KILLS"), not 1000"
events 0
sleep 2.5
[ "$(snmp_value "$KILLS")" = 1000 ] || fail "row's oom kills went back to $(snmp_value "$KILLS")"
[ "$(snmp_value "$TOTAL")" = 1000 ] || fail "total moved to $(snmp_value "$TOTAL")"
ok "a flapping oom_kill: 1000 kills, one trap, one event row, one log line; the row stays at 1000"

# ---- the cgroup really made anew ------------------------------------------------------
# Made beside the old one and renamed over it, so that its inode is another.
mkdir "$CG.new"
cp "$CG/memory.current" "$CG/memory.max" "$CG.new/"
printf 'low 0\nhigh 0\nmax 1\noom 1\noom_kill 3\noom_group_kill 0\n' > "$CG.new/memory.events"
rm -rf "$CG"
mv "$CG.new" "$CG"
wait_until 10 sh -c "snmpget $V2 -On -Oqv $TARGET $TOTAL | grep -qx 1003" ||
    fail "a new cgroup with oom_kill 3: total $(snmp_value "$TOTAL"), not 1003"
[ "$(snmp_value "$KILLS")" = 3 ] || fail "row's oom kills $(snmp_value "$KILLS"), not the new cgroup's 3"
wait_until 5 sh -c "[ \$(grep -c '$NOTIFY.5\b' '$WORK/traps.log') -eq 2 ]" ||
    fail "$(grep -c "$NOTIFY.5\b" "$WORK/traps.log") traps after the new cgroup, not 2"
grep -A30 "$NOTIFY.5\b" "$WORK/traps.log" | grep -q "$KILLS = Counter64: 3" ||
    fail "the second trap does not say kills 3"
ok "a cgroup made anew with oom_kill 3: a reset, 3 new kills (total 1003), one more trap"
echo "PASS: $TEST_NAME"
