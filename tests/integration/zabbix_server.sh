#!/bin/bash
# zabbix_server.sh -- etc/zabbix/primus-node-agent.yaml on a real Zabbix server.
#
# Debian's zabbix-server-pgsql with a private PostgreSQL cluster, the Zabbix
# frontend's API served by `php -S`, snmptrapd with etc/zabbix/zabbix_traphandle.sh
# feeding the server's SNMP trapper: all on loopback, all in $WORK.  The test
#   1. imports the template through the API (configuration.import);
#   2. creates a host with an SNMPv2 interface on the standalone agent of the
#      fixture node (tests/integration/nms_lib.sh), intervals shortened by
#      host macros;
#   3. waits for discovery: every row the agent serves in every table
#      (GPUs, links, processes, RDMA devices and ports, congestion, hardware
#      counters, containers, pods, pollers, events...) has its items;
#   4. checks that every SNMP item's value equals snmpget of its OID (the
#      template's MULTIPLIER applied; absent objects are unsupported items);
#   5. forces faults: mlx5_0 port 1 goes DOWN (the "RDMA port ... is down"
#      trigger fires, the primusIbPortDown trap reaches its snmptrap[] item),
#      the Tesla T4 goes over its slowdown temperature ("above its slowdown
#      temperature" fires, primusGpuThermal reaches its trap item); both
#      triggers recover when the fixture does.
# Heavy: skips with PNA_HEAVY_SKIP=1, when not root, or when a piece is missing.
. "$(dirname "$0")/lib.sh"
T_START=$(date +%s)
elapsed() { echo "$(( $(date +%s) - T_START ))s"; }

[ "${PNA_HEAVY_SKIP:-0}" = 1 ] && skip "PNA_HEAVY_SKIP=1: a Zabbix server and PostgreSQL are heavy"
[ "$(id -u)" = 0 ] || skip "needs root (PostgreSQL runs as the postgres user in a private cluster)"
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] || skip "PostgreSQL server not installed (Debian: postgresql)"
id postgres >/dev/null 2>&1 || skip "no postgres user"
ZBX_SERVER=$(command -v zabbix_server || echo /usr/sbin/zabbix_server)
[ -x "$ZBX_SERVER" ] || skip "zabbix_server not installed (Debian: zabbix-server-pgsql)"
ZBX_SQL=/usr/share/zabbix-server-pgsql
[ -f "$ZBX_SQL/schema.sql.gz" ] || skip "$ZBX_SQL/schema.sql.gz missing (Debian: zabbix-server-pgsql)"
ZBX_WEB=/usr/share/zabbix
[ -f "$ZBX_WEB/api_jsonrpc.php" ] || skip "Zabbix frontend not installed (Debian: zabbix-frontend-php)"
command -v php >/dev/null || skip "php not installed (Debian: php-cli)"
php -m 2>/dev/null | grep -qx pgsql || skip "PHP has no pgsql module (Debian: php-pgsql)"
command -v psql >/dev/null || skip "psql not installed (Debian: postgresql-client)"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TEMPLATE="$top_srcdir/etc/zabbix/primus-node-agent.yaml"
TRAPHANDLE="$top_srcdir/etc/zabbix/zabbix_traphandle.sh"
# zabbix_api.py; its last complaint also goes to $WORK/api-error.txt, so that
# the failure message can say why
api() { $PY "$top_srcdir/tests/integration/zabbix_api.py" "$@" 2> >(tee "$WORK/api-error.txt" >&2); }
why() { tail -1 "$WORK/api-error.txt" 2>/dev/null; }
. "$(dirname "$0")/nms_lib.sh"

# ---- the fixture node: a standalone agent, its traps to our snmptrapd ---------------------
nms_fixture_node "pollInterval node 1" "pollInterval gpu 1" "pollInterval ib 1" "pollInterval containers 1" \
    "pollInterval kubelet 2" "pollInterval storage 2"
ok "fixture node: standalone agent on $TARGET ($(elapsed))"

# ---- PostgreSQL: a private cluster on a loopback port ------------------------------------
chmod 711 "$WORK"
PG="$WORK/pg" PGSOCK="$WORK/pgsock"
mkdir -p "$PG" "$PGSOCK"
chown postgres "$PG" "$PGSOCK"
PGPORT=$(free_tcp_port)
runuser -u postgres -- "$PGBIN/initdb" -D "$PG/data" -U zabbix -A trust -E UTF8 --locale=C.UTF-8 \
    >"$WORK/initdb.log" 2>&1 || skip "initdb failed: $(tail -3 "$WORK/initdb.log")"
pg_stop() { runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG/data" -m immediate stop >/dev/null 2>&1; }
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PG/data" -l "$PG/data/server.log" -w -t 60 start \
    -o "-p $PGPORT -k $PGSOCK -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    >"$WORK/pg_ctl.log" 2>&1 || skip "PostgreSQL cannot start: $(tail -3 "$PG/data/server.log" 2>/dev/null)"
# The server first (its processes, the HA manager included, by their ids), then PostgreSQL.
zbx_stop() {
    local pid kids
    pid=$(cat "$WORK/zabbix_server.pid" 2>/dev/null) || return 0
    kids=$(pgrep -P "$pid")
    kill "$pid" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    # shellcheck disable=SC2086
    kill -9 "$pid" $kids 2>/dev/null
}
trap 'zbx_stop; pg_stop; cleanup' EXIT
export PGHOST=127.0.0.1 PGPORT PGUSER=zabbix
psql -q -d postgres -c "CREATE DATABASE zabbix" >"$WORK/psql.log" 2>&1 || fail "CREATE DATABASE: $(cat "$WORK/psql.log")"
zcat "$ZBX_SQL/schema.sql.gz" "$ZBX_SQL/images.sql.gz" "$ZBX_SQL/data.sql.gz" |
    psql -q -d zabbix -v ON_ERROR_STOP=1 >"$WORK/schema.log" 2>&1 || fail "Zabbix schema: $(tail -5 "$WORK/schema.log")"
ok "PostgreSQL on 127.0.0.1:$PGPORT with the Zabbix schema ($(elapsed))"

# ---- the Zabbix server ---------------------------------------------------------------------
ZPORT=$(free_tcp_port)
TRAPFILE="$WORK/snmptraps.log"
: > "$TRAPFILE"
mkdir -p "$WORK/zsock"
cat > "$WORK/zabbix_server.conf" <<CONF
ListenIP=127.0.0.1
ListenPort=$ZPORT
DBHost=127.0.0.1
DBPort=$PGPORT
DBName=zabbix
DBUser=zabbix
PidFile=$WORK/zabbix_server.pid
LogFile=$WORK/zabbix_server.log
LogFileSize=0
SocketDir=$WORK/zsock
AllowRoot=1
CacheUpdateFrequency=2
StartPollers=2
StartPollersUnreachable=1
StartTrappers=1
StartPingers=0
StartDiscoverers=0
StartHTTPPollers=0
StartPreprocessors=2
StartLLDProcessors=2
StartSNMPTrapper=1
SNMPTrapperFile=$TRAPFILE
HousekeepingFrequency=0
Timeout=4
UnreachablePeriod=45
UnavailableDelay=10
UnreachableDelay=5
CONF
"$ZBX_SERVER" -f -c "$WORK/zabbix_server.conf" >"$WORK/zabbix_server.out" 2>&1 &
PIDS+=("$!")
wait_until 30 grep -q "started \[trapper" "$WORK/zabbix_server.log" ||
    skip "zabbix_server cannot start: $(tail -5 "$WORK/zabbix_server.log" "$WORK/zabbix_server.out" 2>/dev/null)"
ok "zabbix_server $("$ZBX_SERVER" -V | sed -n '1s/.*(Zabbix) //p') on 127.0.0.1:$ZPORT ($(elapsed))"

# ---- the frontend API: a copy of the frontend reading its config from $WORK -------------
WEB="$WORK/web"
cp -a "$ZBX_WEB/." "$WEB/"
conf=$(grep -l "CONFIG_FILE_PATH *=" "$WEB/include/classes/core/CConfigFile.php")
sed -i "s#const CONFIG_FILE_PATH = .*#const CONFIG_FILE_PATH = '$WEB/conf/zabbix.conf.php';#" "$conf"
cat > "$WEB/conf/zabbix.conf.php" <<PHP
<?php
\$DB['TYPE'] = 'POSTGRESQL';
\$DB['SERVER'] = '127.0.0.1';
\$DB['PORT'] = '$PGPORT';
\$DB['DATABASE'] = 'zabbix';
\$DB['USER'] = 'zabbix';
\$DB['PASSWORD'] = '';
\$DB['SCHEMA'] = '';
\$DB['ENCRYPTION'] = false;
\$DB['KEY_FILE'] = '';
\$DB['CERT_FILE'] = '';
\$DB['CA_FILE'] = '';
\$DB['VERIFY_HOST'] = false;
\$DB['CIPHER_LIST'] = '';
\$DB['VAULT_URL'] = '';
\$DB['VAULT_DB_PATH'] = '';
\$DB['VAULT_TOKEN'] = '';
\$DB['DOUBLE_IEEE754'] = true;
\$ZBX_SERVER = '127.0.0.1';
\$ZBX_SERVER_PORT = '$ZPORT';
\$ZBX_SERVER_NAME = 'primus-node-agent test';
\$IMAGE_FORMAT_DEFAULT = IMAGE_FORMAT_PNG;
PHP
WPORT=$(free_tcp_port)
php -S "127.0.0.1:$WPORT" -t "$WEB" >"$WORK/php.log" 2>&1 &
PIDS+=("$!")
URL="http://127.0.0.1:$WPORT/api_jsonrpc.php"
wait_for "the Zabbix API" sh -c "curl -fsS -H 'Content-Type: application/json-rpc' \
    -d '{\"jsonrpc\":\"2.0\",\"method\":\"apiinfo.version\",\"params\":{},\"id\":1}' $URL | grep -q result"
ok "Zabbix API on $URL ($(elapsed))"

# ---- snmptrapd: the agent's notifications to the server's trap file ------------------------
TRAPD_OPTS=(-On)
if [ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ]; then
    TRAPD_OPTS=(-M "$PNA_IETF_MIBDIR:$PNA_MIBDIR" -m PRIMUS-NODE-MIB)   # names, as docs/nms.md sets it up
fi
{
    echo "authCommunity log,execute public"
    echo "traphandle default $TRAPHANDLE $TRAPFILE"
} > "$WORK/snmptrapd.conf"
snmptrapd -f -n "${TRAPD_OPTS[@]}" -Lf "$WORK/snmptrapd.log" -C -c "$WORK/snmptrapd.conf" \
    -p "$WORK/snmptrapd.pid" "udp:127.0.0.1:$TRAP_PORT" &
PIDS+=("$!")
wait_until 10 grep -q "NET-SNMP version" "$WORK/snmptrapd.log" || fail "snmptrapd did not start"

# ---- 1. import, 2. host -----------------------------------------------------------------------
api "$URL" import "$TEMPLATE" || fail "import: $(why)"
HOSTID=$(api "$URL" host primus-fixture 127.0.0.1 "$SNMP_PORT" \
    '{$PRIMUS.INTERVAL}=5s' '{$PRIMUS.INTERVAL.SLOW}=10s' '{$PRIMUS.LLD.INTERVAL}=10s' \
    '{$PRIMUS.IB.PORT.DOWN.FOR}=10s' '{$PRIMUS.GPU.THERMAL.FOR}=10s') || fail "host.create: $HOSTID: $(why)"
ok "host primus-fixture ($HOSTID) linked to the template, SNMPv2 interface 127.0.0.1:$SNMP_PORT ($(elapsed))"

# ---- 3. discovery, 4. values ---------------------------------------------------------------
api "$URL" discovered "$HOSTID" "$TARGET" 240 || fail "discovery: $(why)"
ok "discovery done ($(elapsed))"
api "$URL" compare "$HOSTID" "$TARGET" 180 || fail "values: $(why)"
ok "values checked ($(elapsed)); latest data of the T4 and of mlx5_0/1:"
api "$URL" show "$HOSTID" "^(GPU [0-9]+ \\[$T4_PCI\\]: (Name|Temperature|Temp slowdown|Power draw|Health|Health reason|Memory used|Utilization)|Port mlx5_0/1: (State|Rate|Rcv data|Rcv data per second|Symbol errors)|Container trainer.*: (Memory usage|State|OOM kills))$"

# ---- 5. faults -------------------------------------------------------------------------------
PORT_DOWN="RDMA port mlx5_0/1 is down"
THERMAL="GPU $T4_PCI is above its slowdown temperature"
api "$URL" trigger "$HOSTID" "$PORT_DOWN" 0 30 || fail "$PORT_DOWN: not OK on the healthy node: $(why)"
api "$URL" trigger "$HOSTID" "$THERMAL" 0 30 || fail "$THERMAL: not OK on the healthy node: $(why)"
ok "port and thermal triggers OK on the healthy node"
printf '1: DOWN\n' > "$IB_STATE"
echo "set $T4_BUS temp 97" >> "$PNA_FAKE_NVML_CTL"
api "$URL" trigger "$HOSTID" "$PORT_DOWN" 1 90 || fail "port down: $(why)"
ok "'$PORT_DOWN' fires ($(elapsed))"
api "$URL" trigger "$HOSTID" "$THERMAL" 1 90 || fail "thermal: $(why)"
ok "'$THERMAL' fires ($(elapsed))"
api "$URL" trap "$HOSTID" primusIbPortDown 'mlx5_0' 30 || fail "primusIbPortDown trap: $(why)"
api "$URL" trap "$HOSTID" primusGpuThermal "$T4_PCI" 30 || fail "primusGpuThermal trap: $(why)"
printf '4: ACTIVE\n' > "$IB_STATE"
sed -i "/^set $T4_BUS temp/d" "$PNA_FAKE_NVML_CTL"
echo "set $T4_BUS temp 40" >> "$PNA_FAKE_NVML_CTL"
api "$URL" trigger "$HOSTID" "$PORT_DOWN" 0 60 || fail "port up again: $(why)"
api "$URL" trigger "$HOSTID" "$THERMAL" 0 60 || fail "temperature back: $(why)"
ok "both triggers resolve when the port is ACTIVE and the GPU at 40 C again ($(elapsed))"
echo "PASS: $TEST_NAME ($(elapsed))"
