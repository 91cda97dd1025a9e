#!/bin/bash
# ansible_role.sh -- etc/ansible: the example playbook passes
# `ansible-playbook --syntax-check`, and the primus-node-agent role, run for
# real on localhost with every path moved into a temp dir (binary "prebuilt"
# from this build, no package installs, no service management), writes files
# that work: a real snmpd started with the role's snmpd.conf becomes the
# AgentX master, the agent started with the role's systemd drop-in ExecStart
# line registers with it, and the SNMPv3 user the role configured reads
# primusNodeHostname through snmpd.  A second run changes nothing.
# Exit status: 0 pass, 1 fail, 77 skip (automake).

. "$(dirname "$0")/lib.sh"

command -v ansible-playbook >/dev/null 2>&1 ||
    skip "ansible-playbook not installed (Debian package ansible-core)"
ANSIBLE_DIR="$top_srcdir/etc/ansible"
export ANSIBLE_LOCAL_TEMP="$WORK/ansible-local" ANSIBLE_REMOTE_TEMP="$WORK/ansible-remote"
export ANSIBLE_NOCOLOR=1 ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_RETRY_FILES_ENABLED=false
export ANSIBLE_ROLES_PATH="$ANSIBLE_DIR/roles"

(cd "$ANSIBLE_DIR" && ansible-playbook -i localhost, --syntax-check site.yml) >"$WORK/syntax.log" 2>&1 ||
    { cat "$WORK/syntax.log"; fail "ansible-playbook --syntax-check site.yml"; }
ok "site.yml passes ansible-playbook --syntax-check"

# ---- run the role on localhost, into $WORK ------------------------------------
R="$WORK/root"
NMS_AUTH=nms-auth-passphrase NMS_PRIV=nms-priv-passphrase
cat > "$WORK/vars.yml" <<EOF
primus_install_method: prebuilt
primus_prebuilt_binary: $PNA_AGENT
primus_install_deps: false
primus_manage_services: false
primus_sbindir: $R/sbin
primus_config_dir: $R/etc/primus-node-agent
primus_snmpd_conf: $R/etc/snmp/snmpd.conf
primus_snmpd_conf_dir: $R/etc/snmp/snmpd.conf.d
primus_systemd_dir: $R/etc/systemd/system
primus_agentx_socket: $WORK/agentx/master
primus_agentx_perms: "0660 0770"
primus_log_options: "-Lf $WORK/agent.log"
primus_poll_intervals: {node: 2}
primus_snmpv3_users:
  - {name: nms, auth: $NMS_AUTH, priv: $NMS_PRIV}
EOF
cat > "$WORK/play.yml" <<'EOF'
- hosts: localhost
  connection: local
  gather_facts: false
  roles:
    - primus-node-agent
EOF
mkdir -p "$R/sbin" "$R/etc/snmp" "$WORK/agentx"
# snmpd.conf as a site has it before the role: where snmpd listens.
echo "agentAddress udp:127.0.0.1:$SNMP_PORT" > "$R/etc/snmp/snmpd.conf"
run_role() { ansible-playbook -i localhost, "$WORK/play.yml" -e "@$WORK/vars.yml" >"$WORK/ansible-$1.log" 2>&1; }
run_role 1 || { tail -n 40 "$WORK/ansible-1.log"; fail "the role failed on localhost"; }
ok "role ran: $(grep -E '^localhost' "$WORK/ansible-1.log" | tr -s ' ')"
run_role 2 || { tail -n 40 "$WORK/ansible-2.log"; fail "the role failed on its second run"; }
grep -Eq '^localhost +: ok=[0-9]+ +changed=0 ' "$WORK/ansible-2.log" ||
    fail "second run changed something: $(grep -E '^localhost' "$WORK/ansible-2.log")"
ok "second run changed nothing"

unit="$R/etc/systemd/system/primus-node-agent.service"
cmp -s "$unit" "$top_srcdir/etc/primus-node-agent.service" || fail "unit is not etc/primus-node-agent.service"
dropin="$R/etc/systemd/system/primus-node-agent.service.d/ansible.conf"
[ -f "$dropin" ] || fail "no drop-in $dropin"
grep -q "^includeDir $R/etc/snmp/snmpd.conf.d\$" "$R/etc/snmp/snmpd.conf" || fail "snmpd.conf has no includeDir"
ok "unit installed as shipped, drop-in and snmpd includeDir written"

# ---- the files work -------------------------------------------------------------
mkdir -p "$WORK/snmpd-persist"
SNMP_PERSISTENT_DIR="$WORK/snmpd-persist" snmpd -f -Lf "$WORK/snmpd.log" -C \
    -c "$R/etc/snmp/snmpd.conf" -I -smux -p "$WORK/snmpd.pid" &
PIDS+=("$!")
V3NMS="-v3 -l authPriv -u nms -a SHA-256 -A $NMS_AUTH -x AES -X $NMS_PRIV -t 1 -r 1"
wait_until 15 test -S "$WORK/agentx/master" || fail "snmpd made no AgentX socket from the role's config"
ok "snmpd with the role's snmpd.conf.d file is AgentX master on $WORK/agentx/master"

# The drop-in's ExecStart, as systemd would run it.
exec_start=$(sed -n 's/^ExecStart=\(..*\)$/\1/p' "$dropin")
[ -n "$exec_start" ] || fail "drop-in has no ExecStart"
read -r -a argv <<<"$exec_start"
[ -x "${argv[0]}" ] || fail "ExecStart binary ${argv[0]} not installed"
"${argv[@]}" &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
wait_until 20 sh -c "snmpget $V3NMS -On -Oqv $TARGET $OBJ.1.1.0 | grep -qv 'No Such'" ||
    fail "agent from the drop-in's ExecStart not reachable as user nms: $(snmpget $V3NMS -On -Oqv "$TARGET" "$OBJ.1.1.0" 2>&1)"
host=$(snmpget $V3NMS -On -Oqv "$TARGET" "$OBJ.1.1.0" | tr -d '"')
[ "$host" = "$(cat /proc/sys/kernel/hostname)" ] || fail "primusNodeHostname '$host' is not this host"
ok "agent started by the drop-in's ExecStart serves through snmpd to SNMPv3 user nms: primusNodeHostname = $host"
interval=$(snmpget $V3NMS -On -Oqv "$TARGET" "$OBJ.4.10.1.3.1")
[ "$interval" = 2000 ] || fail "node poller interval $interval, want 2000 (primus_poll_intervals)"
ok "the role's config reached the agent: node poller interval = 2000 ms"
# The user only sees the MIB's subtree (rouser ... priv .1.3.6.1.4.1.59888).
out=$(snmpget $V3NMS -On -Oqv "$TARGET" .1.3.6.1.2.1.1.5.0 2>&1)
echo "$out" | grep -qiE 'no such|not in view|authorizationError' ||
    fail "user nms can read sysName outside the MIB's subtree: $out"
ok "user nms is limited to the MIB's subtree"
exit 0
