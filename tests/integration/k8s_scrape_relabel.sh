#!/bin/bash
# k8s_scrape_relabel.sh -- the scrape kit's relabelling, proven with a real
# Prometheus (Debian's) scraping a real agent.  Debian's Prometheus is built
# without Kubernetes discovery, so the targets come from file_sd, carrying the
# __meta_kubernetes_* labels Kubernetes pod and endpoints discovery would give
# an agent pod (pod primus-node-agent-x7k2p in namespace primus-monitoring,
# container agent, port http, on node gpu-node-7).  Four scrape jobs:
#   - etc/kubernetes/prometheus-operator/podmonitor/podmonitor.yaml and
#     .../servicemonitor/servicemonitor.yaml, each turned into the job
#     Prometheus Operator generates from it (operator_scrape_config.py: its
#     own relabel rules first, then the monitor's);
#   - etc/kubernetes/prometheus/scrape-config.yaml as shipped, with file_sd
#     in place of its kubernetes_sd_configs;
#   - a control: the PodMonitor's job without the monitor's relabelings,
#     which is what Prometheus Operator does with a bare PodMonitor.
# The agent runs on fixture trees: the containerd task "trainer" of pod ml/llm-0
# (containers_lib.sh), and one Slurm job, 42, in a cgroup v2 tree built here
# from the layout slurmstepd makes (docs/slurm.md; no capture of a Slurm tree).
# Checked in what Prometheus stored: the kit's three jobs keep the workload's
# pod, namespace and container and have no exported_pod, exported_namespace
# or exported_container series at all, the Slurm job id is exported_job
# (what the Grafana dashboards read) and job the scrape job's name, and node
# names the node; the control has exported_pod (so the check can fail).
. "$(dirname "$0")/http_lib.sh"
. "$(dirname "$0")/containers_lib.sh"
need_fake_nvml
command -v prometheus >/dev/null || skip "prometheus not installed (Debian: prometheus)"
command -v promtool >/dev/null || skip "promtool not installed (Debian: prometheus)"
command -v jq >/dev/null || skip "jq not installed (Debian: jq)"
PY=/usr/bin/python3
"$PY" -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"
K8S="$top_srcdir/etc/kubernetes"
PODMON="$K8S/prometheus-operator/podmonitor/podmonitor.yaml"
SVCMON="$K8S/prometheus-operator/servicemonitor/servicemonitor.yaml"
PLAIN="$K8S/prometheus/scrape-config.yaml"
GEN="$top_srcdir/tests/integration/operator_scrape_config.py"

# ---- the agent -----------------------------------------------------------------
fixture_node_trees
JOBDIR="$S/fs/cgroup/system.slice/slurmstepd.scope/job_42/step_0/user/task_0"
mkdir -p "$JOBDIR" "$P/5151"
echo 5151 > "$JOBDIR/cgroup.procs"
echo "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0" > "$P/5151/cgroup"
cat > "$WORK/agent.conf" <<CONF
nvmlLibrary $FAKE_NVML
pollInterval containers 1
pollInterval slurm 1
CONF
start_snmpd
start_http_agent --rootfs "$R" --sysfs "$S" --procfs "$P" --devfs "$D"
wait_http
served() { curl -s "$HTTP_BASE/metrics" >"$WORK/metrics.txt" &&
    grep -q '^primus_container_info{.*pod="llm-0"' "$WORK/metrics.txt" &&
    grep -q '^primus_slurm_job_info{.*job="42"' "$WORK/metrics.txt"; }
wait_until 30 served || fail "the agent does not serve the container and the Slurm job: $(grep -E '^primus_(container|slurm_job)_info' "$WORK/metrics.txt")"
ok "the agent serves $(grep -E '^primus_container_info' "$WORK/metrics.txt" | head -1 | sed 's/ .*//') and job 42"

# ---- the scrape jobs ------------------------------------------------------------------
ADDR="127.0.0.1:$HTTP_PORT"
cat > "$WORK/targets.json" <<JSON
[{"targets": ["$ADDR"],
  "labels": {"__meta_kubernetes_namespace": "primus-monitoring",
             "__meta_kubernetes_pod_name": "primus-node-agent-x7k2p",
             "__meta_kubernetes_pod_container_name": "agent",
             "__meta_kubernetes_pod_container_port_name": "http",
             "__meta_kubernetes_pod_node_name": "gpu-node-7",
             "__meta_kubernetes_pod_phase": "Running",
             "__meta_kubernetes_pod_label_app_kubernetes_io_name": "primus-node-agent",
             "__meta_kubernetes_pod_labelpresent_app_kubernetes_io_name": "true",
             "__meta_kubernetes_service_name": "primus-node-agent",
             "__meta_kubernetes_service_label_app_kubernetes_io_name": "primus-node-agent",
             "__meta_kubernetes_service_labelpresent_app_kubernetes_io_name": "true",
             "__meta_kubernetes_endpoint_port_name": "http"}}]
JSON
"$PY" - "$WORK/targets.json" "$PODMON" "$SVCMON" "$PLAIN" "$GEN" >"$WORK/prometheus.yml" <<'PYEOF' || fail "could not write prometheus.yml"
import copy, subprocess, sys, yaml
targets, podmon, svcmon, plain, gen = sys.argv[1:6]
def operator_jobs(path):
    return yaml.safe_load(subprocess.run([sys.executable, gen, targets, path], check=True,
                                         capture_output=True, text=True).stdout)
jobs = operator_jobs(podmon) + operator_jobs(svcmon)
with open(plain) as fh:
    for job in yaml.safe_load(fh)["scrape_configs"]:
        del job["kubernetes_sd_configs"]
        # its own job name: the ServiceMonitor's job label is the Service's
        # name, which is this job's name too
        job["job_name"] += "-sd"
        job["file_sd_configs"] = [{"files": [targets], "refresh_interval": "5s"}]
        jobs.append(job)
# the control: the PodMonitor without its relabelings
with open(podmon) as fh:
    bare = yaml.safe_load(fh)
bare["metadata"]["name"] = "bare"
for ep in bare["spec"]["podMetricsEndpoints"]:
    ep.pop("relabelings", None)
with open(sys.argv[1] + ".bare.yaml", "w") as fh:
    yaml.safe_dump(bare, fh)
jobs += operator_jobs(sys.argv[1] + ".bare.yaml")
for job in jobs:
    job["scrape_interval"] = "2s"
    job["scrape_timeout"] = "2s"
print(yaml.safe_dump({"global": {"scrape_interval": "2s"}, "scrape_configs": jobs}, sort_keys=False))
PYEOF
promtool check config "$WORK/prometheus.yml" >"$WORK/promtool.out" 2>&1 ||
    { cat "$WORK/promtool.out"; fail "promtool rejects the generated configuration"; }
JOB_POD=primus-monitoring/primus-node-agent
JOB_SVC=primus-node-agent
JOB_PLAIN=primus-node-agent-sd
JOB_BARE=primus-monitoring/bare
ok "prometheus.yml: $(grep -c '^- job_name:' "$WORK/prometheus.yml") jobs, whose job labels are $JOB_POD, $JOB_SVC, $JOB_PLAIN and the control $JOB_BARE; promtool: ok"

PPORT=$(free_tcp_port)
start_prometheus "$WORK/prometheus.yml" "$PPORT"
# result EXPR: the instant query's result, one JSON object a line.
result() { query "$1" | jq -c '.data.result[]'; }
scraped() { [ "$(result 'count(up == 1)' | jq -r '.value[1]')" = 4 ] &&
    [ "$(result 'count(count by (job) (primus_slurm_job_info))' | jq -r '.value[1]')" = 4 ] &&
    [ "$(result 'count(count by (job) (primus_container_info))' | jq -r '.value[1]')" = 4 ]; }
wait_until 90 scraped || fail "Prometheus has not scraped the four jobs: $(curl -s "$PROM/api/v1/targets" | jq -c '.data.activeTargets[] | {labels, health, lastError}')"
ok "Prometheus scraped the agent through the four jobs"

# labels JOB METRIC: METRIC's stored label sets of JOB (sorted JSON, without __name__).
labels() { result "$2{job=\"$1\"}" | jq -c '.metric | del(.__name__)' | sort; }
for job in "$JOB_POD" "$JOB_SVC" "$JOB_PLAIN"; do
    ctr=$(labels "$job" primus_container_info | grep '"pod":"llm-0"') ||
        fail "$job: no primus_container_info with pod llm-0: $(labels "$job" primus_container_info)"
    for kv in '"namespace":"ml"' '"container":"trainer"' '"node":"gpu-node-7"'; do
        grep -qF "$kv" <<<"$ctr" || fail "$job: primus_container_info lacks $kv: $ctr"
    done
    grep -q '"exported_' <<<"$ctr" && fail "$job: $ctr"
    for l in exported_pod exported_namespace exported_container; do
        n=$(result "count({job=\"$job\", $l!=\"\"})" | jq -r '.value[1]')
        [ -z "$n" ] || fail "$job: $n series with $l"
    done
    sj=$(labels "$job" primus_slurm_job_info)
    grep -qF '"exported_job":"42"' <<<"$sj" || fail "$job: primus_slurm_job_info has no exported_job 42: $sj"
    self=$(labels "$job" primus_agent_info)
    grep -q '"pod":' <<<"$self" && fail "$job: the agent's own series carry a pod label: $self"
    ok "$job: the workload's pod/namespace/container kept (no exported_pod, exported_namespace, exported_container anywhere); Slurm job 42 as exported_job, job=$job, node gpu-node-7"
done
ctr=$(labels "$JOB_BARE" primus_container_info | grep '"exported_pod":"llm-0"') ||
    fail "control $JOB_BARE: no exported_pod llm-0 (the check above could not fail): $(labels "$JOB_BARE" primus_container_info)"
grep -qF '"pod":"primus-node-agent-x7k2p"' <<<"$ctr" || fail "control $JOB_BARE: pod is not the agent's: $ctr"
ok "control: the bare PodMonitor stores exported_pod=\"llm-0\" and pod=\"primus-node-agent-x7k2p\""
echo "PASS: $TEST_NAME"
