#!/usr/bin/env python3
"""zabbix_api.py -- the Zabbix frontend API calls and checks of zabbix_server.sh.

    zabbix_api.py URL import TEMPLATE.yaml
    zabbix_api.py URL host NAME IP PORT MACRO=VALUE...        prints the host id
    zabbix_api.py URL discovered HOSTID TARGET TIMEOUT        every table row discovered
    zabbix_api.py URL compare HOSTID TARGET TIMEOUT           every SNMP item == snmpget
    zabbix_api.py URL trigger HOSTID NAME VALUE TIMEOUT       trigger NAME reaches VALUE (1 problem, 0 ok)
    zabbix_api.py URL trap HOSTID NOTIFICATION REGEX TIMEOUT  the notification's trap item got text matching REGEX
    zabbix_api.py URL show HOSTID REGEX                       name, value, units of the items whose name matches

Only the standard library; SNMP reads by net-snmp's snmpget/snmpbulkwalk
(v2c, community public).  Exit 1 with a message on failure.
"""

import json
import re
import subprocess
import sys
import time
import urllib.request

URL = sys.argv[1]
_auth = None


def call(method, params):
    global _auth
    body = {"jsonrpc": "2.0", "method": method, "params": params, "id": 1}
    if _auth is None and method != "user.login":
        _auth = call("user.login", {"username": "Admin", "password": "zabbix"})
    if method != "user.login":
        body["auth"] = _auth
    req = urllib.request.Request(URL, json.dumps(body).encode(), {"Content-Type": "application/json-rpc"})
    r = json.load(urllib.request.urlopen(req, timeout=300))
    if "error" in r:
        sys.exit("FAIL: API %s: %s" % (method, r["error"]))
    return r["result"]


def die(msg):
    sys.exit("FAIL: " + msg)


def snmp(cmd, target, oids):
    """{oid: (type, value)} from snmpget/snmpbulkwalk -On -Oe -Ot -OU."""
    out = subprocess.run([cmd, "-v2c", "-c", "public", "-t", "3", "-r", "1", "-On", "-Oe", "-Ot", "-OU", target] + oids,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True).stdout
    res = {}
    for line in out.splitlines():
        m = re.match(r"^\.?([0-9.]+) = (?:([A-Za-z0-9-]+): )?(.*)$", line)
        if not m:
            continue
        typ, val = m.group(2), m.group(3)
        if typ is None and val.startswith("No Such"):
            typ, val = "NOSUCH", ""
        elif typ is None and val == '""':   # net-snmp prints an empty string without its type
            typ, val = "STRING", ""
        elif typ == "STRING" and len(val) >= 2 and val[0] == '"' and val[-1] == '"':
            val = val[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        res[m.group(1)] = (typ, val)
    return res


def snmpget(target, oids):
    res = {}
    for i in range(0, len(oids), 40):
        res.update(snmp("snmpget", target, oids[i:i + 40]))
    return res


def cmd_import(path):
    src = open(path, encoding="utf-8").read()
    yes = {"createMissing": True, "updateExisting": True}
    rules = {"groups": {"createMissing": True}, "templates": yes, "items": yes, "discoveryRules": yes,
             "triggers": yes, "valueMaps": yes}
    call("configuration.import", {"format": "yaml", "source": src, "rules": rules})
    t = call("template.get", {"filter": {"host": "PRIMUS Node Agent by SNMP"}, "selectItems": "count",
                              "selectDiscoveries": "count", "selectTriggers": "count", "selectMacros": "extend"})
    if not t:
        die("template not found after import")
    t = t[0]
    protos = call("itemprototype.get", {"templateids": t["templateid"], "countOutput": True})
    tprotos = call("triggerprototype.get", {"templateids": t["templateid"], "countOutput": True})
    print("ok - template imported: %s items, %s discovery rules, %s item prototypes, %s triggers, "
          "%s trigger prototypes, %s macros" % (t["items"], t["discoveries"], protos, t["triggers"], tprotos,
                                                 len(t["macros"])))


def cmd_host(name, ip, port, *macros):
    for h in call("host.get", {"filter": {"host": "Zabbix server"}}):
        call("host.update", {"hostid": h["hostid"], "status": 1})   # its agent checks are noise here
    group = call("hostgroup.create", {"name": "primus-node-agent test"})["groupids"][0]
    tid = call("template.get", {"filter": {"host": "PRIMUS Node Agent by SNMP"}})[0]["templateid"]
    ms = [{"macro": m.split("=", 1)[0], "value": m.split("=", 1)[1]} for m in macros]
    h = call("host.create", {
        "host": name, "groups": [{"groupid": group}], "templates": [{"templateid": tid}], "macros": ms,
        "interfaces": [{"type": 2, "main": 1, "useip": 1, "ip": ip, "dns": "", "port": port,
                        "details": {"version": 2, "bulk": 1, "community": "public"}}]})
    print(h["hostids"][0])


def items_of(hostid, **extra):
    p = {"hostids": hostid, "output": ["itemid", "key_", "name", "type", "snmp_oid", "value_type", "lastvalue",
                                       "lastclock", "state", "error", "flags", "master_itemid"],
         "selectPreprocessing": "extend", "selectDiscoveryRule": ["key_"]}
    p.update(extra)
    return call("item.get", p)


def cmd_discovered(hostid, target, timeout):
    """Every row of every table the agent serves has its items on the host."""
    rules = call("discoveryrule.get", {"hostids": hostid, "output": ["itemid", "key_", "snmp_oid", "state", "error"]})
    deadline = time.time() + float(timeout)
    while True:
        missing, counts = [], []
        items = items_of(hostid, output=["key_", "flags"])
        have = {}
        for it in items:
            m = re.match(r"^([A-Za-z0-9]+)\[([0-9.]+)\]$", it["key_"])
            if m and it["flags"] == "4":
                have.setdefault(m.group(1), set()).add(m.group(2))
        rules = call("discoveryrule.get", {"hostids": hostid, "output": ["itemid", "key_", "snmp_oid", "state", "error"]})
        for r in rules:
            parts = r["snmp_oid"][len("discovery["):-1].split(",")
            oids = parts[1::2]
            rows = set()
            for oid in oids:
                for o in snmp("snmpbulkwalk", target, [oid]):
                    if o.startswith(oid + "."):
                        rows.add(o[len(oid) + 1:])
            protos = call("itemprototype.get", {"discoveryids": r["itemid"], "output": ["key_", "type"]})
            cols = [p["key_"].split("[")[0] for p in protos if p["type"] != "18"]
            got = set.intersection(*[have.get(c, set()) for c in cols]) if cols else set()
            if rows - got:
                missing.append("%s: rows %s not discovered (%s)" % (r["key_"], sorted(rows - got)[:5], r["error"]))
            counts.append("%s %d" % (r["key_"].split(".")[1], len(rows)))
        if not missing:
            print("ok - every row discovered: " + ", ".join(counts))
            return
        if time.time() > deadline:
            die("discovery incomplete after %ss: %s" % (timeout, "; ".join(missing)))
        time.sleep(3)


def expected(it, typ, val):
    """What the item should hold for an SNMP answer (TYPE, VALUE): the value
    with the item's MULTIPLIER steps applied; None when the object is absent."""
    if typ == "NOSUCH":
        return None
    if it["value_type"] in ("1", "4", "2"):
        return val
    v = float(val.split()[0])
    for s in it.get("preprocessing", []):
        if s["type"] == "1":   # MULTIPLIER
            v *= float(s["params"])
    return v


def same(it, want, got):
    if it["value_type"] in ("1", "4", "2"):
        return want == got
    try:
        g = float(got)
    except ValueError:
        return False
    return abs(g - want) <= 1e-9 * max(1.0, abs(want)) + (1e-6 if it["value_type"] == "0" else 0)


def judge(it, samples):
    """"ok", "absent" (no such instance for snmpget, unsupported in Zabbix),
    or why Zabbix's value of item IT is none of the SNMP SAMPLES (each
    {oid: (type, value)}, in time order) nor between two consecutive ones."""
    oid = it["snmp_oid"]
    if any(oid not in s for s in samples):
        return "no SNMP answer for %s" % oid
    want = [expected(it, *s[oid]) for s in samples]
    if all(w is None for w in want):
        if it["state"] == "1":
            return "absent"
        return "snmpget: no such instance, Zabbix: state %s value '%s'" % (it["state"], it["lastvalue"])
    if it["state"] == "1":
        return "unsupported in Zabbix (%s), snmpget %s" % (it["error"], samples[0][oid])
    if any(w is not None and same(it, w, it["lastvalue"]) for w in want):
        return "ok"
    if it["value_type"] in ("0", "3"):
        # a value that moves (uptime, poll durations): Zabbix read it between
        # two samples if it lies between them
        g = float(it["lastvalue"])
        for a, b in zip(want, want[1:]):
            if a is not None and b is not None and min(a, b) - 1e-6 <= g <= max(a, b) + 1e-6:
                return "ok"
    return "Zabbix '%s', snmpget %s" % (it["lastvalue"], " then ".join(str(w) for w in want))


def cmd_compare(hostid, target, timeout):
    deadline = time.time() + float(timeout)
    # wait until every SNMP item has been polled once (a value, or unsupported)
    while True:
        items = [it for it in items_of(hostid) if it["type"] == "20"]
        pending = [it["key_"] for it in items if it["lastclock"] == "0" and it["state"] == "0"]
        if not pending:
            break
        if time.time() > deadline:
            die("%d SNMP items never polled, e.g. %s" % (len(pending), pending[:5]))
        time.sleep(2)
    bad = {}
    checked = absent = 0
    todo = items
    for attempt in range(6):
        oids = [it["snmp_oid"] for it in todo]
        samples = [snmpget(target, oids)]
        t0 = time.time()
        ids = [it["itemid"] for it in todo]
        if attempt > 0:
            # values that move (uptimes, run counts, data ages that fall back
            # to 0 at each poll): sample them every second until Zabbix has
            # polled each item again, so that what Zabbix read is among them
            end = t0 + 30
            while time.time() < end:
                if all(int(it["lastclock"]) > t0 for it in items_of(hostid, itemids=ids, output=["lastclock"])):
                    break
                samples.append(snmpget(target, oids))
                time.sleep(1)
        fresh = {it["itemid"]: it for it in items_of(hostid, itemids=ids)}
        samples.append(snmpget(target, oids))
        retry = []
        for it0 in todo:
            verdict = judge(fresh[it0["itemid"]], samples)
            key = it0["key_"]
            if verdict == "ok":
                checked += 1
                bad.pop(key, None)
            elif verdict == "absent":
                absent += 1
                bad.pop(key, None)
            else:
                retry.append(fresh[it0["itemid"]])
                bad[key] = verdict
        if not retry:
            break
        todo = retry
    if bad:
        die("%d SNMP items differ from snmpget: %s" % (len(bad), "; ".join("%s: %s" % kv for kv in list(bad.items())[:15])))
    deps = [it for it in items_of(hostid) if it["type"] == "18"]
    novalue = [it["key_"] for it in deps if it["lastclock"] == "0" and it["state"] == "0"]
    print("ok - %d SNMP items equal snmpget of their OID (multiplier applied), %d absent on both sides "
          "(unsupported in Zabbix, noSuchInstance for snmpget); %d rate items, %d without a value yet"
          % (checked, absent, len(deps), len(novalue)))


def cmd_trigger(hostid, name, value, timeout):
    deadline = time.time() + float(timeout)
    last = None
    while time.time() < deadline:
        ts = call("trigger.get", {"hostids": hostid, "filter": {"description": name}, "expandDescription": True,
                                  "output": ["triggerid", "description", "value", "state", "error"]})
        if not ts:
            ts = [t for t in call("trigger.get", {"hostids": hostid, "expandDescription": True,
                                                  "output": ["triggerid", "description", "value", "state", "error"]})
                  if t["description"] == name]
        if ts:
            last = ts[0]
            if last["value"] == value:
                return
        time.sleep(1)
    if last is None:
        die("no trigger named '%s' on the host" % name)
    die("trigger '%s' is value %s (state %s, error '%s'), not %s after %ss"
        % (name, last["value"], last["state"], last["error"], value, timeout))


def cmd_trap(hostid, notification, regex, timeout):
    deadline = time.time() + float(timeout)
    its = [it for it in items_of(hostid) if it["type"] == "17" and "::%s(" % notification in it["key_"]]
    if len(its) != 1:
        die("no single trap item for %s" % notification)
    while time.time() < deadline:
        it = items_of(hostid, itemids=[its[0]["itemid"]])[0]
        if it["lastclock"] != "0" and re.search(regex, it["lastvalue"]):
            print("ok - trap item %s: %s" % (notification, " ".join(it["lastvalue"].split())[:160]))
            return
        time.sleep(1)
    die("trap item %s has no text matching %s: '%s'" % (notification, regex, it["lastvalue"]))


def cmd_show(hostid, regex):
    """Items whose name matches REGEX: name, value and units, as Latest data lists them."""
    its = call("item.get", {"hostids": hostid, "output": ["name", "lastvalue", "units", "state", "value_type"],
                            "sortfield": "name"})
    for it in its:
        if re.search(regex, it["name"]) and it["state"] == "0":
            print("    %-52s %s %s" % (it["name"], it["lastvalue"], it["units"]))


if __name__ == "__main__":
    cmds = {"import": cmd_import, "host": cmd_host, "discovered": cmd_discovered, "compare": cmd_compare,
            "trigger": cmd_trigger, "trap": cmd_trap, "show": cmd_show}
    cmds[sys.argv[2]](*sys.argv[3:])
