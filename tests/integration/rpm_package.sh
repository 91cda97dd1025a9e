#!/bin/bash
# The RPM: rpm/primus-node-agent.spec built by rpmbuild from a tarball of
# this tree, signed with a key made for the run, checked by rpmlint (no
# error), then installed into a scratch root with `rpm --root`, its
# scriptlets run there by a static busybox shell, and erased again: nothing
# is left but an edited %config file, saved as .rpmsave.
#
# This is Debian's rpm, not RHEL: the rpm database of the scratch root holds
# no RHEL package, so rpmbuild and rpm -i run with --nodeps (the spec's
# BuildRequires and the libraries' sonames it requires are RHEL's names,
# which only a RHEL host resolves; docs/install.md).  The binary inside is
# built against Debian's libraries.
#
# Needs rpm (rpmbuild, rpmsign), rpmlint, gpg and root (rpm --root chroots
# into the scratch root for the scriptlets).  PNA_HEAVY_SKIP=1 skips it: the
# package is built once per run, in the other pass.
. "$(dirname "$0")/lib.sh"

PKG=primus-node-agent
[ "${PNA_HEAVY_SKIP:-0}" = 1 ] && skip "PNA_HEAVY_SKIP=1: the package is built once per run, in the other pass"
[ "$(id -u)" = 0 ] || skip "needs root (rpm --root runs the scriptlets in a chroot)"
for tool in rpmbuild rpm rpmsign rpmlint gpg gpgconf tar; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed (Debian: rpm rpmlint gnupg)"
done
BUSYBOX=$(command -v busybox) || skip "busybox not installed (Debian: busybox-static): the scratch root's /bin/sh"
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' ||
    skip "$BUSYBOX is not statically linked (Debian: busybox-static)"
SPEC="$top_srcdir/rpm/$PKG.spec"
[ -f "$SPEC" ] || fail "no $SPEC"

export GNUPGHOME="$WORK/gnupg"
rpm_cleanup() {
    [ -d "$GNUPGHOME" ] && gpgconf --kill all 2>/dev/null
    cleanup
}
trap rpm_cleanup EXIT

# The version is configure.ac's; the spec must say the same.
version=$(sed -n 's/^AC_INIT(\[primus-node-agent\], *\[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
[ -n "$version" ] || fail "cannot read the version from configure.ac"
specversion=$(rpmspec -q --srpm --qf '%{VERSION}' "$SPEC" 2>/dev/null || sed -n 's/^Version: *//p' "$SPEC")
[ "$specversion" = "$version" ] || fail "$SPEC says $specversion, configure.ac $version"
ok "spec version $specversion = configure.ac's"

# The tarball: in a git checkout what git would commit (tracked files and new
# ones it does not ignore), else the tree without build output; rpmbuild -tb
# finds the spec inside it, as docs/install.md tells operators.
TOP="$WORK/rpmbuild"
mkdir -p "$TOP/SOURCES"
TARBALL="$TOP/SOURCES/$PKG-$version.tar.gz"
top_real=$(cd "$top_srcdir" && pwd -P)
git_top=$(git -C "$top_srcdir" rev-parse --show-toplevel 2>/dev/null)
if [ -n "$git_top" ] && [ "$(cd "$git_top" && pwd -P)" = "$top_real" ]; then
    (cd "$top_srcdir" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - --transform "s,^,$PKG-$version/," -czf "$TARBALL") ||
        fail "making the tarball of the git checkout failed"
    how="git checkout"
else
    tar -C "$top_srcdir" --exclude-vcs --exclude=./build --exclude='./build-*' --exclude='*.o' \
        --exclude='*.a' --transform "s,^\./,$PKG-$version/," -czf "$TARBALL" . ||
        fail "making the tarball of the source tree failed"
    how="source tree"
fi
ok "tarball of the $how: $(basename "$TARBALL")"

# rpm's macros for this run (rpm reads ~/.rpmmacros): who built it, as a
# build host sets it (the spec names no Packager, as Fedora's guidelines ask),
# and the rpm database that rpmlint checks the signature against: a scratch
# one holding the run's key, not the machine's.
export HOME="$WORK/home"
mkdir -p "$HOME"
printf '%%packager primus-node-agent test build <test@invalid>\n%%_dbpath %s\n' "$WORK/lintdb" >"$HOME/.rpmmacros"
rpm --initdb || fail "rpm --initdb of $WORK/lintdb failed"

start=$(date +%s)
rpmbuild --nodeps -tb --define "_topdir $TOP" "$TARBALL" >"$WORK/rpmbuild.log" 2>&1 ||
    { tail -n 40 "$WORK/rpmbuild.log"; fail "rpmbuild -tb failed"; }
arch=$(rpm --eval '%{_arch}')
RPM="$TOP/RPMS/$arch/$PKG-$version-1.$arch.rpm"
[ -f "$RPM" ] || fail "no $(basename "$RPM"); built: $(cd "$TOP/RPMS" && find . -name '*.rpm')"
ok "rpmbuild --nodeps -tb: $(basename "$RPM") in $(( $(date +%s) - start )) s"

# Signed with a key made here (an unsigned package is an rpmlint error; the
# distributor signs with theirs).
mkdir -m 700 "$GNUPGHOME"
gpg --batch --passphrase '' --quick-gen-key "$PKG test signing key <test@invalid>" rsa3072 sign never \
    >"$WORK/gpg.log" 2>&1 || { cat "$WORK/gpg.log"; fail "gpg could not make a key"; }
gpg --batch --armor --export "$PKG test signing key" >"$WORK/signing-key.asc"
rpmsign --addsign --define "_gpg_name $PKG test signing key" --define "_gpg_path $GNUPGHOME" \
    --define "__gpg $(command -v gpg)" "$RPM" \
    >"$WORK/rpmsign.log" 2>&1 || { cat "$WORK/rpmsign.log"; fail "rpmsign failed"; }
rpm --import "$WORK/signing-key.asc" || fail "rpm --import of the run's key into $WORK/lintdb failed"
ok "signed with a key made for this run"

# rpmlint: no error (its warnings are listed).
rpmlint "$RPM" "$SPEC" >"$WORK/rpmlint.out" 2>&1
rpmlint_rc=$?
if grep -q ': E: ' "$WORK/rpmlint.out" || ! grep -q ' 0 errors' "$WORK/rpmlint.out"; then
    cat "$WORK/rpmlint.out"
    fail "rpmlint reports errors (exit status $rpmlint_rc)"
fi
ok "rpmlint: no error; $(grep -c ': W: ' "$WORK/rpmlint.out") warnings: $(sed -n 's/.*: W: \([^ ]*\).*/\1/p' "$WORK/rpmlint.out" | sort -u | tr '\n' ' ')"

# The package: fields, the contract paths, the %config files, the scriptlets.
q() { rpm -qp --qf "$1" "$RPM" 2>/dev/null; }
[ "$(q '%{NAME} %{VERSION}')" = "$PKG $version" ] || fail "the package is $(q '%{NAME} %{VERSION}')"
rpm -qp --requires "$RPM" 2>/dev/null | grep -q '^libnetsnmpagent\.so' || fail "no libnetsnmpagent soname in Requires"
rpm -qp --recommends "$RPM" 2>/dev/null | grep -qx 'net-snmp' || fail "net-snmp is not recommended"
ok "$PKG $version: requires libnetsnmpagent's soname, recommends net-snmp"
BIN=/usr/sbin/$PKG
MIB=/usr/share/snmp/mibs/PRIMUS-NODE-MIB.txt
UNIT=/usr/lib/systemd/system/$PKG.service
GENERATOR=/usr/lib/systemd/system-generators/primus-node-agent-lldpd-generator
CONF=/etc/$PKG/$PKG.conf
SNIPPET=/etc/snmp/snmpd.conf.d/$PKG.conf
rpm -qlp "$RPM" >"$WORK/files" 2>/dev/null
for p in "$BIN" "$MIB" "$UNIT" "$GENERATOR" "$CONF" "$SNIPPET"; do
    grep -qx "$p" "$WORK/files" || fail "$p is not in the package"
done
grep -q "^/usr/share/man/man8/$PKG\.8" "$WORK/files" || fail "no man page in the package"
ok "the package holds $BIN, $MIB, $UNIT, $GENERATOR, $CONF, $SNIPPET and the man page"
[ "$(rpm -qcp "$RPM" 2>/dev/null | sort | tr '\n' ' ')" = "$CONF $SNIPPET " ] ||
    fail "%config files: $(rpm -qcp "$RPM" | tr '\n' ' ')"
rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$RPM" 2>/dev/null | grep -E "^cn +($CONF|$SNIPPET)\$" |
    wc -l | grep -qx 2 || fail "the files under /etc are not %config(noreplace)"
ok "%config(noreplace): $CONF $SNIPPET"
rpm -qp --scripts --triggers "$RPM" >"$WORK/scripts" 2>/dev/null
for s in 'postinstall scriptlet' 'preuninstall scriptlet' 'postuninstall scriptlet' \
         'triggerin scriptlet (using /bin/sh) -- lldpd' 'triggerpostun scriptlet (using /bin/sh) -- lldpd'; do
    grep -qF "$s" "$WORK/scripts" || fail "no $s: $(grep scriptlet "$WORK/scripts")"
done
grep -q 'systemctl enable primus-node-agent.service' "$WORK/scripts" || fail "%post does not enable the unit"
ok "scriptlets: %post enables the unit, %preun, %postun, triggers on lldpd"

# A scratch root: an rpm database, /dev/null and a static busybox as /bin/sh,
# grep, mkdir and the rest of a small system's commands (no systemctl).
ROOT="$WORK/root"
mkdir -p "$ROOT/bin"
cp "$BUSYBOX" "$ROOT/bin/busybox"
chroot "$ROOT" /bin/busybox --install -s /bin || fail "busybox --install in $ROOT failed"
[ -x "$ROOT/bin/sh" ] && [ -x "$ROOT/bin/grep" ] || fail "busybox made no /bin/sh and /bin/grep in $ROOT"
mkdir -p "$ROOT/dev"
mknod -m 666 "$ROOT/dev/null" c 1 3 || fail "mknod $ROOT/dev/null failed"
rpm --root "$ROOT" --initdb || fail "rpm --initdb in $ROOT failed"
rpm --root "$ROOT" --import "$WORK/signing-key.asc" || fail "rpm --import of the signing key failed"
rpm --root "$ROOT" -K "$RPM" >"$WORK/checksig" 2>&1
grep -q 'signatures OK' "$WORK/checksig" || fail "rpm -K: $(cat "$WORK/checksig")"
ok "rpm -K in the scratch root: $(sed 's/.*: //' "$WORK/checksig")"

rpm --root "$ROOT" -ivh --nodeps "$RPM" >"$WORK/rpm-install.log" 2>&1 ||
    { cat "$WORK/rpm-install.log"; fail "rpm --root -i failed"; }
grep -i -e 'scriptlet failed' -e 'warning' "$WORK/rpm-install.log" &&
    fail "rpm -i: $(cat "$WORK/rpm-install.log")"
rpm --root "$ROOT" -q "$PKG" >/dev/null || fail "rpm -q $PKG in the scratch root: not installed"
rpm --root "$ROOT" -V --nodeps "$PKG" >"$WORK/verify" 2>&1 || fail "rpm -V: $(cat "$WORK/verify")"
ok "rpm --root -i --nodeps: installed, %post ran (no systemd there), rpm -V clean"

same() { cmp -s "$ROOT$1" "$top_srcdir/$2" || fail "$ROOT$1 differs from $2"; }
same "$MIB" mibs/PRIMUS-NODE-MIB.txt
same "$UNIT" etc/primus-node-agent.service
same "$GENERATOR" etc/primus-node-agent-lldpd-generator
same "$CONF" etc/primus-node-agent.conf.example
same "$SNIPPET" rpm/primus-node-agent-snmpd.conf
[ -x "$ROOT$GENERATOR" ] || fail "$GENERATOR is not executable"
"$ROOT$BIN" --version | grep -qx "$PKG $version" || fail "$BIN --version: $("$ROOT$BIN" --version 2>&1)"
ok "installed files are the source's; $BIN --version says $version"

# The generator in the scratch root: no lldpd group there, no drop-in.
printf 'root:x:0:\n' >"$ROOT/etc/group"
mkdir -p "$ROOT/run/gen"
chroot "$ROOT" /bin/sh "$GENERATOR" /run/gen /run/gen /run/gen || fail "the generator failed in the scratch root"
[ -z "$(ls -A "$ROOT/run/gen")" ] || fail "no lldpd group, yet the generator wrote: $(cd "$ROOT/run/gen" && find . -type f)"
printf 'root:x:0:\nlldpd:x:990:\n' >"$ROOT/etc/group"
chroot "$ROOT" /bin/sh "$GENERATOR" /run/gen /run/gen /run/gen || fail "the generator failed in the scratch root"
grep -qx 'SupplementaryGroups=lldpd' "$ROOT/run/gen/$PKG.service.d/50-lldpd-group.conf" ||
    fail "with EPEL's group lldpd, the generator wrote: $(cat "$ROOT/run/gen/$PKG.service.d/50-lldpd-group.conf" 2>&1)"
ok "generator in the scratch root: nothing without a group, SupplementaryGroups=lldpd with EPEL's lldpd group"

# Erase: an edited %config file is kept as .rpmsave, the rest goes.
echo "# edited" >>"$ROOT$CONF"
rpm --root "$ROOT" -e "$PKG" >"$WORK/rpm-erase.log" 2>&1 || { cat "$WORK/rpm-erase.log"; fail "rpm --root -e failed"; }
grep -i 'scriptlet failed' "$WORK/rpm-erase.log" && fail "rpm -e: $(cat "$WORK/rpm-erase.log")"
rpm --root "$ROOT" -q "$PKG" >/dev/null 2>&1 && fail "rpm -q still finds $PKG after rpm -e"
left=""
while read -r p; do
    [ -e "$ROOT$p" ] || [ -L "$ROOT$p" ] && left="$left $p"
done < <(grep -v -x -e /etc/snmp -e /etc/primus-node-agent "$WORK/files")
[ -z "$left" ] || fail "left after rpm -e:$left"
[ -f "$ROOT$CONF.rpmsave" ] || fail "the edited $CONF was not saved as $CONF.rpmsave"
ok "rpm --root -e: the package's files gone, the edited $CONF kept as .rpmsave"
echo "PASS: $TEST_NAME"
