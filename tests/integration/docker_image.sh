#!/bin/bash
# The container image, built and run: `docker build` of the Dockerfile on a
# local Debian 12 base (debootstrap, no registry) by a private dockerd, then
# run as docs/deploy.md ("3. Docker") runs it (host network and
# PID, read-only root, every capability dropped, no-new-privileges, the host's
# /sys, /proc, /dev and os-release, containerd's task directory and Docker's
# socket mounted read-only) and checked from outside only:
#   - the image: FROM scratch (one layer), its size under a bound, the
#     entrypoint, user and HEALTHCHECK it declares, every library of the
#     agent, of rocm-smi-lib (loaded at run time) and of libibverbs' providers
#     found by the image's own ld.so, its CA
#     bundle used by `--probe https://...`, and the DaemonSet's init container
#     script run in it;
#   - as a subagent of a private snmpd (the docs' first example, uid 0): /ready
#     200, /metrics with node series read from the host's /proc, SNMP values
#     through snmpd equal to /metrics, its own container in the container
#     table, the image's own HEALTHCHECK turning healthy;
#   - standalone (`docker run IMAGE --standalone ADDR --http ADDR`, the image's
#     uid 10001, SNMPv3 from the mounted config): the same over SNMPv3, a
#     health command given with --health-cmd, containerd's 0700 bundles
#     refused to that user as the docs say;
#   - and for both, from the host's /proc: no capability left, no_new_privs,
#     the user asked for, still running.
# Skips (77) with the reason where dockerd or debootstrap cannot run, when not
# root, and with PNA_HEAVY_SKIP=1 (the image is built once per CI run).
. "$(dirname "$0")/http_lib.sh"
[ "${PNA_HEAVY_SKIP:-0}" = 1 ] && skip "PNA_HEAVY_SKIP=1: the image is built in another pass"
. "$(dirname "$0")/docker_lib.sh"
need_dockerd
[ -f "$top_srcdir/Dockerfile" ] || skip "no Dockerfile in $top_srcdir"

# The size bound.  FROM scratch the image is 69.3 MB: 67 MB of shared
# libraries (31 MB of them ICU's data, which libxml2 links), the agent 0.6 MB,
# the rest 2 MB.  1.5 times that, 104 MB, leaves room for Debian's library
# updates and still fails when a base image comes back (debian:12-slim alone
# is 75 MB) or apt's run-time packages with perl's modules (118 MB more).
MAX_IMAGE_BYTES=$((104 * 1000 * 1000))
IMAGE=primus-node-agent:0.1.0
BASE=pna-test-debian:12

start_dockerd
debian_base_image "$BASE"

# ---- build ---------------------------------------------------------------------------
echo "building $IMAGE from $top_srcdir on $BASE (minutes: apt and a full compile)"
start=$(date +%s)
if ! DOCKER_BUILDKIT=0 $DOCKER build --network host --build-arg "DEBIAN_IMAGE=$BASE" \
        -t "$IMAGE" "$top_srcdir" >"$WORK/build.log" 2>&1; then
    if grep -qE "Temporary failure resolving|Could not resolve|Failed to fetch|Unable to connect" \
            "$WORK/build.log"; then
        skip "the build stage cannot reach the Debian mirror: $(grep -m1 -E 'resolv|Failed to fetch|Unable to connect' "$WORK/build.log")"
    fi
    tail -n 40 "$WORK/build.log"
    fail "docker build failed (above)"
fi
ok "docker build: $IMAGE in $(( $(date +%s) - start )) s"

# ---- the image itself ----------------------------------------------------------------
size=$($DOCKER image inspect -f '{{.Size}}' "$IMAGE")
layers=$($DOCKER image inspect -f '{{len .RootFS.Layers}}' "$IMAGE")
echo "image size: $size bytes ($(( size / 1000000 )) MB), $layers layer(s)"
[ "$size" -le "$MAX_IMAGE_BYTES" ] ||
    fail "the image is $size bytes, over the bound $MAX_IMAGE_BYTES"
[ "$layers" = 1 ] || fail "the image has $layers layers: the final stage should be FROM scratch plus one COPY"
ok "image: $(( size / 1000000 )) MB (bound $(( MAX_IMAGE_BYTES / 1000000 )) MB), one layer"

inspect() { $DOCKER image inspect -f "$1" "$IMAGE"; }
[ "$(inspect '{{json .Config.Entrypoint}}')" = '["/usr/sbin/primus-node-agent","-f"]' ] ||
    fail "entrypoint is $(inspect '{{json .Config.Entrypoint}}')"
[ "$(inspect '{{.Config.User}}')" = 10001:10001 ] || fail "user is $(inspect '{{.Config.User}}')"
HEALTH_TEST='["CMD","/usr/sbin/primus-node-agent","--probe","http://127.0.0.1:9101/healthz"]'
[ "$(inspect '{{json .Config.Healthcheck.Test}}')" = "$HEALTH_TEST" ] ||
    fail "HEALTHCHECK is $(inspect '{{json .Config.Healthcheck.Test}}')"
ok "entrypoint primus-node-agent -f, user 10001:10001, HEALTHCHECK --probe /healthz on 127.0.0.1:9101"

# in_image COMMAND...: COMMAND in a throw-away container of the image, no network.
in_image() {
    local entry=$1; shift
    $DOCKER run --rm --network none --entrypoint "$entry" "$IMAGE" "$@"
}
in_image /usr/sbin/primus-node-agent --version >"$WORK/version.out" 2>&1 ||
    fail "the agent does not start in the image: $(cat "$WORK/version.out")"
# ld.so --list resolves a file's libraries as a run would, from the image's files.
LDSO=/lib64/ld-linux-x86-64.so.2
in_image /bin/sh -c 'for f in /usr/lib/*/libibverbs/*.so; do [ -f "$f" ] && echo "$f"; done' \
    >"$WORK/providers.txt" 2>&1
grep -q 'libmlx5-rdma' "$WORK/providers.txt" ||
    fail "no libibverbs providers in the image: $(cat "$WORK/providers.txt")"
# rocm-smi-lib is loaded at run time on AMD nodes, not linked: the image
# carries it and its closure all the same (tools/image_root.sh).
ROCM_SO=/usr/lib/librocm_smi64.so.1
nprov=0
for f in /usr/sbin/primus-node-agent $ROCM_SO $(cat "$WORK/providers.txt"); do
    in_image "$LDSO" --list "$f" >"$WORK/ldd.out" 2>&1 || fail "ld.so --list $f: $(cat "$WORK/ldd.out")"
    ! grep -q "not found" "$WORK/ldd.out" || fail "$f: $(grep 'not found' "$WORK/ldd.out" | tr -s ' \n' ' ')"
    nprov=$((nprov + 1))
done
for f in /etc/libibverbs.d/mlx5.driver /etc/ssl/certs/ca-certificates.crt \
         /usr/share/snmp/mibs/PRIMUS-NODE-MIB.txt; do
    in_image /bin/sh -c "[ -s $f ]" || fail "the image has no $f"
done
ok "$(cat "$WORK/version.out"); the agent and $((nprov - 1)) ibverbs providers find every library in the image; CA bundle, MIB present"

# The DaemonSet's init container writes the config with /bin/sh and cat of this image.
PY=""
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import yaml' 2>/dev/null; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
    mkdir -p "$WORK/k8s-template" "$WORK/k8s-run"
    "$PY" - "$top_srcdir/etc/kubernetes" "$WORK" <<'PYEOF' || fail "cannot read the DaemonSet's init container"
import glob, json, os, sys, yaml
k8s, work = sys.argv[1], sys.argv[2]
for f in sorted(glob.glob(os.path.join(k8s, "*.yaml"))):
    for d in yaml.safe_load_all(open(f)):
        if not d:
            continue
        if d.get("kind") == "ConfigMap":
            open(os.path.join(work, "k8s-template", "primus-node-agent.conf"), "w").write(
                d["data"]["primus-node-agent.conf"])
        if d.get("kind") == "DaemonSet":
            init = d["spec"]["template"]["spec"]["initContainers"][0]
            json.dump(init["command"], open(os.path.join(work, "init-command.json"), "w"))
PYEOF
    mapfile -d '' -t init_cmd < <("$PY" -c 'import json, sys; sys.stdout.write("".join(a + "\0" for a in json.load(open(sys.argv[1]))))' "$WORK/init-command.json")
    $DOCKER run --rm --network none --user 0 --cap-drop ALL --read-only \
        --security-opt no-new-privileges \
        -e SNMP_USER=initcheck -e SNMP_AUTH=init-auth-secret -e SNMP_PRIV=init-priv-secret \
        -v "$WORK/k8s-template:/config:ro" -v "$WORK/k8s-run:/run/primus-node-agent" \
        --entrypoint "${init_cmd[0]}" "$IMAGE" "${init_cmd[@]:1}" >"$WORK/init.out" 2>&1 ||
        fail "the DaemonSet's init container failed in the image: $(cat "$WORK/init.out")"
    conf="$WORK/k8s-run/primus-node-agent.conf"
    grep -qx 'createUser initcheck SHA-256 "init-auth-secret" AES "init-priv-secret"' "$conf" &&
        grep -qx 'rouser initcheck priv' "$conf" &&
        cmp -s <(head -n "$(wc -l < "$WORK/k8s-template/primus-node-agent.conf")" "$conf") \
            "$WORK/k8s-template/primus-node-agent.conf" ||
        fail "the init container wrote: $(cat "$conf")"
    ok "the DaemonSet's init container (${init_cmd[*]:0:2} ...) writes the config in this image"
else
    echo "note - python3 with PyYAML not found (Debian: python3-yaml): init container not run"
fi

# HTTPS (the kubelet's) from the image: `docker run IMAGE --probe URL` against a
# self-signed server must fail on that certificate, which shows the image's
# libcurl loaded its CA bundle (without one it fails on the missing file).
if command -v openssl >/dev/null && command -v python3 >/dev/null; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
        -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$WORK/tls.key" -out "$WORK/tls.crt" >"$WORK/openssl.log" 2>&1 || fail "openssl req failed"
    TLS_PORT=$(free_tcp_port)
    python3 - "$TLS_PORT" "$WORK/tls.crt" "$WORK/tls.key" <<'PY' >"$WORK/tls-stub.log" 2>&1 &
import http.server, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
srv = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[2], sys.argv[3])
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
    PIDS+=("$!")
    wait_for "the TLS stub" curl -sk -o /dev/null "https://127.0.0.1:$TLS_PORT/"
    $DOCKER run --rm --network host "$IMAGE" --probe "https://127.0.0.1:$TLS_PORT/" \
        >"$WORK/tls.out" 2>&1 && fail "--probe trusted a self-signed certificate"
    grep -qi 'self.signed certificate' "$WORK/tls.out" ||
        fail "--probe of a self-signed server in the image: $(cat "$WORK/tls.out")"
    ok "HTTPS from the image: the CA bundle is loaded ($(cat "$WORK/tls.out"))"
fi

# ---- what both runs share ------------------------------------------------------------
# docs/deploy.md's mounts, with the test's own containerd task directory and
# Docker socket (the private dockerd's) in place of the host's.
TASKS=$(dirname "$DK_TASKS")
HOST_MOUNTS=(-v /sys:/host/sys:ro -v /proc:/host/proc:ro -v /dev:/host/dev:ro
             -v /etc/os-release:/host/etc/os-release:ro
             -v "$TASKS:/host/run/containerd/io.containerd.runtime.v2.task:ro")
HOST_ROOTS=(--sysfs /host/sys --procfs /host/proc --devfs /host/dev --rootfs /host)
LOCKDOWN=(--cap-drop ALL --read-only --security-opt no-new-privileges --network host --pid host)

# check_process NAME UID: the container's agent, seen in the host's /proc.
check_process() {
    local name=$1 uid=$2 pid st
    [ "$($DOCKER inspect -f '{{.State.Running}} {{.RestartCount}}' "$name")" = "true 0" ] ||
        fail "$name is not running: $($DOCKER logs "$name" 2>&1 | tail -n 5)"
    # (--pid host adds label=disable to the security options.)
    local hc
    hc=$($DOCKER inspect -f '{{json .HostConfig.CapDrop}} {{json .HostConfig.CapAdd}} {{.HostConfig.ReadonlyRootfs}} {{json .HostConfig.SecurityOpt}}' "$name")
    case $hc in
        '["ALL"] null true ['*'"no-new-privileges"'*) ;;
        *) fail "$name: not run with the lockdown asked for: $hc" ;;
    esac
    pid=$($DOCKER inspect -f '{{.State.Pid}}' "$name")
    st=/proc/$pid/status
    [ "$(awk '/^Name:/ { print $2 }' "$st")" = primus-node-age ] || fail "$name: pid $pid is $(awk '/^Name:/ { print $2 }' "$st")"
    [ "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "$st")" = "$uid $uid $uid $uid" ] ||
        fail "$name: $(grep '^Uid:' "$st"), want $uid"
    for c in CapInh CapPrm CapEff CapBnd CapAmb; do
        [ "$(awk -v c="$c:" '$1 == c { print $2 }' "$st")" = 0000000000000000 ] ||
            fail "$name: $(grep "^$c:" "$st")"
    done
    [ "$(awk '/^NoNewPrivs:/ { print $2 }' "$st")" = 1 ] || fail "$name: no_new_privs not set"
    ok "$name: running (not daemonized, not restarted) as uid $uid, no capability in any set, no_new_privs, read-only root"
}

# wait_ready BASE: /ready 200.
wait_ready() {
    wait_until 60 curl -sf -o /dev/null "$1/ready" || fail "$1/ready never answered 200: $(curl -s "$1/ready")"
}

# compare_node NAME READY SNMPGET...: node values through SNMP equal to
# /metrics, primus_agent_ready being READY.
compare_node() {
    local name=$1 ready=$2; shift 2
    local M="$WORK/$name.metrics" h t m
    curl -sf "$HTTP_BASE/metrics" >"$M" || fail "$name: GET /metrics failed"
    for fam in primus_agent_ready primus_node_info primus_node_uptime_seconds primus_cpu_threads \
               primus_cpu_cores primus_memory_total_bytes primus_memory_available_bytes; do
        grep -q "^$fam[{ ]" "$M" || fail "$name: /metrics has no $fam"
    done
    [ "$(metric_value "$M" primus_agent_ready '')" = "$ready" ] || fail "$name: primus_agent_ready is not $ready"
    h=$("$@" "$OBJ.1.1.0" | sed 's/^"//; s/"$//')
    t=$("$@" "$OBJ.2.2.0")
    m=$("$@" "$OBJ.3.1.0")
    grep -q "^primus_node_info{hostname=\"$h\"," "$M" ||
        fail "$name: primusNodeHostname '$h' is not primus_node_info's hostname: $(grep ^primus_node_info "$M")"
    [ "$(metric_value "$M" primus_cpu_threads '')" = "$t" ] ||
        fail "$name: primusCpuThreads $t, primus_cpu_threads $(metric_value "$M" primus_cpu_threads '')"
    [ "$t" = "$(grep -c '^processor' /proc/cpuinfo)" ] || fail "$name: $t CPU threads, the host has $(grep -c '^processor' /proc/cpuinfo)"
    [ "$(metric_value "$M" primus_memory_total_bytes '')" = "$m" ] ||
        fail "$name: primusMemTotal $m, primus_memory_total_bytes $(metric_value "$M" primus_memory_total_bytes '')"
    [ "$m" = "$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)" ] || fail "$name: MemTotal $m is not the host's"
    ok "$name: primus_agent_ready $ready; /metrics node series; SNMP = /metrics = the host: hostname $h, $t CPU threads, $m bytes of memory"
}

# wait_healthy NAME
wait_healthy() {
    wait_until 60 sh -c "[ \"\$($DOCKER inspect -f '{{.State.Health.Status}}' $1)\" = healthy ]" ||
        fail "$1: health is $($DOCKER inspect -f '{{.State.Health.Status}} {{json .State.Health.Log}}' "$1")"
}

# ---- 1. subagent of the host's snmpd, as docs/deploy.md's first example ----------------
mkdir -p "$WORK/agentx" "$WORK/etc-subagent"
AGENTX="unix:$WORK/agentx/master"
start_snmpd
echo "pollInterval node 2" >"$WORK/etc-subagent/primus-node-agent.conf"
# The image's own HEALTHCHECK asks 127.0.0.1:9101: use that port where it is
# free, else another one and --health-cmd.
HEALTH_ARGS=()
if ss -Hltn 'sport = :9101' | grep -q .; then
    HTTP_PORT=$(free_tcp_port)
    HEALTH_ARGS=(--health-cmd "/usr/sbin/primus-node-agent --probe http://127.0.0.1:$HTTP_PORT/healthz")
    echo "note - 9101 is taken here: the first run's health command is given with --health-cmd"
else
    HTTP_PORT=9101
fi
HTTP_BASE="http://127.0.0.1:$HTTP_PORT"
# Only the interval is shortened (30 s in the image), so that the test need not wait.
$DOCKER run -d --name pna-subagent --user 0 "${LOCKDOWN[@]}" \
    -v "$WORK/agentx:/var/agentx" "${HOST_MOUNTS[@]}" \
    -v "$DK/docker.sock:/host/run/docker.sock:ro" \
    -v "$WORK/etc-subagent:/etc/primus-node-agent:ro" \
    --health-interval 2s "${HEALTH_ARGS[@]}" \
    "$IMAGE" -x unix:/var/agentx/master --http "127.0.0.1:$HTTP_PORT" "${HOST_ROOTS[@]}" \
    >"$WORK/subagent.id" 2>"$WORK/run.log" || fail "docker run (subagent) failed: $(cat "$WORK/run.log")"
SUBAGENT_ID=$(cat "$WORK/subagent.id")
wait_ready "$HTTP_BASE"
wait_agent
grep -q 'primus_agent_info{version="0.1.0",mode="subagent"} 1' <(curl -sf "$HTTP_BASE/metrics") ||
    fail "primus_agent_info does not say subagent"
compare_node subagent 1 snmp_value
$DOCKER logs pna-subagent 2>&1 | grep -q "started (AgentX subagent)" ||
    fail "no start line on the container's stderr: $($DOCKER logs pna-subagent 2>&1 | tail -n 5)"
ok "subagent: logs on stderr (docker logs)"

# Its own container, from containerd's bundle (uid 0 reads the 0700
# directories) and named through Docker's socket.
wait_until 30 sh -c "curl -sf $HTTP_BASE/metrics | grep -q '^primus_container_info{.*$SUBAGENT_ID'" ||
    fail "its own container $SUBAGENT_ID is not in /metrics: $(curl -sf "$HTTP_BASE/metrics" | grep '^primus_container' | head -n 5)"
count=$(metric_value "$WORK/subagent.metrics" primus_containers '')
curl -sf "$HTTP_BASE/metrics" >"$WORK/subagent2.metrics"
[ "$(snmp_value "$OBJ.8.1.0")" = "$(metric_value "$WORK/subagent2.metrics" primus_containers '')" ] ||
    fail "primusContainerCount $(snmp_value "$OBJ.8.1.0"), primus_containers $(metric_value "$WORK/subagent2.metrics" primus_containers '')"
grep '^primus_container_info{' "$WORK/subagent2.metrics" | grep "$SUBAGENT_ID" | grep -q 'pna-subagent' ||
    fail "its container has no Docker name: $(grep "^primus_container_info{.*$SUBAGENT_ID" "$WORK/subagent2.metrics")"
ok "subagent: its own container in the container table (${count:-?} -> $(metric_value "$WORK/subagent2.metrics" primus_containers '') containers, SNMP = /metrics), named pna-subagent"

wait_healthy pna-subagent
how="the image's own HEALTHCHECK"
[ -z "${HEALTH_ARGS[*]}" ] || how="--health-cmd on port $HTTP_PORT"
ok "subagent: health $($DOCKER inspect -f '{{.State.Health.Status}}' pna-subagent) with $how"
check_process pna-subagent 0
$DOCKER rm -f pna-subagent >/dev/null

# ---- 2. standalone, the image's user -------------------------------------------------
SNMP_SA=$(free_port)
HTTP_PORT=$(free_tcp_port)
HTTP_BASE="http://127.0.0.1:$HTTP_PORT"
mkdir -p "$WORK/etc-standalone"
{
    echo "pollInterval node 2"
    echo "createUser $V3_USER SHA-256 \"$V3_AUTH\" AES \"$V3_PRIV\""
    echo "rouser $V3_USER priv"
} >"$WORK/etc-standalone/primus-node-agent.conf"
chown -R 10001:10001 "$WORK/etc-standalone"
chmod 0600 "$WORK/etc-standalone/primus-node-agent.conf"
$DOCKER run -d --name pna-standalone "${LOCKDOWN[@]}" "${HOST_MOUNTS[@]}" \
    -v "$WORK/etc-standalone:/etc/primus-node-agent:ro" \
    --health-interval 2s \
    --health-cmd "/usr/sbin/primus-node-agent --probe http://127.0.0.1:$HTTP_PORT/healthz" \
    "$IMAGE" --standalone "udp:127.0.0.1:$SNMP_SA" --http "127.0.0.1:$HTTP_PORT" "${HOST_ROOTS[@]}" \
    >/dev/null 2>"$WORK/run.log" || fail "docker run (standalone) failed: $(cat "$WORK/run.log")"
# uid 10001 may not enter containerd's 0700 bundle directories (docs/deploy.md):
# a source the agent is set to read fails, so /ready says 503 and why.
wait_until 60 sh -c "curl -s $HTTP_BASE/ready | grep -q containers" ||
    fail "$HTTP_BASE/ready never named the failing containers poller: $(curl -s "$HTTP_BASE/ready")"
[ "$(curl -s -o "$WORK/ready.json" -w '%{http_code}' "$HTTP_BASE/ready")" = 503 ] ||
    fail "/ready is not 503 while the containers poller fails: $(cat "$WORK/ready.json")"
grep -q 'Permission denied' "$WORK/ready.json" || fail "/ready does not say why: $(cat "$WORK/ready.json")"
v3get() { snmpget $V3 -On -Oqv "127.0.0.1:$SNMP_SA" "$@"; }
wait_until 20 sh -c "snmpget $V3 -On -Oqv 127.0.0.1:$SNMP_SA $OBJ.1.1.0 | grep -qv 'No Such'" ||
    fail "the standalone agent does not answer SNMPv3: $(v3get "$OBJ.1.1.0" 2>&1)"
grep -q 'primus_agent_info{version="0.1.0",mode="standalone"} 1' <(curl -sf "$HTTP_BASE/metrics") ||
    fail "primus_agent_info does not say standalone"
compare_node standalone 0 v3get
curl -sf "$HTTP_BASE/health" >"$WORK/health.json"
grep -q '"name":"containers"[^}]*Permission denied\|Permission denied[^}]*"name":"containers"' "$WORK/health.json" ||
    fail "uid 10001 read containerd's bundles, or said nothing: $(cat "$WORK/health.json")"
ok "standalone: as uid 10001 the containers poller reports Permission denied, everything else is served"
wait_healthy pna-standalone
ok "standalone: health $($DOCKER inspect -f '{{.State.Health.Status}}' pna-standalone) with --health-cmd on port $HTTP_PORT"
check_process pna-standalone 10001

# Without the bridge on 127.0.0.1:9101 the image's HEALTHCHECK fails.
if [ -z "${HEALTH_ARGS[*]}" ]; then
    $DOCKER run -d --name pna-unhealthy "${LOCKDOWN[@]}" \
        --health-interval 1s --health-retries 2 --health-start-period 1s \
        "$IMAGE" --standalone "udp:127.0.0.1:$(free_port)" \
        >/dev/null 2>"$WORK/run.log" || fail "docker run (no bridge) failed: $(cat "$WORK/run.log")"
    wait_until 30 sh -c "[ \"\$($DOCKER inspect -f '{{.State.Health.Status}}' pna-unhealthy)\" = unhealthy ]" ||
        fail "no bridge on 9101, yet health is $($DOCKER inspect -f '{{.State.Health.Status}}' pna-unhealthy)"
    ok "without the bridge the image's HEALTHCHECK turns unhealthy: $($DOCKER inspect -f '{{(index .State.Health.Log 0).Output}}' pna-unhealthy | head -n 1)"
    $DOCKER rm -f pna-unhealthy >/dev/null
fi

$DOCKER rm -f pna-standalone >/dev/null
$DOCKER rmi "$IMAGE" "$BASE" >/dev/null 2>&1
exit 0
