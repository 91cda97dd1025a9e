#!/bin/bash
# prometheus_compat.sh -- `prometheusCompat dcgm amd` end to end.  The agent
# reads three NVIDIA GPUs from the test NVML library (nvidia-smi XML files),
# an RX 6900 XT from the amdgpu sysfs fixture, and containerd bundles in
# which pods hold one GPU of each vendor.  Checked on its /metrics:
#   - the compat families' label sets are the exporters' (dcgm-exporter's from
#     a real capture, datadog-tesla-t4-metrics.prom; AMD's from metrics_mini.prom
#     in the lower case its current releases write), with pod labels for held
#     GPUs, and dcgm-exporter's TYPE and HELP for every family that capture has;
#   - values equal the primus families after the unit change, and the XML files
#     and sysfs files read here independently (xmllint, cat);
#   - promtool check metrics finds nothing in them but what the exporters' own
#     names trip;
#   - a real Prometheus scrapes the agent and every query of NVIDIA's
#     dcgm-exporter dashboard (variables as Grafana substitutes them: ".*", then
#     each value its variable query finds) evaluates and returns data, but for
#     the queries on a metric whose descriptor the model does not have
#     (pending below, none now; the test fails once the descriptor appears in
#     --list-metrics, so that the mapping is checked then);
#   - without the token, none of these names is served.
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
need_fake_nvml
for tool in xmllint jq python3 promtool; do
    command -v $tool >/dev/null || skip "$tool not installed"
done
DCGM_FIX="$PNA_FIXTURES/dcgm-exporter"
AMD_FIX="$PNA_FIXTURES/amd-device-metrics-exporter"
DASHBOARD="$DCGM_FIX/dcgm-exporter-dashboard.json"

# Dashboard metrics whose descriptor is planned but not in the model yet:
# "METRIC DESCRIPTOR reason", one per line.
PENDING=""
"$PNA_AGENT" --list-metrics > "$WORK/catalogue.txt" || fail "--list-metrics failed"
while read -r metric object reason; do
    [ -n "$metric" ] || continue
    awk -F'\t' -v o="$object" '$2 == o { found = 1 } END { exit !found }' "$WORK/catalogue.txt" &&
        fail "$object is in the model now: map it to $metric (src/http/render/compat_dcgm.c), drop its pending mark and remove it from PENDING here"
    ok "pending: $metric ($object: $reason)"
done <<< "$PENDING"

# ---- the node: GPUs of both vendors, pods holding one of each -------------------------
S="$WORK/sys" P="$WORK/proc" D="$WORK/dev" R="$WORK/root"
TASKS="$R/run/containerd/io.containerd.runtime.v2.task"
mkdir -p "$P" "$D/dri/by-path" "$TASKS/k8s.io" "$R/var/lib/kubelet"
fake_procfs "$P"
cp -r "$PNA_FIXTURES/amdgpu-sysfs/lact-rx6900xt/sys" "$S"
chmod -R u+w "$S"
AMD_DEV="$S/class/drm/card0/device"
mkdir -p "$S/class/drm/renderD128"
ln -s ../card0/device "$S/class/drm/renderD128/device"
AMD_PCI=$(sed -n 's/^PCI_SLOT_NAME=//p' "$AMD_DEV/uevent")
ln -s ../card0 "$D/dri/by-path/pci-$AMD_PCI-card"
ln -s ../renderD128 "$D/dri/by-path/pci-$AMD_PCI-render"

XMLS=(h100-nvidia-smi-q-x.xml tesla-t4-nvidia-smi-q-x.xml a100-sxm4-80gb-nvidia-smi-q-x.xml)
list=""
for x in "${XMLS[@]}"; do list="$list${list:+:}$PNA_FIXTURES/nvidia/$x"; done
export PNA_FAKE_NVML_XML="$list" PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
xp() { xmllint --xpath "string(/nvidia_smi_log/gpu[1]/$2)" "$PNA_FIXTURES/nvidia/$1" 2>/dev/null; }
# The H100's energy counter (its XML has none), so the mJ conversion is seen.
H100_BUS=$(xmllint --xpath 'string(/nvidia_smi_log/gpu[1]/@id)' "$PNA_FIXTURES/nvidia/${XMLS[0]}")
# and its GPU performance monitoring (no capture exists: values made up,
# each distinct) for the DCGM_FI_PROF_* names and the dashboard's tensor panel.
{
    echo "set $H100_BUS energy_mj 123456789012"
    for m in 1:71.5 2:62.25 3:33.75 5:48.5 10:27.25 11:1.5 12:18.75 13:9.25 20:640 21:320; do
        echo "gpm $H100_BUS ${m%%:*} ${m##*:}"
    done
} > "$PNA_FAKE_NVML_CTL"
# The driver's procfs file gives the H100's minor number to the holder join.
H100_MINOR=$(xp "${XMLS[0]}" minor_number)
IFS=':.' read -r dom bus dev fn <<< "$H100_BUS"
NV_PCI=$(printf '%04x:%02x:%02x.%x' $((0x$dom)) $((0x$bus)) $((0x$dev)) $((0x$fn)))
mkdir -p "$P/driver/nvidia/gpus/$NV_PCI"
printf 'Model: \t\t NVIDIA H100\nDevice Minor: \t %s\n' "$H100_MINOR" > "$P/driver/nvidia/gpus/$NV_PCI/information"

cri_bundle "$(printf 't%063d' 1)" trainer llm-0 ml "$(devnode /dev/dri/renderD128 226 128),$(devnode /dev/kfd 235 0)"
cri_bundle "$(printf 'c%063d' 2)" cuda infer-0 serve "$(devnode "/dev/nvidia$H100_MINOR" 195 "$H100_MINOR")"

write_conf() {  # [prometheusCompat words]
    {
        echo "nvmlLibrary $FAKE_NVML"
        echo "nvidiaSmi $WORK/no-nvidia-smi"
        echo "pollInterval gpu 1"
        echo "pollInterval containers 1"
        [ $# -eq 0 ] || echo "prometheusCompat $*"
    } > "$WORK/agent.conf"
}
write_conf amd dcgm
start_snmpd
start_http_agent --sysfs "$S" --procfs "$P" --devfs "$D" --rootfs "$R"
wait_agent
wait_http
served() { curl -s --max-time 5 "$HTTP_BASE/metrics" > "$WORK/poll.txt" &&
           grep -q '^DCGM_FI_DEV_GPU_TEMP{.*pod="infer-0"' "$WORK/poll.txt" &&
           grep -q '^gpu_edge_temperature{.*pod="llm-0"' "$WORK/poll.txt" &&
           grep -q "^DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" "$WORK/poll.txt" &&
           grep -q "^DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{" "$WORK/poll.txt"; }  # the second GPU poll
wait_until 40 served || fail "compat families with pod labels not served: $(grep -E '^(DCGM_FI_DEV_GPU_TEMP|gpu_edge)' "$WORK/poll.txt")"
http_body /metrics > "$WORK/metrics.txt"

# samples FILE: one line per sample, "NAME<TAB>label=value,...<TAB>VALUE" (labels
# in the order written, values unescaped enough for the fixtures).
samples() {
    python3 - "$1" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    m = re.match(r'([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})? (\S+)$', line)
    if not m:
        print("UNPARSED\t\t" + line); continue
    labels = re.findall(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or "")
    print("%s\t%s\t%s" % (m.group(1), ",".join("%s=%s" % l for l in labels), m.group(4)))
PY
}
samples "$WORK/metrics.txt" > "$WORK/samples.tsv"
grep -q '^UNPARSED' "$WORK/samples.tsv" && fail "unparsed lines: $(grep '^UNPARSED' "$WORK/samples.tsv" | head -3)"
names_of() { cut -f2 | tr ',' '\n' | sed 's/=.*//' | tr '\n' ',' | sed 's/,$//'; }
COMPAT_RE='^(DCGM_FI_|gpu_(gfx_activity|umc_activity|edge_temperature|junction_temperature|memory_temperature|power_usage|energy_consumed|clock|total_vram|used_vram|free_vram|ecc_correct_total|ecc_uncorrect_total|nodes_total|violation_[a-z_]+)|pcie_replay_count|pcie_bandwidth)'
grep -E "$COMPAT_RE" "$WORK/samples.tsv" > "$WORK/compat.tsv"
ok "$(cut -f1 "$WORK/compat.tsv" | sort -u | wc -l) compat families, $(wc -l < "$WORK/compat.tsv") samples"

# ---- label sets -------------------------------------------------------------------------
# dcgm-exporter's, from the capture: its first host's set without
# DCGM_FI_PROCESS_NAME (a label old releases took from their own process,
# not in the current default counters) and with pci_bus_id after UUID (added
# by dcgm-exporter 3.3.7, NVIDIA/dcgm-exporter#326).
samples "$DCGM_FIX/datadog-tesla-t4-metrics.prom" > "$WORK/dcgm-fixture.tsv"
fixture_set=$(grep -m1 '^DCGM_FI_DEV_GPU_TEMP' "$WORK/dcgm-fixture.tsv" | names_of)
want_dcgm=$(echo "$fixture_set" | sed -e 's/,DCGM_FI_PROCESS_NAME//' -e 's/UUID,/UUID,pci_bus_id,/')
[ "$want_dcgm" = "gpu,UUID,pci_bus_id,device,modelName,Hostname,DCGM_FI_DRIVER_VERSION" ] ||
    fail "unexpected label set read from the capture: $want_dcgm"
while IFS=$'\t' read -r name labels value; do
    set_=$(printf '%s\t%s\n' "$name" "$labels" | names_of)
    case "$labels" in
        *pod=*) want="$want_dcgm,container,namespace,pod" ;;
        *) want=$want_dcgm ;;
    esac
    [ "$set_" = "$want" ] || fail "$name{$labels}: labels $set_, dcgm-exporter's are $want"
done < <(grep '^DCGM_FI_' "$WORK/compat.tsv")
grep '^DCGM_FI_' "$WORK/compat.tsv" | grep -q 'pod=infer-0' || fail "no DCGM series of the held H100 has pod labels"
grep '^DCGM_FI_' "$WORK/compat.tsv" | grep 'pod=infer-0' | grep -q 'container=cuda,namespace=serve' ||
    fail "the held H100's container/namespace labels: $(grep 'pod=infer-0' "$WORK/compat.tsv" | head -1)"
grep '^DCGM_FI_DEV_GPU_TEMP' "$WORK/compat.tsv" | grep -qE 'pci_bus_id=[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-9A-F],device=nvidia[0-9]+,' ||
    fail "pci_bus_id or device not spelled as NVML and dcgm-exporter do: $(grep -m1 '^DCGM_FI_DEV_GPU_TEMP' "$WORK/compat.tsv")"
ok "every DCGM_FI_* series has dcgm-exporter's labels: $want_dcgm (+ container,namespace,pod when a pod holds the GPU)"

# TYPE and HELP of every family the capture has (its first host's texts).
for name in $(grep '^DCGM_FI_' "$WORK/compat.tsv" | cut -f1 | sort -u); do
    for what in TYPE HELP; do
        fx=$(grep -m1 "^# $what $name " "$DCGM_FIX/datadog-tesla-t4-metrics.prom")
        [ -n "$fx" ] || continue
        got=$(grep -m1 "^# $what $name " "$WORK/metrics.txt")
        [ "$got" = "$fx" ] || fail "$name: '$got', dcgm-exporter writes '$fx'"
    done
done
ok "TYPE and HELP as dcgm-exporter writes them, for every family its capture has"

# AMD's: metrics_mini.prom's labels (upper case in that old release) must be
# among ours, which are the current exporter's lower-case ones.
want_amd="card_model,card_series,driver_version,gpu_id,gpu_uuid,hostname,serial_number,vbios_version"
samples "$AMD_FIX/metrics_mini.prom" > "$WORK/amd-fixture.tsv"
for l in $(grep -m1 '^gpu_power_usage' "$WORK/amd-fixture.tsv" | names_of | tr 'A-Z,' 'a-z '); do
    case ",$want_amd," in *",$l,"*) ;; *) fail "AMD exporter label $l (metrics_mini.prom) not served" ;; esac
done
while IFS=$'\t' read -r name labels value; do
    set_=$(printf '%s\t%s\n' "$name" "$labels" | names_of | sed -E 's/^clock_index,clock_type,//; s/,clock_index,clock_type//')
    [ "$name" = gpu_nodes_total ] && { [ "$set_" = hostname ] || fail "gpu_nodes_total labels: $set_"; continue; }
    case "$labels" in *pod=*) want="$want_amd,container,namespace,pod" ;; *) want=$want_amd ;; esac
    [ "$set_" = "$want" ] || fail "$name{$labels}: labels $set_, expected $want"
done < <(grep -vE '^DCGM_FI_' "$WORK/compat.tsv")
grep -q $'^gpu_edge_temperature\t.*container=trainer,namespace=ml,pod=llm-0' "$WORK/compat.tsv" ||
    fail "the AMD GPU's pod labels: $(grep '^gpu_edge_temperature' "$WORK/compat.tsv")"
for name in $(cut -f1 "$WORK/amd-fixture.tsv" | sort -u); do
    grep -q "^$name"$'\t' "$WORK/compat.tsv" && ok "AMD name of metrics_mini.prom served: $name"
done
ok "every AMD series has the exporter's labels: $want_amd (+ container,namespace,pod when held)"

# ---- values ----------------------------------------------------------------------------
# v NAME ID: the value of NAME for the GPU whose labels hold ID ("UUID=GPU-...").
v() { awk -F'\t' -v n="$1" -v id="$2" '$1 == n && index("," $2 ",", "," id ",") { print $3; exit }' "$WORK/samples.tsv"; }
same() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= 1e-6 * (b < 0 ? -b : b) + 1e-9) }'; }
COMPARED=0
expect() {  # WHAT GOT WANT: equal, or both absent (N/A in the XML: no sample)
    [ -z "$2$3" ] && return 0
    same "$2" "$3" || fail "$1: '$2', expected '$3'"
    COMPARED=$((COMPARED + 1))
}
num() { echo "$1" | sed -n 's/^\(-\{0,1\}[0-9][0-9.]*\).*/\1/p'; }
nvidia=0
for x in "${XMLS[@]}"; do
    uuid=$(xp "$x" uuid)
    id="UUID=$uuid" pid="uuid=$uuid"
    temp=$(v DCGM_FI_DEV_GPU_TEMP "$id")
    expect "DCGM_FI_DEV_GPU_TEMP of $x vs primus" "$temp" "$(v primus_gpu_temperature_celsius "$pid")"
    expect "DCGM_FI_DEV_GPU_TEMP of $x vs XML" "$temp" "$(num "$(xp "$x" temperature/gpu_temp)")"
    used=$(v DCGM_FI_DEV_FB_USED "$id")
    expect "DCGM_FI_DEV_FB_USED of $x vs primus" "$used" "$(awk -v b="$(v primus_gpu_memory_used_bytes "$pid")" 'BEGIN { printf "%d", b / 1048576 }')"
    expect "DCGM_FI_DEV_FB_USED of $x vs XML" "$used" "$(num "$(xp "$x" fb_memory_usage/used)")"
    free=$(v DCGM_FI_DEV_FB_FREE "$id")
    expect "DCGM_FI_DEV_FB_FREE of $x vs XML" "$free" "$(num "$(xp "$x" fb_memory_usage/free)")"
    power=$(v DCGM_FI_DEV_POWER_USAGE "$id")
    xml_power=$(num "$(xp "$x" power_readings/power_draw)")
    [ -n "$xml_power" ] || xml_power=$(num "$(xp "$x" gpu_power_readings/power_draw)")
    [ -n "$xml_power" ] || xml_power=$(num "$(xp "$x" gpu_power_readings/average_power_draw)")
    expect "DCGM_FI_DEV_POWER_USAGE of $x vs primus" "$power" "$(v primus_gpu_power_watts "$pid")"
    expect "DCGM_FI_DEV_POWER_USAGE of $x vs XML" "$power" "$xml_power"
    sm=$(v DCGM_FI_DEV_SM_CLOCK "$id")
    expect "DCGM_FI_DEV_SM_CLOCK of $x vs primus" "$sm" "$(awk -v h="$(v primus_gpu_sm_clock_hertz "$pid")" 'BEGIN { print h / 1e6 }')"
    expect "DCGM_FI_DEV_SM_CLOCK of $x vs XML" "$sm" "$(num "$(xp "$x" clocks/sm_clock)")"
    util=$(v DCGM_FI_DEV_GPU_UTIL "$id")
    expect "DCGM_FI_DEV_GPU_UTIL of $x vs XML" "$util" "$(num "$(xp "$x" utilization/gpu_util)")"
    model=$(awk -F'\t' -v id="$id" '$1 == "DCGM_FI_DEV_GPU_TEMP" && index("," $2 ",", "," id ",") { print $2 }' \
            "$WORK/samples.tsv" | sed -n 's/.*,modelName=\([^,]*\),.*/\1/p')
    [ "$model" = "$(xp "$x" product_name)" ] || fail "modelName of $x: '$model', the XML's product_name '$(xp "$x" product_name)'"
    nvidia=$((nvidia + 1))
done
energy=$(v DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION "UUID=$(xp "${XMLS[0]}" uuid)")
expect "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ)" "$energy" 123456789012
expect "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION vs primus" "$energy" \
    "$(awk -v j="$(v primus_gpu_energy_joules_total "uuid=$(xp "${XMLS[0]}" uuid)")" 'BEGIN { printf "%.0f", j * 1000 }')"
[ "$COMPARED" -ge 25 ] || fail "only $COMPARED NVIDIA values compared"
ok "$nvidia NVIDIA GPUs: temperature, FB used/free, power, SM clock, utilization, energy equal the primus families and the XML ($COMPARED values)"

AMD_UUID=$(awk -F'\t' '$1 == "gpu_edge_temperature" { print $2 }' "$WORK/samples.tsv" | sed -n 's/.*gpu_uuid=\([^,]*\).*/\1/p')
[ -n "$AMD_UUID" ] || fail "no gpu_uuid on gpu_edge_temperature"
id="gpu_uuid=$AMD_UUID" pid="uuid=$AMD_UUID"
HWMON=$(ls -d "$AMD_DEV"/hwmon/hwmon* | head -1)
edge=$(v gpu_edge_temperature "$id")
expect "gpu_edge_temperature vs primus" "$edge" "$(v primus_gpu_temperature_celsius "$pid")"
expect "gpu_edge_temperature vs sysfs" "$edge" "$(awk '{ print $1 / 1000 }' "$HWMON/temp1_input")"
expect "gpu_junction_temperature vs sysfs" "$(v gpu_junction_temperature "$id")" "$(awk '{ print $1 / 1000 }' "$HWMON/temp2_input")"
expect "gpu_used_vram vs sysfs" "$(v gpu_used_vram "$id")" "$(awk '{ printf "%d", $1 / 1048576 }' "$AMD_DEV/mem_info_vram_used")"
expect "gpu_total_vram vs sysfs" "$(v gpu_total_vram "$id")" "$(awk '{ printf "%d", $1 / 1048576 }' "$AMD_DEV/mem_info_vram_total")"
expect "gpu_power_usage vs primus" "$(v gpu_power_usage "$id")" "$(v primus_gpu_power_watts "$pid")"
expect "gpu_gfx_activity vs sysfs" "$(v gpu_gfx_activity "$id")" "$(cat "$AMD_DEV/gpu_busy_percent")"
expect "gpu_nodes_total" "$(awk -F'\t' '$1 == "gpu_nodes_total" { print $3 }' "$WORK/samples.tsv")" 1
ok "AMD GPU: edge/junction temperature, VRAM used/total, power, GFX activity equal the primus families and sysfs"

# ---- promtool ---------------------------------------------------------------------------
# The compat families alone (HELP/TYPE lines with their samples).
python3 - "$WORK/metrics.txt" "$COMPAT_RE" > "$WORK/compat.txt" <<'PY'
import re, sys
pat = re.compile(sys.argv[2])
for line in open(sys.argv[1]):
    name = line.split()[2] if line.startswith("# ") else re.split(r"[{ ]", line, 1)[0]
    if pat.match(name):
        sys.stdout.write(line)
PY
promtool check metrics < "$WORK/compat.txt" > "$WORK/promtool.log" 2>&1
# What the exporters' own names necessarily trip: dcgm-exporter's counters
# have no _total, its modelName label is camelCase, PCIE_REPLAY_COUNTER has
# "counter" in its name; AMD's gauges gpu_nodes_total and gpu_ecc_*_total end
# in _total, pcie_replay_count in _count, and
# gpu_violation_current_accumulated_counter names the type "counter".
grep -v -E '^DCGM_FI_[A-Z0-9_]+ counter metrics should have "_total" suffix$' "$WORK/promtool.log" |
    grep -v -E '^DCGM_FI_[A-Z0-9_]+ label names should be written in .snake_case. not .camelCase.$' |
    grep -v -E "^DCGM_FI_DEV_PCIE_REPLAY_COUNTER metric name should not include type 'counter'$" |
    grep -v -E '^gpu_(nodes_total|ecc_correct_total|ecc_uncorrect_total) non-counter metrics should not have "_total" suffix$' |
    grep -v -E '^pcie_replay_count non-histogram and non-summary metrics should not have "_count" suffix$' |
    grep -v -E "^gpu_violation_current_accumulated_counter metric name should not include type 'counter'$" |
    grep . > "$WORK/promtool-rest.log" && fail "promtool check metrics: $(cat "$WORK/promtool-rest.log")"
ok "promtool check metrics on the compat families: only what the exporters' own names trip: $(sort -u "$WORK/promtool.log" | sed -E 's/^([A-Za-z0-9_]+) (.*)$/\2: \1/' | sort | awk -F': ' '$1 != last { if (last != "") printf "; "; printf "%s: %s", $1, $2; last = $1; next } { printf ", %s", $2 }')"

# ---- NVIDIA's dashboard through a real Prometheus ------------------------------------------
if ! command -v prometheus >/dev/null; then
    ok "SKIP dashboard queries: prometheus not installed (Debian: prometheus)"
else
    PPORT=$(free_tcp_port)
    printf '%s\n' "global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}" \
        "scrape_configs:" "  - job_name: primus-node-agent" \
        "    static_configs: [{targets: ['127.0.0.1:$HTTP_PORT']}]" > "$WORK/prometheus.yml"
    start_prometheus "$WORK/prometheus.yml" "$PPORT"
    wait_until 40 sh -c "curl -s '$PROM/api/v1/query' --data-urlencode 'query=count(DCGM_FI_DEV_GPU_TEMP) == 3' | grep -q '\"result\":\\[{'" ||
        fail "Prometheus has no DCGM_FI_DEV_GPU_TEMP of 3 GPUs: $(query 'up')"
    # data EXPR: the query succeeds and returns at least one series (5 tries).
    data() {
        local answer tries=0
        while :; do
            answer=$(query "$1")
            echo "$answer" | jq -e '.status == "success"' >/dev/null ||
                fail "query failed: $1 -> $(echo "$answer" | jq -c '{errorType, error}')"
            echo "$answer" | jq -e '.data.result | length > 0' >/dev/null && return 0
            tries=$((tries + 1))
            [ $tries -lt 5 ] || return 1
            sleep 2
        done
    }
    pending_metric() { echo "$PENDING" | awk '{ print $1 }' | while read -r m; do case "$1" in *"$m"*) echo "$m" ;; esac; done; }
    # The variables: label_values(METRIC, LABEL) -> their values.
    jq -r '.templating.list[] | select(.type == "query") | "\(.name)\t\(.definition)"' "$DASHBOARD" > "$WORK/vars.tsv"
    declare -A VALUES
    while IFS=$'\t' read -r var def; do
        q=$(echo "$def" | sed -E 's/^label_values\((.*), *([A-Za-z_][A-Za-z0-9_]*)\)$/count by (\2) (\1)/')
        data "$q" || fail "variable \$$var: no value from $q"
        label=$(echo "$def" | sed -E 's/^label_values\(.*, *([A-Za-z_][A-Za-z0-9_]*)\)$/\1/')
        VALUES[$var]=$(query "$q" | jq -r --arg l "$label" '.data.result[].metric[$l]' | sort -u | tr '\n' ' ')
        ok "variable \$$var = ${VALUES[$var]}"
    done < "$WORK/vars.tsv"
    [ "$(echo "${VALUES[gpu]}" | wc -w)" = 3 ] || fail "\$gpu should list the three NVIDIA GPUs: ${VALUES[gpu]}"
    n=0 pend=0
    while IFS= read -r expr; do
        [ -n "$expr" ] || continue
        m=$(pending_metric "$expr")
        # as Grafana with "All" selected (".*"), then with each value of each variable
        # (VARIABLE<TAB>VALUE<TAB>QUERY; "-" for "All")
        variants="-"$'\t'"-"$'\t'"$(echo "$expr" | sed -E 's/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/.*/g')"
        for var in "${!VALUES[@]}"; do
            for val in ${VALUES[$var]}; do
                variants="$variants"$'\n'"$var"$'\t'"$val"$'\t'"$(echo "$expr" | sed -E -e "s/\\\$\\{?$var\\}?/$val/g" -e 's/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/.*/g')"
            done
        done
        while IFS=$'\t' read -r var val q; do
            answer=$(query "$q")
            echo "$answer" | jq -e '.status == "success"' >/dev/null ||
                fail "dashboard query does not evaluate: $q -> $(echo "$answer" | jq -c '{errorType, error}')"
            [ -z "$m" ] || continue
            # One GPU's query: data where that GPU has the metric (a value its
            # XML says N/A has no sample, as with dcgm-exporter).
            if [ "$var" = gpu ]; then
                name=$(echo "$q" | grep -oE 'DCGM_FI_[A-Z_]+' | head -1)
                if ! awk -F'\t' -v n="$name" -v g="gpu=$val" '$1 == n && index("," $2 ",", "," g ",") { f = 1 } END { exit !f }' "$WORK/compat.tsv"; then
                    ok "no data by design: GPU $val has no $name (N/A in its XML, or no GPU performance monitoring): $q"
                    continue
                fi
            fi
            data "$q" || fail "dashboard query returns no data: $q"
            n=$((n + 1))
        done <<< "$variants"
        [ -z "$m" ] || { pend=$((pend + 1)); ok "pending (evaluates, no data until $m is mapped): $expr"; }
    done < <(jq -r '.panels[] | .targets[]?.expr' "$DASHBOARD")
    [ "$n" -ge 20 ] || fail "only $n dashboard queries checked"
    ok "NVIDIA's dcgm-exporter dashboard: $n queries (\".*\" and every variable value) return data; $pend pending"
fi

# ---- without the token --------------------------------------------------------------------
stop_agent_now
write_conf
start_http_agent --sysfs "$S" --procfs "$P" --devfs "$D" --rootfs "$R"
wait_http
wait_until 30 sh -c "curl -s $HTTP_BASE/metrics | grep -q '^primus_gpu_temperature_celsius{'" ||
    fail "no GPU families after a restart without prometheusCompat"
http_body /metrics > "$WORK/metrics-off.txt"
samples "$WORK/metrics-off.txt" | grep -E "$COMPAT_RE" > "$WORK/compat-off.tsv"
[ ! -s "$WORK/compat-off.tsv" ] || fail "compat names served without prometheusCompat: $(cut -f1 "$WORK/compat-off.tsv" | sort -u | tr '\n' ' ')"
grep -q 'DCGM_' "$WORK/metrics-off.txt" && fail "a DCGM_ name without prometheusCompat"
ok "without prometheusCompat: no DCGM_ name, no AMD exporter name"
echo "PASS: $TEST_NAME"
