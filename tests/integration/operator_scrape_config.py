#!/usr/bin/env python3
"""operator_scrape_config.py -- the Prometheus scrape jobs that Prometheus
Operator generates from a PodMonitor or ServiceMonitor, with file_sd in place
of Kubernetes discovery, for tests/integration/k8s_scrape_relabel.sh.

Usage: operator_scrape_config.py TARGETS_FILE MONITOR.yaml...

Prints a YAML list of scrape_configs on stdout.  For each endpoint of each
monitor: the job name, honor_labels and the relabel_configs the Operator
writes ahead of the monitor's own (its generated order, as in its config
generator's tests: the selector's keep, the port's keep, the running-pod
filter, namespace / service / container / pod from the discovery labels,
job and endpoint), then the monitor's relabelings and metricRelabelings,
turned from the CRD's camelCase into Prometheus's names.  Only the fields
the kit uses are translated; any other field is an error, so that a monitor
that grows one cannot pass unchecked.
"""
import re
import sys

import yaml

ENDPOINT_FIELDS = {"port", "path", "interval", "scrapeTimeout", "honorLabels",
                   "relabelings", "metricRelabelings"}
RELABEL_FIELDS = {"action": "action", "sourceLabels": "source_labels",
                  "targetLabel": "target_label", "regex": "regex",
                  "replacement": "replacement", "separator": "separator"}


def sanitize(name):
    """A Kubernetes label name as Prometheus' discovery spells it."""
    return re.sub(r"[^a-zA-Z0-9_]", "_", name)


def relabel(rule):
    unknown = set(rule) - set(RELABEL_FIELDS)
    if unknown:
        sys.exit("relabeling field(s) not translated: %s" % ", ".join(sorted(unknown)))
    out = {RELABEL_FIELDS[k]: v for k, v in rule.items()}
    if "action" in out:
        out["action"] = out["action"].lower()
    return out


def selector_keep(kind, selector):
    unknown = set(selector) - {"matchLabels"}
    if unknown:
        sys.exit("selector field(s) not translated: %s" % ", ".join(sorted(unknown)))
    role = "pod" if kind == "PodMonitor" else "service"
    rules = []
    for key, value in sorted(selector.get("matchLabels", {}).items()):
        k = sanitize(key)
        rules.append({"action": "keep",
                      "source_labels": ["__meta_kubernetes_%s_label_%s" % (role, k),
                                        "__meta_kubernetes_%s_labelpresent_%s" % (role, k)],
                      "regex": "(%s);true" % value})
    return rules


def scrape_job(targets, doc, i, ep):
    kind, meta, spec = doc["kind"], doc["metadata"], doc["spec"]
    unknown = set(ep) - ENDPOINT_FIELDS
    if unknown:
        sys.exit("%s endpoint field(s) not translated: %s" % (kind, ", ".join(sorted(unknown))))
    ns, name = meta["namespace"], meta["name"]
    prefix = "podMonitor" if kind == "PodMonitor" else "serviceMonitor"
    rules = [{"source_labels": ["job"], "target_label": "__tmp_prometheus_job_name"}]
    rules += selector_keep(kind, spec["selector"])
    if kind == "PodMonitor":
        rules += [{"action": "keep", "source_labels": ["__meta_kubernetes_pod_container_port_name"],
                   "regex": ep["port"]},
                  {"action": "drop", "source_labels": ["__meta_kubernetes_pod_phase"],
                   "regex": "(Failed|Succeeded)"},
                  {"source_labels": ["__meta_kubernetes_namespace"], "target_label": "namespace"},
                  {"source_labels": ["__meta_kubernetes_pod_container_name"], "target_label": "container"},
                  {"source_labels": ["__meta_kubernetes_pod_name"], "target_label": "pod"},
                  {"target_label": "job", "replacement": "%s/%s" % (ns, name)}]
    else:
        rules += [{"action": "keep", "source_labels": ["__meta_kubernetes_endpoint_port_name"],
                   "regex": ep["port"]},
                  {"source_labels": ["__meta_kubernetes_namespace"], "target_label": "namespace"},
                  {"source_labels": ["__meta_kubernetes_service_name"], "target_label": "service"},
                  {"source_labels": ["__meta_kubernetes_pod_name"], "target_label": "pod"},
                  {"source_labels": ["__meta_kubernetes_pod_container_name"], "target_label": "container"},
                  {"action": "drop", "source_labels": ["__meta_kubernetes_pod_phase"],
                   "regex": "(Failed|Succeeded)"},
                  {"source_labels": ["__meta_kubernetes_service_name"], "target_label": "job",
                   "replacement": "${1}"}]
    rules.append({"target_label": "endpoint", "replacement": ep["port"]})
    rules += [relabel(r) for r in ep.get("relabelings", [])]
    job = {"job_name": "%s/%s/%s/%d" % (prefix, ns, name, i),
           "honor_labels": bool(ep.get("honorLabels", False)),
           "file_sd_configs": [{"files": [targets], "refresh_interval": "5s"}],
           "metrics_path": ep.get("path", "/metrics"),
           "relabel_configs": rules}
    for src, dst in (("interval", "scrape_interval"), ("scrapeTimeout", "scrape_timeout")):
        if src in ep:
            job[dst] = ep[src]
    if ep.get("metricRelabelings"):
        job["metric_relabel_configs"] = [relabel(r) for r in ep["metricRelabelings"]]
    return job


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    targets, jobs = argv[1], []
    for path in argv[2:]:
        with open(path) as fh:
            for doc in yaml.safe_load_all(fh):
                if not doc or doc.get("kind") not in ("PodMonitor", "ServiceMonitor"):
                    continue
                eps = doc["spec"]["podMetricsEndpoints" if doc["kind"] == "PodMonitor" else "endpoints"]
                for i, ep in enumerate(eps):
                    jobs.append(scrape_job(targets, doc, i, ep))
    yaml.safe_dump(jobs, sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main(sys.argv)
