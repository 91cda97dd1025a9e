#!/bin/bash
# snmp_exporter_scrape.sh -- Debian's prometheus-snmp-exporter, running on
# loopback with the shipped etc/snmp_exporter/snmp.yml, scrapes the agent
# through a real snmpd master, and its output carries the values and the
# readable labels the configuration promises.
#
# What is proved:
#   - every object the agent serves (walked with snmpbulkwalk) comes out of the
#     exporter as a series of the same name: nothing is lost between MIB,
#     snmp.yml and exporter;
#   - node, CPU and memory values equal an independent reading of the machine
#     (getconf/lscpu, /proc/meminfo, uname, os-release) and the values snmpget
#     returns; CounterBasedGauge64 objects are typed gauge;
#   - poller series carry the poller's name (primusPollerName) and not the bare
#     number; the agent's config reaches the series (pollInterval node 1 ->
#     primusPollerInterval{primusPollerName="node"} 1000);
#   - the group modules (primus_host, primus_gpu, primus_rdma,
#     primus_containers, primus_slurm) together give exactly primus_node's series;
#   - the SNMPv3 module (authPriv, SHA-256/AES) works once its passphrases are
#     filled in, with a copy of snmp.yml that differs from the shipped file in
#     exactly those two lines;
#   - GPU, IB/RoCE and container tables: the agent runs on a sysfs tree made
#     from the fixtures (InfiniBand and amdgpu devices) and a containerd state
#     tree holding one Kubernetes container; where the agent serves rows of
#     those tables their series must carry the labels promised (GPU PCI bus id
#     and UUID instead of the integer index; RDMA device, port and netdev;
#     container name, pod and namespace).  A table the agent does not serve yet
#     is reported ("not served") and not checked; PNA_REQUIRE_TABLES="gpu ib
#     container" turns that into a failure.
# Exit status: 0 pass, 1 fail, 77 skip (automake).

. "$(dirname "$0")/lib.sh"

EXPORTER=${PNA_SNMP_EXPORTER:-prometheus-snmp-exporter}
command -v "$EXPORTER" >/dev/null 2>&1 ||
    skip "$EXPORTER not installed (Debian package prometheus-snmp-exporter)"
command -v curl >/dev/null 2>&1 || skip "curl not installed"
SHIPPED="$top_srcdir/etc/snmp_exporter/snmp.yml"
[ -f "$SHIPPED" ] || fail "$SHIPPED not found"

# ---- a host view with fixture devices --------------------------------------
# procfs stays the real one (node/CPU/memory are checked against this machine);
# sysfs is a tree of fixture InfiniBand and amdgpu devices; the root holds this
# machine's os-release and a containerd state directory with one k8s container.
SYSFS="$WORK/sys"
ROOTFS="$WORK/root"
mkdir -p "$SYSFS" "$ROOTFS/etc"
for tree in ib-sysfs/procfs/sys amdgpu-sysfs/procfs/sys; do
    [ -d "$PNA_FIXTURES/$tree" ] && cp -R "$PNA_FIXTURES/$tree/." "$SYSFS/"
done
if [ -f /etc/os-release ]; then cp /etc/os-release "$ROOTFS/etc/os-release"
else cp /usr/lib/os-release "$ROOTFS/etc/os-release"; fi
CTR_ID=$(printf 'a%.0s' $(seq 64))
CTR_NAME=trainer
POD_NAME=llm-train-0
POD_NS=ml-jobs
POD_UID=5f0c9a3e-1111-4c2b-9d7e-0123456789ab
bundle="$ROOTFS/run/containerd/io.containerd.runtime.v2.task/k8s.io/$CTR_ID"
mkdir -p "$bundle"
if command -v jq >/dev/null 2>&1; then
    # The runtime-spec example with the annotations containerd's CRI plugin
    # writes for a Kubernetes container.
    jq --arg c "$CTR_NAME" --arg p "$POD_NAME" --arg n "$POD_NS" --arg u "$POD_UID" \
       '.annotations = {"io.kubernetes.cri.container-type": "container",
                        "io.kubernetes.cri.container-name": $c,
                        "io.kubernetes.cri.sandbox-name": $p,
                        "io.kubernetes.cri.sandbox-namespace": $n,
                        "io.kubernetes.cri.sandbox-uid": $u,
                        "io.kubernetes.cri.image-name": "busybox:latest"}' \
       "$PNA_FIXTURES/containerd/oci-runtime-spec-config-example.json" > "$bundle/config.json" ||
        fail "cannot write the container bundle"
fi

# ---- SNMP side -----------------------------------------------------------------
start_snmpd
# A 1 s node poll: CPU usage needs two samples, and the interval is then
# visible in the poller series.
echo "pollInterval node 1" > "$WORK/agent.conf"
start_agent --sysfs "$SYSFS" --rootfs "$ROOTFS"
wait_agent
cpu_usage_oid="$OBJ.2.3.0"
wait_until 15 sh -c "snmpget $V2 -On -Oqv $TARGET $cpu_usage_oid | grep -q '^[0-9]'" ||
    fail "primusCpuUsage.0 not served after 15 s"
# Give device pollers a moment for their first run.
sleep 2

# ---- exporter --------------------------------------------------------------
HTTP_PORT=$(free_tcp_port)

# The test-local copy differs from the shipped file only in the v3 passphrases
# (the user name "primus" is the test master's); v2c "public" is used as shipped.
CONF="$WORK/snmp.yml"
sed -e "s/CHANGE-ME-auth-passphrase/$V3_AUTH/" -e "s/CHANGE-ME-priv-passphrase/$V3_PRIV/" \
    "$SHIPPED" > "$CONF"
changed=$(diff "$SHIPPED" "$CONF" | grep -c '^>')
[ "$changed" -eq 2 ] || fail "expected 2 changed lines in the test copy of snmp.yml, got $changed"
grep -q "username: $V3_USER\$" "$CONF" || fail "snmp.yml's v3 user is not '$V3_USER'"

"$EXPORTER" --config.file="$CONF" --web.listen-address="127.0.0.1:$HTTP_PORT" \
    --log.level=warn >"$WORK/snmp_exporter.log" 2>&1 &
PIDS+=("$!")
wait_for "snmp_exporter" curl -fsS -o /dev/null "http://127.0.0.1:$HTTP_PORT/metrics"

scrape() { # MODULE OUTFILE
    curl -fsS -o "$2" "http://127.0.0.1:$HTTP_PORT/snmp?target=$TARGET&module=$1" ||
        fail "scrape of module $1 failed: $(head -c 300 "$2" 2>/dev/null)"
}
# The walk comes first: what the agent serves then it still serves at the
# scrape (a rate column appears at a poller's second run and stays).
snmpbulkwalk $V2 -On -Oq "$TARGET" "$ROOT" > "$WORK/walk.txt" || fail "snmpbulkwalk failed"
OUT="$WORK/scrape.txt"
scrape primus_node "$OUT"
echo "ok - scraped module primus_node: $(grep -vc '^#' "$OUT") series"

# The group modules split the whole one: together they give its series,
# name for name and label set for label set (values may move between scrapes).
series_keys() { grep -v '^#' "$1" | grep -v '^snmp_scrape' | sed -E 's/ [^ ]+$//' | sort; }
: > "$WORK/groups.txt"
for m in primus_host primus_gpu primus_rdma primus_containers primus_slurm; do
    scrape "$m" "$WORK/scrape-$m.txt"
    n=$(series_keys "$WORK/scrape-$m.txt" | grep -c .)
    # a node without Slurm jobs has no primusSlurm rows: that module may be empty
    [ "$n" -gt 0 ] || [ "$m" = primus_slurm ] || fail "module $m gave no series"
    series_keys "$WORK/scrape-$m.txt" >> "$WORK/groups.txt"
    echo "   module $m: $n series"
done
sort "$WORK/groups.txt" > "$WORK/groups.sorted"
if ! diff <(series_keys "$OUT") "$WORK/groups.sorted" > "$WORK/groups.diff"; then
    fail "the group modules do not split primus_node: $(head -5 "$WORK/groups.diff")"
fi
ok "the group modules (host, gpu, rdma, containers, slurm) together give primus_node's $(grep -c . "$WORK/groups.sorted") series"

# series NAME: the sample lines of metric NAME (EnumAsInfo objects come out
# as NAME_info).
series() { grep -E "^$1(_info)?(\{| )" "$OUT"; }
# value EXACT_SERIES: the value of one series, given as name{labels} text.
value() { awk -v s="$1" 'index($0, s " ") == 1 { print $NF; exit }' "$OUT"; }
# The exporter prints large values in float notation: compare as numbers.
num_eq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a + 0 == b + 0) }'; }
expect_value() { # SERIES WANT WHAT
    local got; got=$(value "$1")
    num_eq "$got" "$2" || fail "$3: $1 = '${got}', want '$2'"
    ok "$3: $1 = $2"
}
expect_type() { # NAME TYPE
    grep -qx "# TYPE $1 $2" "$OUT" || fail "$1 is not typed $2: $(grep "^# TYPE $1 " "$OUT")"
}
# snmp_num OID: a number through the master (v2c), for comparison.
snmp_num() { snmp_value "$1" | awk '{print $1}'; }

# ---- every served object is a series ------------------------------------------
# OID -> name table from the shipped snmp.yml (both modules hold the same list).
awk '/^  - name: /{n=$3} /^    oid: /{ if (n != "") print $2, n; n="" }' "$SHIPPED" |
    sort -u > "$WORK/oid-names"
awk 'NR == FNR { name[$1] = $2; next }
     { oid = substr($1, 2); n = split(oid, p, ".")
       for (k = n - 1; k > 0; k--) { o = p[1]; for (i = 2; i <= k; i++) o = o "." p[i]
                                     if (o in name) { print name[o]; next } }
       print "UNKNOWN:" oid }' "$WORK/oid-names" "$WORK/walk.txt" | sort -u > "$WORK/served"
grep -q '^UNKNOWN:' "$WORK/served" &&
    fail "OIDs served that snmp.yml does not know: $(grep '^UNKNOWN:' "$WORK/served" | head -5)"
missing=""
while read -r name; do
    series "$name" >/dev/null || missing="$missing $name"
done < "$WORK/served"
[ -z "$missing" ] || fail "served by the agent but absent from the exporter's output:$missing"
ok "all $(wc -l < "$WORK/served") objects the agent serves are series ($(wc -l < "$WORK/walk.txt") varbinds walked)"

# ---- node, CPU, memory ---------------------------------------------------------
threads=$(getconf _NPROCESSORS_ONLN)
expect_value "primusCpuThreads" "$threads" "CPU threads equal getconf _NPROCESSORS_ONLN (nproc: $(nproc))"
if command -v lscpu >/dev/null 2>&1; then
    cores=$(lscpu -p=SOCKET,CORE | grep -v '^#' | sort -u | wc -l)
    expect_value "primusCpuCores" "$cores" "physical cores equal lscpu's distinct (socket, core)"
fi
expect_value "primusCpuSockets" "$(snmp_num "$OBJ.2.4.0")" "sockets equal snmpget"
usage=$(value primusCpuUsage)
[ -n "$usage" ] && [ "${usage%.*}" -ge 0 ] && [ "${usage%.*}" -le 10000 ] ||
    fail "primusCpuUsage '$usage' not in 0..10000"
ok "primusCpuUsage = $usage (0..10000)"

mem_total=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 ))
swap_total=$(( $(awk '/^SwapTotal:/ {print $2}' /proc/meminfo) * 1024 ))
got=$(value primusMemTotal)
num_eq "$got" "$mem_total" || fail "primusMemTotal $got != MemTotal $mem_total of /proc/meminfo"
ok "primusMemTotal = MemTotal of /proc/meminfo x 1024 ($mem_total)"
got=$(value primusMemSwapTotal)
num_eq "$got" "$swap_total" || fail "primusMemSwapTotal $got != SwapTotal $swap_total"
ok "primusMemSwapTotal = SwapTotal x 1024"
# Used and available come from one snapshot: they add up to the total.
awk -v u="$(value primusMemUsed)" -v a="$(value primusMemAvailable)" -v t="$mem_total" \
    'BEGIN { exit !(u + a == t) }' || fail "primusMemUsed + primusMemAvailable != primusMemTotal"
ok "primusMemUsed + primusMemAvailable = primusMemTotal"
for g in primusMemTotal primusMemUsed primusMemAvailable primusMemSwapTotal primusMemSwapUsed; do
    expect_type "$g" gauge
done
ok "CounterBasedGauge64 memory objects are gauges"
expect_type primusPollerRuns counter
expect_type primusAgentEventsTotal counter

host=$(cat /proc/sys/kernel/hostname)
expect_value "primusNodeHostname{primusNodeHostname=\"$host\"}" 1 "hostname label"
expect_value "primusNodeKernel{primusNodeKernel=\"$(uname -r)\"}" 1 "kernel label"
expect_value "primusNodeArchitecture{primusNodeArchitecture=\"$(uname -m)\"}" 1 "architecture label"
pretty=$(. "$ROOTFS/etc/os-release"; echo "$PRETTY_NAME")
expect_value "primusNodeOsName{primusNodeOsName=\"$pretty\"}" 1 "OS label (os-release)"
version=$("$PNA_AGENT" --version | awk '{print $2}')
expect_value "primusAgentVersion{primusAgentVersion=\"$version\"}" 1 "agent version label"
expect_value 'primusAgentMode_info{primusAgentMode="subagent"}' 1 "agent mode as info"
expect_value "primusAgentEventCapacity" "$(snmp_num "$OBJ.4.6.0")" "event capacity equals snmpget"
expect_value "primusNodeBootTime" "$(snmp_num "$OBJ.1.7.0")" "boot time equals snmpget"

# ---- pollers -----------------------------------------------------------------
series primusPollerName >/dev/null || fail "no poller series"
series 'primus[A-Za-z]*' | grep -q 'primusPollerIndex=' &&
    fail "a series still carries the bare primusPollerIndex"
for col in Interval LastSuccess LastDuration Errors DataAge Runs ConsecutiveFailures Timeout; do
    n=$(series "primusPoller$col" | wc -l)
    named=$(series "primusPoller$col" | grep -c 'primusPollerName="[a-z0-9_-][a-z0-9_-]*"')
    [ "$n" -gt 0 ] && [ "$n" -eq "$named" ] ||
        fail "primusPoller$col: $named of $n series carry a poller name"
done
ok "every poller series carries primusPollerName, none the bare index"
expect_value 'primusPollerInterval{primusPollerName="node"}' 1000 "configured node interval"
expect_value 'primusPollerTimeout{primusPollerName="node"}' "$(snmp_num "$OBJ.4.10.1.12.1")" \
    "node poller timeout equals snmpget"
expect_value 'primusPollerStatus{primusPollerName="node",primusPollerStatus="ok"}' 1 "node poller state set"
expect_value 'primusPollerStatus{primusPollerName="node",primusPollerStatus="failing"}' 0 \
    "node poller state set"
[ "$(series primusAgentStatus | wc -l)" -eq 2 ] && [ "$(series primusAgentStatus | grep -c ' 1$')" -eq 1 ] ||
    fail "primusAgentStatus is not a state set with one state at 1: $(series primusAgentStatus | tr '\n' ' ')"
ok "primusAgentStatus is a state set: $(series primusAgentStatus | grep ' 1$')"

# ---- device and container tables ------------------------------------------------
# every_series_has NAME_PREFIX REGEX WHAT: every series of the metrics whose
# names start with NAME_PREFIX (table columns: they have labels) matches REGEX.
every_series_has() {
    local n m
    n=$(grep -cE "^$1[A-Za-z0-9]*(_info)?\{" "$OUT")
    m=$(grep -E "^$1[A-Za-z0-9]*(_info)?\{" "$OUT" | grep -cE "$2")
    [ "$n" -gt 0 ] && [ "$n" -eq "$m" ] || fail "$3: $m of $n $1* series match $2"
    ok "$3 ($n series)"
}
# The labels each table's series must carry (the exporter sorts labels, so
# each one is checked on its own).
check_gpu_labels() {
    every_series_has primusGpu 'primusGpuPciBusId="[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]"' \
        "GPU series carry the PCI bus id"
    every_series_has primusGpu 'primusGpuUuid="' "GPU series carry the UUID label"
    ! grep -q 'primusGpuIndex=' "$OUT" || fail "a GPU series still carries the integer primusGpuIndex"
    ok "no GPU series carries the integer index"
}
# primusRoceCongTable's objects (primusRoce* also names the lossless-RoCE
# objects, which are indexed by interface).
ROCE_CONG='primusRoce(Np|Rp|OutOf|Packet|LocalAck|RnrNak|ImpliedNak|Duplicate|Adp|SlowRestart|RxIcrc)'
ROCE_CONFIG='primusRoce(Lossless|DcbError|Pfc|Ets|Trust|Dscp|Ecn|Cnp|DefaultTos|Rdma|Lldp(Sys|Chassis|Port|Mgmt|Pvid|Pfc|Age))'
check_rdma_labels() {
    local p
    for p in primusRdma primusIbPort "$ROCE_CONG" primusHwCounter; do
        grep -qE "^$p[A-Za-z0-9]*(_info)?\{" "$OUT" || continue
        every_series_has "$p" 'primusRdmaDeviceName="[a-z][a-z0-9_]*"' "$p* series carry the RDMA device name"
    done
    for p in primusIbPort "$ROCE_CONG"; do
        grep -qE "^$p[A-Za-z0-9]*(_info)?\{" "$OUT" || continue
        every_series_has "$p" 'primusIbPortNumber="[0-9]+"' "$p* series carry the port number"
        every_series_has "$p" 'primusIbPortNetdev="' "$p* series carry the netdev"
    done
    if grep -qE "^$ROCE_CONFIG[A-Za-z0-9]*(_info)?\{" "$OUT"; then
        every_series_has "$ROCE_CONFIG" 'primusPfcIfName="[A-Za-z0-9_.-]+"' \
            "primusRoceConfigTable series carry the interface"
    fi
    if grep -q '^primusHwCounter' "$OUT"; then
        every_series_has primusHwCounter 'primusHwCounterPort="[0-9]+"' "hw counter series carry the port"
        every_series_has primusHwCounter 'primusHwCounterName="[A-Za-z0-9_]+"' \
            "hw counter series carry the counter name"
    fi
}
check_container_labels() {
    local l
    for l in primusContainerId primusContainerName primusContainerPodName primusContainerPodNamespace; do
        every_series_has primusContainer "$l=\"" "container series carry $l"
    done
    if grep -q '^primusPodStorage' "$OUT"; then
        every_series_has primusPodStorage 'primusPodUid="[^"]+"' "pod storage series carry the pod UID"
        every_series_has primusPodStorage 'primusPodName="' "pod storage series carry the pod name"
        every_series_has primusPodStorage 'primusPodNamespace="' "pod storage series carry the namespace"
    fi
}

# What the agent serves of them here.
served() { grep -q "^$1\." "$WORK/walk.txt"; }
not_served=""
not_yet() { # TABLE WHAT
    case " ${PNA_REQUIRE_TABLES:-} " in
        *" $1 "*) fail "$2 not served by the agent, but PNA_REQUIRE_TABLES names '$1'";;
    esac
    not_served="$not_served $1"
    echo "note - $2: not served by the agent (yet); its labels are checked on synthetic rows only"
}
if served "$OBJ.5.10"; then check_gpu_labels; else not_yet gpu primusGpuTable; fi
if served "$OBJ.6.10"; then
    check_rdma_labels
    # One value against the fixture file itself: the kernel counts
    # port_rcv_data in 4-octet words, the MIB in octets.
    words=$(cat "$SYSFS/class/infiniband/mlx4_0/ports/1/counters/port_rcv_data" 2>/dev/null)
    if [ -n "$words" ]; then
        got=$(grep -E '^primusIbPortRcvData\{' "$OUT" | grep 'primusRdmaDeviceName="mlx4_0"' |
              grep 'primusIbPortNumber="1"' | awk '{print $NF}')
        num_eq "$got" $((words * 4)) ||
            fail "primusIbPortRcvData of mlx4_0/1 = '$got', want 4 x $words from the fixture"
        ok "primusIbPortRcvData{mlx4_0, port 1} = 4 x port_rcv_data of the fixture ($((words * 4)))"
    fi
else
    not_yet ib "primusRdmaDeviceTable/primusIbPortTable"
fi
if served "$OBJ.8.10"; then
    check_container_labels
    want="primusContainerId=\"$CTR_ID\",primusContainerName=\"$CTR_NAME\",primusContainerPodName=\"$POD_NAME\",primusContainerPodNamespace=\"$POD_NS\""
    grep -q "^primusContainerState{$want}" "$OUT" ||
        fail "no primusContainerState{$want}: $(series primusContainerState | head -3)"
    ok "the fixture container's series: $want"
else
    not_yet container primusContainerTable
fi

# ---- the same lookups on synthetic rows ---------------------------------------------
# A second snmpd serves hand-written rows of every table with a lookup
# ("override" lines: values of the right shape, no agent involved), so the
# lookups of snmp.yml are proven on this exporter version whether or not the
# agent's collectors serve rows on this machine.  Counter64 cannot be
# overridden: counters are Counter32 here (the exporter treats both alike).
str_oid() { # TEXT -> length.char.char... (a non-IMPLIED string index)
    printf '%s' "$1" | od -An -tu1 -v | tr -s ' \n' '..' | sed "s/^\.*/${#1}./; s/\.*$//"
}
FIX_PORT=$(free_port)
G1=6400 G2=49408                                  # 0000:19:00.0, 0000:c1:00.0
DEV=$(str_oid mlx5_0) NAMEIDX=$(str_oid out_of_sequence)
CID=$(str_oid "$CTR_ID") DEVPATH=$(str_oid /dev/dri/renderD128) PUID=$(str_oid "$POD_UID")
{
    echo "agentAddress udp:127.0.0.1:$FIX_PORT"
    echo "rocommunity public 127.0.0.1"
    o="override $OBJ"
    echo "$o.5.1.0 unsigned 2"
    for g in "$G1 GPU-6a1b2c3d-0000-1111-2222-333344445555 0000:19:00.0 41" \
             "$G2 GPU-7f8e9d0c-aaaa-bbbb-cccc-ddddeeeeffff 0000:c1:00.0 55"; do
        set -- $g
        echo "$o.5.10.1.2.$1 integer 1"
        echo "$o.5.10.1.4.$1 octet_str \"NVIDIA H100 80GB HBM3\""
        echo "$o.5.10.1.5.$1 octet_str \"$2\""
        echo "$o.5.10.1.7.$1 octet_str \"$3\""
        echo "$o.5.10.1.22.$1 unsigned 4000000000"
        echo "$o.5.10.1.25.$1 integer $4"
        echo "$o.5.10.1.31.$1 counter 123456"
        echo "$o.5.10.1.48.$1 octet_str \"$CTR_ID\""
    done
    echo "$o.6.1.0 unsigned 1"
    echo "$o.6.10.1.3.$DEV octet_str \"28.39.1002\""
    echo "$o.6.10.1.8.$DEV unsigned 1"
    echo "$o.6.20.1.2.$DEV.1 integer 2"
    echo "$o.6.20.1.3.$DEV.1 integer 4"
    echo "$o.6.20.1.13.$DEV.1 octet_str \"ens1f0np0\""
    echo "$o.6.20.1.20.$DEV.1 counter 4096"
    echo "$o.6.20.1.52.$DEV.1 unsigned 1000"
    echo "$o.6.30.1.2.$DEV.1 counter 17"
    echo "$o.6.40.1.3.$DEV.1.$NAMEIDX counter 9"
    echo "$o.6.40.1.4.$DEV.1.$NAMEIDX integer 1"
    echo "$o.8.1.0 unsigned 1"
    echo "$o.8.10.1.2.$CID integer 1"
    echo "$o.8.10.1.3.$CID octet_str \"$CTR_NAME\""
    echo "$o.8.10.1.4.$CID octet_str \"$POD_NAME\""
    echo "$o.8.10.1.5.$CID octet_str \"$POD_NS\""
    echo "$o.8.10.1.8.$CID integer 2"
    echo "$o.8.10.1.11.$CID unsigned 65536"
    echo "$o.8.20.1.2.$CID.$DEVPATH integer 1"
    echo "$o.8.20.1.5.$CID.$DEVPATH unsigned $G1"
    echo "$o.9.10.1.2.$PUID octet_str \"$POD_NAME\""
    echo "$o.9.10.1.3.$PUID octet_str \"$POD_NS\""
    echo "$o.9.10.1.4.$PUID unsigned 1048576"
} > "$WORK/fixture-snmpd.conf"
mkdir -p "$WORK/fixture-persist"
SNMP_PERSISTENT_DIR="$WORK/fixture-persist" snmpd -f -Lf "$WORK/fixture-snmpd.log" -C \
    -c "$WORK/fixture-snmpd.conf" -I -smux -p "$WORK/fixture-snmpd.pid" &
PIDS+=("$!")
wait_for "fixture snmpd" snmpget -v2c -c public -t 0.5 -r 0 "127.0.0.1:$FIX_PORT" "$OBJ.5.1.0"
grep -qi 'error' "$WORK/fixture-snmpd.log" && fail "fixture snmpd: $(grep -i error "$WORK/fixture-snmpd.log")"
AGENT_OUT=$OUT
OUT="$WORK/scrape-fixture.txt"
curl -fsS -o "$OUT" "http://127.0.0.1:$HTTP_PORT/snmp?target=127.0.0.1:$FIX_PORT&module=primus_node" ||
    fail "scrape of the fixture snmpd failed"
check_gpu_labels
check_rdma_labels
check_container_labels
expect_value "primusGpuTemperature{primusGpuPciBusId=\"0000:19:00.0\",primusGpuUuid=\"GPU-6a1b2c3d-0000-1111-2222-333344445555\"}" 41 \
    "GPU row by PCI bus id and UUID"
expect_value "primusGpuTemperature{primusGpuPciBusId=\"0000:c1:00.0\",primusGpuUuid=\"GPU-7f8e9d0c-aaaa-bbbb-cccc-ddddeeeeffff\"}" 55 \
    "second GPU row"
expect_value "primusGpuVendor_info{primusGpuPciBusId=\"0000:19:00.0\",primusGpuUuid=\"GPU-6a1b2c3d-0000-1111-2222-333344445555\",primusGpuVendor=\"nvidia\"}" 1 \
    "GPU vendor as info"
expect_type primusGpuMemTotal gauge
expect_type primusGpuEnergy counter
expect_value 'primusIbPortState{primusIbPortNetdev="ens1f0np0",primusIbPortNumber="1",primusIbPortState="active",primusRdmaDeviceName="mlx5_0"}' 1 \
    "IB port state set with device, port and netdev"
expect_value 'primusIbPortLinkLayer_info{primusIbPortLinkLayer="ethernet",primusIbPortNetdev="ens1f0np0",primusIbPortNumber="1",primusRdmaDeviceName="mlx5_0"}' 1 \
    "IB link layer as info"
expect_value 'primusRoceNpCnpSent{primusIbPortNetdev="ens1f0np0",primusIbPortNumber="1",primusRdmaDeviceName="mlx5_0"}' 17 \
    "RoCE congestion row with netdev"
expect_value 'primusHwCounterValue{primusHwCounterName="out_of_sequence",primusHwCounterPort="1",primusRdmaDeviceName="mlx5_0"}' 9 \
    "hw counter by device, port and name"
expect_type primusIbPortRxBytesPerSec gauge
want="primusContainerId=\"$CTR_ID\",primusContainerName=\"$CTR_NAME\",primusContainerPodName=\"$POD_NAME\",primusContainerPodNamespace=\"$POD_NS\""
expect_value "primusContainerState{$want}" 2 "container row with name, pod and namespace"
expect_value "primusContainerDeviceGpu{primusContainerDevicePath=\"/dev/dri/renderD128\",$want}" "$G1" \
    "container-device row carries the container's names"
expect_value "primusPodStorageUsed{primusPodName=\"$POD_NAME\",primusPodNamespace=\"$POD_NS\",primusPodUid=\"$POD_UID\"}" 1048576 \
    "pod storage row by UID with name and namespace"
expect_type primusPodStorageUsed gauge
OUT=$AGENT_OUT

# ---- SNMPv3 module ---------------------------------------------------------------
OUT3="$WORK/scrape-v3.txt"
scrape primus_node_v3 "$OUT3"
got=$(awk '$1 == "primusCpuThreads" { print $2 }' "$OUT3")
[ "$got" = "$threads" ] || fail "v3 module: primusCpuThreads = '$got', want $threads"
ok "module primus_node_v3 (authPriv SHA-256/AES) scrapes: primusCpuThreads = $got"

[ -z "$not_served" ] || echo "note - tables not served yet:$not_served"
exit 0
