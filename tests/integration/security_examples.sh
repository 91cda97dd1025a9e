#!/bin/bash
# The shipped examples are safe to copy (docs/security.md): in README.md,
# docs/ and etc/ (and tools/ demos), every community line (rocommunity,
# rwcommunity, com2sec) that grants "public" restricts its source to
# localhost; nothing grants write access; every SNMPv3 user is created with
# SHA-2 authentication and AES privacy, and every rouser demands priv; the
# snmpd snippets give the AgentX socket no access for "other"; and the HTTP
# bridge is bound to localhost in every example config (the DaemonSet and the
# option references show other binds on purpose: docs/security.md).  No
# daemons needed.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
cd "$top_srcdir" || exit 1
python3 - <<'PY'
import os, re, sys

roots = ["README.md", "docs", "etc", "tools"]
files = []
for r in roots:
    if os.path.isfile(r):
        files.append(r)
    for d, _, names in os.walk(r):
        for n in names:
            if n.endswith((".md", ".conf", ".example", ".snippet", ".j2", ".yml", ".yaml",
                           ".service", ".sh", ".txt")):
                files.append(os.path.join(d, n))
# snmp_exporter's generated snmp.yml holds client-side credentials, not grants.
files = [f for f in sorted(set(files)) if not f.endswith("etc/snmp_exporter/snmp.yml")]

LOCAL = re.compile(r"^(127\.\d+\.\d+\.\d+(/\d+)?|localhost|::1|\[::1\])$")
# Where binding the bridge beyond localhost is shown on purpose, with why:
# the DaemonSet (Prometheus scrapes the node IP) and the option references.
DOCUMENTED_BINDS = ("etc/kubernetes/", "docs/deploy.md", "docs/metrics.md", "docs/configuration.md",
                    "docs/security.md")
problems, seen = [], {"community": 0, "createUser": 0, "rouser": 0, "agentXPerms": 0, "http": 0}

def bad(f, n, why, line):
    problems.append("%s:%d: %s: %s" % (f, n, why, line.strip()))

for f in files:
    try:
        lines = open(f, encoding="utf-8").read().splitlines()
    except (UnicodeDecodeError, OSError):
        continue
    for n, line in enumerate(lines, 1):
        line = re.sub(r"\{\{[^}]*\}\}", "TEMPLATE", line)   # Jinja placeholders
        # net-snmp directives, wherever they sit (a config line, a code
        # block, inline code in prose, a printf in a manifest)
        for m in re.finditer(r"\b(rocommunity6?|rwcommunity6?)[ \t]+([^\s`'\"|]+)(?:[ \t]+([^\s`'\"|]+))?", line):
            tok, community, source = m.group(1), m.group(2), m.group(3)
            seen["community"] += 1
            if tok.startswith("rw"):
                bad(f, n, "write access in an example (the MIB is read-only)", line)
            elif community == "public" and not (source and LOCAL.match(source)):
                bad(f, n, "community 'public' not restricted to localhost", line)
        for m in re.finditer(r"\bcom2sec6?[ \t]+(\S+)[ \t]+(\S+)[ \t]+([^\s`'\"|]+)", line):
            seen["community"] += 1
            if m.group(3) == "public" and not LOCAL.match(m.group(2)):
                bad(f, n, "com2sec for 'public' not restricted to localhost", line)
        if re.search(r"\brwuser[ \t]+\w", line):
            bad(f, n, "write access in an example (the MIB is read-only)", line)
        for m in re.finditer(r"\bcreateUser[ \t]+(\S+)[ \t]+(\S+)(?:[ \t]+(\"[^\"]*\"|'[^']*'|\S+)[ \t]+(\S+))?", line):
            seen["createUser"] += 1
            auth, priv = m.group(2).upper(), (m.group(4) or "").upper()
            if not re.match(r"^SHA-(224|256|384|512)$", auth):
                bad(f, n, "SNMPv3 user without SHA-2 authentication", line)
            if not re.match(r"^AES(128|192|256|-128|-192|-256)?C?$", priv):
                bad(f, n, "SNMPv3 user without AES privacy (authPriv)", line)
        for m in re.finditer(r"\brouser[ \t]+([^\s`'\"|]+)(?:[ \t]+([^\s`'\"|\\]+))?", line):
            seen["rouser"] += 1
            if (m.group(2) or "") != "priv":
                bad(f, n, "rouser without 'priv' (authPriv) level", line)
        for m in re.finditer(r"\bagentXPerms[ \t]+(0?[0-7]{3,4})", line):
            seen["agentXPerms"] += 1
            if int(m.group(1), 8) & 0o007:
                bad(f, n, "AgentX socket open to 'other'", line)
        # the HTTP bridge's address
        for m in re.finditer(r"(?:--http[ =]|\bhttpAddress[ \t]+|http_address:[ \t]*)([^\s`'\"]+)", line):
            addr = m.group(1)
            seen["http"] += 1
            host = addr.rsplit(":", 1)[0].strip("[]")
            if f.startswith(DOCUMENTED_BINDS) or addr in ("ADDRESS", "HOST:PORT"):
                continue
            if not (LOCAL.match(host) or host == "TEMPLATE"):
                bad(f, n, "HTTP bridge not bound to localhost", line)

for k in ("community", "createUser", "rouser", "agentXPerms"):
    if not seen[k]:
        problems.append("no %s line found at all: is the scan looking in the right place?" % k)
snippet = open("etc/snmpd.conf.snippet").read()
if not re.search(r"^agentXPerms[ \t]+0?[0-7]{3}0\b", snippet, re.M):
    problems.append("etc/snmpd.conf.snippet: no agentXPerms closing the socket to 'other'")
print("scanned %d files: %s" % (len(files), ", ".join("%d %s" % (v, k) for k, v in seen.items())))
for p in problems:
    print("FAIL: security_examples: " + p)
sys.exit(1 if problems else 0)
PY
rc=$?
[ "$rc" = 0 ] && echo "PASS: security_examples"
exit "$rc"
