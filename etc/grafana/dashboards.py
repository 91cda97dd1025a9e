#!/usr/bin/env python3
"""Generate the Grafana dashboards of primus-node-agent.

Every dashboard exists in two variants that show the same panels:

  bridge/         queries on the agent's own /metrics names (docs/metrics.md)
  snmp_exporter/  queries on the series Prometheus' snmp_exporter makes from
                  PRIMUS-NODE-MIB with etc/snmp_exporter/snmp.yml

A panel is written once here with one query list per variant, so the two
variants cannot drift apart.  The JSON files in etc/grafana/ are this
script's output and are checked in; edit this file, then run

    python3 etc/grafana/dashboards.py            # rewrites etc/grafana/*/*.json
    python3 etc/grafana/dashboards.py --out DIR  # writes DIR/bridge, DIR/snmp_exporter
    python3 etc/grafana/dashboards.py --markdown # the panel list of docs/dashboards.md

tests/integration/grafana_dashboards.sh fails when the checked-in files are
not what this script writes.

Units: the bridge serves base units (bytes, seconds, watts, ratios 0..1); the
MIB, and so snmp_exporter, serves the MIB's UNITS (percent or hundredths of a
percent, milliwatts, milliseconds, microseconds).  The snmp_exporter queries
divide so that both variants plot the same numbers with the same panel unit.
"""

import argparse
import json
import os
import sys

SCHEMA_VERSION = 38
VARIANTS = ("bridge", "snmp_exporter")
DS = {"type": "prometheus", "uid": "${datasource}"}

# ---------------------------------------------------------------------------
# Label matchers shared by the queries.  Every template variable is matched
# with =~ so that "All" (allValue ".*") and multi-value selections work.
I = 'instance=~"$instance"'
# bridge label names
GPU_B = 'pci_bus_id=~"$gpu"'
DEV_B = 'device=~"$device"'
IF_B = 'interface=~"$interface"'
NS_B = 'namespace=~"$namespace"'
POL_B = 'poller=~"$poller"'
# a Slurm job: the bridge's "job" label, which Prometheus keeps as
# "exported_job" beside its own scrape job (docs/slurm.md); the Kubernetes
# scrape kit in etc/kubernetes keeps honor_labels off so that it stays so
JOB_B = 'exported_job=~"$job"'
# snmp_exporter label names (the lookups of etc/snmp_exporter/generator.yml)
GPU_S = 'primusGpuPciBusId=~"$gpu"'
DEV_S = 'primusRdmaDeviceName=~"$device"'
IF_S = 'primusPfcIfName=~"$interface"'
PHY_S = 'primusPhyIfName=~"$interface"'
NS_S = 'primusContainerPodNamespace=~"$namespace"'
PODNS_S = 'primusPodNamespace=~"$namespace"'
POL_S = 'primusPollerName=~"$poller"'
JOB_S = 'primusSlurmJobId=~"$job"'

RI = "[$__rate_interval]"
RANGE = "[$__range]"

# legends
L_GPU_B = "{{instance}} GPU {{gpu}} {{pci_bus_id}}"
L_GPU_S = "{{instance}} {{primusGpuPciBusId}}"
L_PORT_B = "{{instance}} {{device}}/{{port}}"
L_PORT_S = "{{instance}} {{primusRdmaDeviceName}}/{{primusIbPortNumber}}"
L_IF_B = "{{instance}} {{interface}}"
L_IF_S = "{{instance}} {{primusPfcIfName}}"
L_PHY_S = "{{instance}} {{primusPhyIfName}}"
L_LANE_B = "{{instance}} {{interface}} lane {{lane}}"
L_LANE_S = "{{instance}} {{primusPhyIfName}} lane {{primusModuleLane}}"
L_PRIO_B = "{{instance}} {{interface}} prio {{priority}}"
L_PRIO_S = "{{instance}} {{primusPfcIfName}} prio {{primusPfcPriority}}"
L_CTR_B = "{{instance}} {{namespace}}/{{pod}}/{{container}}"
L_CTR_S = ("{{instance}} {{primusContainerPodNamespace}}/{{primusContainerPodName}}/"
           "{{primusContainerName}}")
L_POD_B = "{{instance}} {{namespace}}/{{pod}}"
L_POD_S = "{{instance}} {{primusPodNamespace}}/{{primusPodName}}"
L_POL_B = "{{instance}} {{poller}}"
L_POL_S = "{{instance}} {{primusPollerName}}"


def both(bridge, snmp):
    """Queries of a panel: a list of (expr, legend) per variant; None leaves
    the panel out of that variant (the source has no such figure)."""
    return {"bridge": bridge, "snmp_exporter": snmp}


# ---------------------------------------------------------------------------
# Panel builders.  A panel is a dict with "kind" and the fields below; the
# layout (ids, gridPos) is assigned when the dashboard is rendered.

def ts(title, desc, queries, unit="short", w=12, h=8, lo=None, hi=None,
       dashed=None, negative=None, bars=False, thresholds=None):
    return dict(kind="timeseries", title=title, desc=desc, queries=queries, unit=unit,
                w=w, h=h, lo=lo, hi=hi, dashed=dashed, negative=negative, bars=bars,
                thresholds=thresholds)


def stat(title, desc, queries, unit="short", w=4, h=4, thresholds=None, mappings=None,
         gauge=False, lo=None, hi=None):
    return dict(kind="gauge" if gauge else "stat", title=title, desc=desc, queries=queries,
                unit=unit, w=w, h=h, thresholds=thresholds, mappings=mappings, lo=lo, hi=hi)


def table(title, desc, queries, w=12, h=8, hide=(), rename=None, units=None, mappings=None):
    return dict(kind="table", title=title, desc=desc, queries=queries, w=w, h=h,
                hide=list(hide), rename=rename or {}, units=units or {},
                mappings=mappings or {})


def timeline(title, desc, queries, mappings, w=12, h=8):
    return dict(kind="state-timeline", title=title, desc=desc, queries=queries, w=w, h=h,
                mappings=mappings)


def row(title, panels):
    return dict(kind="row", title=title, panels=panels)


def steps(*pairs):
    """Threshold steps: steps("green", None, "red", 1) -> base green, red from 1."""
    out = []
    for i in range(0, len(pairs), 2):
        out.append({"color": pairs[i], "value": pairs[i + 1]})
    return {"mode": "absolute", "steps": out}


def value_map(pairs):
    """Value mappings: {"1": ("down", "red"), ...}."""
    opts = {}
    for i, (k, (text, color)) in enumerate(pairs.items()):
        opts[k] = {"text": text, "color": color, "index": i}
    return [{"type": "value", "options": opts}]


IB_STATE_MAP = {"1": ("down", "red"), "2": ("init", "orange"), "3": ("armed", "yellow"),
                "4": ("active", "green"), "5": ("activeDefer", "yellow")}
IB_PHYS_MAP = {"1": ("sleep", "red"), "2": ("polling", "orange"), "3": ("disabled", "red"),
               "4": ("training", "orange"), "5": ("linkUp", "green"),
               "6": ("errorRecovery", "orange"), "7": ("phyTest", "yellow")}
UP_MAP = {"0": ("down", "red"), "1": ("up", "green")}
OKDEG_MAP = {"0": ("ok", "green"), "1": ("degraded", "orange")}
ACTIVE_MAP = {"0": ("not active", "red"), "1": ("active", "green")}

# ---------------------------------------------------------------------------
# Template variables per variant: (name, label, bridge query, snmp query)

INSTANCE_VAR = ("instance", "Node",
                "label_values(primus_agent_info, instance)",
                "label_values(primusAgentUptime, instance)")

# ---------------------------------------------------------------------------
# The GPU dashboard


def gpu_dashboard():
    sel_b = "{%s,%s}" % (I, GPU_B)
    sel_s = "{%s,%s}" % (I, GPU_S)
    return dict(
        uid="pna-gpu", title="GPUs", tags=["gpu"],
        desc="Per-GPU utilization, memory, temperature against the slowdown threshold, "
             "power against the limit, ECC and XID errors and the pod holding each GPU.",
        variables=[INSTANCE_VAR,
                   ("gpu", "GPU (PCI address)",
                    "label_values(primus_gpu_info{%s}, pci_bus_id)" % I,
                    "label_values(primusGpuName{%s}, primusGpuPciBusId)" % I)],
        rows=[
            row("Overview", [
                stat("GPUs", "GPUs the agent found (primusGpuCount).",
                     both([("sum(primus_gpus{%s})" % I, "")],
                          [("sum(primusGpuCount{%s})" % I, "")])),
                stat("Lost GPUs", "GPUs that stopped answering their driver or fell off the bus. "
                     "snmp_exporter: rows whose identity is still served but no figure is.",
                     both([("sum(primus_gpu_lost{%s}) or vector(0)" % I, "")],
                          [("count(primusGpuName{%s} unless on(instance, primusGpuPciBusId) "
                            "(primusGpuMemTotal{%s} or primusGpuTemperature{%s} or "
                            "primusGpuUtilization{%s} or primusGpuPowerDraw{%s})) or vector(0)"
                            % (I, I, I, I, I), "")]),
                     thresholds=steps("green", None, "red", 1)),
                stat("Mean utilization", "Mean GPU (SM) utilization of the selected GPUs.",
                     both([("avg(primus_gpu_utilization_ratio%s)" % sel_b, "")],
                          [("avg(primusGpuUtilization%s) / 100" % sel_s, "")]),
                     unit="percentunit"),
                stat("XID errors", "XID errors counted by the driver over the dashboard's time range.",
                     both([("sum(increase(primus_gpu_xid_errors_total%s%s)) or vector(0)" % (sel_b, RANGE), "")],
                          [("sum(increase(primusGpuXidErrors%s%s)) or vector(0)" % (sel_s, RANGE), "")]),
                     thresholds=steps("green", None, "orange", 1)),
                stat("Least headroom to slowdown",
                     "Smallest distance, over the selected GPUs, between the temperature and the "
                     "GPU's own slowdown threshold (hardware throttles at 0).",
                     both([("min(primus_gpu_slowdown_temperature_celsius%s - "
                            "primus_gpu_temperature_celsius%s)" % (sel_b, sel_b), "")],
                          [("min(primusGpuTempSlowdown%s - primusGpuTemperature%s)" % (sel_s, sel_s), "")]),
                     unit="celsius", thresholds=steps("red", None, "orange", 3, "green", 10)),
                stat("GPUs allocated to pods", "Kubernetes GPU allocation rate of the node "
                     "(allocated / allocatable, from the kubelet).",
                     both([("avg(primus_k8s_gpu_allocation_ratio{%s})" % I, "")],
                          [("avg(primusK8sGpuAllocRate{%s}) / 10000" % I, "")]),
                     unit="percentunit"),
            ]),
            row("Utilization and memory", [
                ts("GPU utilization", "Share of time a kernel ran on the GPU, per GPU.",
                   both([("primus_gpu_utilization_ratio%s" % sel_b, L_GPU_B)],
                        [("primusGpuUtilization%s / 100" % sel_s, L_GPU_S)]),
                   unit="percentunit", lo=0, hi=1),
                ts("Memory used / total", "Device memory in use as a share of the total.",
                   both([("primus_gpu_memory_used_bytes%s / primus_gpu_memory_total_bytes%s"
                          % (sel_b, sel_b), L_GPU_B)],
                        [("primusGpuMemUsed%s / primusGpuMemTotal%s" % (sel_s, sel_s), L_GPU_S)]),
                   unit="percentunit", lo=0, hi=1),
                ts("Memory used", "Device memory in use, bytes.",
                   both([("primus_gpu_memory_used_bytes%s" % sel_b, L_GPU_B)],
                        [("primusGpuMemUsed%s" % sel_s, L_GPU_S)]),
                   unit="bytes", lo=0),
                ts("Memory controller utilization", "Share of time device memory was read or written.",
                   both([("primus_gpu_memory_utilization_ratio%s" % sel_b, L_GPU_B)],
                        [("primusGpuMemUtilization%s / 100" % sel_s, L_GPU_S)]),
                   unit="percentunit", lo=0, hi=1),
            ]),
            row("Temperature and power", [
                ts("Temperature vs slowdown threshold",
                   "GPU temperature (solid) and the GPU's own slowdown threshold (dashed): "
                   "above it the hardware throttles clocks.",
                   both([("primus_gpu_temperature_celsius%s" % sel_b, L_GPU_B),
                         ("primus_gpu_slowdown_temperature_celsius%s" % sel_b, L_GPU_B + " slowdown")],
                        [("primusGpuTemperature%s" % sel_s, L_GPU_S),
                         ("primusGpuTempSlowdown%s" % sel_s, L_GPU_S + " slowdown")]),
                   unit="celsius", dashed="slowdown"),
                ts("Headroom to slowdown", "Slowdown threshold minus temperature, per GPU.",
                   both([("primus_gpu_slowdown_temperature_celsius%s - primus_gpu_temperature_celsius%s"
                          % (sel_b, sel_b), L_GPU_B)],
                        [("primusGpuTempSlowdown%s - primusGpuTemperature%s" % (sel_s, sel_s), L_GPU_S)]),
                   unit="celsius", thresholds=steps("red", None, "orange", 3, "green", 10)),
                ts("Power vs limit", "Power draw (solid) and the enforced power limit (dashed).",
                   both([("primus_gpu_power_watts%s" % sel_b, L_GPU_B),
                         ("primus_gpu_power_limit_watts%s" % sel_b, L_GPU_B + " limit")],
                        [("primusGpuPowerDraw%s / 1000" % sel_s, L_GPU_S),
                         ("primusGpuPowerLimit%s / 1000" % sel_s, L_GPU_S + " limit")]),
                   unit="watt", lo=0, dashed="limit"),
                ts("Power / limit", "Power draw as a share of the power limit.",
                   both([("primus_gpu_power_watts%s / primus_gpu_power_limit_watts%s" % (sel_b, sel_b),
                          L_GPU_B)],
                        [("primusGpuPowerDraw%s / primusGpuPowerLimit%s" % (sel_s, sel_s), L_GPU_S)]),
                   unit="percentunit", lo=0),
            ]),
            row("Errors", [
                ts("ECC errors", "Corrected and uncorrected ECC errors per interval.",
                   both([("increase(primus_gpu_ecc_corrected_errors_total%s%s)" % (sel_b, RI),
                          L_GPU_B + " corrected"),
                         ("increase(primus_gpu_ecc_uncorrected_errors_total%s%s)" % (sel_b, RI),
                          L_GPU_B + " uncorrected")],
                        [("increase(primusGpuEccCorrected%s%s)" % (sel_s, RI), L_GPU_S + " corrected"),
                         ("increase(primusGpuEccUncorrected%s%s)" % (sel_s, RI), L_GPU_S + " uncorrected")]),
                   w=8, bars=True),
                ts("XID errors", "XID errors per interval (driver-reported GPU faults).",
                   both([("increase(primus_gpu_xid_errors_total%s%s)" % (sel_b, RI), L_GPU_B)],
                        [("increase(primusGpuXidErrors%s%s)" % (sel_s, RI), L_GPU_S)]),
                   w=8, bars=True),
                table("Last XID and memory health",
                      "The last XID code, retired pages, remapped rows and a pending row remap, per GPU.",
                      both([("max by (instance, gpu, pci_bus_id) (primus_gpu_last_xid%s)" % sel_b, ""),
                            ("sum by (instance, gpu, pci_bus_id) (primus_gpu_retired_pages%s)" % sel_b, ""),
                            ("sum by (instance, gpu, pci_bus_id) (primus_gpu_remapped_rows%s)" % sel_b, ""),
                            ("max by (instance, gpu, pci_bus_id) (primus_gpu_row_remap_pending%s)" % sel_b, "")],
                           [("max by (instance, primusGpuPciBusId) (primusGpuLastXid%s)" % sel_s, ""),
                            ("max by (instance, primusGpuPciBusId) (primusGpuRetiredPages%s)" % sel_s, ""),
                            ("max by (instance, primusGpuPciBusId) (primusGpuRemappedRows%s)" % sel_s, ""),
                            ('max by (instance, primusGpuPciBusId) (primusGpuRemapPending{%s,%s,'
                             'primusGpuRemapPending="true"})' % (I, GPU_S), "")]),
                      w=8, rename={"Value #A": "last XID", "Value #B": "retired pages",
                                   "Value #C": "remapped rows", "Value #D": "remap pending"}),
                ts("PCIe replays", "PCIe link-level replays per second (a degrading link or riser).",
                   both([("rate(primus_gpu_pcie_replays_total%s%s)" % (sel_b, RI), L_GPU_B)],
                        [("rate(primusGpuPcieReplays%s%s)" % (sel_s, RI), L_GPU_S)])),
                ts("SM clock", "Streaming-multiprocessor clock: drops under thermal or power throttling.",
                   both([("primus_gpu_sm_clock_hertz%s" % sel_b, L_GPU_B)],
                        [("primusGpuSmClock%s * 1000000" % sel_s, L_GPU_S)]),
                   unit="hertz"),
            ]),
            row("Health and activity", [
                table("GPU health", "The agent's verdict per GPU (ok, warning, critical, unknown) and "
                      "the rule that decided it (docs/gpu.md).",
                      both([('primus_gpu_health%s == 1' % sel_b.replace("}", ',state!="ok"}'), "")],
                           [('(primusGpuHealth{%s,%s,primusGpuHealth!="ok"} == 1) * on(instance, '
                             'primusGpuPciBusId) group_left(primusGpuHealthReason) primusGpuHealthReason%s'
                             % (I, GPU_S, sel_s), "")]),
                      w=12, hide=["Value", "Time", "job", "__name__"]),
                ts("SM and tensor activity", "Share of time the SMs had work and a tensor pipe was "
                   "busy, over each poll interval (GPU performance monitoring, Hopper and later): "
                   "what utilization alone does not show.",
                   both([("primus_gpu_sm_active_ratio%s" % sel_b, L_GPU_B + " SM"),
                         ("primus_gpu_tensor_active_ratio%s" % sel_b, L_GPU_B + " tensor")],
                        [("primusGpuSmActive%s / 10000" % sel_s, L_GPU_S + " SM"),
                         ("primusGpuTensorActive%s / 10000" % sel_s, L_GPU_S + " tensor")]),
                   unit="percentunit", lo=0, hi=1),
                ts("Time held back", "Share of time the clocks were held back, per cause (power, "
                   "thermal...): rising power or thermal shares mean lost throughput.  AMD "
                   "MI300-series: the share of the firmware's accumulation cycles a limiter "
                   "held the GPU back in (ppt is the power limit).",
                   both([('rate(primus_gpu_throttle_seconds_total%s%s)'
                          % (sel_b.replace("}", ',cause!="low_utilization"}'), RI),
                          L_GPU_B + " {{cause}}"),
                         ("rate(primus_gpu_throttle_residency_cycles_total%s%s) / ignoring(cause) "
                          "group_left() rate(primus_gpu_throttle_accumulation_cycles_total%s%s)"
                          % (sel_b, RI, sel_b, RI), L_GPU_B + " {{cause}}")],
                        [("rate(primusGpuThrottleTimePower%s%s) / 1e6" % (sel_s, RI), L_GPU_S + " power"),
                         ("rate(primusGpuThrottleTimeThermal%s%s) / 1e6" % (sel_s, RI), L_GPU_S + " thermal"),
                         ("rate(primusGpuThrottleTimeHwThermal%s%s) / 1e6" % (sel_s, RI),
                          L_GPU_S + " hw thermal"),
                         ("rate(primusGpuThrottleTimeHwPowerBrake%s%s) / 1e6" % (sel_s, RI),
                          L_GPU_S + " power brake"),
                         ("rate(primusGpuThrottleResPpt%s%s) / rate(primusGpuThrottleAccCycles%s%s)"
                          % (sel_s, RI, sel_s, RI), L_GPU_S + " ppt"),
                         ("rate(primusGpuThrottleResSocketThermal%s%s) / rate(primusGpuThrottleAccCycles%s%s)"
                          % (sel_s, RI, sel_s, RI), L_GPU_S + " socket thermal")]),
                   unit="percentunit", lo=0),
                ts("Memory bandwidth and PCIe", "Device memory bandwidth used against its peak, and "
                   "PCIe traffic.",
                   both([("primus_gpu_dram_active_ratio%s" % sel_b, L_GPU_B + " DRAM")],
                        [("primusGpuDramActive%s / 10000" % sel_s, L_GPU_S + " DRAM")]),
                   unit="percentunit", lo=0, hi=1),
            ]),
            row("NVLink", [
                ts("NVLink traffic", "Payload bytes per second each link sends, per GPU and link.",
                   both([("rate(primus_gpu_link_transmit_bytes_total%s%s)" % (sel_b, RI),
                          L_GPU_B + " link {{link}}")],
                        [("rate(primusGpuLinkTxBytes%s%s)" % (sel_s, RI),
                          L_GPU_S + " link {{primusGpuLinkNumber}}")]),
                   unit="Bps", lo=0),
                ts("NVLink errors", "Data-link errors (replays, recoveries, CRC) per interval: a "
                   "degrading link or connector.",
                   both([("sum by (instance, gpu, pci_bus_id, link) (increase(primus_gpu_link_errors_total%s%s))"
                          % (sel_b, RI), L_GPU_B + " link {{link}}")],
                        [("increase(primusGpuLinkReplayErrors%s%s) + increase(primusGpuLinkRecoveryErrors%s%s)"
                          % (sel_s, RI, sel_s, RI), L_GPU_S + " link {{primusGpuLinkNumber}}")]),
                   bars=True),
                table("NVLinks down", "Links that are down now; a link down that was up is an alert "
                      "(PrimusGpuNvlinkDown).",
                      both([("primus_gpu_link_up%s == 0" % sel_b, "")],
                           [('primusGpuLinkState{%s,%s,primusGpuLinkState="down"} == 1' % (I, GPU_S), "")]),
                      w=24, hide=["Value", "Time", "job", "__name__"]),
            ]),
            row("Processes", [
                table("Processes on the GPUs", "Each process with a context on a GPU: its command, "
                      "pod and the device memory it holds.",
                      both([("primus_gpu_process_memory_used_bytes%s * on(instance, pci_bus_id, pid) "
                             "group_left(process, pod, namespace) primus_gpu_process_info%s"
                             % (sel_b, sel_b), "")],
                           [("primusGpuProcMemUsed%s" % sel_s, "")]),
                      w=24, hide=["Time", "job", "__name__"], units={"Value": "bytes"}),
            ]),
            row("Holders and inventory", [
                table("GPU holder (pod)", "The container, pod and namespace holding each GPU's device "
                      "nodes (containers poller joined with the GPU table).",
                      both([("primus_gpu_holder_info%s" % sel_b, "")],
                           [('primusGpuHolderPod{%s,%s,primusGpuHolderPod!=""} * on(instance, primusGpuPciBusId) '
                             'group_left(primusGpuHolderNamespace, primusGpuHolderContainer) '
                             '(primusGpuHolderNamespace%s * on(instance, primusGpuPciBusId) '
                             'group_left(primusGpuHolderContainer) primusGpuHolderContainer%s)'
                             % (I, GPU_S, sel_s, sel_s), "")]),
                      hide=["Value", "Time", "job", "__name__"]),
                table("GPU inventory", "Model, driver and identity of each GPU.",
                      both([("primus_gpu_info%s" % sel_b, "")],
                           [("primusGpuName%s" % sel_s, "")]),
                      hide=["Value", "Time", "job", "__name__"]),
            ]),
        ])


# ---------------------------------------------------------------------------
# The RDMA congestion and PFC dashboard


def rdma_dashboard():
    pb = "{%s,%s}" % (I, DEV_B)
    ps = "{%s,%s}" % (I, DEV_S)
    ib = "{%s,%s}" % (I, IF_B)
    is_ = "{%s,%s}" % (I, IF_S)
    phs = "{%s,%s}" % (I, PHY_S)

    def roce(b, s):
        return ("rate(primus_roce_%s_total%s%s)" % (b, pb, RI), "rate(primusRoce%s%s%s)" % (s, ps, RI))

    ecn_b, ecn_s = roce("np_ecn_marked_roce_packets", "NpEcnMarkedRocePackets")
    cnps_b, cnps_s = roce("np_cnp_sent", "NpCnpSent")
    cnph_b, cnph_s = roce("rp_cnp_handled", "RpCnpHandled")
    reliability = [("out_of_sequence", "OutOfSequence", "out of sequence"),
                   ("packet_seq_err", "PacketSeqErr", "packet seq err"),
                   ("local_ack_timeout_err", "LocalAckTimeoutErr", "local ack timeout"),
                   ("adp_retrans", "AdpRetrans", "adaptive retransmit"),
                   ("rnr_nak_retry_err", "RnrNakRetryErr", "RNR NAK retry"),
                   ("implied_nak_seq_err", "ImpliedNakSeqErr", "implied NAK seq err")]
    port_errors = [("symbol_errors", "SymbolErrors", "symbol"),
                   ("link_error_recovery", "LinkErrRecovery", "link error recovery"),
                   ("link_downed", "LinkDowned", "link downed"),
                   ("receive_errors", "RcvErrors", "receive errors"),
                   ("transmit_discards", "XmitDiscards", "transmit discards")]
    return dict(
        uid="pna-rdma", title="RDMA congestion and PFC", tags=["rdma", "pfc"],
        desc="InfiniBand/RoCE port state and traffic, ECN/CNP congestion control, "
             "out-of-sequence and retransmits, PFC pause frames per priority and storms.",
        variables=[INSTANCE_VAR,
                   ("device", "RDMA device",
                    "label_values(primus_ib_port_info{%s}, device)" % I,
                    "label_values(primusIbPortLinkLayer_info{%s}, primusRdmaDeviceName)" % I),
                   ("interface", "Interface (PFC)",
                    "label_values(primus_pfc_interface_info{%s}, interface)" % I,
                    "label_values(primusPauseDriver{%s}, primusPfcIfName)" % I)],
        rows=[
            row("Overview", [
                stat("Ports", "RDMA ports of the selected devices.",
                     both([("count(primus_ib_port_state%s)" % pb, "")],
                          [('count(primusIbPortState{%s,%s,primusIbPortState="active"})' % (I, DEV_S), "")])),
                stat("Ports not active", "Ports whose logical state is not ACTIVE.",
                     both([("count(primus_ib_port_state%s != 4) or vector(0)" % pb, "")],
                          [('count(primusIbPortState{%s,%s,primusIbPortState="active"} == 0) or vector(0)'
                            % (I, DEV_S), "")]),
                     thresholds=steps("green", None, "red", 1)),
                stat("Link downed", "Times a link went down over the time range.",
                     both([("sum(increase(primus_ib_port_link_downed_total%s%s)) or vector(0)" % (pb, RANGE), "")],
                          [("sum(increase(primusIbPortLinkDowned%s%s)) or vector(0)" % (ps, RANGE), "")]),
                     thresholds=steps("green", None, "orange", 1)),
                stat("Pause storm events", "Pause-storm warning and error events counted by the NIC "
                     "over the time range.",
                     both([("(sum(increase(primus_pause_storm_warning_events_total%s%s)) or vector(0)) + "
                            "(sum(increase(primus_pause_storm_error_events_total%s%s)) or vector(0))"
                            % (ib, RANGE, ib, RANGE), "")],
                          [("(sum(increase(primusPauseStormWarnings%s%s)) or vector(0)) + "
                            "(sum(increase(primusPauseStormErrors%s%s)) or vector(0))"
                            % (is_, RANGE, is_, RANGE), "")]),
                     thresholds=steps("green", None, "red", 1)),
                stat("ECN marked", "ECN-marked RoCE packets received per second, all selected ports.",
                     both([("sum(%s) or vector(0)" % ecn_b, "")], [("sum(%s) or vector(0)" % ecn_s, "")]),
                     unit="pps"),
                stat("CNP sent", "Congestion notification packets sent per second, all selected ports.",
                     both([("sum(%s) or vector(0)" % cnps_b, "")], [("sum(%s) or vector(0)" % cnps_s, "")]),
                     unit="pps"),
            ]),
            row("Ports", [
                timeline("Port state", "Logical port state over time.",
                         both([("primus_ib_port_state%s" % pb, L_PORT_B)],
                              [('primusIbPortState{%s,%s,primusIbPortState="active"}' % (I, DEV_S), L_PORT_S)]),
                         mappings=None),
                table("Ports", "State, physical state, rate and width of each port.",
                      both([("max by (instance, device, port) (primus_ib_port_state%s)" % pb, ""),
                            ("max by (instance, device, port) (primus_ib_port_phys_state%s)" % pb, ""),
                            ("max by (instance, device, port) (primus_ib_port_rate_bytes_per_second%s)" % pb, ""),
                            ("max by (instance, device, port) (primus_ib_port_link_width%s)" % pb, "")],
                           [("max by (instance, primusRdmaDeviceName, primusIbPortNumber, primusIbPortStateText) "
                             "(primusIbPortStateText%s)" % ps, ""),
                            ("max by (instance, primusRdmaDeviceName, primusIbPortNumber, primusIbPortPhysStateText) "
                             "(primusIbPortPhysStateText%s)" % ps, ""),
                            ("max by (instance, primusRdmaDeviceName, primusIbPortNumber) "
                             "(primusIbPortRate%s) * 125000" % ps, ""),
                            ("max by (instance, primusRdmaDeviceName, primusIbPortNumber) "
                             "(primusIbPortWidth%s)" % ps, "")]),
                      rename={"Value #A": "state", "Value #B": "phys state", "Value #C": "rate",
                              "Value #D": "width"},
                      units={"rate": "Bps"},
                      mappings={"state": IB_STATE_MAP, "phys state": IB_PHYS_MAP}),
                ts("Link flaps", "Times each port left its up state per interval, from the agent's "
                   "link events (a RoCE netdev's carrier loss, an InfiniBand port error) and polls: "
                   "flaps shorter than a scrape are counted too.",
                   both([("increase(primus_ib_port_flaps_total%s%s)" % (pb, RI), L_PORT_B)],
                        [("increase(primusIbPortFlaps%s%s)" % (ps, RI), L_PORT_S)]),
                   w=24, h=6, thresholds=steps("green", None, "orange", 1)),
            ]),
            row("Traffic and errors", [
                ts("Receive / transmit", "Bytes per second over the last poll interval (transmit drawn "
                   "below the axis).",
                   both([("primus_ib_port_receive_bytes_per_second%s" % pb, L_PORT_B + " rx"),
                         ("primus_ib_port_transmit_bytes_per_second%s" % pb, L_PORT_B + " tx")],
                        [("primusIbPortRxBytesPerSec%s" % ps, L_PORT_S + " rx"),
                         ("primusIbPortTxBytesPerSec%s" % ps, L_PORT_S + " tx")]),
                   unit="Bps", negative="tx"),
                ts("Link utilization", "Share of the link rate used, per direction.",
                   both([("primus_ib_port_receive_utilization_ratio%s" % pb, L_PORT_B + " rx"),
                         ("primus_ib_port_transmit_utilization_ratio%s" % pb, L_PORT_B + " tx")],
                        [("primusIbPortRxUtilization%s / 10000" % ps, L_PORT_S + " rx"),
                         ("primusIbPortTxUtilization%s / 10000" % ps, L_PORT_S + " tx")]),
                   unit="percentunit", lo=0, hi=1),
                ts("Port error rate", "Errors per second over the last poll interval (all PMA error "
                   "counters of the port together).",
                   both([("primus_ib_port_errors_per_second%s" % pb, L_PORT_B)],
                        [("primusIbPortErrorRate%s / 100" % ps, L_PORT_S)]),
                   thresholds=steps("green", None, "red", 1)),
                ts("Error counters", "Per-second rate of the main PMA error counters.",
                   both([("rate(primus_ib_port_%s_total%s%s)" % (b, pb, RI), L_PORT_B + " " + t)
                         for b, _, t in port_errors],
                        [("rate(primusIbPort%s%s%s)" % (s, ps, RI), L_PORT_S + " " + t)
                         for _, s, t in port_errors])),
                ts("Transmit wait", "Ticks per second the port had data to send but no flow-control "
                   "credits: congestion downstream.",
                   both([("rate(primus_ib_port_transmit_wait_total%s%s)" % (pb, RI), L_PORT_B)],
                        [("rate(primusIbPortXmitWait%s%s)" % (ps, RI), L_PORT_S)])),
                ts("Receive buffer drops", "RoCE packets dropped for lack of receive WQEs/buffers, and "
                   "packets the NIC discarded at the physical port.",
                   both([("rate(primus_roce_out_of_buffer_total%s%s)" % (pb, RI), L_PORT_B + " out of buffer"),
                         ("rate(primus_pause_rx_discards_phy_packets_total%s%s)" % (ib, RI),
                          L_IF_B + " rx discards phy")],
                        [("rate(primusRoceOutOfBuffer%s%s)" % (ps, RI), L_PORT_S + " out of buffer"),
                         ("rate(primusPauseRxDiscardsPhy%s%s)" % (is_, RI), L_IF_S + " rx discards phy")]),
                   unit="pps"),
            ]),
            row("RoCE congestion control (ECN / CNP)", [
                ts("ECN marked / CNP sent / CNP handled",
                   "Notification point: ECN-marked packets received and CNPs sent back; reaction "
                   "point: CNPs received that cut the sending rate.",
                   both([(ecn_b, L_PORT_B + " ECN marked"), (cnps_b, L_PORT_B + " CNP sent"),
                         (cnph_b, L_PORT_B + " CNP handled")],
                        [(ecn_s, L_PORT_S + " ECN marked"), (cnps_s, L_PORT_S + " CNP sent"),
                         (cnph_s, L_PORT_S + " CNP handled")]),
                   unit="pps"),
                ts("CNP ignored and slow restart", "CNPs the reaction point ignored, and rate "
                   "recovery slow-restart events.",
                   both([("rate(primus_roce_rp_cnp_ignored_total%s%s)" % (pb, RI), L_PORT_B + " CNP ignored"),
                         ("rate(primus_roce_slow_restart_total%s%s)" % (pb, RI), L_PORT_B + " slow restart")],
                        [("rate(primusRoceRpCnpIgnored%s%s)" % (ps, RI), L_PORT_S + " CNP ignored"),
                         ("rate(primusRoceSlowRestart%s%s)" % (ps, RI), L_PORT_S + " slow restart")]),
                   unit="pps"),
                ts("Out of sequence and retransmits", "Packets received out of sequence, sequence "
                   "errors, ACK timeouts and retransmits, per second: loss in a lossless fabric.",
                   both([("rate(primus_roce_%s_total%s%s)" % (b, pb, RI), L_PORT_B + " " + t)
                         for b, _, t in reliability],
                        [("rate(primusRoce%s%s%s)" % (s, ps, RI), L_PORT_S + " " + t)
                         for _, s, t in reliability]),
                   w=24),
            ]),
            row("PFC and pause", [
                ts("PFC pause frames received, per priority",
                   "Pause frames the link partner sent us, per priority, per second.",
                   both([("rate(primus_pfc_rx_frames_total%s%s)" % (ib, RI), L_PRIO_B)],
                        [("rate(primusPfcRxFrames%s%s)" % (is_, RI), L_PRIO_S)]),
                   unit="pps"),
                ts("PFC pause frames sent, per priority",
                   "Pause frames this NIC sent (its receive buffers filled), per priority, per second.",
                   both([("rate(primus_pfc_tx_frames_total%s%s)" % (ib, RI), L_PRIO_B)],
                        [("rate(primusPfcTxFrames%s%s)" % (is_, RI), L_PRIO_S)]),
                   unit="pps"),
                ts("Time paused by the link partner, per priority",
                   "Share of time each priority was paused (1 = always).",
                   both([("rate(primus_pfc_rx_duration_seconds_total%s%s)" % (ib, RI), L_PRIO_B)],
                        [("rate(primusPfcRxDuration%s%s) / 1000000" % (is_, RI), L_PRIO_S)]),
                   unit="percentunit", lo=0),
                ts("Pause frames (global and PFC)", "Link-level pause frames received and sent per "
                   "second, 802.3x global pause and PFC together (docs/rdma.md: the count per driver).",
                   both([("rate(primus_pause_rx_frames_total%s%s)" % (ib, RI), L_IF_B + " rx"),
                         ("rate(primus_pause_tx_frames_total%s%s)" % (ib, RI), L_IF_B + " tx")],
                        [("rate(primusPauseRxFrames%s%s)" % (is_, RI), L_IF_S + " rx"),
                         ("rate(primusPauseTxFrames%s%s)" % (is_, RI), L_IF_S + " tx")]),
                   unit="pps", negative="tx"),
                ts("Pause storm events", "Pause-storm warning and error events per interval (the NIC "
                   "stops sending pauses on error). Bridge: also the agent's own storm state (1 = storm).",
                   both([("increase(primus_pause_storm_warning_events_total%s%s)" % (ib, RI), L_IF_B + " warning"),
                         ("increase(primus_pause_storm_error_events_total%s%s)" % (ib, RI), L_IF_B + " error"),
                         ("primus_pause_storm%s" % ib, L_IF_B + " storm")],
                        [("increase(primusPauseStormWarnings%s%s)" % (is_, RI), L_IF_S + " warning"),
                         ("increase(primusPauseStormErrors%s%s)" % (is_, RI), L_IF_S + " error")]),
                   bars=True),
                ts("Traffic per priority", "Bytes per second received and sent on each priority "
                   "(bridge only: the MIB has no per-priority byte counters).",
                   both([("rate(primus_pfc_rx_bytes_total%s%s)" % (ib, RI), L_PRIO_B + " rx"),
                         ("rate(primus_pfc_tx_bytes_total%s%s)" % (ib, RI), L_PRIO_B + " tx")],
                        None),
                   unit="Bps", negative="tx"),
            ]),
            row("HCA PCIe health", [
                ts("PCIe link width against its maximum",
                   "Lanes each RDMA device's PCIe link trained at, and the most it and its slot "
                   "support (dashed): a gap is a downtrained link, RDMA capped below line rate.",
                   both([("primus_rdma_pcie_link_width{%s,%s}" % (I, DEV_B), "{{instance}} {{device}}"),
                         ("primus_rdma_pcie_max_link_width{%s,%s}" % (I, DEV_B), "{{instance}} {{device}} max")],
                        [("primusRdmaPcieLinkWidth{%s,%s}" % (I, DEV_S), "{{instance}} {{primusRdmaDeviceName}}"),
                         ("primusRdmaPcieMaxLinkWidth{%s,%s}" % (I, DEV_S),
                          "{{instance}} {{primusRdmaDeviceName}} max")]),
                   dashed="max", lo=0),
                ts("PCIe AER errors",
                   "Correctable, non-fatal and fatal PCIe errors the device's AER reported, per interval.",
                   both([("increase(primus_rdma_pcie_aer_%s_errors_total{%s,%s}%s)" % (k, I, DEV_B, RI),
                          "{{instance}} {{device}} " + k) for k in ("correctable", "nonfatal", "fatal")],
                        [("increase(primusRdmaPcieAer%s{%s,%s}%s)" % (k, I, DEV_S, RI),
                          "{{instance}} {{primusRdmaDeviceName}} " + k)
                         for k in ("Correctable", "NonFatal", "Fatal")]),
                   bars=True),
            ]),
            row("Physical layer and optics", [
                ts("FEC corrected and uncorrectable blocks",
                   "FEC codewords per second the FEC corrected (a link running close to its limit "
                   "corrects more and more) and could not correct (lost data).",
                   both([("rate(primus_phy_fec_corrected_blocks_total%s%s)" % (ib, RI), L_IF_B + " corrected"),
                         ("rate(primus_phy_fec_uncorrectable_blocks_total%s%s)" % (ib, RI), L_IF_B + " uncorrectable")],
                        [("rate(primusPhyFecCorrectedBlocks%s%s)" % (phs, RI), L_PHY_S + " corrected"),
                         ("rate(primusPhyFecUncorrectableBlocks%s%s)" % (phs, RI), L_PHY_S + " uncorrectable")]),
                   unit="cps"),
                ts("Pre-FEC bit error rate",
                   "Bit error rate before FEC, from the driver's own counters (mlx5). Bridge only: "
                   "over SNMP it is the text primusPhyPreFecBer.",
                   both([("primus_phy_pre_fec_ber%s" % ib, L_IF_B)], None),
                   unit="sci"),
                ts("Link down events and symbol errors",
                   "Link-down events counted by the kernel, and physical-layer symbol errors, per interval.",
                   both([("increase(primus_phy_link_down_events_total%s%s)" % (ib, RI), L_IF_B + " link down"),
                         ("increase(primus_phy_symbol_errors_total%s%s)" % (ib, RI), L_IF_B + " symbol errors")],
                        [("increase(primusPhyLinkDownEvents%s%s)" % (phs, RI), L_PHY_S + " link down"),
                         ("increase(primusPhySymbolErrors%s%s)" % (phs, RI), L_PHY_S + " symbol errors")]),
                   bars=True),
                ts("Optic RX power per lane",
                   "Light each lane of the module receives, in dBm; the dashed line is the module's "
                   "own low-power warning threshold.",
                   both([("primus_module_lane_rx_power_dbm%s" % ib, L_LANE_B),
                         ("10 * log10(primus_module_rx_power_threshold_watts{%s,%s,threshold=\"low_warning\"} * 1000)" % (I, IF_B),
                          L_IF_B + " low warning")],
                        [("primusModuleLaneRxPowerDbm%s / 100" % phs, L_LANE_S),
                         ("10 * log10(primusModuleRxPowerLowWarning%s / 10000)" % phs, L_PHY_S + " low warning")]),
                   unit="dBm", dashed="low warning"),
                ts("Module temperature",
                   "The module's temperature; it reads 0 on passive copper cables, which are not shown.",
                   both([("primus_module_temperature_celsius%s" % ib, L_IF_B)],
                        [("primusModuleTemperature%s / 1000" % phs, L_PHY_S)]),
                   unit="celsius"),
                table("Modules", "Each interface's module: type, vendor, part number, serial, and "
                      "its worst level against its own thresholds.",
                      both([('(primus_module_worst_level{%s,%s} == 1) * on(instance, interface) '
                             'group_left(type, vendor, part_number, serial, media) primus_module_info' % (I, IF_B), "")],
                           [('(primusModuleWorstLevel{%s,%s} == 1) * on(instance, primusPhyIfName) '
                             'group_left(primusModulePartNumber) primusModulePartNumber' % (I, PHY_S), "")]),
                      hide=["Value", "Time", "job", "__name__"]),
            ]),
            row("Lossless RoCE configuration", [
                stat("Node verdict", "The agent's lossless-RoCE verdict for the node: 1 when every "
                     "watched interface is ready and all are configured alike (docs/rdma.md).",
                     both([('primus_roce_node_lossless{%s,state="ready"}' % I, "")],
                          [('primusRoceNodeLossless{%s,primusRoceNodeLossless="ready"}' % I, "")]),
                     mappings=value_map({"1": ("ready", "green"), "0": ("not ready", "red")})),
                stat("Interfaces not ready", "Watched interfaces not configured for lossless RoCE, "
                     "or whose configuration could not be read.",
                     both([("sum(primus_roce_node_ports_not_ready{%s})" % I, "")],
                          [("sum(primusRoceNodePortsNotReady{%s})" % I, "")]),
                     thresholds=steps("green", None, "red", 1)),
                table("Configuration per interface", "Each interface's verdict with its reason, PFC "
                      "priorities, trust, DSCP map, ECN switches and the switch port LLDP names.",
                      both([('(primus_roce_lossless{%s,%s} == 1) * on(instance, interface) '
                             'group_left(reason, pfc_enabled, trust, dscp_map, ecn_np_enabled, '
                             'lldp_sys_name, lldp_port_id) primus_roce_config_info' % (I, IF_B), "")],
                           [('(primusRoceLossless{%s,%s} == 1) * on(instance, primusPfcIfName) '
                             'group_left(primusRoceLosslessReason) primusRoceLosslessReason' % (I, IF_S), "")]),
                      w=16, hide=["Value", "Time", "job", "__name__"]),
            ]),
        ])


# ---------------------------------------------------------------------------
# The containers and storage dashboard


def containers_dashboard():
    cb = "{%s,%s}" % (I, NS_B)
    cs = "{%s,%s}" % (I, NS_S)
    pod_s = "{%s,%s}" % (I, PODNS_S)
    jb = "{%s,%s}" % (I, JOB_B)
    js = "{%s,%s}" % (I, JOB_S)
    return dict(
        uid="pna-containers", title="Containers and storage", tags=["containers", "storage"],
        desc="Containers per node, OOM kills, memory against limits, GPU/RDMA devices per pod, "
             "node and pod ephemeral storage, the Kubernetes GPU allocation rate and the Slurm "
             "jobs of the nodes.",
        variables=[INSTANCE_VAR,
                   ("namespace", "Namespace",
                    "label_values(primus_container_info{%s}, namespace)" % I,
                    "label_values(primusContainerImage{%s}, primusContainerPodNamespace)" % I),
                   ("job", "Slurm job",
                    "label_values(primus_slurm_job_info{%s}, exported_job)" % I,
                    "label_values(primusSlurmJobSteps{%s}, primusSlurmJobId)" % I)],
        rows=[
            row("Overview", [
                stat("Containers", "Containers the agent sees on the selected nodes.",
                     both([("sum(primus_containers{%s})" % I, "")],
                          [("sum(primusContainerCount{%s})" % I, "")])),
                stat("Running pods", "Pods in phase Running (kubelet).",
                     both([("sum(primus_k8s_pods_running{%s})" % I, "")],
                          [("sum(primusK8sPodCount{%s})" % I, "")])),
                stat("OOM kills", "Out-of-memory kills over the time range, containers that are gone "
                     "included.",
                     both([("sum(increase(primus_containers_oom_kills_seen_total{%s}%s)) or vector(0)" % (I, RANGE), "")],
                          [("sum(increase(primusContainerOomKillsTotal{%s}%s)) or vector(0)" % (I, RANGE), "")]),
                     thresholds=steps("green", None, "orange", 1)),
                stat("GPU allocation rate", "GPUs allocated to pods / allocatable GPUs.",
                     both([("avg(primus_k8s_gpu_allocation_ratio{%s})" % I, "")],
                          [("avg(primusK8sGpuAllocRate{%s}) / 10000" % I, "")]),
                     unit="percentunit", gauge=True, lo=0, hi=1,
                     thresholds=steps("blue", None, "green", 0.5)),
                stat("Node ephemeral storage used", "Used share of the kubelet's ephemeral storage "
                     "(the fullest selected node).",
                     both([("max(primus_storage_usage_ratio{%s})" % I, "")],
                          [("max(primusStorageUsage{%s}) / 10000" % I, "")]),
                     unit="percentunit", gauge=True, lo=0, hi=1,
                     thresholds=steps("green", None, "orange", 0.85, "red", 0.95)),
                stat("GPUs allocated / allocatable", "GPUs requested by running pods, and GPUs the "
                     "node offers.",
                     both([("sum(primus_k8s_gpus_allocated{%s})" % I, "allocated"),
                           ("sum(primus_k8s_gpus_allocatable{%s})" % I, "allocatable")],
                          [("sum(primusK8sGpuAllocated{%s})" % I, "allocated"),
                           ("sum(primusK8sGpuAllocatable{%s})" % I, "allocatable")])),
            ]),
            row("Containers", [
                ts("Containers per node", "Containers the agent sees, per node.",
                   both([("primus_containers{%s}" % I, "{{instance}}")],
                        [("primusContainerCount{%s}" % I, "{{instance}}")]),
                   lo=0),
                ts("Containers by state", "Containers per state, per node.",
                   both([("count by (instance, state) (primus_container_state%s)" % cb, "{{instance}} {{state}}")],
                        [("count by (instance) (primusContainerState%s == 2)" % cs, "{{instance}} running"),
                         ("count by (instance) (primusContainerState%s == 3)" % cs, "{{instance}} paused"),
                         ("count by (instance) (primusContainerState%s == 4)" % cs, "{{instance}} stopped")]),
                   lo=0),
                ts("OOM kills", "OOM kills per interval, per container, and for the node as a whole "
                   "(includes containers that exited after the kill).",
                   both([("increase(primus_container_oom_kills_total%s%s) > 0" % (cb, RI), L_CTR_B),
                         ("increase(primus_containers_oom_kills_seen_total{%s}%s) > 0" % (I, RI),
                          "{{instance}} all containers")],
                        [("increase(primusContainerOomKills%s%s) > 0" % (cs, RI), L_CTR_S),
                         ("increase(primusContainerOomKillsTotal{%s}%s) > 0" % (I, RI),
                          "{{instance}} all containers")]),
                   bars=True),
                ts("Memory working set / limit (top 10)", "Containers closest to their memory limit, "
                   "by the working set (usage less reclaimable page cache, what the kubelet evicts by); "
                   "containers without a limit are not shown.",
                   both([("topk(10, primus_container_memory_working_set_bytes%s / primus_container_memory_limit_bytes%s)"
                          % (cb, cb), L_CTR_B)],
                        [("topk(10, primusContainerMemWorkingSet%s / (primusContainerMemLimit%s > 0))"
                          % (cs, cs), L_CTR_S)]),
                   unit="percentunit", lo=0, thresholds=steps("green", None, "orange", 0.9)),
                ts("Memory working set (top 10)", "The containers' working set, as kubectl top and "
                   "docker stats show it; the raw cgroup usage also counts page cache the kernel can "
                   "reclaim.",
                   both([("topk(10, primus_container_memory_working_set_bytes%s)" % cb, L_CTR_B)],
                        [("topk(10, primusContainerMemWorkingSet%s)" % cs, L_CTR_S)]),
                   unit="bytes", lo=0),
                table("GPU and RDMA devices per pod", "GPUs and RDMA devices in the pods' containers.",
                      both([("sum by (instance, namespace, pod) (primus_container_gpus%s)" % cb, ""),
                            ("sum by (instance, namespace, pod) (primus_container_rdma_devices%s)" % cb, "")],
                           [("sum by (instance, primusContainerPodNamespace, primusContainerPodName) "
                             "(primusContainerGpuCount%s)" % cs, ""),
                            ("sum by (instance, primusContainerPodNamespace, primusContainerPodName) "
                             "(primusContainerRdmaCount%s)" % cs, "")]),
                      rename={"Value #A": "GPUs", "Value #B": "RDMA devices"}),
                table("Devices in containers", "GPU and RDMA device nodes per container and what they map to.",
                      both([('primus_container_device_info{%s,%s,kind=~"gpu|rdma"}' % (I, NS_B), "")],
                           [('primusContainerDeviceKind_info{%s,%s,primusContainerDeviceKind=~"gpu|rdma"}'
                             % (I, NS_S), "")]),
                      hide=["Value", "Time", "job", "__name__"], w=24),
            ]),
            row("Ephemeral storage", [
                ts("Node ephemeral storage", "Used bytes (solid) and capacity (dashed) of the node's "
                   "ephemeral storage (kubelet summary, else statvfs of the kubelet root).",
                   both([("primus_storage_used_bytes{%s}" % I, "{{instance}} used"),
                         ("primus_storage_capacity_bytes{%s}" % I, "{{instance}} capacity")],
                        [("primusStorageUsed{%s}" % I, "{{instance}} used"),
                         ("primusStorageCapacity{%s}" % I, "{{instance}} capacity")]),
                   unit="bytes", lo=0, dashed="capacity"),
                ts("Node ephemeral storage used %", "Used share of bytes and of inodes.",
                   both([("primus_storage_usage_ratio{%s}" % I, "{{instance}} bytes"),
                         ("primus_storage_inodes_used{%s} / primus_storage_inodes{%s}" % (I, I),
                          "{{instance}} inodes")],
                        [("primusStorageUsage{%s} / 10000" % I, "{{instance}} bytes"),
                         ("primusStorageInodesUsed{%s} / primusStorageInodes{%s}" % (I, I),
                          "{{instance}} inodes")]),
                   unit="percentunit", lo=0, hi=1,
                   thresholds=steps("green", None, "orange", 0.85, "red", 0.95)),
                ts("Pod ephemeral storage (top 10)", "Ephemeral storage used by each pod (logs, "
                   "emptyDir, writable layers).",
                   both([("topk(10, primus_pod_ephemeral_storage_used_bytes%s)" % cb, L_POD_B)],
                        [("topk(10, primusPodStorageUsed%s)" % pod_s, L_POD_S)]),
                   unit="bytes", lo=0),
                ts("Pod ephemeral storage, share (top 10)", "Each pod's ephemeral storage as a share "
                   "of the node's capacity; snmp_exporter also as a share of the pod's limit.",
                   both([("topk(10, primus_pod_ephemeral_storage_used_bytes%s / on(instance, job) "
                          "group_left() primus_storage_capacity_bytes{%s})" % (cb, I), L_POD_B + " of node")],
                        [("topk(10, primusPodStorageUsed%s / on(instance, job) group_left() "
                          "primusStorageCapacity{%s})" % (pod_s, I), L_POD_S + " of node"),
                         ("topk(10, primusPodStorageUsed%s / (primusPodStorageLimit%s > 0))" % (pod_s, pod_s),
                          L_POD_S + " of limit")]),
                   unit="percentunit", lo=0),
            ]),
            row("Kubernetes GPUs", [
                ts("GPU allocation rate", "GPUs allocated to pods / allocatable, per node.",
                   both([("primus_k8s_gpu_allocation_ratio{%s}" % I, "{{instance}}")],
                        [("primusK8sGpuAllocRate{%s} / 10000" % I, "{{instance}}")]),
                   unit="percentunit", lo=0, hi=1, w=8),
                ts("GPUs allocatable vs allocated", "Per node.",
                   both([("primus_k8s_gpus_allocatable{%s}" % I, "{{instance}} allocatable"),
                         ("primus_k8s_gpus_allocated{%s}" % I, "{{instance}} allocated")],
                        [("primusK8sGpuAllocatable{%s}" % I, "{{instance}} allocatable"),
                         ("primusK8sGpuAllocated{%s}" % I, "{{instance}} allocated")]),
                   lo=0, w=8),
                table("GPUs per pod", "Bridge: GPUs each pod requests (kubelet). snmp_exporter: GPU "
                      "device nodes in each pod's containers.",
                      both([("primus_pod_gpus_requested%s > 0" % cb, "")],
                           [("sum by (instance, primusContainerPodNamespace, primusContainerPodName) "
                             "(primusContainerGpuCount%s) > 0" % cs, "")]),
                      hide=["Time", "job", "__name__", "pod_uid"], rename={"Value": "GPUs"}, w=8),
            ]),
            row("Slurm jobs", [
                table("Slurm jobs", "The Slurm jobs running on the selected nodes, from their "
                      "cgroups (primusSlurmJobTable): steps, GPUs and MIG devices held, memory used "
                      "and its limit.",
                      both([("primus_slurm_job_steps%s" % jb, ""), ("primus_slurm_job_gpus%s" % jb, ""),
                            ("primus_slurm_job_mig_devices%s" % jb, ""),
                            ("primus_slurm_job_memory_usage_bytes%s" % jb, ""),
                            ("primus_slurm_job_memory_limit_bytes%s" % jb, "")],
                           [("primusSlurmJobSteps%s" % js, ""), ("primusSlurmJobGpus%s" % js, ""),
                            ("primusSlurmJobMigDevices%s" % js, ""),
                            ("primusSlurmJobMemUsage%s" % js, ""),
                            ("primusSlurmJobMemLimit%s" % js, "")]),
                      hide=["Time", "job", "__name__"],
                      rename={"Value #A": "Steps", "Value #B": "GPUs", "Value #C": "MIG devices",
                              "Value #D": "Memory used", "Value #E": "Memory limit",
                              "exported_job": "Slurm job", "primusSlurmJobId": "Slurm job"},
                      units={"Memory used": "bytes", "Memory limit": "bytes"}, w=24),
                ts("Slurm job memory", "Memory each job's cgroup uses, all its steps together.",
                   both([("primus_slurm_job_memory_usage_bytes%s" % jb, "{{instance}} job {{exported_job}}")],
                        [("primusSlurmJobMemUsage%s" % js, "{{instance}} job {{primusSlurmJobId}}")]),
                   unit="bytes", lo=0),
                ts("GPUs per Slurm job", "GPUs each job holds: its processes on them, or its "
                   "cgroup v1 device list (primusSlurmJobGpus).",
                   both([("primus_slurm_job_gpus%s" % jb, "{{instance}} job {{exported_job}}")],
                        [("primusSlurmJobGpus%s" % js, "{{instance}} job {{primusSlurmJobId}}")]),
                   lo=0),
            ]),
        ])


# ---------------------------------------------------------------------------
# The agent health dashboard


def agent_dashboard():
    pb = "{%s,%s}" % (I, POL_B)
    ps = "{%s,%s}" % (I, POL_S)
    return dict(
        uid="pna-agent", title="Agent health", tags=["agent"],
        desc="Is the agent up, are its pollers succeeding, how old is the data it serves, and "
             "what events did it raise.",
        variables=[INSTANCE_VAR,
                   ("poller", "Poller",
                    "label_values(primus_poller_info{%s}, poller)" % I,
                    "label_values(primusPollerInterval{%s}, primusPollerName)" % I)],
        rows=[
            row("Agent", [
                stat("Target up", "Prometheus reached the target (bridge: the agent's /metrics; "
                     "snmp_exporter: the SNMP walk through the exporter).",
                     both([("min(up{%s})" % I, "")], [("min(up{%s})" % I, "")]),
                     mappings=UP_MAP, thresholds=steps("red", None, "green", 1)),
                stat("Agent status", "degraded when a poller is failing, timed out or serving stale data.",
                     both([("max(primus_agent_degraded{%s})" % I, "")],
                          [('max(primusAgentStatus{%s,primusAgentStatus="degraded"})' % I, "")]),
                     mappings=OKDEG_MAP, thresholds=steps("green", None, "orange", 1)),
                stat("Pollers not ok", "Pollers failing, timed out or still pending.",
                     both([('count(primus_poller_status{%s,status!~"ok|disabled"} == 1) or vector(0)' % I, "")],
                          [('count(primusPollerStatus{%s,primusPollerStatus!~"ok|disabled"} == 1) or vector(0)'
                            % I, "")]),
                     thresholds=steps("green", None, "orange", 1)),
                stat("Agent uptime", "Time since the agent started.",
                     both([("min(primus_agent_uptime_seconds{%s})" % I, "")],
                          [("min(primusAgentUptime{%s})" % I, "")]),
                     unit="s"),
                stat("Events", "Events (notifications) raised over the time range.",
                     both([("sum(increase(primus_agent_events_total{%s}%s))" % (I, RANGE), "")],
                          [("sum(increase(primusAgentEventsTotal{%s}%s))" % (I, RANGE), "")])),
                stat("Events dropped", "Events lost because the queue was full, over the time range.",
                     both([("sum(increase(primus_agent_events_dropped_total{%s}%s))" % (I, RANGE), "")],
                          [("sum(increase(primusAgentEventsDropped{%s}%s))" % (I, RANGE), "")]),
                     thresholds=steps("green", None, "orange", 1)),
                table("Agent version", "Version and mode of each agent.",
                      both([("primus_agent_info{%s}" % I, "")],
                           [("primusAgentVersion{%s} * on(instance, job) group_left(primusAgentMode) "
                             "primusAgentMode_info{%s}" % (I, I), "")]),
                      hide=["Value", "Time", "__name__"], w=24, h=5),
            ]),
            row("Pollers", [
                table("Poller status", "Status, data age, consecutive failures and last success of "
                      "every poller.",
                      both([("primus_poller_status%s == 1" % pb, ""),
                            ("max by (instance, job, poller) (primus_poller_data_age_seconds%s)" % pb, ""),
                            ("max by (instance, job, poller) (primus_poller_consecutive_failures%s)" % pb, ""),
                            ("max by (instance, job, poller) (primus_poller_last_success_timestamp_seconds%s) * 1000"
                             % pb, "")],
                           [("primusPollerStatus%s == 1" % ps, ""),
                            ("max by (instance, job, primusPollerName) (primusPollerDataAge%s)" % ps, ""),
                            ("max by (instance, job, primusPollerName) (primusPollerConsecutiveFailures%s)" % ps, ""),
                            ("max by (instance, job, primusPollerName) (primusPollerLastSuccess%s) * 1000" % ps, "")]),
                      hide=["Value #A", "__name__"],
                      rename={"Value #B": "data age", "Value #C": "consecutive failures",
                              "Value #D": "last success"},
                      units={"data age": "s", "last success": "dateTimeFromNow"}, w=24),
                ts("Poller errors", "Failed poller runs per second.",
                   both([("rate(primus_poller_errors_total%s%s)" % (pb, RI), L_POL_B)],
                        [("rate(primusPollerErrors%s%s)" % (ps, RI), L_POL_S)]),
                   thresholds=steps("green", None, "red", 0.01)),
                ts("Data age / poll interval", "How many poll intervals old the served data is "
                   "(about 1 is normal; the stale-data alert fires above 3).",
                   both([("primus_poller_data_age_seconds%s / primus_poller_interval_seconds%s" % (pb, pb), L_POL_B)],
                        [("primusPollerDataAge%s / (primusPollerInterval%s / 1000)" % (ps, ps), L_POL_S)]),
                   lo=0, thresholds=steps("green", None, "orange", 3)),
                ts("Data age", "Age of the snapshot each poller's data is served from.",
                   both([("primus_poller_data_age_seconds%s" % pb, L_POL_B)],
                        [("primusPollerDataAge%s" % ps, L_POL_S)]),
                   unit="s", lo=0),
                ts("Time since last success", "Seconds since each poller's last successful run.",
                   both([("time() - (primus_poller_last_success_timestamp_seconds%s > 0)" % pb, L_POL_B)],
                        [("time() - (primusPollerLastSuccess%s > 0)" % ps, L_POL_S)]),
                   unit="s", lo=0),
                ts("Run duration vs timeout", "Duration of the last run (solid) and the poller's "
                   "timeout (dashed).",
                   both([("primus_poller_last_duration_seconds%s" % pb, L_POL_B),
                         ("primus_poller_timeout_seconds%s" % pb, L_POL_B + " timeout")],
                        [("primusPollerLastDuration%s / 1000" % ps, L_POL_S),
                         ("primusPollerTimeout%s / 1000" % ps, L_POL_S + " timeout")]),
                   unit="s", lo=0, dashed="timeout"),
                ts("Consecutive failures", "Failed runs in a row (0 once a run succeeds).",
                   both([("primus_poller_consecutive_failures%s" % pb, L_POL_B)],
                        [("primusPollerConsecutiveFailures%s" % ps, L_POL_S)]),
                   lo=0, thresholds=steps("green", None, "red", 3)),
                ts("Poller runs", "Runs per second (successful or not).",
                   both([("rate(primus_poller_runs_total%s%s)" % (pb, RI), L_POL_B)],
                        [("rate(primusPollerRuns%s%s)" % (ps, RI), L_POL_S)]),
                   lo=0),
            ]),
            row("Events and scrapes", [
                ts("Events", "Events raised and dropped per second.",
                   both([("rate(primus_agent_events_total{%s}%s)" % (I, RI), "{{instance}} raised"),
                         ("rate(primus_agent_events_dropped_total{%s}%s)" % (I, RI), "{{instance}} dropped")],
                        [("rate(primusAgentEventsTotal{%s}%s)" % (I, RI), "{{instance}} raised"),
                         ("rate(primusAgentEventsDropped{%s}%s)" % (I, RI), "{{instance}} dropped")]),
                   lo=0),
                ts("Scrape duration", "How long Prometheus' scrape of the target took; snmp_exporter "
                   "also shows the varbinds (PDUs) its walk returned.",
                   both([("scrape_duration_seconds{%s}" % I, "{{instance}} {{job}}")],
                        [("scrape_duration_seconds{%s}" % I, "{{instance}} {{job}}"),
                         ("snmp_scrape_pdus_returned{%s}" % I, "{{instance}} PDUs")]),
                   unit="s", lo=0),
                ts("Events by type", "Events per second by primusEventType (port down/up, OOM "
                   "kill, XID, thermal, GPU lost, pause storm, poller failed/recovered).",
                   both([("rate(primus_events_total{%s}%s) > 0" % (I, RI), "{{instance}} {{type}}")],
                        None),
                   lo=0),
                table("Recent events", "The agent's event table (snmp_exporter only: the bridge "
                      "serves the rows as JSON at /events, which Prometheus does not scrape).",
                      both(None,
                           [("max by (instance, primusEventIndex) (primusEventTime{%s}) * 1000" % I, ""),
                            ("max by (instance, primusEventIndex, primusEventType) (primusEventType_info{%s})" % I, ""),
                            ("max by (instance, primusEventIndex, primusEventSeverity) "
                             "(primusEventSeverity_info{%s})" % I, ""),
                            ("max by (instance, primusEventIndex, primusEventText) (primusEventText{%s})" % I, "")]),
                      hide=["Value #B", "Value #C", "Value #D"], rename={"Value #A": "time"},
                      units={"time": "dateTimeAsIso"}, w=24),
            ]),
        ])


DASHBOARDS = (("gpu", gpu_dashboard), ("rdma", rdma_dashboard),
              ("containers", containers_dashboard), ("agent", agent_dashboard))

# ---------------------------------------------------------------------------
# GPU usage by namespace, pod and Slurm job: the agent's accounting counters
# (docs/gpu.md) and its idle-but-allocated and orphan verdicts.

KWH_J = 3600000    # joules in a kilowatt-hour
NS_POD_S = 'primusPodGpuUsageNamespace=~"$namespace"'
JOB_USAGE_S = 'primusSlurmJobGpuUsageJob=~"$job"'
L_NS_B = "{{namespace}}"
L_NS_S = "{{primusPodGpuUsageNamespace}}"
L_PODU_S = "{{primusPodGpuUsageNamespace}}/{{primusPodGpuUsagePod}}"
L_JOB_B = "job {{exported_job}}"
L_JOB_S = "job {{primusSlurmJobGpuUsageJob}}"


def usage_dashboard():
    pb = "{%s,%s}" % (I, NS_B)
    ps = "{%s,%s}" % (I, NS_POD_S)
    jb = "{%s,%s}" % (I, JOB_B)
    js = "{%s,%s}" % (I, JOB_USAGE_S)
    return dict(
        uid="pna-gpu-usage", title="GPU usage by namespace / pod / job", tags=["gpu", "accounting"],
        desc="What the GPUs did for whom, from the agent's own counters: energy and GPU-hours per "
             "namespace, pod and Slurm job, the share of held time the GPUs were active, and the "
             "GPUs that are allocated and idle.",
        variables=[INSTANCE_VAR,
                   ("namespace", "Namespace",
                    "label_values(primus_pod_gpu_seconds_total{%s}, namespace)" % I,
                    "label_values(primusPodGpuUsageSeconds{%s}, primusPodGpuUsageNamespace)" % I),
                   ("job", "Slurm job",
                    "label_values(primus_slurm_job_gpu_seconds_total{%s}, exported_job)" % I,
                    "label_values(primusSlurmJobGpuUsageSeconds{%s}, primusSlurmJobGpuUsageJob)" % I)],
        rows=[
            row("Idle allocated", [
                stat("GPUs allocated and idle", "GPUs held by a pod, container or Slurm job whose "
                     "activity stayed below accountingIdleThreshold for its window "
                     "(primusGpuIdleAllocated; alert PrimusGpuIdleAllocated).",
                     both([("sum(primus_gpu_idle_allocated{%s}) or vector(0)" % I, "")],
                          [("count(primusGpuIdleAllocated{%s} == 1) or vector(0)" % I, "")]),
                     thresholds=steps("green", None, "orange", 1)),
                stat("Orphan GPU processes", "Processes on the GPUs in no container and no Slurm "
                     "job (primusGpuOrphanProcesses; alert PrimusGpuOrphanProcesses).",
                     both([("sum(primus_gpu_orphan_processes{%s}) or vector(0)" % I, "")],
                          [("sum(primusGpuOrphanProcesses{%s}) or vector(0)" % I, "")]),
                     thresholds=steps("green", None, "orange", 1)),
                stat("Idle energy", "GPU energy over the time range that no holder was charged "
                     "(the GPUs' idle residual).",
                     both([("sum(increase(primus_gpu_idle_energy_joules_total{%s}%s)) / %d"
                            % (I, RANGE, KWH_J), "")],
                          [("sum(increase(primusGpuIdleEnergy{%s}%s)) / 1000 / %d" % (I, RANGE, KWH_J), "")]),
                     unit="kwatth"),
                table("Allocated and idle GPUs", "Each GPU held and idle now, with how long its "
                      "activity has been below the threshold.",
                      both([("(time() - primus_gpu_low_activity_since_timestamp_seconds{%s}) "
                             "and on(instance, pci_bus_id) (primus_gpu_idle_allocated{%s} == 1)" % (I, I), "")],
                           [("(time() - primusGpuLowActivitySince{%s}) and on(instance, primusGpuPciBusId) "
                             "(primusGpuIdleAllocated{%s} == 1)" % (I, I), "")]),
                      w=12, hide=["Time", "job", "__name__"], units={"Value": "s"},
                      rename={"Value": "below the threshold for"}),
            ]),
            row("Namespaces", [
                ts("GPU power by namespace", "Energy charged to each namespace's pods per second "
                   "(their share of the GPUs' own energy counters).",
                   both([("sum by (namespace) (rate(primus_pod_gpu_energy_joules_total%s%s))" % (pb, RI), L_NS_B)],
                        [("sum by (primusPodGpuUsageNamespace) (rate(primusPodGpuUsageEnergy%s%s)) / 1000"
                          % (ps, RI), L_NS_S)]),
                   unit="watt", lo=0),
                ts("GPUs held by namespace", "GPU-seconds held per second: how many GPUs the "
                   "namespace's pods held on average.",
                   both([("sum by (namespace) (rate(primus_pod_gpu_seconds_total%s%s))" % (pb, RI), L_NS_B)],
                        [("sum by (primusPodGpuUsageNamespace) (rate(primusPodGpuUsageSeconds%s%s)) / 100"
                          % (ps, RI), L_NS_S)]),
                   lo=0),
                table("Energy and GPU-hours per namespace", "Over the time range: kWh charged to "
                      "the namespace, GPU-hours held, and the share of them the SMs were active.",
                      both([("sum by (namespace) (increase(primus_pod_gpu_energy_joules_total%s%s)) / %d"
                             % (pb, RANGE, KWH_J), ""),
                            ("sum by (namespace) (increase(primus_pod_gpu_seconds_total%s%s)) / 3600"
                             % (pb, RANGE), ""),
                            ("sum by (namespace) (increase(primus_pod_gpu_sm_active_seconds_total%s%s)) / "
                             "sum by (namespace) (increase(primus_pod_gpu_seconds_total%s%s))"
                             % (pb, RANGE, pb, RANGE), "")],
                           [("sum by (primusPodGpuUsageNamespace) (increase(primusPodGpuUsageEnergy%s%s)) "
                             "/ 1000 / %d" % (ps, RANGE, KWH_J), ""),
                            ("sum by (primusPodGpuUsageNamespace) (increase(primusPodGpuUsageSeconds%s%s)) "
                             "/ 100 / 3600" % (ps, RANGE), ""),
                            ("sum by (primusPodGpuUsageNamespace) (increase(primusPodGpuUsageSmActive%s%s)) / "
                             "sum by (primusPodGpuUsageNamespace) (increase(primusPodGpuUsageSeconds%s%s))"
                             % (ps, RANGE, ps, RANGE), "")]),
                      w=24, rename={"Value #A": "energy", "Value #B": "GPU-hours",
                                    "Value #C": "active share",
                                    "primusPodGpuUsageNamespace": "namespace"},
                      units={"energy": "kwatth", "GPU-hours": "short", "active share": "percentunit"}),
            ]),
            row("Pods", [
                ts("Active share by pod", "Of the GPU time each pod held, the share the SMs were "
                   "active (SM-active seconds over GPU-seconds held).",
                   both([("sum by (namespace, pod) (rate(primus_pod_gpu_sm_active_seconds_total%s%s)) / "
                          "sum by (namespace, pod) (rate(primus_pod_gpu_seconds_total%s%s))"
                          % (pb, RI, pb, RI), L_POD_B.replace("{{instance}} ", ""))],
                        [("sum by (primusPodGpuUsageNamespace, primusPodGpuUsagePod) "
                          "(rate(primusPodGpuUsageSmActive%s%s)) / sum by (primusPodGpuUsageNamespace, "
                          "primusPodGpuUsagePod) (rate(primusPodGpuUsageSeconds%s%s))"
                          % (ps, RI, ps, RI), L_PODU_S)]),
                   unit="percentunit", lo=0, hi=1),
                ts("GPU memory held by pod", "Device memory byte-seconds per second: the pod's "
                   "average GPU memory.",
                   both([("sum by (namespace, pod) (rate(primus_pod_gpu_memory_byte_seconds_total%s%s))"
                          % (pb, RI), L_POD_B.replace("{{instance}} ", ""))],
                        [("sum by (primusPodGpuUsageNamespace, primusPodGpuUsagePod) "
                          "(rate(primusPodGpuUsageMemoryByteSeconds%s%s))" % (ps, RI), L_PODU_S)]),
                   unit="bytes", lo=0),
                table("Top pods by energy", "The 20 pods charged the most GPU energy over the time "
                      "range, with their GPU-hours.",
                      both([("topk(20, sum by (namespace, pod) (increase(primus_pod_gpu_energy_joules_total%s%s))) / %d"
                             % (pb, RANGE, KWH_J), ""),
                            ("sum by (namespace, pod) (increase(primus_pod_gpu_seconds_total%s%s)) / 3600"
                             % (pb, RANGE), "")],
                           [("topk(20, sum by (primusPodGpuUsageNamespace, primusPodGpuUsagePod) "
                             "(increase(primusPodGpuUsageEnergy%s%s))) / 1000 / %d" % (ps, RANGE, KWH_J), ""),
                            ("sum by (primusPodGpuUsageNamespace, primusPodGpuUsagePod) "
                             "(increase(primusPodGpuUsageSeconds%s%s)) / 100 / 3600" % (ps, RANGE), "")]),
                      w=24, rename={"Value #A": "energy", "Value #B": "GPU-hours",
                                    "primusPodGpuUsageNamespace": "namespace", "primusPodGpuUsagePod": "pod"},
                      units={"energy": "kwatth"}),
            ]),
            row("Slurm jobs", [
                ts("GPU power by Slurm job", "Energy charged to each job per second.",
                   both([("sum by (exported_job) (rate(primus_slurm_job_gpu_energy_joules_total%s%s))"
                          % (jb, RI), L_JOB_B)],
                        [("sum by (primusSlurmJobGpuUsageJob) (rate(primusSlurmJobGpuUsageEnergy%s%s)) / 1000"
                          % (js, RI), L_JOB_S)]),
                   unit="watt", lo=0),
                ts("Active share by Slurm job", "Of the GPU time each job held, the share the SMs "
                   "were active.",
                   both([("sum by (exported_job) (rate(primus_slurm_job_gpu_sm_active_seconds_total%s%s)) / "
                          "sum by (exported_job) (rate(primus_slurm_job_gpu_seconds_total%s%s))"
                          % (jb, RI, jb, RI), L_JOB_B)],
                        [("sum by (primusSlurmJobGpuUsageJob) (rate(primusSlurmJobGpuUsageSmActive%s%s)) / "
                          "sum by (primusSlurmJobGpuUsageJob) (rate(primusSlurmJobGpuUsageSeconds%s%s))"
                          % (js, RI, js, RI), L_JOB_S)]),
                   unit="percentunit", lo=0, hi=1),
                table("Energy and GPU-hours per Slurm job", "Over the time range: kWh charged to "
                      "each job and GPU-hours it held.",
                      both([("sum by (exported_job) (increase(primus_slurm_job_gpu_energy_joules_total%s%s)) / %d"
                             % (jb, RANGE, KWH_J), ""),
                            ("sum by (exported_job) (increase(primus_slurm_job_gpu_seconds_total%s%s)) / 3600"
                             % (jb, RANGE), "")],
                           [("sum by (primusSlurmJobGpuUsageJob) (increase(primusSlurmJobGpuUsageEnergy%s%s)) "
                             "/ 1000 / %d" % (js, RANGE, KWH_J), ""),
                            ("sum by (primusSlurmJobGpuUsageJob) (increase(primusSlurmJobGpuUsageSeconds%s%s)) "
                             "/ 100 / 3600" % (js, RANGE), "")]),
                      w=24, rename={"Value #A": "energy", "Value #B": "GPU-hours",
                                    "exported_job": "Slurm job", "primusSlurmJobGpuUsageJob": "Slurm job"},
                      units={"energy": "kwatth"}),
            ]),
            row("GPUs", [
                ts("Energy per GPU: holders and idle", "Each GPU's power charged to its holders "
                   "(per holder) and to nobody (idle residual): together the GPU's own counter.",
                   both([("sum by (instance, pci_bus_id, namespace, pod, exported_job) "
                          "(rate(primus_gpu_usage_energy_joules_total{%s}%s))" % (I, RI),
                          "{{instance}} {{pci_bus_id}} {{namespace}}/{{pod}} {{exported_job}}"),
                         ("rate(primus_gpu_idle_energy_joules_total{%s}%s)" % (I, RI),
                          "{{instance}} {{pci_bus_id}} idle")],
                        [("sum by (instance, primusGpuPciBusId, primusGpuUsageHolderId) "
                          "(rate(primusGpuUsageEnergy{%s}%s)) / 1000" % (I, RI),
                          "{{instance}} {{primusGpuPciBusId}} {{primusGpuUsageHolderId}}"),
                         ("rate(primusGpuIdleEnergy{%s}%s) / 1000" % (I, RI),
                          "{{instance}} {{primusGpuPciBusId}} idle")]),
                   unit="watt", lo=0, w=24),
            ]),
        ])


DASHBOARDS += (("usage", usage_dashboard),)

# ---------------------------------------------------------------------------
# Rendering to the Grafana JSON model


def target(expr, legend, ref, instant):
    t = {"datasource": DS, "editorMode": "code", "expr": expr, "refId": ref}
    if instant:
        t.update({"format": "table", "instant": True, "range": False})
    else:
        t.update({"legendFormat": legend or "__auto", "range": True})
    return t


def field_defaults(p):
    d = {"color": {"mode": "palette-classic" if p["kind"] == "timeseries" else "thresholds"},
         "unit": p.get("unit", "short")}
    if p.get("lo") is not None:
        d["min"] = p["lo"]
    if p.get("hi") is not None:
        d["max"] = p["hi"]
    d["thresholds"] = p.get("thresholds") or steps("green", None)
    if p.get("mappings"):
        if isinstance(p["mappings"], dict) and p["kind"] in ("stat", "gauge"):
            d["mappings"] = value_map(p["mappings"])
    return d


def render_panel(p, variant, pid, x, y):
    queries = p["queries"][variant]
    instant = p["kind"] == "table"
    refs = "ABCDEFGHIJ"
    out = {"datasource": DS, "description": p["desc"], "gridPos": {"h": p["h"], "w": p["w"], "x": x, "y": y},
           "id": pid, "targets": [target(e, l, refs[i], instant) for i, (e, l) in enumerate(queries)],
           "title": p["title"], "type": p["kind"]}
    kind = p["kind"]
    if kind == "timeseries":
        custom = {"drawStyle": "bars" if p["bars"] else "line", "fillOpacity": 60 if p["bars"] else 10,
                  "lineWidth": 1, "showPoints": "never", "spanNulls": False}
        if p["thresholds"]:
            custom["thresholdsStyle"] = {"mode": "line"}
        defaults = field_defaults(p)
        defaults["custom"] = custom
        overrides = []
        if p["dashed"]:
            overrides.append({"matcher": {"id": "byRegexp", "options": ".* %s$" % p["dashed"]},
                              "properties": [{"id": "custom.lineStyle", "value": {"dash": [10, 10], "fill": "dash"}},
                                             {"id": "custom.fillOpacity", "value": 0}]})
        if p["negative"]:
            overrides.append({"matcher": {"id": "byRegexp", "options": ".* %s$" % p["negative"]},
                              "properties": [{"id": "custom.transform", "value": "negative-Y"}]})
        out["fieldConfig"] = {"defaults": defaults, "overrides": overrides}
        out["options"] = {"legend": {"calcs": ["lastNotNull", "max"], "displayMode": "table",
                                     "placement": "bottom", "showLegend": True},
                          "tooltip": {"mode": "multi", "sort": "desc"}}
    elif kind in ("stat", "gauge"):
        out["fieldConfig"] = {"defaults": field_defaults(p), "overrides": []}
        opts = {"orientation": "auto", "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}}
        if kind == "stat":
            opts.update({"colorMode": "value", "graphMode": "area", "justifyMode": "auto", "textMode": "auto"})
        else:
            opts.update({"showThresholdLabels": False, "showThresholdMarkers": True})
        out["options"] = opts
    elif kind == "state-timeline":
        defaults = field_defaults(p)
        defaults["mappings"] = value_map(IB_STATE_MAP if variant == "bridge" else ACTIVE_MAP)
        defaults["thresholds"] = steps("green", None)
        out["fieldConfig"] = {"defaults": defaults, "overrides": []}
        out["options"] = {"alignValue": "left", "mergeValues": True, "rowHeight": 0.9, "showValue": "auto",
                          "legend": {"displayMode": "list", "placement": "bottom", "showLegend": False},
                          "tooltip": {"mode": "single", "sort": "none"}}
    elif kind == "table":
        overrides = []
        for col, unit in sorted(p["units"].items()):
            overrides.append({"matcher": {"id": "byName", "options": col},
                              "properties": [{"id": "unit", "value": unit}]})
        for col, mp in sorted(p["mappings"].items()):
            overrides.append({"matcher": {"id": "byName", "options": col},
                              "properties": [{"id": "mappings", "value": value_map(mp)},
                                             {"id": "custom.cellOptions", "value": {"type": "color-text"}}]})
        out["fieldConfig"] = {"defaults": {"custom": {"align": "auto", "filterable": True},
                                           "thresholds": steps("green", None)},
                              "overrides": overrides}
        out["options"] = {"cellHeight": "sm", "footer": {"show": False}, "showHeader": True}
        transforms = []
        if len(queries) > 1:
            transforms.append({"id": "merge", "options": {}})
        exclude = {c: True for c in p["hide"]}
        exclude.setdefault("Time", True)
        exclude.setdefault("job", True)
        transforms.append({"id": "organize", "options": {"excludeByName": exclude, "indexByName": {},
                                                          "renameByName": p["rename"]}})
        out["transformations"] = transforms
    return out


def render_variable(var, variant):
    name, label, q_bridge, q_snmp = var
    query = q_bridge if variant == "bridge" else q_snmp
    return {"current": {}, "datasource": DS, "definition": query, "hide": 0, "includeAll": True,
            "allValue": ".*", "label": label, "multi": True, "name": name, "options": [],
            "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
            "refresh": 2, "regex": "", "skipUrlSync": False, "sort": 1, "type": "query"}


def render_dashboard(key, spec, variant):
    suffix = "bridge" if variant == "bridge" else "snmp_exporter"
    panels = []
    pid = 1
    y = 0
    for r in spec["rows"]:
        members = [p for p in r["panels"] if p["queries"][variant] is not None]
        if not members:
            continue
        panels.append({"collapsed": False, "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "id": pid,
                       "panels": [], "title": r["title"], "type": "row"})
        pid += 1
        y += 1
        x = 0
        line_h = 0
        for p in members:
            if x + p["w"] > 24:
                x = 0
                y += line_h
                line_h = 0
            panels.append(render_panel(p, variant, pid, x, y))
            pid += 1
            x += p["w"]
            line_h = max(line_h, p["h"])
        y += line_h
    source = ("the agent's HTTP bridge (/metrics)" if variant == "bridge"
              else "snmp_exporter walking PRIMUS-NODE-MIB (etc/snmp_exporter/snmp.yml)")
    templating = [{"current": {}, "hide": 0, "includeAll": False, "label": "Data source", "multi": False,
                   "name": "datasource", "options": [], "query": "prometheus", "refresh": 1, "regex": "",
                   "skipUrlSync": False, "type": "datasource"}]
    templating += [render_variable(v, variant) for v in spec["variables"]]
    return {
        "annotations": {"list": [{"builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                                  "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
                                  "name": "Annotations & Alerts", "type": "dashboard"}]},
        "description": "%s Data: %s." % (spec["desc"], source),
        "editable": True,
        "fiscalYearStartMonth": 0,
        "graphTooltip": 1,
        "id": None,
        "links": [{"asDropdown": True, "icon": "external link", "includeVars": True, "keepTime": True,
                   "tags": ["primus-node-agent", suffix], "targetBlank": False,
                   "title": "primus-node-agent", "type": "dashboards"}],
        "liveNow": False,
        "panels": panels,
        "refresh": "30s",
        "schemaVersion": SCHEMA_VERSION,
        "tags": ["primus-node-agent", suffix] + spec["tags"],
        "templating": {"list": templating},
        "time": {"from": "now-6h", "to": "now"},
        "timepicker": {},
        "timezone": "",
        "title": "primus-node-agent / %s (%s)" % (spec["title"], "bridge" if variant == "bridge" else "snmp_exporter"),
        "uid": "%s-%s" % (spec["uid"], "bridge" if variant == "bridge" else "snmp"),
        "version": 1,
        "weekStart": "",
    }


def write_all(outdir):
    for variant in VARIANTS:
        d = os.path.join(outdir, variant)
        os.makedirs(d, exist_ok=True)
        for key, make in DASHBOARDS:
            with open(os.path.join(d, key + ".json"), "w", encoding="utf-8") as f:
                json.dump(render_dashboard(key, make(), variant), f, indent=2, ensure_ascii=False)
                f.write("\n")


def markdown():
    """The panel list for docs/dashboards.md."""
    lines = []
    for key, make in DASHBOARDS:
        spec = make()
        lines.append("### %s (`%s.json`)\n" % (spec["title"], key))
        lines.append(spec["desc"] + "\n")
        lines.append("| Row | Panel | Shows |")
        lines.append("|---|---|---|")
        for r in spec["rows"]:
            for p in r["panels"]:
                only = ""
                if p["queries"]["snmp_exporter"] is None:
                    only = " (bridge only)"
                elif p["queries"]["bridge"] is None:
                    only = " (snmp_exporter only)"
                lines.append("| %s | %s%s | %s |" % (r["title"], p["title"], only, p["desc"]))
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                    help="directory receiving bridge/ and snmp_exporter/ (default: beside this script)")
    ap.add_argument("--markdown", action="store_true", help="print the panel list in Markdown")
    args = ap.parse_args()
    if args.markdown:
        sys.stdout.write(markdown() + "\n")
        return
    write_all(args.out)


if __name__ == "__main__":
    main()
