#!/usr/bin/env python3
"""Generate the Zabbix template of primus-node-agent from PRIMUS-NODE-MIB.

    etc/zabbix/template.py --ietf-mibdir DIR             # rewrites etc/zabbix/primus-node-agent.yaml
    etc/zabbix/template.py --ietf-mibdir DIR --out FILE  # writes FILE
    etc/zabbix/template.py --ietf-mibdir DIR --coverage  # MIB object -> what covers it

The MIB is read with smidump (Debian: smitools), which needs the IETF base
modules (SNMPv2-SMI, HCNUM-TC, IF-MIB...) in DIR.  `make zabbix-template`
runs this script; tests/integration/zabbix_template.sh fails when the
checked-in YAML is not what it writes, or when a MIB object is covered by
nothing in the template and is not in EXCLUDED below.

What the template holds (Zabbix 6.0 export format):

  * one SNMP item per scalar, numeric OID, key = the MIB name;
  * one low-level discovery rule per table: snmp_oid discovery[{#MACRO},OID,...]
    on readable columns; a JavaScript step decodes the table's INDEX
    (device names, port numbers, counter names) out of {#SNMPINDEX} into
    macros, because the MIB's string indexes are not-accessible columns;
  * one item prototype per readable column, OID ending in .{#SNMPINDEX},
    key = MIB name[{#SNMPINDEX}];
  * value types from the SYNTAX (DisplayString: CHAR; Integer32: FLOAT;
    Unsigned32, Counter32/64, CounterBasedGauge64, enumerations: UNSIGNED),
    units from UNITS, with a MULTIPLIER step where the MIB counts in a
    fraction of the display unit (hundredths of a percent, milliwatts, MHz...);
  * for Counter32/Counter64 objects whose rate operators watch (traffic,
    errors, congestion, pause frames, throttle time): the raw counter item and
    a dependent item KEY.rate with CHANGE_PER_SECOND (no second SNMP request);
  * value maps for every enumeration (and PrimusPortState, TruthValue);
  * one SNMP trap item per NOTIFICATION-TYPE, snmptrap["REGEX"] matching the
    notification's name or its numeric OID, and snmptrap.fallback;
  * triggers and trigger prototypes mirroring etc/prometheus/alerts_snmp_exporter.yml,
    with their thresholds and durations as user macros {$PRIMUS....}.
"""

import argparse
import hashlib
import os
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
MIB_FILE = os.path.join(TOP, "mibs", "PRIMUS-NODE-MIB.txt")
OUT_FILE = os.path.join(HERE, "primus-node-agent.yaml")

TEMPLATE = "PRIMUS Node Agent by SNMP"
GROUP = "Templates/Server hardware"
T = "/" + TEMPLATE + "/"

# ---------------------------------------------------------------------------
# Macros: intervals and the alert rules' thresholds and durations.
MACROS = [
    ("{$PRIMUS.INTERVAL}", "1m", "Update interval of the measured values."),
    ("{$PRIMUS.INTERVAL.SLOW}", "15m", "Update interval of identity strings (names, serials, firmware, versions)."),
    ("{$PRIMUS.LLD.INTERVAL}", "1h", "Discovery interval of every table."),
    ("{$PRIMUS.LLD.LIFETIME}", "7d", "How long items of a row that is gone are kept."),
    ("{$PRIMUS.LLD.LIFETIME.SHORT}", "1d", "Lifetime for rows that come and go (GPU processes, events)."),
    ("{$PRIMUS.NODATA.TIMEOUT}", "3m", "No answer from the agent's subtree for this long: agent down."),
    ("{$PRIMUS.AGENT.DEGRADED.FOR}", "10m", "primusAgentStatus degraded for this long."),
    ("{$PRIMUS.POLLER.FAILING.FOR}", "5m", "A poller failing or timed out for this long."),
    ("{$PRIMUS.POLLER.STALE.FOR}", "2m", "A poller's data older than 3 intervals for this long."),
    ("{$PRIMUS.POLLER.PENDING.FOR}", "10m", "A poller without a finished run for this long."),
    ("{$PRIMUS.IB.PORT.DOWN.FOR}", "2m", "An RDMA port out of ACTIVE for this long."),
    ("{$PRIMUS.IB.PORT.ACTIVE.WINDOW}", "1d", "A port counts as down only if it was ACTIVE in this window."),
    ("{$PRIMUS.IB.FLAP.WINDOW}", "15m", "Link downed or error recovery counted within this window: flapping."),
    ("{$PRIMUS.IB.ERRORS.MAX}", "10", "Port errors per second (primusIbPortErrorRate)."),
    ("{$PRIMUS.IB.ERRORS.FOR}", "10m", "Port errors above the maximum for this long."),
    ("{$PRIMUS.ROCE.CONGESTION.MAX}", "50000", "ECN-marked, CNP sent or CNP handled packets per second."),
    ("{$PRIMUS.ROCE.CONGESTION.FOR}", "15m", "Congestion above the maximum for this long."),
    ("{$PRIMUS.ROCE.OOS.MAX}", "100", "RoCE out-of-sequence packets per second."),
    ("{$PRIMUS.ROCE.ACK.TIMEOUT.MAX}", "1", "RoCE local ACK timeouts per second."),
    ("{$PRIMUS.ROCE.RETRANS.FOR}", "10m", "Out-of-sequence or ACK timeouts above the maximum for this long."),
    ("{$PRIMUS.PFC.STORM.MAX}", "10000", "Pause frames per second on an interface or priority: pause storm (the agent's pauseStormThreshold)."),
    ("{$PRIMUS.PFC.STORM.FOR}", "1m", "Pause frames above the storm maximum for this long."),
    ("{$PRIMUS.PFC.STORM.WINDOW}", "5m", "A storm warning or error from the NIC within this window."),
    ("{$PRIMUS.PFC.FRAMES.MAX}", "5000", "PFC pause frames per second on one priority."),
    ("{$PRIMUS.PFC.FRAMES.FOR}", "15m", "PFC pause frames above the maximum for this long."),
    ("{$PRIMUS.PFC.PAUSED.MAX}", "50", "Share of time (%) a priority is paused by the link partner."),
    ("{$PRIMUS.PFC.PAUSED.FOR}", "10m", "Priority paused above the maximum for this long."),
    ("{$PRIMUS.GPU.XID.WINDOW}", "10m", "XID errors counted within this window."),
    ("{$PRIMUS.GPU.XID.CRITICAL}", "^(48|74|79|94|95|119|120)$", "XIDs that need the GPU drained and reset (regular expression)."),
    ("{$PRIMUS.GPU.ECC.WINDOW}", "10m", "Uncorrected ECC errors counted within this window."),
    ("{$PRIMUS.GPU.TEMP.MAX}", "85", "GPU temperature (°C) treated as the slowdown threshold of a GPU that reports none."),
    ("{$PRIMUS.GPU.THERMAL.FOR}", "2m", "GPU at or above its slowdown temperature for this long."),
    ("{$PRIMUS.GPU.TEMP.MARGIN}", "5", "Degrees below the slowdown temperature that count as near it."),
    ("{$PRIMUS.GPU.TEMP.NEAR.FOR}", "10m", "GPU near its slowdown temperature for this long."),
    ("{$PRIMUS.GPU.LOST.FOR}", "1m", "Every measured column of a GPU absent for this long: GPU lost (at least 30s)."),
    ("{$PRIMUS.GPU.COUNT.FOR}", "5m", "Fewer GPUs than the day's maximum for this long."),
    ("{$PRIMUS.GPU.COUNT.WINDOW}", "1d", "Window of the GPU count's maximum."),
    ("{$PRIMUS.GPU.HEALTH.CRIT.FOR}", "1m", "GPU health critical for this long."),
    ("{$PRIMUS.GPU.HEALTH.WARN.FOR}", "15m", "GPU health warning for this long."),
    ("{$PRIMUS.GPU.NVLINK.DOWN.FOR}", "1m", "An NVLink that was up down for this long."),
    ("{$PRIMUS.GPU.NVLINK.UP.WINDOW}", "1d", "An NVLink counts as down only if it was up in this window."),
    ("{$PRIMUS.GPU.THROTTLE.MAX}", "20", "Share of time (%) a GPU's clocks are held back by one cause."),
    ("{$PRIMUS.GPU.THROTTLE.FOR}", "15m", "GPU held back above the maximum for this long."),
    ("{$PRIMUS.GPU.MIG.MEM.MAX}", "95", "MIG device memory used (%)."),
    ("{$PRIMUS.GPU.MIG.MEM.FOR}", "10m", "MIG device memory above the maximum for this long."),
    ("{$PRIMUS.OOM.WINDOW}", "5m", "OOM kills counted within this window."),
    ("{$PRIMUS.ROCE.LOSSLESS.FOR}", "10m", "An interface or the node not ready for lossless RoCE for this long."),
    ("{$PRIMUS.PCIE.DOWNTRAINED.FOR}", "5m", "An RDMA device's PCIe link below its maximum for this long."),
    ("{$PRIMUS.OPTIC.RX.LOW.FOR}", "5m", "A module lane below its own low RX power warning for this long."),
    ("{$PRIMUS.MODULE.ALARM.FOR}", "2m", "A module past one of its own alarm thresholds for this long."),
    ("{$PRIMUS.FEC.UNCORRECTABLE.WINDOW}", "10m", "FEC uncorrectable blocks counted within this window."),
    ("{$PRIMUS.STORAGE.PUSED.WARN}", "85", "Node ephemeral storage used (% of bytes or inodes): warning."),
    ("{$PRIMUS.STORAGE.WARN.FOR}", "15m", "Storage above the warning level for this long."),
    ("{$PRIMUS.STORAGE.PUSED.CRIT}", "95", "Node ephemeral storage used (% of bytes or inodes): critical."),
    ("{$PRIMUS.STORAGE.CRIT.FOR}", "5m", "Storage above the critical level for this long."),
    ("{$PRIMUS.POD.STORAGE.LIMIT.MAX}", "90", "A pod's ephemeral storage used (% of its own limit)."),
    ("{$PRIMUS.POD.STORAGE.NODE.MAX}", "25", "A pod's ephemeral storage used (% of the node's capacity)."),
    ("{$PRIMUS.POD.STORAGE.FOR}", "15m", "A pod above either maximum for this long."),
    ("{$PRIMUS.GPU.IDLE.FOR}", "5m", "A held GPU the agent judges idle (accountingIdleThreshold) for this long."),
    ("{$PRIMUS.GPU.ORPHAN.FOR}", "10m", "Processes in no container and no Slurm job on a GPU for this long."),
]

# ---------------------------------------------------------------------------
# Tables: discovery rule name, item name prefix, index decoding, discovery
# columns (macro -> column), lifetime macro, component tag.
# Index parts: (MACRO, "n") a number, (MACRO, "s") a length-prefixed string.
TABLES = {
    "primusPollerTable": dict(
        rule="Pollers", prefix="primusPoller", name="Poller {#POLLER}",
        index=[("POLLER_INDEX", "n")], columns={"POLLER": "primusPollerName"}, component="agent"),
    "primusEventTable": dict(
        rule="Events", prefix="primusEvent", name="Event {#EVENT_INDEX} ({#EVENT_SUBJECT})",
        index=[("EVENT_INDEX", "n")], columns={"EVENT_SUBJECT": "primusEventSubject"},
        lifetime="{$PRIMUS.LLD.LIFETIME.SHORT}", component="agent"),
    "primusGpuTable": dict(
        rule="GPUs", prefix="primusGpu", name="GPU {#GPU_INDEX} [{#GPU_BUS_ID}]",
        index=[("GPU_INDEX", "n")],
        columns={"GPU_NAME": "primusGpuName", "GPU_BUS_ID": "primusGpuPciBusId", "GPU_UUID": "primusGpuUuid"},
        component="gpu"),
    "primusGpuLinkTable": dict(
        rule="GPU links", prefix="primusGpuLink", name="GPU {#GPU_INDEX} link {#LINK}",
        index=[("GPU_INDEX", "n"), ("LINK", "n")], columns={"LINK_REMOTE": "primusGpuLinkRemoteBusId"},
        component="gpu"),
    "primusGpuProcTable": dict(
        rule="GPU processes", prefix="primusGpuProc", name="GPU {#GPU_INDEX} process {#PID} ({#PROCESS})",
        index=[("GPU_INDEX", "n"), ("PID", "n")],
        columns={"PROCESS": "primusGpuProcName", "CONTAINER_ID": "primusGpuProcContainer"},
        lifetime="{$PRIMUS.LLD.LIFETIME.SHORT}", component="gpu"),
    "primusGpuMigTable": dict(
        rule="GPU MIG devices", prefix="primusGpuMig",
        name="GPU {#GPU_INDEX} MIG {#GPU_INSTANCE}/{#COMPUTE_INSTANCE} ({#MIG_PROFILE})",
        index=[("GPU_INDEX", "n"), ("GPU_INSTANCE", "n"), ("COMPUTE_INSTANCE", "n")],
        columns={"MIG_UUID": "primusGpuMigUuid", "MIG_PROFILE": "primusGpuMigProfile"}, component="gpu"),
    "primusGpuPartitionTable": dict(
        rule="GPU compute partitions", prefix="primusGpuPartition",
        name="GPU {#GPU_INDEX} partition {#PARTITION} ({#RENDER_NODE})",
        index=[("GPU_INDEX", "n"), ("PARTITION", "n")],
        columns={"RENDER_NODE": "primusGpuPartitionRenderNode"}, component="gpu"),
    "primusRdmaDeviceTable": dict(
        rule="RDMA devices", prefix="primusRdma", name="RDMA {#RDMA_DEVICE}",
        index=[("RDMA_DEVICE", "s")], columns={"RDMA_HCA": "primusRdmaHcaType"}, component="rdma"),
    "primusIbPortTable": dict(
        rule="RDMA ports", prefix="primusIbPort", name="Port {#RDMA_DEVICE}/{#PORT}",
        index=[("RDMA_DEVICE", "s"), ("PORT", "n")],
        columns={"NETDEV": "primusIbPortNetdev", "LINK_LAYER": "primusIbPortLinkLayer"}, component="rdma"),
    "primusRoceCongTable": dict(
        rule="RoCE congestion", prefix="primusRoce", name="RoCE {#RDMA_DEVICE}/{#PORT}",
        index=[("RDMA_DEVICE", "s"), ("PORT", "n")],
        columns={"ECN_MARKED": "primusRoceNpEcnMarkedRocePackets", "OUT_OF_SEQUENCE": "primusRoceOutOfSequence"},
        component="rdma"),
    "primusHwCounterTable": dict(
        rule="RDMA hardware counters", prefix="primusHwCounter",
        name="RDMA {#RDMA_DEVICE}/{#PORT} counter {#COUNTER}",
        index=[("RDMA_DEVICE", "s"), ("PORT", "n"), ("COUNTER", "s")],
        columns={"COUNTER_VALUE": "primusHwCounterValue"}, component="rdma"),
    "primusPauseTable": dict(
        rule="Pause (interfaces)", prefix="primusPause", name="Interface {#IFNAME}",
        index=[("IFNAME", "s")],
        columns={"RDMA_DEVICE": "primusPauseRdmaDevice", "DRIVER": "primusPauseDriver"}, component="pfc"),
    "primusPfcTable": dict(
        rule="PFC priorities", prefix="primusPfc", name="Interface {#IFNAME} priority {#PRIORITY}",
        index=[("IFNAME", "s"), ("PRIORITY", "n")], columns={"PFC_RX_FRAMES": "primusPfcRxFrames"},
        component="pfc"),
    "primusEthtoolCounterTable": dict(
        rule="Ethtool counters", prefix="primusEthtoolCounter", name="Interface {#IFNAME} ethtool {#COUNTER}",
        index=[("IFNAME", "s"), ("COUNTER", "s")], columns={"COUNTER_VALUE": "primusEthtoolCounterValue"},
        component="pfc"),
    "primusRoceConfigTable": dict(
        rule="Lossless RoCE (interfaces)", prefix="primusRoce", name="Interface {#IFNAME} lossless RoCE",
        index=[("IFNAME", "s")],
        columns={"RDMA_DEVICE": "primusRoceRdmaDevice", "SWITCH": "primusRoceLldpSysName",
                 "SWITCH_PORT": "primusRoceLldpPortId"},
        component="pfc"),
    "primusPhyTable": dict(
        rule="Physical layer (interfaces)", prefix="primusPhy", name="Interface {#IFNAME} physical layer",
        index=[("IFNAME", "s")], columns={"RDMA_DEVICE": "primusPhyRdmaDevice"},
        component="phy"),
    "primusModuleTable": dict(
        rule="Modules (optics)", prefix="primusModule", name="Interface {#IFNAME} module",
        index=[("IFNAME", "s")],
        columns={"MODULE_TYPE": "primusModuleType", "PART_NUMBER": "primusModulePartNumber"},
        component="phy"),
    "primusModuleLaneTable": dict(
        rule="Module lanes", prefix="primusModuleLane", name="Interface {#IFNAME} module lane {#LANE}",
        index=[("IFNAME", "s"), ("LANE", "n")], columns={"RX_POWER": "primusModuleLaneRxPower"},
        component="phy"),
    "primusContainerTable": dict(
        rule="Containers", prefix="primusContainer", name="Container {#CONTAINER} [{#POD}]",
        index=[("CONTAINER_ID", "s")],
        columns={"CONTAINER": "primusContainerName", "POD": "primusContainerPodName",
                 "NAMESPACE": "primusContainerPodNamespace"},
        component="containers"),
    "primusContainerDeviceTable": dict(
        rule="Container devices", prefix="primusContainerDevice",
        name="Container {#CONTAINER_SHORT_ID} device {#DEVICE_PATH}",
        index=[("CONTAINER_ID", "s"), ("DEVICE_PATH", "s")], columns={"DEVICE_KIND": "primusContainerDeviceKind"},
        component="containers"),
    "primusPodResourceTable": dict(
        rule="Pod resources", prefix="primusPodResource",
        # A device plugin's row has a resource and id, a DRA claim's device a
        # driver and device name (the other two empty).
        name="Device {#RESOURCE}{#DRIVER} {#DEVICE_ID}{#DRA_DEVICE} [{#NAMESPACE}/{#POD}]",
        index=[("POD_RESOURCE_INDEX", "n")],
        columns={"RESOURCE": "primusPodResourceName", "DEVICE_ID": "primusPodResourceDeviceId",
                 "POD": "primusPodResourcePod", "NAMESPACE": "primusPodResourceNamespace",
                 "DRIVER": "primusPodResourceDriver", "DRA_DEVICE": "primusPodResourceDevice"},
        lifetime="{$PRIMUS.LLD.LIFETIME.SHORT}", component="kubernetes"),
    "primusSlurmJobTable": dict(
        rule="Slurm jobs", prefix="primusSlurmJob", name="Slurm job {#SLURM_JOB} ({#SLURM_USER})",
        index=[("SLURM_JOB", "n")], columns={"SLURM_USER": "primusSlurmJobUser"},
        lifetime="{$PRIMUS.LLD.LIFETIME.SHORT}", component="slurm"),
    "primusPodStorageTable": dict(
        rule="Pod storage", prefix="primusPod", name="Pod {#NAMESPACE}/{#POD}",
        index=[("POD_UID", "s")], columns={"POD": "primusPodName", "NAMESPACE": "primusPodNamespace"},
        component="storage"),
    "primusPodLabelTable": dict(
        rule="Pod labels", prefix="primusPodLabel", name="Pod {#NAMESPACE}/{#POD} label {#LABEL_KEY}",
        index=[("POD_UID", "s"), ("LABEL_KEY_ID", "s")],
        columns={"POD": "primusPodLabelPod", "NAMESPACE": "primusPodLabelNamespace",
                 "LABEL_KEY": "primusPodLabelKey"},
        component="kubernetes"),
    "primusGpuUsageTable": dict(
        rule="GPU usage", prefix="primusGpuUsage",
        name="GPU {#GPU_INDEX} holder {#HOLDER_ID} [{#NAMESPACE}/{#POD}]",
        index=[("HOLDER_KIND", "n"), ("HOLDER_ID", "s"), ("GPU_INDEX", "n")],
        columns={"POD": "primusGpuUsagePod", "NAMESPACE": "primusGpuUsageNamespace"},
        component="gpu"),
    "primusPodGpuUsageTable": dict(
        rule="Pod GPU usage", prefix="primusPodGpuUsage", name="Pod {#NAMESPACE}/{#POD} GPU usage",
        index=[("NAMESPACE", "s"), ("POD", "s")],
        columns={"USAGE_SINCE": "primusPodGpuUsageCounterDiscontinuityTime"}, component="gpu"),
    "primusSlurmJobGpuUsageTable": dict(
        rule="Slurm job GPU usage", prefix="primusSlurmJobGpuUsage",
        name="Slurm job {#SLURM_JOB} GPU usage", index=[("SLURM_JOB", "n")],
        columns={"USAGE_SINCE": "primusSlurmJobGpuUsageCounterDiscontinuityTime"},
        component="slurm"),
    "primusTopoTable": dict(
        rule="GPU and RDMA device pairs", prefix="primusTopo", name="Pair {#TOPO_A}/{#TOPO_B}",
        index=[("TOPO_A", "s"), ("TOPO_B", "s")], columns={"TOPO_CLASS": "primusTopoClass"},
        component="topology"),
}


# Scalars' component tags by the MIB group they sit in.
GROUP_COMPONENT = {
    "primusSystem": "system", "primusCpu": "cpu", "primusMemory": "memory", "primusAgent": "agent",
    "primusGpu": "gpu", "primusRdma": "rdma", "primusPfc": "pfc", "primusContainers": "containers",
    "primusStorage": "storage", "primusKubernetes": "kubernetes", "primusSlurm": "slurm",
}

# MIB objects no item covers, each with its reason.  The test fails on any
# other object without an item, item prototype or trap item.
EXCLUDED = {
    # not-accessible INDEX columns: carried in {#SNMPINDEX}, decoded by the
    # discovery rule into the macro named here
    "primusPollerIndex": "INDEX, not-accessible: {#POLLER_INDEX}",
    "primusEventIndex": "INDEX, not-accessible: {#EVENT_INDEX}",
    "primusGpuIndex": "INDEX, not-accessible: {#GPU_INDEX}",
    "primusGpuLinkNumber": "INDEX, not-accessible: {#LINK}",
    "primusGpuProcPid": "INDEX, not-accessible: {#PID}",
    "primusGpuMigGpuInstance": "INDEX, not-accessible: {#GPU_INSTANCE}",
    "primusGpuPartitionId": "INDEX, not-accessible: {#PARTITION}",
    "primusGpuMigComputeInstance": "INDEX, not-accessible: {#COMPUTE_INSTANCE}",
    "primusRdmaDeviceName": "INDEX, not-accessible: {#RDMA_DEVICE}",
    "primusIbPortNumber": "INDEX, not-accessible: {#PORT}",
    "primusHwCounterPort": "INDEX, not-accessible: {#PORT}",
    "primusHwCounterName": "INDEX, not-accessible: {#COUNTER}",
    "primusPfcIfName": "INDEX, not-accessible: {#IFNAME}",
    "primusPfcPriority": "INDEX, not-accessible: {#PRIORITY}",
    "primusEthtoolCounterName": "INDEX, not-accessible: {#COUNTER}",
    "primusContainerId": "INDEX, not-accessible: {#CONTAINER_ID}",
    "primusContainerDevicePath": "INDEX, not-accessible: {#DEVICE_PATH}",
    "primusPodUid": "INDEX, not-accessible: {#POD_UID}",
    "primusPodResourceIndex": "INDEX, not-accessible: {#POD_RESOURCE_INDEX}",
    "primusPodLabelPodUid": "INDEX, not-accessible: {#POD_UID}",
    "primusPodLabelKeyId": "INDEX, not-accessible: {#LABEL_KEY_ID}",
    "primusGpuUsageHolderKind": "INDEX, not-accessible: {#HOLDER_KIND}",
    "primusGpuUsageHolderId": "INDEX, not-accessible: {#HOLDER_ID}",
    "primusPodGpuUsageNamespace": "INDEX, not-accessible: {#NAMESPACE}",
    "primusPodGpuUsagePod": "INDEX, not-accessible: {#POD}",
    "primusSlurmJobGpuUsageJob": "INDEX, not-accessible: {#SLURM_JOB}",
    "primusSlurmJobId": "INDEX, not-accessible: {#SLURM_JOB}",
    "primusPhyIfName": "INDEX, not-accessible: {#IFNAME}",
    "primusModuleLane": "INDEX, not-accessible: {#LANE}",
    "primusTopoDeviceA": "INDEX, not-accessible: {#TOPO_A}",
    "primusTopoDeviceB": "INDEX, not-accessible: {#TOPO_B}",
    # accessible-for-notify: only in notifications, so in the trap items' text
    "primusNotifyRdmaDevice": "accessible-for-notify: in the text of the primusIbPortDown/Up and "
                              "primusPcieDowntrained/Restored trap items",
    "primusNotifyIbPort": "accessible-for-notify: in the text of the primusIbPortDown/Up trap items",
    "primusNotifyIbPortOldState": "accessible-for-notify: in the text of the primusIbPortDown/Up trap items",
    "primusNotifyGpuXid": "accessible-for-notify: in the text of the primusGpuXidError trap item",
    "primusNotifyGpuThreshold": "accessible-for-notify: in the text of the primusGpuThermal trap item",
    "primusNotifyIfName": "accessible-for-notify: in the text of the primusPfcPauseStorm trap item",
    "primusNotifyPfcPriority": "accessible-for-notify: in the text of the primusPfcPauseStorm trap item",
    "primusNotifyPauseRate": "accessible-for-notify: in the text of the primusPfcPauseStorm trap item",
    "primusNotifyModuleQuantity": "accessible-for-notify: in the text of the primusModuleThreshold(Clear) trap items",
    "primusNotifyModuleLane": "accessible-for-notify: in the text of the primusModuleThreshold(Clear) trap items",
    "primusNotifyModuleLevel": "accessible-for-notify: in the text of the primusModuleThreshold(Clear) trap items",
    "primusNotifyModuleValue": "accessible-for-notify: in the text of the primusModuleThreshold(Clear) trap items",
    "primusNotifyModuleThreshold": "accessible-for-notify: in the text of the primusModuleThreshold(Clear) trap items",
}

# Counters whose count, not rate, is what matters (triggers use max(W)>min(W), the count rising within W):
# no .rate item for them.
NO_RATE = {
    "primusAgentEventsTotal", "primusAgentEventsDropped", "primusPollerErrors", "primusPollerRuns",
    "primusGpuXidErrors", "primusGpuEccUncorrected", "primusGpuEccUncorrectedVolatile",
    "primusIbPortLinkDowned", "primusIbPortLinkErrRecovery", "primusPauseStormWarnings",
    "primusPauseStormErrors", "primusContainerOomKills", "primusContainerOomKillsTotal",
    "primusPhyFecUncorrectableBlocks", "primusPhyLinkDownEvents",
}

# Identity strings, polled at {$PRIMUS.INTERVAL.SLOW}.
SLOW = {
    "primusNodeHostname", "primusNodeOsName", "primusNodeKernel", "primusNodeCpuModel",
    "primusNodeArchitecture", "primusNodeBootTime", "primusCpuCores", "primusCpuThreads", "primusCpuSockets",
    "primusAgentVersion", "primusAgentMode", "primusAgentEventCapacity",
    "primusGpuVendor", "primusGpuOrdinal", "primusGpuName", "primusGpuUuid", "primusGpuSerial",
    "primusGpuPciBusId", "primusGpuDriverVersion", "primusGpuComputeVersion", "primusGpuVbios",
    "primusGpuPciDeviceId", "primusGpuDataSource", "primusGpuDrmCard", "primusGpuDrmRender",
    "primusGpuPcieGenMax", "primusGpuPcieWidthMax", "primusGpuTempSlowdown", "primusGpuTempShutdown",
    "primusGpuXgmiHiveId", "primusGpuMigUuid", "primusGpuMigProfile", "primusGpuMigSmCount",
    "primusGpuMigCapDevice", "primusGpuLinkVersion", "primusGpuLinkRemoteBusId", "primusGpuLinkRemoteType",
    "primusRdmaNodeType", "primusRdmaFirmware", "primusRdmaHcaType", "primusRdmaBoardId",
    "primusRdmaNodeGuid", "primusRdmaSysImageGuid", "primusRdmaPortCount", "primusRdmaDriver",
    "primusRdmaPciBusId", "primusIbPortLinkLayer", "primusIbPortGid", "primusIbPortNetdev",
    "primusIbPortIfIndex", "primusIbPortMaxMtu", "primusIbPortNeighborGuid",
    "primusIbPortNeighborNodeDesc", "primusIbPortNeighborPort", "primusIbPortNeighborNodeType",
    "primusPauseIfIndex", "primusPauseRdmaDevice",
    "primusPauseRdmaPort", "primusPauseDriver", "primusContainerRuntime", "primusContainerName",
    "primusContainerPodName", "primusContainerPodNamespace", "primusContainerPodUid", "primusContainerImage",
    "primusContainerCgroupPath", "primusContainerRuntimeNs", "primusContainerStartTime",
    "primusContainerDeviceKind", "primusContainerDeviceMajor", "primusContainerDeviceMinor",
    "primusContainerDeviceGpu", "primusContainerDeviceRdma", "primusPodName", "primusPodNamespace",
    "primusStoragePath", "primusStorageSource", "primusK8sNodeName",
}

UPTIME = {"primusNodeUptime", "primusAgentUptime"}

# MIB UNITS -> (Zabbix units, multiplier, rate units, rate multiplier)
UNITS = {
    "bytes": ("B", None, "Bps", None),
    "octets": ("B", None, "Bps", None),
    "bytes per second": ("Bps", None, None, None),
    "megabytes per second": ("Bps", "1000000", None, None),
    "hundredths of a percent": ("%", "0.01", None, None),
    "percent": ("%", None, None, None),
    "degrees Celsius": ("°C", None, None, None),
    "milliwatts": ("W", "0.001", None, None),
    "millijoules": ("J", "0.001", "W", "0.001"),
    "milliseconds": ("s", "0.001", None, None),
    "microseconds": ("s", "0.000001", "%", "0.0001"),
    "seconds": ("s", None, None, None),
    "seconds since 1970-01-01 UTC": ("unixtime", None, None, None),
    "MHz": ("Hz", "1000000", None, None),
    "Mb/s": ("bps", "1000000", None, None),
    "megabits per second": ("bps", "1000000", None, None),
    "hundredths": ("", "0.01", None, None),
    "hundredths of errors per second": ("errors/s", "0.01", None, None),
    "packets": ("", None, "pps", None),
}

WORDS = {
    "Pcie": "PCIe", "Ecc": "ECC", "Xid": "XID", "Sm": "SM", "Nv": "NV", "Mig": "MIG", "Gpu": "GPU",
    "Gpus": "GPUs", "Rdma": "RDMA", "Ib": "IB", "Cpu": "CPU", "Os": "OS", "Pci": "PCI", "Id": "ID",
    "Uuid": "UUID", "Drm": "DRM", "Vbios": "VBIOS", "Fp64": "FP64", "Fp32": "FP32", "Fp16": "FP16",
    "Dram": "DRAM", "Tx": "TX", "Rx": "RX", "Crc": "CRC", "Ber": "BER", "Guid": "GUID", "Hca": "HCA",
    "Lid": "LID", "Gid": "GID", "Mtu": "MTU", "Vl15": "VL15", "Ecn": "ECN", "Cnp": "CNP", "Np": "NP",
    "Rp": "RP", "Rnr": "RNR", "Nak": "NAK", "Adp": "ADP", "Icrc": "ICRC", "Pfc": "PFC", "Oom": "OOM",
    "K8s": "Kubernetes", "Ns": "namespace", "Mem": "memory", "Xgmi": "XGMI", "Phy": "PHY",
    "Sw": "SW", "Hw": "HW", "Gr": "GR",
}


def uuid_for(*parts):
    """A stable UUIDv4-shaped identifier (32 hex digits) for one object."""
    h = bytearray(hashlib.md5("\0".join(("primus-node-agent",) + parts).encode()).digest())
    h[6] = (h[6] & 0x0F) | 0x40
    h[8] = (h[8] & 0x3F) | 0x80
    return h.hex()


def words(camel):
    out, cur = [], ""
    for ch in camel:
        if ch.isupper() and cur and not cur[-1].isupper():
            out.append(cur)
            cur = ch
        elif ch.isdigit() and cur and not cur[-1].isdigit() and not cur[-1].isupper() and len(cur) > 2 and cur not in ("Fp", "Vl", "K"):
            out.append(cur)
            cur = ch
        else:
            cur += ch
    if cur:
        out.append(cur)
    res = []
    for i, w in enumerate(out):
        w2 = WORDS.get(w)
        if w2 is None:
            w2 = w if i == 0 else w.lower()
        res.append(w2)
    s = " ".join(res)
    return s[0].upper() + s[1:] if s else s


def load_mib(ietf):
    env = dict(os.environ, SMIPATH=os.path.abspath(ietf) + ":" + os.path.dirname(MIB_FILE))
    out = subprocess.run(["smidump", "-q", "-f", "python", MIB_FILE], env=env, check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if out.stderr.strip():
        sys.exit("smidump: " + out.stderr.strip())
    ns = {}
    exec(out.stdout, ns)  # smidump's python format is one assignment: MIB = {...}
    return ns["MIB"]


class Mib:
    def __init__(self, mib):
        self.mib = mib
        self.nodes = mib["nodes"]
        self.notifications = mib.get("notifications", {})
        self.typedefs = mib.get("typedefs", {})

    def type_name(self, node):
        t = node["syntax"]["type"]
        return t.get("name") or t.get("basetype")

    def enum(self, node):
        """(valuemap name, [(number, label)]) or None."""
        t = node["syntax"]["type"]
        name = t.get("name")
        if name == "TruthValue":
            return "TruthValue", [("1", "true"), ("2", "false")]
        src, vm = None, None
        if name and name in self.typedefs and self.typedefs[name].get("basetype") == "Enumeration":
            src, vm = self.typedefs[name], name
        elif t.get("basetype") == "Enumeration":
            src, vm = t, node_name_of(self.nodes, node)
        if src is None:
            return None
        vals = [(v["number"], k) for k, v in src.items() if isinstance(v, dict) and v.get("nodetype") == "namednumber"]
        return vm, sorted(vals, key=lambda x: int(x[0]))

    def parent_group(self, oid):
        for n, d in self.nodes.items():
            if d["nodetype"] == "node" and oid.startswith(d["oid"] + ".") and n in GROUP_COMPONENT:
                return n
        return None


def node_name_of(nodes, node):
    for n, d in nodes.items():
        if d is node:
            return n
    raise KeyError(node["oid"])


def description(node):
    return " ".join(node.get("description", "").split())


class Builder:
    def __init__(self, mib):
        self.m = Mib(mib)
        self.valuemaps = {}
        self.covered = {}

    def cover(self, obj, how):
        self.covered.setdefault(obj, how)

    def item_fields(self, name, node, key, oid, label, component, proto):
        tname = self.m.type_name(node)
        units_clause = node.get("units", "")
        enum = self.m.enum(node)
        units, mult, rate_units, rate_mult = UNITS.get(units_clause, ("", None, None, None))
        if name in UPTIME:
            units = "uptime"
        text = tname in ("DisplayString", "OctetString")
        if text:
            value_type = "CHAR"
        elif tname == "Integer32" or (mult is not None and "." in mult):
            value_type = "FLOAT"
        else:
            value_type = "UNSIGNED"
        delay = "{$PRIMUS.INTERVAL.SLOW}" if name in SLOW else "{$PRIMUS.INTERVAL}"
        item = {
            "uuid": uuid_for("item", key),
            "name": label,
            "type": "SNMP_AGENT",
            "snmp_oid": oid,
            "key": key,
            "delay": delay,
        }
        if text:
            item["trends"] = "0"
        if value_type != "UNSIGNED":
            item["value_type"] = value_type
        if units and not enum:
            item["units"] = units
        desc = description(node)
        if units_clause:
            desc += " (MIB UNITS: %s%s.)" % (units_clause, "; multiplied by %s" % mult if mult else "")
        item["description"] = "%s: %s" % (name, desc)
        if enum:
            vm_name, vals = enum
            self.valuemaps[vm_name] = vals
            item["valuemap"] = {"name": vm_name}
        steps = []
        if mult:
            steps.append({"type": "MULTIPLIER", "parameters": [mult]})
        if text:
            steps.append({"type": "DISCARD_UNCHANGED_HEARTBEAT", "parameters": ["6h"]})
        if steps:
            item["preprocessing"] = steps
        item["tags"] = [{"tag": "component", "value": component}]
        items = [item]
        counter = tname in ("Counter32", "Counter64")
        if counter and name not in NO_RATE:
            base = key.split("[", 1)
            rkey = base[0] + ".rate" + ("[" + base[1] if len(base) > 1 else "")
            if rate_units is None:
                rate_units = (units_clause + "/s") if units_clause and units_clause not in UNITS else (units + "/s" if units else "/s")
                if rate_units == "/s":
                    rate_units = "per second"
            rsteps = [{"type": "CHANGE_PER_SECOND", "parameters": [""]}]
            if rate_mult:
                rsteps.append({"type": "MULTIPLIER", "parameters": [rate_mult]})
            elif mult:
                rsteps.append({"type": "MULTIPLIER", "parameters": [mult]})
            items.append({
                "uuid": uuid_for("item", rkey),
                "name": label + " per second" if rate_units not in ("%", "W") else label + (" (share of time)" if rate_units == "%" else " (average power)"),
                "type": "DEPENDENT",
                "key": rkey,
                "delay": "0",
                "value_type": "FLOAT",
                "units": rate_units,
                "description": "Change per second of %s (the item %s)." % (name, key),
                "preprocessing": rsteps,
                "master_item": {"key": key},
                "tags": [{"tag": "component", "value": component}],
            })
        return items

    # ------------------------------------------------------------------
    def scalars(self):
        items = []
        for name, d in self.m.nodes.items():
            if d["nodetype"] != "scalar" or d.get("access") != "readonly":
                continue
            group = self.m.parent_group(d["oid"])
            comp = GROUP_COMPONENT.get(group, "agent")
            label = words(name[len("primus"):])
            items += self.item_fields(name, d, name, d["oid"] + ".0", label, comp, False)
            self.cover(name, "item " + name)
        # host inventory
        inv = {"primusNodeOsName": "OS", "primusNodeArchitecture": "HW_ARCH", "primusNodeCpuModel": "HARDWARE"}
        for it in items:
            if it["key"] in inv:
                it["inventory_link"] = inv[it["key"]]
        return items

    def discovery_js(self, spec):
        idx = ",".join('["%s","%s"]' % (m, k) for m, k in spec["index"])
        macros = ",".join('"{#%s}"' % m for m in spec["columns"])
        return (
            "// Decodes the table's INDEX out of {#SNMPINDEX} (PRIMUS-NODE-MIB's string indexes\n"
            "// are not-accessible: a length, then one sub-identifier per character).\n"
            "var index = [" + idx + "];\n"
            "var columns = [" + macros + "];\n"
            "var d = JSON.parse(value);\n"
            "var rows = Array.isArray(d) ? d : d.data;\n"
            "rows.forEach(function (r) {\n"
            "    var p = r['{#SNMPINDEX}'].split('.'), i = 0;\n"
            "    index.forEach(function (x) {\n"
            "        if (x[1] === 'n') { r['{#' + x[0] + '}'] = p[i++]; return; }\n"
            "        var n = parseInt(p[i++], 10), s = '';\n"
            "        for (var k = 0; k < n; k++) s += String.fromCharCode(parseInt(p[i++], 10));\n"
            "        r['{#' + x[0] + '}'] = s;\n"
            "    });\n"
            "    columns.forEach(function (c) { if (r[c] === undefined) r[c] = ''; });\n"
            "    if (r['{#CONTAINER_ID}'] !== undefined) r['{#CONTAINER_SHORT_ID}'] = r['{#CONTAINER_ID}'].substring(0, 12);\n"
            "});\n"
            "return JSON.stringify(rows);"
        )

    def tables(self):
        rules = []
        for tname, d in self.m.nodes.items():
            if d["nodetype"] != "table":
                continue
            if tname not in TABLES:
                raise SystemExit("table %s has no entry in TABLES of %s" % (tname, __file__))
            spec = TABLES[tname]
            cols = [(n, c) for n, c in self.m.nodes.items()
                    if c["nodetype"] == "column" and c["oid"].startswith(d["oid"] + ".1.")]
            parts = []
            for macro, col in spec["columns"].items():
                parts += ["{#%s}" % macro, self.m.nodes[col]["oid"]]
            key = tname[len("primus"):]
            key = "primus." + key[0].lower() + key[1:] + ".discovery"
            protos = []
            for n, c in cols:
                if c.get("access") != "readonly":
                    continue
                short = n[len(spec["prefix"]):] or n[len("primus"):]
                label = spec["name"] + ": " + words(short)
                protos += self.item_fields(n, c, n + "[{#SNMPINDEX}]", c["oid"] + ".{#SNMPINDEX}", label,
                                           spec["component"], True)
                self.cover(n, "item prototype %s[{#SNMPINDEX}]" % n)
            for p in protos:
                p["tags"] = p["tags"] + self.row_tags(tname)
            rule = {
                "uuid": uuid_for("lld", key),
                "name": spec["rule"],
                "type": "SNMP_AGENT",
                "snmp_oid": "discovery[" + ",".join(parts) + "]",
                "key": key,
                "delay": "{$PRIMUS.LLD.INTERVAL}",
                "lifetime": spec.get("lifetime", "{$PRIMUS.LLD.LIFETIME}"),
                "description": "%s: %s" % (tname, description(d)),
                "item_prototypes": protos,
                "preprocessing": [{"type": "JAVASCRIPT", "parameters": [self.discovery_js(spec)]}],
            }
            trig = TRIGGER_PROTOTYPES.get(tname, [])
            if trig:
                rule["trigger_prototypes"] = [self.trigger(t, proto=True) for t in trig]
            rules.append(rule)
        return rules

    def row_tags(self, tname):
        tags = {
            "primusGpuTable": [("gpu", "{#GPU_BUS_ID}")],
            "primusIbPortTable": [("rdma_port", "{#RDMA_DEVICE}/{#PORT}")],
            "primusRoceCongTable": [("rdma_port", "{#RDMA_DEVICE}/{#PORT}")],
            "primusRdmaDeviceTable": [("rdma_device", "{#RDMA_DEVICE}")],
            "primusPauseTable": [("interface", "{#IFNAME}")],
            "primusPfcTable": [("interface", "{#IFNAME}")],
            "primusRoceConfigTable": [("interface", "{#IFNAME}")],
            "primusPhyTable": [("interface", "{#IFNAME}")],
            "primusModuleTable": [("interface", "{#IFNAME}")],
            "primusModuleLaneTable": [("interface", "{#IFNAME}")],
            "primusContainerTable": [("container", "{#CONTAINER}"), ("pod", "{#NAMESPACE}/{#POD}")],
            "primusPodStorageTable": [("pod", "{#NAMESPACE}/{#POD}")],
            "primusPodLabelTable": [("pod", "{#NAMESPACE}/{#POD}")],
            "primusPollerTable": [("poller", "{#POLLER}")],
        }.get(tname, [])
        return [{"tag": a, "value": b} for a, b in tags]

    def traps(self):
        items = []
        for name, n in self.m.notifications.items():
            oid = n["oid"]
            regex = "PRIMUS-NODE-MIB::%s(\\s|$)|%s(\\s|$)" % (name, oid.replace(".", "\\."))
            key = 'snmptrap["%s"]' % regex
            items.append({
                "uuid": uuid_for("trap", name),
                "name": "SNMP trap %s" % name,
                "type": "SNMP_TRAP",
                "key": key,
                "delay": "0",
                "history": "2w",
                "trends": "0",
                "value_type": "LOG",
                "description": "%s (%s): %s Varbinds: %s." % (name, oid, description(n), ", ".join(n.get("objects", {}))),
                "tags": [{"tag": "component", "value": "traps"}],
            })
            self.cover(name, "trap item " + key)
            for obj in n.get("objects", {}):
                self.cover(obj, "varbind of trap item " + name) if obj in EXCLUDED else None
        items.append({
            "uuid": uuid_for("trap", "fallback"),
            "name": "SNMP traps (fallback)",
            "type": "SNMP_TRAP",
            "key": "snmptrap.fallback",
            "delay": "0",
            "history": "2w",
            "trends": "0",
            "value_type": "LOG",
            "description": "Traps from this node that no other trap item matched.",
            "tags": [{"tag": "component", "value": "traps"}],
        })
        return items

    def trigger(self, t, proto=False):
        out = {"uuid": uuid_for("trigger", t["name"]), "expression": t["expr"], "name": t["name"]}
        if t.get("event_name"):
            out["event_name"] = t["event_name"]
        if t.get("opdata"):
            out["opdata"] = t["opdata"]
        out["priority"] = t["priority"]
        out["description"] = t["description"]
        if t.get("manual_close"):
            out["manual_close"] = "YES"
        if t.get("depends"):
            out["dependencies"] = [{"name": dn, "expression": de} for dn, de in t["depends"]]
        out["tags"] = [{"tag": "alert", "value": t["alert"]}, {"tag": "component", "value": t["component"]}]
        return out

    def build(self):
        scalar_items = self.scalars()
        rules = self.tables()
        trap_items = self.traps()
        valuemaps = [{"uuid": uuid_for("valuemap", n), "name": n,
                      "mappings": [{"value": v, "newvalue": l} for v, l in vals]}
                     for n, vals in sorted(self.valuemaps.items())]
        template = {
            "uuid": uuid_for("template", TEMPLATE),
            "template": TEMPLATE,
            "name": TEMPLATE,
            "description": (
                "primus-node-agent (PRIMUS-NODE-MIB) over SNMP: node, CPU, memory, agent and pollers, "
                "GPUs (links, processes, MIG), RDMA devices and ports, RoCE congestion, pause/PFC, "
                "containers, ephemeral storage, Kubernetes, and its notifications as SNMP trap items. "
                "Generated from mibs/PRIMUS-NODE-MIB.txt by etc/zabbix/template.py; numeric OIDs, "
                "no MIB files needed on the Zabbix server. Triggers mirror etc/prometheus/alerts_snmp_exporter.yml. "
                "See docs/nms.md."),
            "groups": [{"name": GROUP}],
            "items": scalar_items + trap_items,
            "discovery_rules": rules,
            "tags": [{"tag": "class", "value": "hardware"}, {"tag": "target", "value": "primus-node-agent"}],
            "macros": [{"macro": m, "value": v, "description": d} for m, v, d in MACROS],
            "valuemaps": valuemaps,
        }
        return {
            "zabbix_export": {
                "version": "6.0",
                "groups": [{"uuid": uuid_for("group", GROUP), "name": GROUP}],
                "templates": [template],
                "triggers": [self.trigger(t) for t in TRIGGERS],
            }
        }

    def coverage(self):
        """Every object of the MIB: (name, kind, how it is covered or None)."""
        rows = []
        for name, d in self.m.nodes.items():
            if d["nodetype"] in ("scalar", "column"):
                how = self.covered.get(name) or (("excluded: " + EXCLUDED[name]) if name in EXCLUDED else None)
                rows.append((name, d["nodetype"], how))
        for name in self.m.notifications:
            rows.append((name, "notification", self.covered.get(name)))
        return rows


# ---------------------------------------------------------------------------
# Triggers: etc/prometheus/alerts_snmp_exporter.yml in Zabbix terms.  `alert`
# names the Prometheus rule mirrored.  "Held for W" is min()/max() over W.
def k(key, idx=True):
    return T + key + ("[{#SNMPINDEX}]" if idx else "")


def rose(key_expr, window):
    """The counter KEY_EXPR rose within WINDOW."""
    return "max(%s,%s)>min(%s,%s)" % (key_expr, window, key_expr, window)


def held_eq(key, value, window, idx=True):
    return "(min(%s,%s)=%s and max(%s,%s)=%s)" % (k(key, idx), window, value, k(key, idx), window, value)


TRIGGERS = [
    dict(alert="PrimusNodeAgentDown, PrimusSubagentMissing", component="agent", priority="HIGH",
         name="primus-node-agent: no SNMP data for {$PRIMUS.NODATA.TIMEOUT}",
         expr="nodata(%s,{$PRIMUS.NODATA.TIMEOUT})=1" % k("primusAgentUptime", False),
         description="primusAgentUptime has not been received for {$PRIMUS.NODATA.TIMEOUT}: snmpd is down or "
                     "unreachable, or the primus-node-agent subagent is not registered with it (the MIB's "
                     "subtree is missing from the answers). Check snmpd and primus-node-agent on the node."),
    dict(alert="PrimusAgentDegraded", component="agent", priority="WARNING",
         name="primus-node-agent is degraded",
         expr=held_eq("primusAgentStatus", 2, "{$PRIMUS.AGENT.DEGRADED.FOR}", False),
         description="A poller has been failing, timing out or serving stale data for "
                     "{$PRIMUS.AGENT.DEGRADED.FOR}. The Pollers discovery names it and its last error.",
         depends=[("primus-node-agent: no SNMP data for {$PRIMUS.NODATA.TIMEOUT}",
                   "nodata(%s,{$PRIMUS.NODATA.TIMEOUT})=1" % k("primusAgentUptime", False))]),
    dict(alert="PrimusGpuCountDropped", component="gpu", priority="HIGH",
         name="GPUs lost: {ITEM.LASTVALUE1} now, fewer than in the last {$PRIMUS.GPU.COUNT.WINDOW}",
         expr="max(%s,{$PRIMUS.GPU.COUNT.FOR})<max(%s,{$PRIMUS.GPU.COUNT.WINDOW})"
              % (k("primusGpuCount", False), k("primusGpuCount", False)),
         description="The node has had fewer GPUs than it had in the last {$PRIMUS.GPU.COUNT.WINDOW} for "
                     "{$PRIMUS.GPU.COUNT.FOR}. Compare nvidia-smi -L / rocm-smi with the node's inventory."),
    dict(alert="PrimusNodeOomKills", component="containers", priority="WARNING",
         name="OOM kills on the node",
         expr=rose(k("primusContainerOomKillsTotal", False), "{$PRIMUS.OOM.WINDOW}"),
         manual_close=True,
         description="Containers on this node were OOM killed in the last {$PRIMUS.OOM.WINDOW} (the node-wide "
                     "count, which also counts containers already gone). The per-container trigger names the "
                     "containers still there; the event table and primusContainerOomKill traps name the others."),
    dict(alert="PrimusNodeEphemeralStorageCritical", component="storage", priority="HIGH",
         name="Ephemeral storage is above {$PRIMUS.STORAGE.PUSED.CRIT}% full",
         expr="min(%s,{$PRIMUS.STORAGE.CRIT.FOR})>{$PRIMUS.STORAGE.PUSED.CRIT} or "
              "min(%s,{$PRIMUS.STORAGE.CRIT.FOR})>{$PRIMUS.STORAGE.PUSED.CRIT}/100*last(%s)"
              % (k("primusStorageUsage", False), k("primusStorageInodesUsed", False), k("primusStorageInodes", False)),
         description="The node's ephemeral storage (the kubelet's filesystem: pod logs, emptyDir, image layers) "
                     "is above {$PRIMUS.STORAGE.PUSED.CRIT}% used (bytes or inodes): pods are being evicted or will be."),
    dict(alert="PrimusNodeEphemeralStorageHigh", component="storage", priority="WARNING",
         name="Ephemeral storage is above {$PRIMUS.STORAGE.PUSED.WARN}% full",
         expr="min(%s,{$PRIMUS.STORAGE.WARN.FOR})>{$PRIMUS.STORAGE.PUSED.WARN} or "
              "min(%s,{$PRIMUS.STORAGE.WARN.FOR})>{$PRIMUS.STORAGE.PUSED.WARN}/100*last(%s)"
              % (k("primusStorageUsage", False), k("primusStorageInodesUsed", False), k("primusStorageInodes", False)),
         description="The node's ephemeral storage is above {$PRIMUS.STORAGE.PUSED.WARN}% used (bytes or inodes) "
                     "for {$PRIMUS.STORAGE.WARN.FOR}. The kubelet starts evicting pods at its eviction threshold.",
         depends=[("Ephemeral storage is above {$PRIMUS.STORAGE.PUSED.CRIT}% full",
                   "min(%s,{$PRIMUS.STORAGE.CRIT.FOR})>{$PRIMUS.STORAGE.PUSED.CRIT} or "
                   "min(%s,{$PRIMUS.STORAGE.CRIT.FOR})>{$PRIMUS.STORAGE.PUSED.CRIT}/100*last(%s)"
                   % (k("primusStorageUsage", False), k("primusStorageInodesUsed", False),
                      k("primusStorageInodes", False)))]),
    dict(alert="PrimusRoceNodeNotLossless", component="pfc", priority="WARNING",
         name="The node is not configured for lossless RoCE",
         expr=held_eq("primusRoceNodeLossless", 2, "{$PRIMUS.ROCE.LOSSLESS.FOR}", False),
         description="primusRoceNodeLossless has been notReady for {$PRIMUS.ROCE.LOSSLESS.FOR}: an interface "
                     "is not ready, or two interfaces are configured differently. primusRoceNodeLosslessReason "
                     "says which; docs/rdma.md says how to fix each finding."),
]

_thermal = ("min({t},{{$PRIMUS.GPU.THERMAL.FOR}})>=last({s}) or "
            "(min({t},{{$PRIMUS.GPU.THERMAL.FOR}})>={{$PRIMUS.GPU.TEMP.MAX}} and nodata({s},30m)=1)").format(
    t=k("primusGpuTemperature"), s=k("primusGpuTempSlowdown"))
_throttle = " or ".join("min(%s,{$PRIMUS.GPU.THROTTLE.FOR})>{$PRIMUS.GPU.THROTTLE.MAX}" % k("primusGpuThrottleTime%s.rate" % c)
                        for c in ("Power", "Thermal", "SwThermal", "HwThermal", "HwPowerBrake", "BoardLimit",
                                  "Reliability"))
# AMD: residency cycles against accumulation cycles (the cycle length is undocumented)
_throttle_amd = " or ".join(
    "min(%s,{$PRIMUS.GPU.THROTTLE.FOR})>{$PRIMUS.GPU.THROTTLE.MAX}/100*max(%s,{$PRIMUS.GPU.THROTTLE.FOR})"
    % (k("primusGpuThrottleRes%s.rate" % c), k("primusGpuThrottleAccCycles.rate"))
    for c in ("Ppt", "SocketThermal", "HbmThermal", "VrThermal", "Prochot"))
_pfc_storm = ("min({rx},{{$PRIMUS.PFC.STORM.FOR}})>{{$PRIMUS.PFC.STORM.MAX}} or "
              "min({tx},{{$PRIMUS.PFC.STORM.FOR}})>{{$PRIMUS.PFC.STORM.MAX}} or "
              "max({e},{{$PRIMUS.PFC.STORM.WINDOW}})>min({e},{{$PRIMUS.PFC.STORM.WINDOW}}) or max({w},{{$PRIMUS.PFC.STORM.WINDOW}})>min({w},{{$PRIMUS.PFC.STORM.WINDOW}})").format(
    rx=k("primusPauseRxRate"), tx=k("primusPauseTxRate"), e=k("primusPauseStormErrors"), w=k("primusPauseStormWarnings"))

TRIGGER_PROTOTYPES = {
    "primusPollerTable": [
        dict(alert="PrimusPollerFailing", component="agent", priority="WARNING",
             name="Poller {#POLLER} is failing",
             expr="min({s},{{$PRIMUS.POLLER.FAILING.FOR}})>=2 and max({s},{{$PRIMUS.POLLER.FAILING.FOR}})<=3".format(
                 s=k("primusPollerStatus")),
             description="The {#POLLER} poller has been failing or timed out for {$PRIMUS.POLLER.FAILING.FOR}; "
                         "its figures are the last good ones until staleAfter. primusPollerLastError has the reason."),
        dict(alert="PrimusPollerDataStale", component="agent", priority="WARNING",
             name="Poller {#POLLER}: data older than 3 poll intervals",
             expr="min({a},{{$PRIMUS.POLLER.STALE.FOR}})>3*last({i})/1000 and "
                  "min({a},{{$PRIMUS.POLLER.STALE.FOR}})>(last({i})+last({t}))/1000".format(
                      a=k("primusPollerDataAge"), i=k("primusPollerInterval"), t=k("primusPollerTimeout")),
             description="The {#POLLER} poller's data is older than 3 poll intervals (and than one interval plus "
                         "the poll timeout) for {$PRIMUS.POLLER.STALE.FOR}: the poller is hung or failing."),
        dict(alert="PrimusAgentNotReady", component="agent", priority="WARNING",
             name="Poller {#POLLER} never finished a run",
             expr=held_eq("primusPollerStatus", 5, "{$PRIMUS.POLLER.PENDING.FOR}"),
             description="The {#POLLER} poller has not finished its first run in {$PRIMUS.POLLER.PENDING.FOR}: "
                         "a source is hanging at start-up."),
    ],
    "primusIbPortTable": [
        dict(alert="PrimusIbPortDown", component="rdma", priority="HIGH",
             name="RDMA port {#RDMA_DEVICE}/{#PORT} is down",
             opdata="State: {ITEM.LASTVALUE1}",
             expr="count({s},{{$PRIMUS.IB.PORT.DOWN.FOR}},\"eq\",4)=0 and last({s})<>4 and "
                  "count({s},{{$PRIMUS.IB.PORT.ACTIVE.WINDOW}},\"eq\",4)>0".format(s=k("primusIbPortState")),
             description="Port {#PORT} of {#RDMA_DEVICE} ({#NETDEV}) left the ACTIVE state for "
                         "{$PRIMUS.IB.PORT.DOWN.FOR} after being ACTIVE in the last {$PRIMUS.IB.PORT.ACTIVE.WINDOW} "
                         "(ports never active do not fire). Check the cable and the switch port (ibstat, "
                         "ibportstate) and, on InfiniBand, the subnet manager."),
        dict(alert="PrimusIbLinkFlapping", component="rdma", priority="WARNING",
             name="RDMA link {#RDMA_DEVICE}/{#PORT} is flapping",
             expr="max({d},{{$PRIMUS.IB.FLAP.WINDOW}})>min({d},{{$PRIMUS.IB.FLAP.WINDOW}}) or max({r},{{$PRIMUS.IB.FLAP.WINDOW}})>min({r},{{$PRIMUS.IB.FLAP.WINDOW}})".format(
                 d=k("primusIbPortLinkDowned"), r=k("primusIbPortLinkErrRecovery")),
             description="The link of {#RDMA_DEVICE}/{#PORT} went down or through error recovery in the last "
                         "{$PRIMUS.IB.FLAP.WINDOW}. Reseat or replace the cable or transceiver if it repeats."),
        dict(alert="PrimusIbPortErrors", component="rdma", priority="WARNING",
             name="RDMA port {#RDMA_DEVICE}/{#PORT} counts errors",
             opdata="{ITEM.LASTVALUE1}",
             expr="min(%s,{$PRIMUS.IB.ERRORS.FOR})>{$PRIMUS.IB.ERRORS.MAX}" % k("primusIbPortErrorRate"),
             description="{#RDMA_DEVICE}/{#PORT} has counted more than {$PRIMUS.IB.ERRORS.MAX} errors per second for "
                         "{$PRIMUS.IB.ERRORS.FOR} (symbol, receive, discard and integrity counters together). A bad "
                         "cable or a port that needs reseating."),
    ],
    "primusRoceCongTable": [
        dict(alert="PrimusRoceCongestionStorm", component="rdma", priority="WARNING",
             name="ECN/CNP storm on {#RDMA_DEVICE}/{#PORT}",
             expr=" or ".join("min(%s,{$PRIMUS.ROCE.CONGESTION.FOR})>{$PRIMUS.ROCE.CONGESTION.MAX}" % k(x + ".rate")
                              for x in ("primusRoceNpEcnMarkedRocePackets", "primusRoceNpCnpSent",
                                        "primusRoceRpCnpHandled")),
             description="{#RDMA_DEVICE}/{#PORT} has marked, sent or handled more than {$PRIMUS.ROCE.CONGESTION.MAX} "
                         "ECN/CNP packets per second for {$PRIMUS.ROCE.CONGESTION.FOR}. Look for the congested "
                         "switch queue (ECN thresholds, incast)."),
        dict(alert="PrimusRoceRetransmits", component="rdma", priority="WARNING",
             name="RoCE packet loss on {#RDMA_DEVICE}/{#PORT}",
             expr="min({o},{{$PRIMUS.ROCE.RETRANS.FOR}})>{{$PRIMUS.ROCE.OOS.MAX}} or "
                  "min({a},{{$PRIMUS.ROCE.RETRANS.FOR}})>{{$PRIMUS.ROCE.ACK.TIMEOUT.MAX}}".format(
                      o=k("primusRoceOutOfSequence.rate"), a=k("primusRoceLocalAckTimeoutErr.rate")),
             description="{#RDMA_DEVICE}/{#PORT} sees out-of-sequence packets or ACK timeouts above "
                         "{$PRIMUS.ROCE.OOS.MAX}/s or {$PRIMUS.ROCE.ACK.TIMEOUT.MAX}/s for {$PRIMUS.ROCE.RETRANS.FOR}: "
                         "packets are dropped in a fabric meant to be lossless (PFC off on a priority, buffer overruns)."),
    ],
    "primusPauseTable": [
        dict(alert="PrimusPfcPauseStorm", component="pfc", priority="HIGH",
             name="Pause storm on {#IFNAME}",
             expr=_pfc_storm,
             description="{#IFNAME} is in a pause storm: pause frames above {$PRIMUS.PFC.STORM.MAX} per second for "
                         "{$PRIMUS.PFC.STORM.FOR}, or storm events from the NIC in the last {$PRIMUS.PFC.STORM.WINDOW}. "
                         "A stuck receiver can stall the whole lossless priority across the fabric; find the host "
                         "that sends the pauses."),
    ],
    "primusRdmaDeviceTable": [
        dict(alert="PrimusPcieDowntrained", component="rdma", priority="WARNING",
             name="PCIe link of {#RDMA_DEVICE} is downtrained",
             opdata="x{ITEM.LASTVALUE2} lanes",
             expr="%s and last(%s)>=0" % (held_eq("primusRdmaPcieDowntrained", 1, "{$PRIMUS.PCIE.DOWNTRAINED.FOR}"),
                                          k("primusRdmaPcieLinkWidth")),
             description="The PCIe link of {#RDMA_DEVICE} has run below its maximum width or speed for "
                         "{$PRIMUS.PCIE.DOWNTRAINED.FOR} (primusRdmaPcieLinkWidth and primusRdmaPcieLinkSpeed "
                         "against their maximum): RDMA traffic is capped below line rate. Reseat the card or check "
                         "the slot and riser (lspci -vv, LnkSta against LnkCap)."),
    ],
    "primusPhyTable": [
        dict(alert="PrimusFecUncorrectableRising", component="phy", priority="WARNING",
             name="{#IFNAME} loses FEC blocks",
             expr=rose(k("primusPhyFecUncorrectableBlocks"), "{$PRIMUS.FEC.UNCORRECTABLE.WINDOW}"),
             description="{#IFNAME} received FEC blocks the FEC could not correct in the last "
                         "{$PRIMUS.FEC.UNCORRECTABLE.WINDOW}: the link drops data; primusPhyFecCorrectedBlocks "
                         "shows how close it runs to that. Clean or replace the optic and fibre."),
    ],
    "primusModuleTable": [
        dict(alert="PrimusModuleAlarm", component="phy", priority="HIGH",
             name="Module of {#IFNAME} is past an alarm threshold",
             opdata="Level: {ITEM.LASTVALUE1}",
             expr="min({w},{{$PRIMUS.MODULE.ALARM.FOR}})>=4".format(w=k("primusModuleWorstLevel")),
             description="A reading of the module in {#IFNAME} ({#MODULE_TYPE} {#PART_NUMBER}) has been past one "
                         "of the module's own alarm thresholds for {$PRIMUS.MODULE.ALARM.FOR} (lowAlarm or "
                         "highAlarm); primusModuleTable and primusModuleLaneTable say which."),
    ],
    "primusModuleLaneTable": [
        dict(alert="PrimusOpticRxPowerLow", component="phy", priority="WARNING",
             name="Optic of {#IFNAME}: lane {#LANE} receives too little light",
             # every value in the window lowWarning(2) or lowAlarm(4)
             expr="count({l},{{$PRIMUS.OPTIC.RX.LOW.FOR}})>0 and count({l},{{$PRIMUS.OPTIC.RX.LOW.FOR}},\"eq\",2)+"
                  "count({l},{{$PRIMUS.OPTIC.RX.LOW.FOR}},\"eq\",4)=count({l},{{$PRIMUS.OPTIC.RX.LOW.FOR}})".format(
                      l=k("primusModuleLaneRxPowerLevel")),
             description="Lane {#LANE} of the module in {#IFNAME} has received less light than the module's own "
                         "low warning threshold for {$PRIMUS.OPTIC.RX.LOW.FOR}: a dirty or damaged fibre or "
                         "connector, or a failing transmitter at the other end."),
    ],
    "primusRoceConfigTable": [
        dict(alert="PrimusRoceNotLossless", component="pfc", priority="WARNING",
             name="{#IFNAME} is not configured for lossless RoCE",
             expr=held_eq("primusRoceLossless", 2, "{$PRIMUS.ROCE.LOSSLESS.FOR}"),
             description="{#IFNAME} has been notReady for {$PRIMUS.ROCE.LOSSLESS.FOR}; "
                         "primusRoceLosslessReason lists the rules it fails (PFC priorities, ECN, trust, "
                         "the RDMA and CNP priorities). RoCE traffic there can be dropped under congestion "
                         "instead of paused."),
    ],
    "primusPfcTable": [
        dict(alert="PrimusPfcPauseStorm", component="pfc", priority="HIGH",
             name="Pause storm on {#IFNAME} priority {#PRIORITY}",
             expr="min({rx},{{$PRIMUS.PFC.STORM.FOR}})>{{$PRIMUS.PFC.STORM.MAX}} or "
                  "min({tx},{{$PRIMUS.PFC.STORM.FOR}})>{{$PRIMUS.PFC.STORM.MAX}}".format(
                      rx=k("primusPfcRxRate"), tx=k("primusPfcTxRate")),
             description="Priority {#PRIORITY} of {#IFNAME} carries more than {$PRIMUS.PFC.STORM.MAX} pause frames "
                         "per second for {$PRIMUS.PFC.STORM.FOR}: a pause storm on a lossless priority."),
        dict(alert="PrimusPfcPauseFramesHigh", component="pfc", priority="WARNING",
             name="Many PFC pauses on {#IFNAME} priority {#PRIORITY}",
             expr="min({rx},{{$PRIMUS.PFC.FRAMES.FOR}})>{{$PRIMUS.PFC.FRAMES.MAX}} or "
                  "min({tx},{{$PRIMUS.PFC.FRAMES.FOR}})>{{$PRIMUS.PFC.FRAMES.MAX}}".format(
                      rx=k("primusPfcRxFrames.rate"), tx=k("primusPfcTxFrames.rate")),
             description="{#IFNAME} has received or sent more than {$PRIMUS.PFC.FRAMES.MAX} PFC pause frames per "
                         "second on priority {#PRIORITY} for {$PRIMUS.PFC.FRAMES.FOR}."),
        dict(alert="PrimusPfcPriorityPaused", component="pfc", priority="WARNING",
             name="Priority {#PRIORITY} of {#IFNAME} is paused most of the time",
             expr="min(%s,{$PRIMUS.PFC.PAUSED.FOR})>{$PRIMUS.PFC.PAUSED.MAX}" % k("primusPfcRxDuration.rate"),
             description="The link partner has paused priority {#PRIORITY} of {#IFNAME} more than "
                         "{$PRIMUS.PFC.PAUSED.MAX}% of the time for {$PRIMUS.PFC.PAUSED.FOR}."),
    ],
    "primusGpuTable": [
        dict(alert="PrimusGpuXidError", component="gpu", priority="WARNING",
             name="XID error on GPU {#GPU_BUS_ID}",
             opdata="Last XID: {ITEM.LASTVALUE2}",
             expr="max({x},{{$PRIMUS.GPU.XID.WINDOW}})>min({x},{{$PRIMUS.GPU.XID.WINDOW}}) and last({l})>=0".format(
                 x=k("primusGpuXidErrors"), l=k("primusGpuLastXid")),
             description="The driver reported XID errors on GPU {#GPU_BUS_ID} ({#GPU_NAME}, {#GPU_UUID}) in the "
                         "last {$PRIMUS.GPU.XID.WINDOW}. Look the code up in NVIDIA's XID catalogue; dmesg has "
                         "the details.",
             depends=[("Critical XID on GPU {#GPU_BUS_ID}",
                       "max({x},{{$PRIMUS.GPU.XID.WINDOW}})>min({x},{{$PRIMUS.GPU.XID.WINDOW}}) and "
                       "find({l},,\"regexp\",\"{{$PRIMUS.GPU.XID.CRITICAL}}\")=1".format(
                           x=k("primusGpuXidErrors"), l=k("primusGpuLastXid")))]),
        dict(alert="PrimusGpuXidCritical", component="gpu", priority="HIGH",
             name="Critical XID on GPU {#GPU_BUS_ID}",
             opdata="Last XID: {ITEM.LASTVALUE2}",
             expr="max({x},{{$PRIMUS.GPU.XID.WINDOW}})>min({x},{{$PRIMUS.GPU.XID.WINDOW}}) and "
                  "find({l},,\"regexp\",\"{{$PRIMUS.GPU.XID.CRITICAL}}\")=1".format(
                      x=k("primusGpuXidErrors"), l=k("primusGpuLastXid")),
             description="GPU {#GPU_BUS_ID} ({#GPU_NAME}, {#GPU_UUID}) reported an XID of {$PRIMUS.GPU.XID.CRITICAL} "
                         "in the last {$PRIMUS.GPU.XID.WINDOW}: drain the node and reset or replace the GPU."),
        dict(alert="PrimusGpuEccUncorrected", component="gpu", priority="HIGH",
             name="Uncorrected ECC errors on GPU {#GPU_BUS_ID}",
             expr=rose(k("primusGpuEccUncorrected"), "{$PRIMUS.GPU.ECC.WINDOW}"),
             manual_close=True,
             description="GPU {#GPU_BUS_ID} ({#GPU_UUID}) counted uncorrected ECC errors in the last "
                         "{$PRIMUS.GPU.ECC.WINDOW}. Jobs on it may have produced wrong results; drain and reset it."),
        dict(alert="PrimusGpuThermalSlowdown", component="gpu", priority="HIGH",
             name="GPU {#GPU_BUS_ID} is above its slowdown temperature",
             opdata="{ITEM.LASTVALUE1} (slowdown {ITEM.LASTVALUE2})",
             expr=_thermal,
             description="GPU {#GPU_BUS_ID} ({#GPU_NAME}) has been at or above its slowdown temperature (or "
                         "{$PRIMUS.GPU.TEMP.MAX} °C where the GPU reports none) for {$PRIMUS.GPU.THERMAL.FOR}: it is "
                         "throttling. Check fans, airflow and the inlet temperature of the chassis."),
        dict(alert="PrimusGpuTemperatureNearSlowdown", component="gpu", priority="WARNING",
             name="GPU {#GPU_BUS_ID} is near its slowdown temperature",
             opdata="{ITEM.LASTVALUE1} (slowdown {ITEM.LASTVALUE2})",
             expr="min({t},{{$PRIMUS.GPU.TEMP.NEAR.FOR}})>=last({s})-{{$PRIMUS.GPU.TEMP.MARGIN}} and "
                  "last({t})<last({s})".format(t=k("primusGpuTemperature"), s=k("primusGpuTempSlowdown")),
             description="GPU {#GPU_BUS_ID} has been within {$PRIMUS.GPU.TEMP.MARGIN} °C of its slowdown "
                         "threshold for {$PRIMUS.GPU.TEMP.NEAR.FOR}.",
             depends=[("GPU {#GPU_BUS_ID} is above its slowdown temperature", _thermal)]),
        dict(alert="PrimusGpuLost", component="gpu", priority="HIGH",
             name="GPU {#GPU_BUS_ID} is lost",
             expr=" and ".join("nodata(%s,{$PRIMUS.GPU.LOST.FOR})=1" % k(x) for x in (
                 "primusGpuMemTotal", "primusGpuTemperature", "primusGpuUtilization", "primusGpuPowerDraw")),
             description="GPU {#GPU_BUS_ID} ({#GPU_NAME}, {#GPU_UUID}) keeps its row but every measured column "
                         "(memory, temperature, utilisation, power) has been absent for {$PRIMUS.GPU.LOST.FOR}: it "
                         "stopped answering its driver or fell off the bus. Drain the node; a reset or a reboot is "
                         "needed."),
        dict(alert="PrimusGpuHealthCritical", component="gpu", priority="HIGH",
             name="GPU {#GPU_BUS_ID} is critical",
             expr=held_eq("primusGpuHealth", 3, "{$PRIMUS.GPU.HEALTH.CRIT.FOR}"),
             description="The agent judges GPU {#GPU_BUS_ID} ({#GPU_UUID}) critical (the reason is in "
                         "the GPU's Health reason item, primusGpuHealthReason). Drain the node and follow the reason "
                         "(reset, reboot, replace); docs/gpu.md lists the rules."),
        dict(alert="PrimusGpuHealthWarning", component="gpu", priority="WARNING",
             name="GPU {#GPU_BUS_ID} needs attention",
             expr=held_eq("primusGpuHealth", 2, "{$PRIMUS.GPU.HEALTH.WARN.FOR}"),
             description="GPU {#GPU_BUS_ID} has been in warning for {$PRIMUS.GPU.HEALTH.WARN.FOR} (the reason is "
                         "in the GPU's Health reason item, primusGpuHealthReason)."),
        dict(alert="PrimusGpuThrottled", component="gpu", priority="WARNING",
             name="GPU {#GPU_BUS_ID} is held back",
             expr=_throttle,
             description="GPU {#GPU_BUS_ID} has had its clocks held back more than {$PRIMUS.GPU.THROTTLE.MAX}% of "
                         "the time by one cause (power, thermal, software or hardware thermal, hardware power "
                         "brake, board limit, reliability) for {$PRIMUS.GPU.THROTTLE.FOR}. Power: the power limit "
                         "or the PSU; thermal: fans, airflow, inlet."),
        dict(alert="PrimusGpuThrottledAmd", component="gpu", priority="WARNING",
             name="AMD GPU {#GPU_BUS_ID} is held back",
             expr=_throttle_amd,
             description="AMD GPU {#GPU_BUS_ID} has been held back in more than {$PRIMUS.GPU.THROTTLE.MAX}% of "
                         "the firmware's accumulation cycles by one limiter (ppt: the power limit; socket, VR, "
                         "HBM thermal, prochot: cooling) for {$PRIMUS.GPU.THROTTLE.FOR}."),
    ],
    "primusGpuLinkTable": [
        dict(alert="PrimusGpuNvlinkDown", component="gpu", priority="HIGH",
             name="Link {#LINK} of GPU {#GPU_INDEX} is down",
             expr=held_eq("primusGpuLinkState", 2, "{$PRIMUS.GPU.NVLINK.DOWN.FOR}")
                  + " and count(%s,{$PRIMUS.GPU.NVLINK.UP.WINDOW},\"eq\",1)>0" % k("primusGpuLinkState"),
             description="Link {#LINK} of GPU {#GPU_INDEX} (remote {#LINK_REMOTE}) was up in the last "
                         "{$PRIMUS.GPU.NVLINK.UP.WINDOW} and has been down for {$PRIMUS.GPU.NVLINK.DOWN.FOR}: "
                         "collective traffic takes slower paths or fails. Check nvidia-smi nvlink -s (NVLink) or "
                         "amd-smi xgmi (XGMI), the fabric manager and the XID log."),
    ],
    "primusGpuMigTable": [
        dict(alert="PrimusGpuMigMemoryFull", component="gpu", priority="WARNING",
             name="MIG device {#MIG_PROFILE} {#GPU_INSTANCE}/{#COMPUTE_INSTANCE} of GPU {#GPU_INDEX} is nearly full",
             expr="last({t})>0 and min({u},{{$PRIMUS.GPU.MIG.MEM.FOR}})>{{$PRIMUS.GPU.MIG.MEM.MAX}}/100*last({t})".format(
                 t=k("primusGpuMigMemTotal"), u=k("primusGpuMigMemUsed")),
             description="MIG device {#MIG_UUID} of GPU {#GPU_INDEX} has used more than {$PRIMUS.GPU.MIG.MEM.MAX}% "
                         "of its memory for {$PRIMUS.GPU.MIG.MEM.FOR}; its pod will get CUDA out-of-memory errors."),
    ],
    "primusContainerTable": [
        dict(alert="PrimusContainerOomKilled", component="containers", priority="WARNING",
             name="Container {#CONTAINER} of {#NAMESPACE}/{#POD} was OOM killed",
             expr=rose(k("primusContainerOomKills"), "{$PRIMUS.OOM.WINDOW}"),
             manual_close=True,
             description="The kernel killed a process of container {#CONTAINER} ({#CONTAINER_ID}) in pod "
                         "{#NAMESPACE}/{#POD} for lack of memory in the last {$PRIMUS.OOM.WINDOW}. Raise its "
                         "memory limit or reduce its use."),
    ],
    "primusPodStorageTable": [
        dict(alert="PrimusPodEphemeralStorageHigh", component="storage", priority="WARNING",
             name="Pod {#NAMESPACE}/{#POD} is near its ephemeral storage limit",
             expr="(last({l})>0 and min({u},{{$PRIMUS.POD.STORAGE.FOR}})>{{$PRIMUS.POD.STORAGE.LIMIT.MAX}}/100*last({l})) or "
                  "min({u},{{$PRIMUS.POD.STORAGE.FOR}})>{{$PRIMUS.POD.STORAGE.NODE.MAX}}/100*last({c})".format(
                      l=k("primusPodStorageLimit"), u=k("primusPodStorageUsed"),
                      c=T + "primusStorageCapacity"),
             description="Pod {#NAMESPACE}/{#POD} has used more than {$PRIMUS.POD.STORAGE.LIMIT.MAX}% of its "
                         "ephemeral-storage limit or more than {$PRIMUS.POD.STORAGE.NODE.MAX}% of the node's "
                         "capacity for {$PRIMUS.POD.STORAGE.FOR}. The kubelet evicts a pod that exceeds its limit."),
    ],
}


# GPUs held and unused, and processes nobody holds (alerts_snmp_exporter.yml,
# primus-node-agent-snmp.gpu-work): the agent's own verdicts.
TRIGGER_PROTOTYPES["primusGpuTable"] += [
    dict(alert="PrimusGpuIdleAllocated", component="gpu", priority="WARNING",
         name="GPU {#GPU_BUS_ID} is allocated and idle",
         expr=held_eq("primusGpuIdleAllocated", 1, "{$PRIMUS.GPU.IDLE.FOR}"),
         description="GPU {#GPU_BUS_ID} is held by a container, pod or Slurm job (its Holder pod and Holder "
                     "job items) and its activity has stayed below the agent's accountingIdleThreshold for the "
                     "whole window, for {$PRIMUS.GPU.IDLE.FOR}: an allocated GPU nobody uses. Ask its owner to "
                     "release it."),
    dict(alert="PrimusGpuOrphanProcesses", component="gpu", priority="WARNING",
         name="GPU {#GPU_BUS_ID} runs processes nobody holds",
         opdata="{ITEM.LASTVALUE1} process(es)",
         expr="min(%s,{$PRIMUS.GPU.ORPHAN.FOR})>0" % k("primusGpuOrphanProcesses"),
         description="Processes on GPU {#GPU_BUS_ID} have run in no container and no Slurm job for "
                     "{$PRIMUS.GPU.ORPHAN.FOR}: work outside the scheduler, or left behind by a container that "
                     "went away. The GPU processes' Orphan items (primusGpuProcOrphan) name them."),
]

# ---------------------------------------------------------------------------
class Dumper(yaml.SafeDumper):
    pass


def _str(dumper, s):
    style = "|" if "\n" in s else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=style)


Dumper.add_representer(str, _str)


def render(doc):
    return yaml.dump(doc, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=1000, default_flow_style=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ietf-mibdir", default=os.environ.get("PNA_IETF_MIBDIR", ""),
                    help="directory with the IETF base MIB modules (default: $PNA_IETF_MIBDIR)")
    ap.add_argument("--out", default=OUT_FILE, help="output file (default: %(default)s)")
    ap.add_argument("--coverage", action="store_true",
                    help="print every MIB object and what covers it, tab-separated, instead")
    a = ap.parse_args()
    if not a.ietf_mibdir:
        sys.exit("template.py: --ietf-mibdir DIR (or PNA_IETF_MIBDIR) is needed: smidump reads the IETF base MIBs")
    b = Builder(load_mib(a.ietf_mibdir))
    doc = b.build()
    if a.coverage:
        for name, kind, how in b.coverage():
            print("%s\t%s\t%s" % (name, kind, how or "NOT COVERED"))
        return
    text = ("# Zabbix template for primus-node-agent (PRIMUS-NODE-MIB), Zabbix 6.0 export format.\n"
            "# Generated by etc/zabbix/template.py from mibs/PRIMUS-NODE-MIB.txt: do not edit,\n"
            "# run `make zabbix-template`.  Import: docs/nms.md.\n") + render(doc)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
