#!/usr/bin/env python3
"""lldp_oracle.py -- what `lldpcli -f json0 show neighbors details` (on stdin)
says, in tests/unit/lldp_read_probe's format, for lldp_lib.sh's lldp_oracle:

    IF.sys_name=  IF.chassis_id=  IF.port_id=  IF.port_descr=  IF.mgmt_addr=
    IF.pvid=  IF.pfc_known=0|1  IF.pfc_en=3,4  IF.age_s=

for the first neighbour of each interface, interfaces sorted by name, then
"ok N".  json0 is lldpcli's format that wraps every value in a list of
{"value": ...} objects, whatever the count, so one shape serves any number
of interfaces and neighbours.

The PFC Configuration TLV is decoded here on its own (IEEE 802.1Qaz: OUI
00-80-C2, subtype 11, two octets, the capability in the low 4 bits of the
first, the enable vector in the second), from lldpcli's hex, not by the code
under test."""
import json
import re
import sys


def value(node, key, default=""):
    """The first value of KEY in a json0 object: [{"value": V}] -> V."""
    items = node.get(key) or []
    if not items:
        return default
    first = items[0]
    return first.get("value", default) if isinstance(first, dict) else first


def age_seconds(text):
    """lldpcli's "1 day, 02:03:04" (also "0 day, ...", "2 days, ...")."""
    m = re.fullmatch(r"\s*(\d+) days?, (\d+):(\d+):(\d+)\s*", text or "")
    if not m:
        return 0
    d, h, mi, s = (int(x) for x in m.groups())
    return ((d * 24 + h) * 60 + mi) * 60 + s


def pvid(iface):
    for vlan in iface.get("vlan") or []:
        if vlan.get("pvid") in (True, "yes"):
            return int(vlan.get("vlan-id", 0))
    return 0


def pfc(iface):
    """(known, "3,4") from the first valid PFC TLV among the unknown TLVs."""
    for group in iface.get("unknown-tlvs") or []:
        for tlv in group.get("unknown-tlv") or []:
            if tlv.get("oui", "").upper() != "00,80,C2" or tlv.get("subtype") != "11":
                continue
            octets = [int(x, 16) for x in tlv.get("value", "").split(",") if x]
            if len(octets) != 2 or (octets[0] & 0x0F) > 8:
                continue
            return True, ",".join(str(p) for p in range(8) if octets[1] & (1 << p))
    return False, ""


def describe(iface):
    chassis = (iface.get("chassis") or [{}])[0]
    port = (iface.get("port") or [{}])[0]
    known, prios = pfc(iface)
    return [
        ("sys_name", value(chassis, "name")),
        ("chassis_id", value(chassis, "id")),
        ("port_id", value(port, "id")),
        ("port_descr", value(port, "descr")),
        ("mgmt_addr", value(chassis, "mgmt-ip")),
        ("pvid", pvid(iface)),
        ("pfc_known", 1 if known else 0),
        ("pfc_en", prios),
        ("age_s", age_seconds(iface.get("age", ""))),
    ]


def main():
    doc = json.load(sys.stdin)
    first = {}
    for lldp in doc.get("lldp") or []:
        for iface in lldp.get("interface") or []:
            first.setdefault(iface.get("name", ""), iface)
    for name in sorted(first, key=lambda s: s.encode()):
        for field, v in describe(first[name]):
            print(f"{name}.{field}={v}")
    print(f"ok {len(first)}")


if __name__ == "__main__":
    main()
