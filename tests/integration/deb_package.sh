#!/bin/bash
# The Debian package: built from this tree with dpkg-buildpackage, lintian
# clean (no error or warning), installed with dpkg -i; the INSTALLED agent,
# with the installed conffile, registers with a private snmpd and is walked;
# then dpkg -r keeps only the conffiles and dpkg --purge leaves nothing.
# lldpd's group: the installed generator adds _lldpd to the unit where the
# group exists and writes nothing where it does not, the package's trigger on
# lldpd is declared and runs, and the installed agent, started with the
# unit's capability bounding set and the groups of the generated drop-in,
# reads a real lldpd's neighbour (lldp_lib.sh: two namespaces, an lldpd in
# each), which it cannot without them.
#
# Needs root, dpkg-dev, debhelper and lintian (and lldpd, ip and setpriv for
# the LLDP part).  It never touches an
# operator's install: where the package, or any file it would install,
# is already on the machine, it skips.  Whatever happens, the package is
# purged at exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lldp_lib.sh"

PKG=primus-node-agent
[ "${PNA_HEAVY_SKIP:-0}" = 1 ] && skip "PNA_HEAVY_SKIP=1: the package is built once per run, in the other pass"
[ "$(id -u)" = 0 ] || skip "needs root to install the package"
for tool in dpkg-buildpackage dpkg-checkbuilddeps dpkg-parsechangelog dh lintian dpkg-deb tar; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed (Debian: dpkg-dev debhelper lintian)"
done
[ -f "$top_srcdir/debian/control" ] || fail "no debian/control in $top_srcdir"

# What the package installs (the contract), and what dpkg and
# deb-systemd-helper add for it.
BIN=/usr/sbin/primus-node-agent
MIB=/usr/share/snmp/mibs/PRIMUS-NODE-MIB.txt
UNIT=/lib/systemd/system/primus-node-agent.service
CONF=/etc/primus-node-agent/primus-node-agent.conf
SNIPPET=/etc/snmp/snmpd.conf.d/primus-node-agent.conf
MAN=/usr/share/man/man8/primus-node-agent.8.gz
WANTS=/etc/systemd/system/multi-user.target.wants/primus-node-agent.service
DSH_STATE=/var/lib/systemd/deb-systemd-helper-enabled/primus-node-agent.service.dsh-also
GENERATOR=/lib/systemd/system-generators/primus-node-agent-lldpd-generator
OURS=("$BIN" "$MIB" "$UNIT" /usr/lib/systemd/system/primus-node-agent.service "$CONF"
      /etc/primus-node-agent "$SNIPPET" "$MAN" /usr/share/doc/$PKG "$WANTS" "$DSH_STATE"
      "$GENERATOR" /usr/lib/systemd/system-generators/primus-node-agent-lldpd-generator)

# Never clobber what is there: a package (in any state, config-files too)
# or files from a `make install` or a hand copy.
status=$(dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null)
case $status in
    "" | not-installed) ;;
    *) skip "a $PKG package is on this machine (status $status): not touching it" ;;
esac
for p in "${OURS[@]}"; do
    [ -e "$p" ] || [ -L "$p" ] && skip "$p exists, not installed by this test: not touching it"
done

# dpkg -i aborts on a stat override whose user or group the machine lacks.
while read -r user group _; do
    getent passwd "$user" >/dev/null || skip "dpkg-statoverride names user '$user', missing on this machine: dpkg -i would abort"
    getent group "$group" >/dev/null || skip "dpkg-statoverride names group '$group', missing on this machine: dpkg -i would abort"
done < <(dpkg-statoverride --list 2>/dev/null)

# dpkg calls, waiting up to 2 minutes for a lock another dpkg or apt holds.
dpkg_locked() { # LOG ARGS...
    local log=$1; shift
    for _ in $(seq 120); do
        dpkg "$@" >"$log" 2>&1 && return 0
        grep -q -i "lock" "$log" || return 1
        sleep 1
    done
    return 1
}

INSTALLED=""
# lib.sh's cleanup, run by its EXIT trap and by lldp_lib.sh's, purges the
# package first.
eval "lib_$(declare -f cleanup)"
cleanup() {
    if [ -n "$INSTALLED" ]; then
        dpkg_locked "$WORK/dpkg-exit-purge.log" --purge "$PKG" ||
            { echo "FAIL: $TEST_NAME: dpkg --purge $PKG at exit failed:"; cat "$WORK/dpkg-exit-purge.log"; }
    fi
    lib_cleanup
}

# The version is configure.ac's; debian/changelog must say the same.
version=$(sed -n 's/^AC_INIT(\[primus-node-agent\], *\[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
[ -n "$version" ] || fail "cannot read the version from configure.ac"
chversion=$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version)
[ "$chversion" = "$version" ] || fail "debian/changelog says $chversion, configure.ac $version"
ok "debian/changelog version $chversion = configure.ac's"

# A copy of the source: in a git checkout what git would commit (tracked
# files and new ones it does not ignore), else the tree without build output.
SRC="$WORK/pkg/$PKG-$version"
mkdir -p "$SRC"
top_real=$(cd "$top_srcdir" && pwd -P)
git_top=$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null)
if [ -n "$git_top" ] && [ "$(cd "$git_top" && pwd -P)" = "$top_real" ]; then
    (cd "$top_srcdir" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf -) | tar -xf - -C "$SRC" || fail "copying the git checkout failed"
    how="git checkout"
else
    tar -C "$top_srcdir" --exclude-vcs --exclude=./build --exclude='./build-*' \
        --exclude=./debian/.debhelper --exclude=./debian/$PKG --exclude=./debian/tmp \
        --exclude=./debian/files --exclude='./debian/*.substvars' \
        --exclude=./debian/debhelper-build-stamp --exclude='*.o' --exclude='*.a' -cf - . |
        tar -xf - -C "$SRC" || fail "copying the source tree failed"
    how="source tree"
fi
ok "copied the $how to $SRC"

missing=$(cd "$SRC" && dpkg-checkbuilddeps 2>&1) ||
    skip "build dependencies missing: ${missing#*: }"

# Build.  parallel=2 unless DEB_BUILD_OPTIONS already says.
opts=${DEB_BUILD_OPTIONS:-}
case " $opts " in *" parallel="*) ;; *) opts="$opts parallel=2" ;; esac
start=$(date +%s)
(cd "$SRC" && DEB_BUILD_OPTIONS="${opts# }" dpkg-buildpackage -b -us -uc) >"$WORK/build.log" 2>&1 ||
    fail "dpkg-buildpackage failed"
ok "package built in $(( $(date +%s) - start )) s (dpkg-buildpackage -b -us -uc, ${opts# })"

arch=$(dpkg --print-architecture)
DEB="$WORK/pkg/${PKG}_${version}_$arch.deb"
CHANGES="$WORK/pkg/${PKG}_${version}_$arch.changes"
[ -f "$DEB" ] || fail "no $(basename "$DEB"); built: $(cd "$WORK/pkg" && echo *.deb)"
[ -f "$CHANGES" ] || fail "no $(basename "$CHANGES")"

# lintian at its default level: no error and no warning.
lintian "$CHANGES" >"$WORK/lintian.out" 2>&1
lintian_rc=$?
if grep -E '^[EW]: ' "$WORK/lintian.out" >/dev/null || [ $lintian_rc -ne 0 ]; then
    cat "$WORK/lintian.out"
    fail "lintian reports errors or warnings (exit status $lintian_rc)"
fi
ok "lintian: no error or warning ($(grep -c '^[IPNX]: ' "$WORK/lintian.out") info lines)"

# The .deb: name, version, fields, the contract paths, the conffiles.
field() { dpkg-deb -f "$DEB" "$1"; }
[ "$(field Package)" = "$PKG" ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version)"
field Recommends | grep -qw snmpd || fail "snmpd is not recommended: $(field Recommends)"
field Depends | grep -q 'libsnmp' || fail "no libsnmp in Depends: $(field Depends)"
ok "control: $PKG $version, Depends on libsnmp, Recommends snmpd"

dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's,^\.,,; s,/$,,' >"$WORK/contents"
# Its files and links (directories like /usr/sbin are shared with the system).
dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ {print $6}' | sed 's,^\.,,' >"$WORK/files"
for p in "$BIN" "$MIB" "$UNIT" "$CONF" "$SNIPPET" "$MAN" "$GENERATOR"; do
    grep -qx "$p" "$WORK/contents" || fail "$p is not in the package"
done
ok "the package holds $BIN, $MIB, $UNIT, $CONF, $SNIPPET, $MAN, $GENERATOR"
dpkg-deb -I "$DEB" conffiles >"$WORK/conffiles" 2>&1 || fail "no conffiles in the package"
for p in "$CONF" "$SNIPPET"; do
    grep -qx "$p" "$WORK/conffiles" || fail "$p is not a conffile: $(cat "$WORK/conffiles")"
done
ok "conffiles: $(echo $(cat "$WORK/conffiles"))"
dpkg-deb -I "$DEB" triggers >"$WORK/triggers" 2>&1 || fail "no triggers in the package"
grep -qx 'interest-noawait /usr/sbin/lldpd' "$WORK/triggers" ||
    fail "no file trigger on /usr/sbin/lldpd: $(cat "$WORK/triggers")"
ok "triggers: interest-noawait /usr/sbin/lldpd (lldpd installed or removed later)"

# Install.
INSTALLED=yes
dpkg_locked "$WORK/dpkg-install.log" -i "$DEB" || { cat "$WORK/dpkg-install.log"; fail "dpkg -i failed"; }
[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$PKG")" = "ii " ] ||
    fail "after dpkg -i: $(dpkg-query -W -f='${db:Status-Abbrev}' "$PKG")"
ok "dpkg -i: installed"

same() { # INSTALLED SOURCE (in the copy that was built)
    cmp -s "$1" "$SRC/$2" || fail "$1 differs from $2"
}
same "$MIB" mibs/PRIMUS-NODE-MIB.txt
same "$UNIT" etc/primus-node-agent.service
same "$CONF" etc/primus-node-agent.conf.example
same "$SNIPPET" etc/snmpd.conf.d/primus-node-agent.conf
same "$GENERATOR" etc/primus-node-agent-lldpd-generator
[ -x "$GENERATOR" ] || fail "$GENERATOR is not executable"
[ -x "$BIN" ] || fail "$BIN is not executable"
zcat "$MAN" | grep -q '^\.TH PRIMUS\\-NODE\\-AGENT 8' || fail "$MAN is not the agent's man page"
"$BIN" --version | grep -qx "$PKG $version" || fail "$BIN --version: $("$BIN" --version 2>&1)"
ok "installed files are the source's; $BIN --version says $version"

# The snippet grants nothing: AgentX only.
grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$SNIPPET" |
    awk '{print $1}' | sort -u | tr '\n' ' ' >"$WORK/snippet-tokens"
[ "$(cat "$WORK/snippet-tokens")" = "agentXPerms agentXSocket master " ] ||
    fail "$SNIPPET sets more than the AgentX master: $(cat "$WORK/snippet-tokens")"
ok "$SNIPPET: master agentx, agentXSocket, agentXPerms and nothing else"

# The unit is enabled by the postinst; started only where systemd runs.
if [ -d /run/systemd/system ]; then
    [ "$(systemctl is-enabled $PKG.service 2>&1)" = enabled ] ||
        fail "systemctl is-enabled: $(systemctl is-enabled $PKG.service 2>&1)"
    ok "systemd runs: the unit is enabled ($(systemctl is-active $PKG.service 2>&1))"
else
    [ -L "$WANTS" ] || fail "postinst did not enable the unit ($WANTS missing)"
    ok "no systemd running: the unit is enabled ($WANTS), not started"
fi

# The installed agent, with the installed conffile, as a subagent of a
# private snmpd (-x wins over the file's agentXSocket).
cp "$CONF" "$WORK/agent.conf"
start_snmpd
PNA_AGENT=$BIN
start_agent
wait_agent
# Under PNA_VALGRIND=1 the process is valgrind, running the installed binary.
exe=$(readlink "/proc/$AGENT_PID/exe")
[ "$exe" = "$BIN" ] || { case $exe in */valgrind/*) tr '\0' '\n' < "/proc/$AGENT_PID/cmdline" | grep -qx "$BIN" ;; *) false ;; esac; } ||
    fail "the agent runs $exe ($(tr '\0' ' ' < "/proc/$AGENT_PID/cmdline")), not $BIN"
[ "$(snmp_value "$OBJ.4.1.0")" = "$version" ] ||
    fail "primusAgentVersion.0 is '$(snmp_value "$OBJ.4.1.0")'"
[ "$(snmp_value "$OBJ.1.1.0")" = "$(cat /proc/sys/kernel/hostname)" ] ||
    fail "primusHostname.0 is '$(snmp_value "$OBJ.1.1.0")'"
snmp_walk "$OBJ" >"$WORK/walk.txt" 2>&1 || fail "snmpwalk of $OBJ failed: $(tail -n 3 "$WORK/walk.txt")"
n=$(grep -c "^$OBJ\." "$WORK/walk.txt")
[ "$n" -ge 20 ] || fail "snmpwalk of $OBJ gave $n values"
ok "installed $BIN registered with snmpd: version $version, $n values walked"
kill "$AGENT_PID"
wait_until 10 sh -c "! kill -0 $AGENT_PID" || fail "the agent did not stop on SIGTERM"

# ---- lldpd's group ------------------------------------------------------------
# The installed generator, run as systemd runs it (an output directory):
# where lldpd's group exists it writes a drop-in naming it, and where it does
# not (a mount namespace whose /etc/group lacks it) nothing, so the unit
# stays the packaged one, which starts on a host without lldpd.
GROUP_DROPIN=primus-node-agent.service.d/50-lldpd-group.conf
mkdir -p "$WORK/gen"
"$GENERATOR" "$WORK/gen" "$WORK/gen" "$WORK/gen" || fail "$GENERATOR failed"
if getent group _lldpd >/dev/null; then
    grep -qx 'SupplementaryGroups=_lldpd' "$WORK/gen/$GROUP_DROPIN" ||
        fail "_lldpd exists, the generator wrote: $(cat "$WORK/gen/$GROUP_DROPIN" 2>&1)"
    grep -qx '\[Service\]' "$WORK/gen/$GROUP_DROPIN" || fail "the drop-in has no [Service] section"
    ok "generator: _lldpd exists, $GROUP_DROPIN says SupplementaryGroups=_lldpd"
fi
grep -v -e '^_lldpd:' -e '^lldpd:' /etc/group >"$WORK/group-without-lldpd"
mkdir -p "$WORK/gen-none"
unshare -m sh -c 'mount --bind "$1" /etc/group && exec "$2" "$3" "$3" "$3"' sh \
    "$WORK/group-without-lldpd" "$GENERATOR" "$WORK/gen-none" || fail "$GENERATOR failed without lldpd's group"
[ -z "$(ls -A "$WORK/gen-none")" ] || fail "no lldpd group, yet the generator wrote: $(cd "$WORK/gen-none" && find . -type f)"
ok "generator: no lldpd group, nothing written (the unit names no group)"

# The trigger: activated as lldpd's unpacking activates it, then processed;
# the postinst's 'triggered' branch runs and the package stays installed.
dpkg-trigger --no-await /usr/sbin/lldpd || fail "dpkg-trigger /usr/sbin/lldpd failed"
[ "$(dpkg-query -W -f='${db:Status-Status}' "$PKG")" = triggers-pending ] ||
    fail "after dpkg-trigger /usr/sbin/lldpd: $(dpkg-query -W -f='${db:Status-Status}' "$PKG"), not triggers-pending"
dpkg_locked "$WORK/dpkg-trig.log" --triggers-only "$PKG" || { cat "$WORK/dpkg-trig.log"; fail "processing the trigger failed"; }
[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$PKG")" = "ii " ] ||
    fail "after the trigger: $(dpkg-query -W -f='${db:Status-Abbrev}' "$PKG")"
ok "trigger on /usr/sbin/lldpd: pending, then processed by the postinst, package ii"

# The LLDP columns after install, on a host running real lldpd: the
# installed agent in namespace A, whose lldpd hears B's, started as the unit
# starts it (its CapabilityBoundingSet, so no CAP_DAC_OVERRIDE) with the
# supplementary groups of the generated drop-in.  First without them: the
# socket refuses, as it did before the packages handled the group.
lldp_part_skip=""
[ "$(id -u)" = 0 ] && command -v lldpd >/dev/null && command -v lldpcli >/dev/null &&
    command -v setpriv >/dev/null && command -v ip >/dev/null ||
    lldp_part_skip="lldpd, lldpcli, setpriv or ip missing (Debian: lldpd, util-linux, iproute2)"
[ -z "$lldp_part_skip" ] && ! getent group _lldpd >/dev/null &&
    lldp_part_skip="no _lldpd group (Debian's lldpd package makes it)"
if [ -n "$lldp_part_skip" ]; then
    echo "skipped - the LLDP columns after install: $lldp_part_skip"
else
    lldp_setup
    lldp_start B
    lldp_start A
    lldp_wait_neighbor A "$LLDP_HOST_B"
    caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
    [ -n "$caps" ] || fail "no CapabilityBoundingSet= in $UNIT"
    dropin_gids=""
    for g in $(sed -n 's/^SupplementaryGroups=//p' "$WORK/gen/$GROUP_DROPIN"); do
        dropin_gids="$dropin_gids${dropin_gids:+,}$(getent group "$g" | cut -d: -f3)"
    done
    { cat "$CONF"; echo "pfcInterface $LLDP_IF_A"; echo "lldpSocket $LLDP_SOCK_A"; echo "pollInterval pfc 1"; } \
        >"$WORK/agent-lldp.conf"
    LLDP_STATUS="$OBJ.7.5.0"                                     # primusRoceLldpStatus
    SYSNAME="$OBJ.7.40.1.25.$(str_index "$LLDP_IF_A")"           # primusRoceLldpSysName
    # unit_agent GIDS: the installed agent in A's namespace with the unit's
    # bounding set and those supplementary groups (none: "").
    unit_agent() {
        local groups=(--clear-groups)
        [ -n "$1" ] && groups=(--groups "$1")
        ip netns exec "$LLDP_NS_A" setpriv "${groups[@]}" --inh-caps=-all --bounding-set="-all,$caps" -- \
            $(agent_wrapper) "$BIN" -f -Lf "$WORK/agent-lldp.log" -c "$WORK/agent-lldp.conf" \
            -x "$AGENTX" -p "$WORK/agent-lldp.pid" 2>>"$WORK/agent-stderr.log" &
        AGENT_PID=$!
        PIDS+=("$AGENT_PID")
        wait_agent
    }
    stop_unit_agent() {
        kill "$AGENT_PID"
        wait_until 20 sh -c "! kill -0 $AGENT_PID" || fail "the agent did not stop on SIGTERM"
    }
    unit_agent ""
    wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $LLDP_STATUS | grep -q 'permission denied'" ||
        fail "without lldpd's group: primusRoceLldpStatus is '$(snmp_value "$LLDP_STATUS")', not permission denied"
    ok "the unit's capabilities without the drop-in's group: '$(snmp_value "$LLDP_STATUS")'"
    stop_unit_agent
    unit_agent "$dropin_gids"
    wait_until 20 sh -c "snmpget $V2 -On -Oqv $TARGET $SYSNAME | grep -q '$LLDP_HOST_B'" ||
        fail "with the drop-in's groups ($dropin_gids): primusRoceLldpSysName is '$(snmp_value "$SYSNAME")', status '$(snmp_value "$LLDP_STATUS")'"
    [ -z "$(snmp_value "$LLDP_STATUS")" ] || fail "primusRoceLldpStatus: '$(snmp_value "$LLDP_STATUS")' while lldpd answers"
    ok "with the drop-in's groups (gid $dropin_gids): primusRoceLldpSysName = $(snmp_value "$SYSNAME"), as lldpd heard B"
    stop_unit_agent
fi

# dpkg -r: the program goes, the conffiles stay.
dpkg_locked "$WORK/dpkg-remove.log" -r "$PKG" || { cat "$WORK/dpkg-remove.log"; fail "dpkg -r failed"; }
[ "$(dpkg-query -W -f='${db:Status-Status}' "$PKG")" = config-files ] ||
    fail "after dpkg -r: $(dpkg-query -W -f='${db:Status-Status}' "$PKG")"
for p in "$BIN" "$MIB" "$UNIT" "$MAN"; do [ -e "$p" ] && fail "$p is left after dpkg -r"; done
for p in "$CONF" "$SNIPPET"; do [ -f "$p" ] || fail "conffile $p went with dpkg -r"; done
if [ -d /run/systemd/system ]; then
    systemctl is-active -q $PKG.service && fail "the service still runs after dpkg -r"
fi
ok "dpkg -r: program, MIB, unit and man page gone, conffiles kept"

# dpkg --purge: nothing left.
dpkg_locked "$WORK/dpkg-purge.log" --purge "$PKG" || { cat "$WORK/dpkg-purge.log"; fail "dpkg --purge failed"; }
INSTALLED=""
status=$(dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null)
[ -z "$status" ] || [ "$status" = not-installed ] || fail "after dpkg --purge: $status"
dpkg -s "$PKG" >/dev/null 2>&1 && fail "dpkg -s still knows $PKG"
left=""
while read -r p; do
    [ -e "$p" ] || [ -L "$p" ] && left="$left $p"
done < <(cat "$WORK/files"; printf '%s\n' "${OURS[@]}")
[ -z "$left" ] || fail "left after dpkg --purge:$left"
ls /var/lib/dpkg/info/$PKG.* >/dev/null 2>&1 && fail "dpkg still has /var/lib/dpkg/info/$PKG.*"
ok "dpkg --purge: nothing of the package left, dpkg -s says not installed"
