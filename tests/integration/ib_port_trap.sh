#!/bin/bash
# An RDMA port leaving ACTIVE is one primusIbPortDown notification at a real
# snmptrapd (device, port, old and new state) and one primusEventTable row;
# coming back is one primusIbPortUp.  The fixture tree is copied so that the
# test can flip mlx5_0 port 1's state file.
. "$(dirname "$0")/lib.sh"


RDMA="$OBJ.6"
SYS="$WORK/sys"
cp -r "$PNA_FIXTURES/ib-sysfs/procfs/sys" "$SYS"
STATE="$SYS/class/infiniband/mlx5_0/ports/1/state"
PORT_IDX="6.109.108.120.53.95.48.1"      # "mlx5_0", port 1

echo "pollInterval ib 1" > "$WORK/agent.conf"
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_agent --sysfs "$SYS"
wait_agent
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $RDMA.1.0 | grep -q '^[0-9]'" ||
    fail "primusRdmaDeviceCount.0 not served"
[ "$(snmp_value $RDMA.20.1.3.$PORT_IDX)" = 4 ] || fail "mlx5_0/1 is not active(4) at start"
ok "mlx5_0/1 active"
sleep 1.5   # let the poller see ACTIVE at least once more

printf '1: DOWN\n' > "$STATE"
wait_until 10 grep -q "$NOTIFY.3\b" "$WORK/traps.log" || fail "no primusIbPortDown trap"
trap_line=$(grep -A30 "$NOTIFY.3\b" "$WORK/traps.log")
echo "$trap_line" | grep -q "$OBJ.99.1.0 = STRING: \"mlx5_0\"" || fail "trap lacks primusNotifyRdmaDevice mlx5_0"
echo "$trap_line" | grep -q "$OBJ.99.2.0 = Gauge32: 1" || fail "trap lacks primusNotifyIbPort 1"
echo "$trap_line" | grep -q "$OBJ.99.3.0 = INTEGER: 4" || fail "trap lacks old state active(4)"
echo "$trap_line" | grep -q "$RDMA.20.1.3.$PORT_IDX = INTEGER: 1" || fail "trap lacks new state down(1)"
ok "primusIbPortDown: mlx5_0, port 1, active(4) -> down(1)"
[ "$(snmp_value $RDMA.20.1.3.$PORT_IDX)" = 1 ] || fail "port table does not show down(1)"

events=$(snmp_walk $OBJ.4.20.1.3)
row=$(echo "$events" | awk '$NF == 3 {print $1; exit}' | awk -F. '{print $NF}')
[ -n "$row" ] || fail "no ibPortDown(3) row in primusEventTable: $events"
[ "$(snmp_value $OBJ.4.20.1.5.$row)" = "mlx5_0/1" ] || fail "event subject is not mlx5_0/1"
ok "primusEventTable row $row: ibPortDown, subject mlx5_0/1"

sleep 3   # three more polls while down: no further notification
[ "$(grep -c "$NOTIFY.3\b" "$WORK/traps.log")" -eq 1 ] || fail "more than one primusIbPortDown trap"
ok "one trap for one transition"

printf '4: ACTIVE\n' > "$STATE"
wait_until 10 grep -q "$NOTIFY.4\b" "$WORK/traps.log" || fail "no primusIbPortUp trap"
grep -A30 "$NOTIFY.4\b" "$WORK/traps.log" | grep -q "$RDMA.20.1.3.$PORT_IDX = INTEGER: 4" ||
    fail "primusIbPortUp lacks new state active(4)"
ok "primusIbPortUp when the port is ACTIVE again"
echo "PASS: $TEST_NAME"
