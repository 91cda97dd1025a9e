"""pod_labels_lib.py -- the independent reader of the pod-labels tests: what
a kubelet pod list (or a set of sandbox labels) says the agent must serve,
and the parsers of what it served through snmpwalk, /metrics and /podLabels.

The rules are written here again from their specifications, not taken from
the agent: a podLabels pattern is a glob in which '*' matches anything
(fnmatchcase, with no other glob character in the patterns used); the label
names are kube-state-metrics' (label_ + the key with [^a-zA-Z0-9_] made '_',
snake-cased, lower case, "_conflictN" for keys that give one name)."""
import fnmatch
import json
import re
import sys

KEY_ID_MAX = 48


def allowed(key, patterns):
    return any(fnmatch.fnmatchcase(key, p) for p in patterns)


def expected_from_pods(path, patterns):
    """{(uid, key): (namespace, pod, value)} of a kubelet PodList."""
    out = {}
    for item in json.load(open(path))["items"]:
        meta = item["metadata"]
        uid = meta.get("uid", "")
        if not uid or len(uid) > 64:
            continue
        labels = meta.get("labels") or {}
        kept = [(k, v) for k, v in labels.items() if allowed(k, patterns)]
        for k, v in kept[:64]:
            if len(v) <= 63:
                out[(uid, k)] = (meta.get("namespace", ""), meta["name"], v)
    return out


def expected_from_sandboxes(path, patterns):
    """The same from `docker inspect` of pod sandbox containers (a JSON
    array): their Docker labels as cri-dockerd writes them, the pod's own
    labels beside the kubelet's io.kubernetes.* ones and the annotations it
    copies as "annotation.<key>" (neither of which is a pod label)."""
    out = {}
    for c in json.load(open(path)):
        labels = c["Config"]["Labels"] or {}
        if labels.get("io.kubernetes.docker.type") != "podsandbox":
            continue
        uid = labels.get("io.kubernetes.pod.uid", "")
        ns = labels.get("io.kubernetes.pod.namespace", "")
        pod = labels.get("io.kubernetes.pod.name", "")
        if not uid or len(uid) > 64:
            continue
        own = [(k, v) for k, v in labels.items()
               if not k.startswith(("io.kubernetes.", "annotation.")) and allowed(k, patterns)]
        for k, v in own[:64]:
            if len(v) <= 63:
                out[(uid, k)] = (ns, pod, v)
    return out


def fnv1a(s):
    h = 2166136261
    for b in s.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def key_id(key):
    if len(key) <= KEY_ID_MAX:
        return key
    return key[:39] + "~%08x" % fnv1a(key)


def snake(s):
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def prom_names(keys):
    """kube-state-metrics' names of one pod's label keys: {key: name}."""
    names, first, count = {}, {}, {}
    for k in sorted(keys):
        n = "label_" + snake(re.sub(r"[^a-zA-Z0-9_]", "_", k))
        if n in first:
            if count[n] == 1:
                names[first[n]] = n + "_conflict1"
            count[n] += 1
            names[k] = n + "_conflict%d" % count[n]
        else:
            first[n], count[n] = k, 1
            names[k] = n
    return names


def decode_string(parts, i):
    n = parts[i]
    return "".join(chr(c) for c in parts[i + 1:i + 1 + n]), i + 1 + n


def read_walk(path, entry):
    """snmpwalk -On -Oq output of primusPodLabelEntry ENTRY:
    {(uid, key_id): {column: value}}."""
    rows = {}
    prefix = entry + "."
    for line in open(path):
        oid, _, value = line.rstrip("\n").partition(" ")
        if not oid.startswith(prefix):
            continue
        parts = [int(x) for x in oid[len(prefix):].split(".")]
        col = parts[0]
        uid, i = decode_string(parts, 1)
        kid, i = decode_string(parts, i)
        assert i == len(parts), oid
        if value.startswith('"') and value.endswith('"'):
            value = value[1:-1]
        rows.setdefault((uid, kid), {})[col] = value
    return rows


LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def read_metrics(path, family="primus_pod_labels_info"):
    """[{label: value}] of FAMILY's series in an exposition."""
    out = []
    for line in open(path):
        if line.startswith(family + "{"):
            labels = dict(LABEL_RE.findall(line[len(family) + 1:line.rindex("}")]))
            assert line.rstrip().endswith(" 1"), line
            out.append(labels)
    return out


def check(expect, walk_file, entry, metrics_file, json_file):
    """Compare the three front ends with EXPECT; print what differs."""
    bad = []
    walk = read_walk(walk_file, entry)
    want_rows = {(uid, key_id(k)): (ns, pod, k, v) for (uid, k), (ns, pod, v) in expect.items()}
    if set(walk) != set(want_rows):
        bad.append("snmp rows %s, want %s" % (sorted(walk)[:5], sorted(want_rows)[:5]))
    for idx, (ns, pod, k, v) in want_rows.items():
        cells = walk.get(idx, {})
        if cells != {3: ns, 4: pod, 5: k, 6: v}:
            bad.append("snmp row %s: %s, want %s" % (idx, cells, (ns, pod, k, v)))
    by_pod = {}
    for (uid, k), (ns, pod, v) in expect.items():
        by_pod.setdefault((ns, pod), {})[k] = v
    series = read_metrics(metrics_file)
    want_series = []
    for (ns, pod), labels in by_pod.items():
        names = prom_names(labels)
        s = {"namespace": ns, "pod": pod}
        s.update({names[k]: v for k, v in labels.items()})
        want_series.append(s)
    key = lambda s: sorted(s.items())
    if sorted(series, key=key) != sorted(want_series, key=key):
        bad.append("metrics %s, want %s" % (sorted(series, key=key)[:3], sorted(want_series, key=key)[:3]))
    got_json = {(p["namespace"], p["pod"]): p["labels"] for p in json.load(open(json_file))}
    if got_json != by_pod:
        bad.append("json %s, want %s" % (got_json, by_pod))
    for b in bad:
        print(b)
    return len(bad) == 0, len(want_rows), len(want_series)


if __name__ == "__main__":
    # [--sandboxes] PODS_JSON PATTERNS WALK ENTRY METRICS JSON
    args = sys.argv[1:]
    read = expected_from_pods
    if args[0] == "--sandboxes":
        read, args = expected_from_sandboxes, args[1:]
    pods, patterns, walk, entry, metrics, js = args[:6]
    ok, rows, pods_n = check(read(pods, patterns.split(",")), walk, entry, metrics, js)
    print("%d rows %d pods" % (rows, pods_n))
    sys.exit(0 if ok else 1)
