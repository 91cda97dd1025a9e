#!/bin/bash
# k8s_manifests.sh -- etc/kubernetes/*.yaml: valid Kubernetes objects, the
# least-privilege promises of docs/deploy.md, and a config the agent accepts.
#
# 1. Policy (python3 + PyYAML): the DaemonSet runs no privileged container,
#    drops ALL capabilities and adds only NET_BIND_SERVICE, forbids privilege
#    escalation, has a read-only root filesystem, mounts every hostPath
#    read-only (and never the containerd or Docker API sockets), tolerates
#    the nvidia.com/gpu and amd.com/gpu taints, has requests and limits,
#    mounts its runtime's state (containerd's task bundles; with the crio
#    component, rendered by kubectl kustomize, containers/storage's two
#    per-container directories and not the whole store),
#    probes /healthz and /ready on the bridge port, and gives the agent the
#    host roots; RBAC grants only "get" on the kubelet's node subresources,
#    to the DaemonSet's own service account.
# 2. The agent's own parser accepts the ConfigMap's config file plus the
#    SNMPv3 lines the init container appends, without a warning, and the
#    agent started standalone on loopback with it answers SNMPv3 authPriv.
# 2b. The Prometheus Operator components (etc/kubernetes/prometheus-operator):
#    rendered with etc/kubernetes by kubectl kustomize, each monitor selects
#    the DaemonSet's pods and port, keeps honorLabels false and drops the
#    target's pod, namespace and container; the monitors validate against
#    the Operator's CRDs kept in tests/integration/k8s/crds
#    (k8s/crd_validate.py, python3-jsonschema; unknown fields refused), and
#    a misspelt one does not.  Without python3-jsonschema: 77 (skip).
# 3. Schema (node, tests/integration/k8s): every object against the
#    Kubernetes 1.27 API schemas of the kubernetes-models package, and no
#    unknown field anywhere (TypeScript excess-property check).  Needs
#    `npm ci --prefix tests/integration/k8s` once (registry access); without
#    it the test ends with 77 (skip) after the checks above passed.
# Exit status: 0 pass, 1 fail, 77 skip (automake).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$here/../..}"
: "${top_builddir:=$top_srcdir}"
: "${PNA_AGENT:=$top_builddir/primus-node-agent}"
K8S="$top_srcdir/etc/kubernetes"
SCHEMA_DIR="${PNA_K8S_SCHEMA_DIR:-$top_srcdir/tests/integration/k8s}"

skip() { echo "SKIP: k8s_manifests: $*"; exit 77; }
fail() { echo "FAIL: k8s_manifests: $*"; exit 1; }
ok() { echo "ok - $*"; }

ls "$K8S"/*.yaml >/dev/null 2>&1 || fail "no manifests in $K8S"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pna-k8s.XXXXXX") || fail "mktemp"
agent_pid=""
trap '[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

checked=0
# ---- 1. policy ---------------------------------------------------------------
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import yaml' 2>/dev/null; then PY=$p; break; fi
done
# policy DIR CONF RUNTIME: the checks over the manifests in DIR (RUNTIME:
# containerd for etc/kubernetes itself, crio for it with the crio component).
policy() {
    "$PY" - "$1" "$2" "$3" <<'PYEOF'
import glob, os, sys, yaml

k8s_dir, conf_out, runtime = sys.argv[1], sys.argv[2], sys.argv[3]
errors = []
def err(msg): errors.append(msg)

docs = []
for f in sorted(glob.glob(os.path.join(k8s_dir, "*.yaml"))):
    with open(f) as fh:
        for d in yaml.safe_load_all(fh):
            if d:
                docs.append((os.path.basename(f), d))
by_kind = {}
for f, d in docs:
    by_kind.setdefault(d.get("kind"), []).append(d)
for kind in ("Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "DaemonSet"):
    if len(by_kind.get(kind, [])) != 1:
        err("expected exactly one %s, found %d" % (kind, len(by_kind.get(kind, []))))
if errors:
    print("\n".join("policy: " + e for e in errors)); sys.exit(1)

ns = by_kind["Namespace"][0]["metadata"]["name"]
for f, d in docs:
    if d.get("kind") in ("Namespace", "ClusterRole", "ClusterRoleBinding", "Kustomization"):
        continue
    if d["metadata"].get("namespace") != ns:
        err("%s %s is not in namespace %s" % (d["kind"], d["metadata"]["name"], ns))

ds = by_kind["DaemonSet"][0]
pod = ds["spec"]["template"]["spec"]
if ds["spec"]["selector"]["matchLabels"].items() - ds["spec"]["template"]["metadata"]["labels"].items():
    err("DaemonSet selector does not match its template's labels")
if pod.get("hostPID") is not True: err("hostPID is not true (NVML process lists are by host PID)")
if pod.get("hostNetwork") is not True: err("hostNetwork is not true (ethtool PFC counters of host netdevs)")
if pod.get("hostIPC"): err("hostIPC is set: not needed")
tol = {(t.get("key"), t.get("operator"), t.get("effect")) for t in pod.get("tolerations", [])}
for key in ("nvidia.com/gpu", "amd.com/gpu"):
    if (key, "Exists", "NoSchedule") not in tol:
        err("no toleration for the %s taint" % key)

ALLOWED_CAPS = {"NET_BIND_SERVICE"}   # docs/deploy.md explains each
volumes = {v["name"]: v for v in pod.get("volumes", [])}
host_paths = {n: v["hostPath"]["path"] for n, v in volumes.items() if "hostPath" in v}
for forbidden in ("/", "/run/containerd", "/run/containerd/containerd.sock", "/var/run/docker.sock",
                  "/run/docker.sock", "/var/lib/kubelet", "/etc", "/root", "/home",
                  "/var/lib/containers", "/var/lib/containers/storage", "/run/crio",
                  "/var/run/crio/crio.sock", "/run/crio/crio.sock", "/run/podman"):
    for n, p in host_paths.items():
        if p.rstrip("/") == forbidden.rstrip("/") or (forbidden != "/" and p.rstrip("/") == forbidden):
            err("hostPath %s (%s) is mounted: too broad or an API socket" % (p, n))
RUNTIME_PATHS = {
    "containerd": ("/run/containerd/io.containerd.runtime.v2.task",),
    # containers/storage's per-container directories only (docs/deploy.md)
    "crio": ("/var/lib/containers/storage/overlay-containers",
             "/run/containers/storage/overlay-containers"),
}
for needed in ("/sys", "/proc", "/dev", "/etc/os-release", "/sys/fs/cgroup") + RUNTIME_PATHS[runtime]:
    if needed not in host_paths.values():
        err("no hostPath for %s" % needed)
for other, paths in RUNTIME_PATHS.items():
    for p in paths:
        if other != runtime and p in host_paths.values():
            err("hostPath %s of %s mounted in the %s DaemonSet" % (p, other, runtime))
if not any(p.startswith("/var/lib/kubelet") for p in host_paths.values()):
    err("no hostPath on the kubelet's filesystem (node ephemeral storage fallback)")

sa = pod.get("serviceAccountName")
if sa != by_kind["ServiceAccount"][0]["metadata"]["name"]:
    err("DaemonSet uses service account %r, not the one in rbac.yaml" % sa)
psc = pod.get("securityContext", {})
if psc.get("seccompProfile", {}).get("type") not in ("RuntimeDefault", "Localhost"):
    err("pod has no seccomp profile")

def check_container(c, main):
    name = c["name"]
    sc = c.get("securityContext", {})
    if sc.get("privileged"): err("%s: privileged" % name)
    if sc.get("allowPrivilegeEscalation") is not False: err("%s: allowPrivilegeEscalation is not false" % name)
    if sc.get("readOnlyRootFilesystem") is not True: err("%s: root filesystem is not read-only" % name)
    caps = sc.get("capabilities", {})
    if "ALL" not in caps.get("drop", []): err("%s: capabilities do not drop ALL" % name)
    extra = set(caps.get("add", [])) - ALLOWED_CAPS
    if extra: err("%s: adds undocumented capabilities %s" % (name, sorted(extra)))
    res = c.get("resources", {})
    for k in ("requests", "limits"):
        for r in ("cpu", "memory"):
            if r not in res.get(k, {}): err("%s: no %s.%s" % (name, k, r))
    for m in c.get("volumeMounts", []):
        if m["name"] in host_paths and not m.get("readOnly"):
            err("%s: hostPath %s mounted writable" % (name, host_paths[m["name"]]))
        if m["name"] not in volumes:
            err("%s: mounts unknown volume %s" % (name, m["name"]))
    if not main:
        return
    args = c.get("args", [])
    def arg(flag):
        return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None
    want = {"--sysfs": "/host/sys", "--procfs": "/host/proc", "--devfs": "/host/dev", "--rootfs": "/host"}
    for flag, val in want.items():
        if arg(flag) != val: err("%s: %s is %r, want %r" % (name, flag, arg(flag), val))
    http = arg("--http") or ""
    if not http.endswith(":9101"): err("%s: --http %r is not on port 9101" % (name, http))
    if not arg("--standalone"): err("%s: not --standalone (Kubernetes nodes have no snmpd)" % name)
    if arg("-c") is None: err("%s: no -c config file" % name)
    mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
    for flag in ("--sysfs", "--procfs", "--devfs"):
        if arg(flag) not in mounts: err("%s: %s %s is not a mount" % (name, flag, arg(flag)))
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/ready")):
        g = c.get(probe, {}).get("httpGet", {})
        if g.get("path") != path or g.get("port") not in (9101, "http"):
            err("%s: %s is not GET %s on 9101" % (name, probe, path))
    return arg("-c")

config_path = None
for c in pod.get("initContainers", []):
    check_container(c, False)
for c in pod["containers"]:
    config_path = check_container(c, True) or config_path

# RBAC: only get on the kubelet's node subresources, bound to that account.
role = by_kind["ClusterRole"][0]
for rule in role["rules"]:
    if rule.get("apiGroups") != [""] or rule.get("verbs") != ["get"]:
        err("ClusterRole rule %r: not get-only in the core group" % rule)
    bad = set(rule.get("resources", [])) - {"nodes/stats", "nodes/proxy", "nodes/pods"}
    if bad: err("ClusterRole grants %s" % sorted(bad))
crb = by_kind["ClusterRoleBinding"][0]
if crb["roleRef"]["name"] != role["metadata"]["name"]:
    err("ClusterRoleBinding does not bind the ClusterRole")
if {"kind": "ServiceAccount", "name": sa, "namespace": ns} not in crb.get("subjects", []):
    err("ClusterRoleBinding does not bind service account %s/%s" % (ns, sa))

# Config: from the ConfigMap, no credentials; write it with the lines the
# init container appends, for the agent's own parser.
cm = by_kind["ConfigMap"][0]
conf = cm["data"].get("primus-node-agent.conf", "")
for word in ("rocommunity", "createUser", "rwcommunity", "rwuser", "com2sec"):
    if any(l.split()[:1] == [word] for l in conf.splitlines()):
        err("ConfigMap config holds %s: credentials belong in the Secret" % word)
cm_vol = [n for n, v in volumes.items() if v.get("configMap", {}).get("name") == cm["metadata"]["name"]]
if not cm_vol: err("the DaemonSet does not mount the ConfigMap")
init_env = {e["name"]: e for c in pod.get("initContainers", []) for e in c.get("env", [])}
for var in ("SNMP_USER", "SNMP_AUTH", "SNMP_PRIV"):
    ref = init_env.get(var, {}).get("valueFrom", {}).get("secretKeyRef")
    if not ref: err("init container: %s does not come from a Secret" % var)
with open(conf_out, "w") as fh:
    fh.write(conf)
    fh.write('createUser primus SHA-256 "test-auth-passphrase" AES "test-priv-passphrase"\nrouser primus priv\n')

if errors:
    print("\n".join("policy: " + e for e in errors)); sys.exit(1)
print("ok - policy (%s): %d objects; DaemonSet: not privileged, caps drop ALL add %s, read-only root and %d read-only hostPaths, GPU tolerations, probes, resources; RBAC get-only on %s"
      % (runtime, len(docs), sorted(ALLOWED_CAPS), len(host_paths), sorted({r for rule in role["rules"] for r in rule["resources"]})))
PYEOF
}
if [ -n "$PY" ]; then
    policy "$K8S" "$tmp/agent.conf" containerd || fail "policy check failed (above)"
    checked=$((checked + 1))
    # CRI-O nodes: etc/kubernetes with its crio component, rendered by
    # kubectl's kustomize from an overlay outside the tree (as docs/deploy.md
    # tells operators to write it), through the same checks.
    if command -v kubectl >/dev/null 2>&1; then
        mkdir -p "$tmp/crio-overlay" "$tmp/crio"
        cp -r "$K8S" "$tmp/crio-overlay/base"
        printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [base]\ncomponents: [base/crio]\n' \
            > "$tmp/crio-overlay/kustomization.yaml"
        kubectl kustomize "$tmp/crio-overlay" > "$tmp/crio/rendered.yaml" 2>"$tmp/kustomize.err" ||
            fail "kubectl kustomize of the crio component failed: $(cat "$tmp/kustomize.err")"
        policy "$tmp/crio" "$tmp/agent-crio.conf" crio || fail "policy check of the CRI-O DaemonSet failed (above)"
        checked=$((checked + 1))
    else
        echo "note - kubectl not found: the CRI-O component (etc/kubernetes/crio) not rendered nor checked"
    fi
else
    echo "note - python3 with PyYAML not found (Debian: python3-yaml): policy checks not run"
fi

# ---- 2. the agent accepts the config -------------------------------------------
if [ -n "$PY" ] && [ -x "$PNA_AGENT" ]; then
    port=$(( (RANDOM % 20000) + 10000 ))  # below the ephemeral range (32768-60999)
    MIBS= "$PNA_AGENT" -f -Lf "$tmp/agent.log" -c "$tmp/agent.conf" \
        --standalone "udp:127.0.0.1:$port" >"$tmp/agent.out" 2>&1 &
    agent_pid=$!
    v3="-v3 -l authPriv -u primus -a SHA-256 -A test-auth-passphrase -x AES -X test-priv-passphrase -t 1 -r 0"
    answered=""
    for _ in $(seq 25); do
        kill -0 "$agent_pid" 2>/dev/null || break
        # primusNodeHostname.0 (numeric: no MIB files needed)
        if command -v snmpget >/dev/null 2>&1 &&
           snmpget $v3 -Oqv "127.0.0.1:$port" .1.3.6.1.4.1.59888.1.1.1.1.0 >"$tmp/get.out" 2>&1 &&
           ! grep -q 'No Such' "$tmp/get.out"; then answered=yes; break; fi
        command -v snmpget >/dev/null 2>&1 || { sleep 1; break; }
        sleep 0.2
    done
    if ! kill -0 "$agent_pid" 2>/dev/null; then
        wait "$agent_pid"; rc=$?
        cat "$tmp/agent.out" "$tmp/agent.log" 2>/dev/null | tail -5
        fail "the agent rejected the ConfigMap's config (exit $rc)"
    fi
    kill "$agent_pid"; wait "$agent_pid" 2>/dev/null; agent_pid=""
    if grep -qi 'unknown token\|warning' "$tmp/agent.log" "$tmp/agent.out" 2>/dev/null; then
        fail "the agent warns about the ConfigMap's config: $(grep -hi 'unknown token\|warning' "$tmp/agent.log" "$tmp/agent.out")"
    fi
    ok "the agent runs with the ConfigMap's config and the init container's SNMPv3 lines, no warning"
    if [ -n "$answered" ]; then
        ok "standalone with that config answers SNMPv3 authPriv (SHA-256/AES): primusNodeHostname = $(cat "$tmp/get.out")"
    elif command -v snmpget >/dev/null 2>&1; then
        fail "standalone with the ConfigMap's config did not answer SNMPv3: $(cat "$tmp/get.out")"
    fi
    checked=$((checked + 1))
elif [ -n "$PY" ]; then
    echo "note - agent binary $PNA_AGENT not built: config not run through the agent"
fi

# ---- 2b. the Prometheus Operator monitors ------------------------------------------
# Each component rendered with etc/kubernetes by kubectl's kustomize from an
# overlay (as docs/deploy.md tells operators to write it): the monitor and
# the Service are in the agent's namespace and select the DaemonSet's pods
# and port; then the monitors against the Operator's CRDs (kept in
# tests/integration/k8s/crds, with their source), unknown fields refused; a
# monitor with a misspelt field must fail that check.
CRDS="$SCHEMA_DIR/crds"
CRD_VALIDATE="$SCHEMA_DIR/crd_validate.py"
MONITORS="$K8S/prometheus-operator"
if command -v kubectl >/dev/null 2>&1 && [ -n "$PY" ]; then
    for comp in podmonitor servicemonitor; do
        mkdir -p "$tmp/$comp-overlay"
        cp -r "$K8S" "$tmp/$comp-overlay/base"
        printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [base]\ncomponents: [base/prometheus-operator/%s]\n' \
            "$comp" > "$tmp/$comp-overlay/kustomization.yaml"
        kubectl kustomize "$tmp/$comp-overlay" > "$tmp/$comp.yaml" 2>"$tmp/kustomize.err" ||
            fail "kubectl kustomize of the $comp component failed: $(cat "$tmp/kustomize.err")"
        "$PY" - "$tmp/$comp.yaml" "$comp" <<'PYEOF' || fail "the $comp component does not fit the DaemonSet (above)"
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
comp = sys.argv[2]
kind = {"podmonitor": "PodMonitor", "servicemonitor": "ServiceMonitor"}[comp]
by = {}
for d in docs:
    by.setdefault(d["kind"], []).append(d)
err = []
ds = by["DaemonSet"][0]
ns = ds["metadata"]["namespace"]
pod_labels = ds["spec"]["template"]["metadata"]["labels"]
ports = {p["name"] for c in ds["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])}
mons = by.get(kind, [])
if len(mons) != 1:
    err.append("%d %s objects rendered" % (len(mons), kind))
for other in {"PodMonitor", "ServiceMonitor"} - {kind}:
    if other in by:
        err.append("the %s component also renders a %s" % (comp, other))
m = mons[0] if mons else {"metadata": {}, "spec": {}}
if m["metadata"].get("namespace") != ns:
    err.append("%s not in namespace %s" % (kind, ns))
if m["spec"].get("namespaceSelector", {}).get("matchNames") != [ns]:
    err.append("%s namespaceSelector is not [%s]" % (kind, ns))
eps = m["spec"].get("podMetricsEndpoints" if kind == "PodMonitor" else "endpoints", [])
sel = m["spec"].get("selector", {}).get("matchLabels", {})
if kind == "PodMonitor":
    if sel.items() - pod_labels.items():
        err.append("PodMonitor selector %s does not match the pods' labels" % sel)
    for ep in eps:
        if ep.get("port") not in ports:
            err.append("PodMonitor port %s is not a container port (%s)" % (ep.get("port"), sorted(ports)))
else:
    svcs = by.get("Service", [])
    if len(svcs) != 1:
        err.append("%d Services rendered" % len(svcs))
    else:
        svc = svcs[0]
        if svc["metadata"].get("namespace") != ns:
            err.append("Service not in namespace %s" % ns)
        if svc["spec"].get("selector", {}).items() - pod_labels.items():
            err.append("Service selector does not match the pods' labels")
        if sel.items() - svc["metadata"].get("labels", {}).items():
            err.append("ServiceMonitor selector %s does not match the Service's labels" % sel)
        names = {p["name"] for p in svc["spec"]["ports"]}
        for p in svc["spec"]["ports"]:
            if p.get("targetPort") not in ports:
                err.append("Service targetPort %s is not a container port" % p.get("targetPort"))
        for ep in eps:
            if ep.get("port") not in names:
                err.append("ServiceMonitor port %s is not a Service port" % ep.get("port"))
for ep in eps:
    if ep.get("honorLabels") is not False:
        err.append("%s: honorLabels is not false (the Slurm job label would replace job)" % kind)
    drops = [r for r in ep.get("relabelings", []) if r.get("action", "").lower() == "labeldrop"]
    if not any(set("pod namespace container".split()) <= set(r.get("regex", "").split("|")) for r in drops):
        err.append("%s: no relabeling drops the target's pod, namespace and container" % kind)
if err:
    print("\n".join("%s: %s" % (comp, e) for e in err)); sys.exit(1)
print("ok - %s component rendered with etc/kubernetes: %s selects the DaemonSet's pods and port %s, honorLabels false, target pod/namespace/container dropped"
      % (comp, kind, ",".join(ep["port"] for ep in eps)))
PYEOF
        checked=$((checked + 1))
    done
else
    echo "note - kubectl or python3 with PyYAML not found: the prometheus-operator components not rendered"
fi
/usr/bin/python3 -c 'import jsonschema, yaml' 2>/dev/null ||
    skip "python3-jsonschema not installed (Debian: python3-jsonschema): the monitors not checked against the Operator's CRDs ($checked other checks passed)"
/usr/bin/python3 "$CRD_VALIDATE" "$CRDS" "$MONITORS"/*/*monitor.yaml || fail "a monitor does not fit the Operator's CRD (above)"
sed 's/honorLabels:/honourLabels:/' "$MONITORS/podmonitor/podmonitor.yaml" > "$tmp/misspelt-podmonitor.yaml"
/usr/bin/python3 "$CRD_VALIDATE" "$CRDS" "$tmp/misspelt-podmonitor.yaml" >"$tmp/misspelt.out" 2>&1 &&
    fail "a PodMonitor with honourLabels passed the CRD check: $(cat "$tmp/misspelt.out")"
grep -q "honourLabels" "$tmp/misspelt.out" || fail "the misspelt PodMonitor failed for another reason: $(cat "$tmp/misspelt.out")"
ok "the monitors fit the Prometheus Operator 0.87.0 CRDs (unknown fields refused; a misspelt honourLabels is caught)"
checked=$((checked + 1))

# ---- 3. schema -------------------------------------------------------------------
command -v node >/dev/null 2>&1 ||
    skip "node not installed (Debian: nodejs): schema check not run ($checked other checks passed)"
[ -d "$SCHEMA_DIR/node_modules/kubernetes-models" ] && [ -d "$SCHEMA_DIR/node_modules/typescript" ] ||
    skip "schema tools not installed: run 'npm ci --prefix tests/integration/k8s' ($checked other checks passed)"
node "$SCHEMA_DIR/validate.js" "$K8S"/*.yaml "$MONITORS/servicemonitor/service.yaml" || fail "schema check failed (above)"
exit 0
