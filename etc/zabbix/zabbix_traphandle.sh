#!/bin/sh
# zabbix_traphandle.sh -- an snmptrapd traphandle that appends each notification
# to the file Zabbix's SNMP trapper reads (zabbix_server.conf: StartSNMPTrapper=1,
# SNMPTrapperFile=FILE), in its format: a line "<time> ZBXTRAP <sender address>",
# then the notification, one "OID VALUE" line per varbind.  Zabbix hands the
# text to the host whose SNMP interface has that address, to the first
# snmptrap["regex"] item whose regex matches (etc/zabbix/primus-node-agent.yaml
# matches notification names and numeric OIDs), else to snmptrap.fallback.
#
# snmptrapd.conf (docs/nms.md):
#   authCommunity log,execute public
#   traphandle default /usr/local/lib/primus-node-agent/zabbix_traphandle.sh /var/lib/zabbix/snmptraps/snmptraps.log
#
# snmptrapd writes to the handler's stdin: the sender's host name, its
# transport address ("UDP: [10.0.0.7]:39211->[10.0.0.1]:162"), then the varbinds.
out=${1:-/var/lib/zabbix/snmptraps/snmptraps.log}
IFS= read -r host || exit 0
IFS= read -r transport || exit 0
addr=$(printf '%s\n' "$transport" | sed -n 's/^[A-Za-z0-9]*: *\[\([^]]*\)\].*/\1/p')
[ -n "$addr" ] || addr=$host
{
    printf '%s ZBXTRAP %s\n' "$(date '+%Y-%m-%dT%H:%M:%S')" "$addr"
    printf 'PDU INFO:\n  transport %s\nVARBINDS:\n' "$transport"
    while IFS= read -r line; do printf '  %s\n' "$line"; done
} >> "$out"
