#!/usr/bin/env python3
"""Compare primusGpuTable with nvidia-smi and NVML on a node with NVIDIA GPUs.

Starts a private snmpd (AgentX master on a unix socket in a temporary
directory, SNMP on 127.0.0.1) and snmptrapd, runs the agent as its subagent,
and reads every primusGpuTable column with snmpwalk while two independent
readers sample the same GPUs all along: NVML through its Python binding
(nvidia-ml-py, "pynvml") and the nvidia-smi command (--query-gpu CSV and
-q -x).  Figures that move (utilisation, power, clocks, energy, ...) must
lie within what the readers saw during the agent's last poll interval; fixed
ones must be equal.  A column the readers call unsupported must be absent
from the agent's row.

Phases: the idle GPU; the GPU under load (a PyTorch matrix-product loop,
if torch is importable), so that utilisation, memory, clocks and the process
count move; and the agent's nvidia-smi -q -x fallback (NVML made unloadable
with nvmlLibrary).  A thermal threshold below the current temperature must
reach snmptrapd as primusGpuThermal.

Writes a Markdown report (--report) and exits 1 when any check failed.
Everything it starts is stopped on exit.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

try:
    import pynvml
except ImportError:  # pragma: no cover - depends on the node
    pynvml = None

MIB = 2 ** 20
GPU_TABLE = "PRIMUS-NODE-MIB::primusGpuTable"
POLLER_TABLE = "PRIMUS-NODE-MIB::primusPollerTable"
THERMAL_TRAP_OID = ".1.3.6.1.4.1.59888.1.0.7"  # primusGpuThermal (primusNodeNotifications 7)

# --- helpers -----------------------------------------------------------------


def run(cmd, timeout=20, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stdout))
    return p.stdout


def canon_bus_id(text):
    """'00000000:19:00.0' / '0000:19:00.0' -> '0000:19:00.0' (lower case)."""
    m = re.match(r"^([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-7])$", text.strip())
    if not m:
        return text.strip().lower()
    d, b, dev, f = (int(x, 16) for x in m.groups())
    return "%04x:%02x:%02x.%x" % (d, b, dev, f)


def gpu_index(bus_id):
    d, b, rest = canon_bus_id(bus_id).split(":")
    dev, f = rest.split(".")
    return (int(d, 16) << 16) | (int(b, 16) << 8) | (int(dev, 16) << 3) | int(f, 16)


def s(v):
    return v.decode() if isinstance(v, bytes) else v


# --- reader 1: NVML through pynvml ---------------------------------------------


def nv_try(fn, *args):
    try:
        return fn(*args)
    except pynvml.NVMLError:
        return None


def nvml_static():
    """Per GPU, what does not move."""
    out = {}
    driver = s(pynvml.nvmlSystemGetDriverVersion())
    cv = pynvml.nvmlSystemGetCudaDriverVersion_v2()
    cuda = "%d.%d" % (cv // 1000, (cv % 1000) // 10)
    for i in range(pynvml.nvmlDeviceGetCount()):
        h = pynvml.nvmlDeviceGetHandleByIndex(i)
        pci = pynvml.nvmlDeviceGetPciInfo_v3(h)
        bus = canon_bus_id(s(pci.busId))
        dev_id = pci.pciDeviceId
        out[gpu_index(bus)] = {
            "handle": h,
            "primusGpuOrdinal": i,
            "primusGpuName": s(pynvml.nvmlDeviceGetName(h)),
            "primusGpuUuid": s(pynvml.nvmlDeviceGetUUID(h)),
            "primusGpuSerial": s(nv_try(pynvml.nvmlDeviceGetSerial, h)),
            "primusGpuPciBusId": bus,
            "primusGpuDriverVersion": driver,
            "primusGpuComputeVersion": cuda,
            "primusGpuVbios": s(nv_try(pynvml.nvmlDeviceGetVbiosVersion, h)),
            "primusGpuPciDeviceId": "%04x:%04x" % (dev_id & 0xFFFF, dev_id >> 16),
        }
    return out


def nvml_field_temp(h):
    fv = nv_try(pynvml.nvmlDeviceGetFieldValues, h, [pynvml.NVML_FI_DEV_MEMORY_TEMP])
    if not fv or fv[0].nvmlReturn != 0:
        return None
    v = fv[0].value.uiVal if fv[0].valueType == pynvml.NVML_VALUE_TYPE_UNSIGNED_INT \
        else fv[0].value.sllVal
    return v if 0 < v < 200 else None


def nvml_procs(h):
    pids = set()
    got = False
    for name in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
        lst = nv_try(getattr(pynvml, name), h)
        if lst is not None:
            got = True
            pids.update(p.pid for p in lst)
    return len(pids) if got else None


def nvml_retired(h):
    total = 0
    for cause in (pynvml.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                  pynvml.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR):
        pages = nv_try(pynvml.nvmlDeviceGetRetiredPages, h, cause)
        if pages is None:
            return None
        total += len(pages)
    return total


def nvml_sample(h):
    d = {}
    u = nv_try(pynvml.nvmlDeviceGetUtilizationRates, h)
    d["primusGpuUtilization"] = u.gpu if u else None
    d["primusGpuMemUtilization"] = u.memory if u else None
    m = nv_try(pynvml.nvmlDeviceGetMemoryInfo, h, pynvml.nvmlMemory_v2)
    d["primusGpuMemTotal"] = m.total if m else None
    d["primusGpuMemUsed"] = m.used if m else None
    d["primusGpuMemFree"] = m.free if m else None
    d["primusGpuTemperature"] = nv_try(pynvml.nvmlDeviceGetTemperature, h,
                                       pynvml.NVML_TEMPERATURE_GPU)
    d["primusGpuMemTemperature"] = nvml_field_temp(h)
    d["primusGpuTempSlowdown"] = nv_try(pynvml.nvmlDeviceGetTemperatureThreshold, h,
                                        pynvml.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)
    d["primusGpuTempShutdown"] = nv_try(pynvml.nvmlDeviceGetTemperatureThreshold, h,
                                        pynvml.NVML_TEMPERATURE_THRESHOLD_SHUTDOWN)
    d["primusGpuPowerDraw"] = nv_try(pynvml.nvmlDeviceGetPowerUsage, h)
    d["primusGpuPowerLimit"] = nv_try(pynvml.nvmlDeviceGetEnforcedPowerLimit, h)
    d["primusGpuEnergy"] = nv_try(pynvml.nvmlDeviceGetTotalEnergyConsumption, h)
    d["primusGpuSmClock"] = nv_try(pynvml.nvmlDeviceGetClockInfo, h, pynvml.NVML_CLOCK_SM)
    d["primusGpuMemClock"] = nv_try(pynvml.nvmlDeviceGetClockInfo, h, pynvml.NVML_CLOCK_MEM)
    d["primusGpuFanSpeed"] = nv_try(pynvml.nvmlDeviceGetFanSpeed, h)
    d["primusGpuPcieGen"] = nv_try(pynvml.nvmlDeviceGetCurrPcieLinkGeneration, h)
    d["primusGpuPcieWidth"] = nv_try(pynvml.nvmlDeviceGetCurrPcieLinkWidth, h)
    d["primusGpuPcieGenMax"] = nv_try(pynvml.nvmlDeviceGetMaxPcieLinkGeneration, h)
    d["primusGpuPcieWidthMax"] = nv_try(pynvml.nvmlDeviceGetMaxPcieLinkWidth, h)
    d["primusGpuPcieReplays"] = nv_try(pynvml.nvmlDeviceGetPcieReplayCounter, h)
    c = nv_try(pynvml.nvmlDeviceGetTotalEccErrors, h, pynvml.NVML_MEMORY_ERROR_TYPE_CORRECTED,
               pynvml.NVML_AGGREGATE_ECC)
    u2 = nv_try(pynvml.nvmlDeviceGetTotalEccErrors, h,
                pynvml.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, pynvml.NVML_AGGREGATE_ECC)
    d["primusGpuEccCorrected"] = c if u2 is not None else None
    d["primusGpuEccUncorrected"] = u2 if c is not None else None
    d["primusGpuRetiredPages"] = nvml_retired(h)
    rr = nv_try(pynvml.nvmlDeviceGetRemappedRows, h)
    d["primusGpuRemappedRows"] = rr[0] + rr[1] if rr else None
    d["primusGpuRemapPending"] = (1 if rr[2] else 2) if rr else None
    reasons = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
        pynvml.nvmlDeviceGetCurrentClocksThrottleReasons
    d["primusGpuThrottleReasons"] = nv_try(reasons, h)
    d["primusGpuProcessCount"] = nvml_procs(h)
    mig = nv_try(pynvml.nvmlDeviceGetMigMode, h)
    d["primusGpuMigMode"] = (2 if mig[0] else 1) if mig else None
    ps = nv_try(pynvml.nvmlDeviceGetPerformanceState, h)
    d["primusGpuPerfState"] = ps if ps is not None and 0 <= ps <= 15 else None
    return d


# --- reader 2: the nvidia-smi command --------------------------------------------

# (query field, column, converter); fields this nvidia-smi does not know are left out.
SMI_FIELDS = [
    ("pci.bus_id", "primusGpuPciBusId", canon_bus_id),
    ("index", "primusGpuOrdinal", int),
    ("name", "primusGpuName", str),
    ("uuid", "primusGpuUuid", str),
    ("serial", "primusGpuSerial", str),
    ("driver_version", "primusGpuDriverVersion", str),
    ("vbios_version", "primusGpuVbios", str),
    ("pci.device_id", "primusGpuPciDeviceId",
     lambda v: "%04x:%04x" % (int(v, 16) & 0xFFFF, int(v, 16) >> 16)),
    ("utilization.gpu", "primusGpuUtilization", int),
    ("utilization.memory", "primusGpuMemUtilization", int),
    ("memory.total", "primusGpuMemTotal", lambda v: int(v) * MIB),
    ("memory.used", "primusGpuMemUsed", lambda v: int(v) * MIB),
    ("memory.free", "primusGpuMemFree", lambda v: int(v) * MIB),
    ("temperature.gpu", "primusGpuTemperature", int),
    ("temperature.memory", "primusGpuMemTemperature", int),
    ("power.draw", "primusGpuPowerDraw", lambda v: round(float(v) * 1000)),
    ("enforced.power.limit", "primusGpuPowerLimit", lambda v: round(float(v) * 1000)),
    ("clocks.sm", "primusGpuSmClock", int),
    ("clocks.mem", "primusGpuMemClock", int),
    ("fan.speed", "primusGpuFanSpeed", int),
    ("pcie.link.gen.current", "primusGpuPcieGen", int),
    ("pcie.link.width.current", "primusGpuPcieWidth", int),
    ("pcie.link.gen.max", "primusGpuPcieGenMax", int),
    ("pcie.link.width.max", "primusGpuPcieWidthMax", int),
    ("ecc.errors.corrected.aggregate.total", "primusGpuEccCorrected", int),
    ("ecc.errors.uncorrected.aggregate.total", "primusGpuEccUncorrected", int),
    ("clocks_event_reasons.active", "primusGpuThrottleReasons", lambda v: int(v, 16)),
    ("pstate", "primusGpuPerfState", lambda v: int(v.lstrip("P"))),
    ("mig.mode.current", "primusGpuMigMode",
     lambda v: {"Enabled": 2, "Disabled": 1}[v]),
]
SMI_UNSUPPORTED = ("[N/A]", "[Not Supported]", "N/A", "[Unknown Error]", "")


def smi_known_fields(smi):
    help_text = run([smi, "--help-query-gpu"])
    known = set()   # lines like: "clocks.current.sm" or "clocks.sm"
    for line in help_text.splitlines():
        if line.startswith('"'):
            known.update(re.findall(r'"([^"]+)"', line))
    fields = [f for f in SMI_FIELDS if f[0] in known]
    if "clocks_event_reasons.active" not in known and "clocks_throttle_reasons.active" in known:
        fields.append(("clocks_throttle_reasons.active", "primusGpuThrottleReasons",
                       lambda v: int(v, 16)))
    return fields


def xml_text(root, path):
    el = root.find(path)
    return el.text.strip() if el is not None and el.text else None


def xml_number(text):
    m = re.match(r"^\s*(-?\d+)", text or "")
    return int(m.group(1)) if m else None


def smi_xml(smi):
    """What --query-gpu does not offer, from -q -x, per GPU index."""
    import xml.etree.ElementTree as ET
    root = ET.fromstring(run([smi, "-q", "-x"]))
    cuda = xml_text(root, "cuda_version")
    out = {}
    for g in root.findall("gpu"):
        d = {"primusGpuComputeVersion": cuda}
        for col, path in (("primusGpuTempSlowdown", "temperature/gpu_temp_slow_threshold"),
                          ("primusGpuTempShutdown", "temperature/gpu_temp_max_threshold"),
                          ("primusGpuPcieReplays", "pci/replay_counter")):
            d[col] = xml_number(xml_text(g, path))
        corr, unc = xml_number(xml_text(g, "remapped_rows/remapped_row_corr")), \
            xml_number(xml_text(g, "remapped_rows/remapped_row_unc"))
        d["primusGpuRemappedRows"] = corr + unc if corr is not None and unc is not None else None
        pend = xml_text(g, "remapped_rows/remapped_row_pending")
        d["primusGpuRemapPending"] = {"Yes": 1, "No": 2}.get(pend)
        procs = g.findall("processes/process_info")
        d["primusGpuProcessCount"] = len({xml_text(p, "pid") for p in procs})
        out[gpu_index(g.get("id"))] = d
    return out


def smi_parse_line(line, fields):
    """One CSV line of --query-gpu: (GPU index, {column: value}) or None."""
    vals = [v.strip() for v in line.split(", ")]
    if len(vals) != len(fields):
        return None
    d = {}
    for (field, col, conv), v in zip(fields, vals):
        try:
            d[col] = None if v in SMI_UNSUPPORTED else conv(v)
        except (ValueError, KeyError):
            d[col] = None
    return gpu_index(d["primusGpuPciBusId"]), d


# --- samplers running all along ------------------------------------------------


class Sampler(threading.Thread):
    """Calls FN every PERIOD seconds and keeps (monotonic time, result)."""

    def __init__(self, fn, period):
        super().__init__(daemon=True)
        self.fn, self.period = fn, period
        self.samples = []
        self.errors = []
        self.stop_flag = threading.Event()

    def run(self):
        while not self.stop_flag.is_set():
            t0 = time.monotonic()
            try:
                v = self.fn()
                self.samples.append((t0, time.monotonic(), v))
            except Exception as e:  # a reader's failure is reported, not fatal
                self.errors.append(str(e))
            self.stop_flag.wait(self.period)

    def window(self, t_from, t_to):
        return [v for (a, b, v) in self.samples if b >= t_from and a <= t_to]


class SmiStream(Sampler):
    """nvidia-smi --query-gpu in its own loop mode (-lms): one line per GPU per
    period, stamped on arrival; a sample is the set of lines of one period."""

    def __init__(self, smi, fields, period_ms):
        super().__init__(None, 0)
        self.fields = fields
        self.proc = subprocess.Popen(
            [smi, "--query-gpu=" + ",".join(f[0] for f in fields),
             "--format=csv,noheader,nounits", "-lms", str(period_ms)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True)

    def run(self):
        for line in self.proc.stdout:
            t = time.monotonic()
            got = smi_parse_line(line, self.fields)
            if got is None:
                self.errors.append(line.strip())
                continue
            self.samples.append((t, t, {got[0]: got[1]}))

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# --- the agent side --------------------------------------------------------------


class Node:
    """snmpd + snmptrapd + the agent in a private directory."""

    def __init__(self, agent, mibdir, port, trap_port):
        self.agent, self.mibdir, self.port, self.trap_port = agent, mibdir, port, trap_port
        self.dir = tempfile.mkdtemp(prefix="pna-gpucmp.")
        self.sock = os.path.join(self.dir, "agentx")
        self.procs = {}
        self.snmp = ["-v2c", "-c", "public", "-t", "3", "-r", "1", "-M", "+" + mibdir,
                     "-m", "+PRIMUS-NODE-MIB"]

    def path(self, name):
        return os.path.join(self.dir, name)

    def spawn(self, name, cmd, env=None):
        log = open(self.path(name + ".out"), "w")
        self.procs[name] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                            env=env, start_new_session=True)

    def stop(self, name):
        p = self.procs.pop(name, None)
        if p and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def start_snmpd(self):
        with open(self.path("snmpd.conf"), "w") as f:
            f.write("agentAddress udp:127.0.0.1:%d\nmaster agentx\nagentXSocket unix:%s\n"
                    "agentXPerms 0660 0770\nrocommunity public 127.0.0.1\n"
                    "trap2sink 127.0.0.1:%d public\n" % (self.port, self.sock, self.trap_port))
        env = dict(os.environ, SNMP_PERSISTENT_DIR=self.path("persist"))
        self.spawn("snmpd", ["snmpd", "-f", "-Lf", self.path("snmpd.log"), "-C", "-c",
                             self.path("snmpd.conf"), "-I", "-smux"], env)
        with open(self.path("snmptrapd.conf"), "w") as f:
            f.write("disableAuthorization yes\n")
        self.spawn("snmptrapd", ["snmptrapd", "-f", "-On", "-Lf", self.path("traps.log"), "-C",
                                 "-c", self.path("snmptrapd.conf"),
                                 "udp:127.0.0.1:%d" % self.trap_port], env)
        self.wait(lambda: self.get("SNMPv2-MIB::sysUpTime.0") is not None, "snmpd")

    def start_agent(self, conf_lines):
        """Starts (or restarts) the agent; each start logs to agent-N.log."""
        self.stop("agent")
        self.starts = getattr(self, "starts", 0) + 1
        self.agent_log = self.path("agent-%d.log" % self.starts)
        with open(self.path("agent.conf"), "w") as f:
            f.write("\n".join(conf_lines) + "\n")
        self.spawn("agent", [self.agent, "-f", "-Lf", self.agent_log, "-c",
                             self.path("agent.conf"), "-x", "unix:" + self.sock])

    def get(self, oid):
        p = subprocess.run(["snmpget"] + self.snmp + ["-Oqv", "127.0.0.1:%d" % self.port, oid],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        v = p.stdout.strip()
        return None if p.returncode or not v or v.startswith("No Such") else v

    def wait(self, cond, what, secs=30):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            try:
                if cond():
                    return
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
            time.sleep(0.2)
        raise RuntimeError("%s did not come up; see %s" % (what, self.dir))

    def walk_gpus(self):
        """{index: {column: value}} with strings unquoted and enums as numbers."""
        text = run(["snmpbulkwalk"] + self.snmp + ["-OQseU", "127.0.0.1:%d" % self.port,
                                                   GPU_TABLE])
        rows = {}
        for line in text.splitlines():
            m = re.match(r"^(primusGpu\w+)\.(\d+) = (.*)$", line)
            if not m:
                continue
            col, idx, v = m.group(1), int(m.group(2)), m.group(3).strip()
            if v.startswith('"') and v.endswith('"') and len(v) >= 2:
                v = v[1:-1]
            else:
                try:
                    v = int(v)
                except ValueError:
                    pass
            rows.setdefault(idx, {})[col] = v
        return rows

    def table(self, name=GPU_TABLE):
        return run(["snmptable"] + self.snmp + ["-Cib", "-Cw", "200",
                                                "127.0.0.1:%d" % self.port, name])

    def close(self):
        for name in ["agent"] + list(self.procs):   # the subagent before its master
            self.stop(name)


# --- comparison rules ------------------------------------------------------------

# Columns that move: the agent's figure must lie within what a reader saw in
# the window (its poll interval), widened by TOL for the reader's rounding.
MOVING = {
    "primusGpuUtilization": 0, "primusGpuMemUtilization": 0,
    "primusGpuMemUsed": MIB, "primusGpuMemFree": MIB,
    "primusGpuTemperature": 0, "primusGpuMemTemperature": 0,
    "primusGpuPowerDraw": 10, "primusGpuEnergy": 0,
    "primusGpuSmClock": 0, "primusGpuMemClock": 0,
    "primusGpuPcieGen": 0, "primusGpuPcieWidth": 0, "primusGpuPcieReplays": 0,
    "primusGpuThrottleReasons": 0, "primusGpuProcessCount": 0, "primusGpuPerfState": 0,
    "primusGpuFanSpeed": 0,
}
# nvidia-smi prints MiB (rounded) and W with two decimals
SMI_TOL = {"primusGpuMemTotal": MIB, "primusGpuMemUsed": MIB, "primusGpuMemFree": MIB,
           "primusGpuPowerDraw": 10, "primusGpuPowerLimit": 10}


def reader_view(agent_v, vals, tol):
    """How one reader's samples over the window stand to the agent's figure:
    ('agree'|'differs'|'unsupported'|'no field', text)."""
    vals = [v for v in vals if v != "<missing>"]
    if not vals:
        return "no field", "the reader has no such field"
    supported = [v for v in vals if v is not None]
    if not supported:
        return ("agree", "both unsupported") if agent_v is None else ("unsupported", "unsupported")
    if agent_v is None:
        return "differs", "absent in the agent, the reader has %r" % (supported[-1],)
    if isinstance(agent_v, str) or isinstance(supported[0], str):
        if str(agent_v) in {str(v) for v in supported}:
            return "agree", "equal"
        return "differs", "agent %r, reader %r" % (agent_v, supported[-1])
    if min(supported) - tol <= agent_v <= max(supported) + tol:
        return "agree", "within"
    return "differs", "agent %r outside the reader's [%r, %r]" % (
        agent_v, min(supported), max(supported))


def verdict(agent_v, nv, smi, source):
    """Combine both readers.  A difference from either fails; a figure only the
    agent has fails; a figure the agent lacks fails when the reader of its own
    source (NVML, or nvidia-smi in the fallback) has it."""
    views = {"NVML": nv, "nvidia-smi": smi}
    own = "NVML" if source == 1 else "nvidia-smi"
    other = "nvidia-smi" if own == "NVML" else "NVML"
    if agent_v is None and views[own][0] != "differs" and views[other][0] == "differs":
        return "ok (absent: %s does not offer it)" % ("nvidia-smi -q -x" if own != "NVML"
                                                      else "NVML")
    bad = ["%s: %s" % (k, v[1]) for k, v in views.items() if v[0] == "differs"]
    if bad:
        return "FAIL: " + "; ".join(bad)
    if agent_v is not None and not any(v[0] == "agree" for v in views.values()):
        return "FAIL: no reader offers this figure"
    return "ok"


def fmt_range(vals):
    vals = [v for v in vals if v != "<missing>"]
    if not vals:
        return "(no field)"
    vals = [v for v in vals if v is not None]
    if not vals:
        return "unsupported"
    if isinstance(vals[0], str):
        return vals[-1]
    return str(vals[0]) if min(vals) == max(vals) else "%s..%s" % (min(vals), max(vals))


def expected_fixed(idx, source):
    """Columns whose value follows from the set-up rather than from a reader."""
    xid = 0 if source == 1 else None   # XIDs come from NVML's event API only
    return {"primusGpuVendor": 1, "primusGpuDataSource": source, "primusGpuXidErrors": xid,
            "primusGpuLastXid": xid, "primusGpuHolderContainer": "", "primusGpuHolderCount": 0,
            "primusGpuHolderPod": "", "primusGpuHolderNamespace": ""}


def compare_round(node, nv_static, nv_sampler, smi_sampler, smi_static, window_s, phase,
                  source):
    """One walk of the agent compared with both readers; returns result rows."""
    t_walk = time.monotonic()
    rows = node.walk_gpus()
    t_done = time.monotonic()
    t_from = t_walk - window_s
    results = []
    for idx, st in sorted(nv_static.items()):
        row = rows.get(idx)
        if row is None:
            results.append((phase, idx, "(row)", "missing", "present", "present", "FAIL: no row"))
            continue
        nv_win = [smp.get(idx, {}) for smp in nv_sampler.window(t_from, t_done)]
        smi_win = [smp.get(idx, {}) for smp in smi_sampler.window(t_from, t_done)]
        # (the index itself is not-accessible: the row being found under IDX checks it)
        fixed = expected_fixed(idx, source)
        cols = sorted(set(row) | set(MOVING) | set(st) | set(fixed)
                      | {c for smp in nv_win for c in smp} | {c for smp in smi_win for c in smp})
        for col in (c for c in cols if c != "handle"):
            a = row.get(col)
            if col in fixed:
                ok = a == fixed[col]
                results.append((phase, idx, col, "absent" if a is None else a,
                                "absent" if fixed[col] is None else fixed[col], "",
                                "ok" if ok else "FAIL: expected %r" % (fixed[col],)))
                continue
            if col in ("primusGpuDrmCard", "primusGpuDrmRender"):
                want = drm_expected(st, col)
                ok = (a or "") == want
                results.append((phase, idx, col, a, "/dev/dri/by-path: %r" % want, "",
                                "ok" if ok else "FAIL: /dev/dri says %r" % want))
                continue
            nv_vals = [st[col]] if col in st else [smp.get(col, "<missing>") for smp in nv_win]
            smi_vals = [smi_static[idx][col]] if col in smi_static.get(idx, {}) else \
                [smp.get(col, "<missing>") for smp in smi_win]
            tol = MOVING.get(col, 0)
            v = verdict(a, reader_view(a, nv_vals, tol),
                        reader_view(a, smi_vals, max(tol, SMI_TOL.get(col, 0))), source)
            results.append((phase, idx, col, "absent" if a is None else a, fmt_range(nv_vals),
                            fmt_range(smi_vals), v))
    return results


def drm_expected(st, col):
    """What /dev/dri/by-path says the GPU's card or render node is ('' for none)."""
    kind = "card" if col == "primusGpuDrmCard" else "render"
    link = "/dev/dri/by-path/pci-%s-%s" % (st["primusGpuPciBusId"], kind)
    return os.path.basename(os.path.realpath(link)) if os.path.exists(link) else ""


# --- phases ------------------------------------------------------------------------


def start_load(seconds):
    """A PyTorch matrix-product loop on every GPU for SECONDS; None without torch."""
    code = ("import torch,time,sys\n"
            "ds=[torch.device('cuda',i) for i in range(torch.cuda.device_count())]\n"
            "xs=[torch.randn(8192,8192,device=d,dtype=torch.bfloat16) for d in ds]\n"
            "hold=[torch.empty(4<<30,dtype=torch.uint8,device=d) for d in ds]\n"
            "print('load running', flush=True)\n"
            "end=time.time()+%d\n"
            "while time.time()<end:\n"
            "    for x in xs: y=x@x\n"
            "    torch.cuda.synchronize()\n" % seconds)
    try:
        import importlib.util
        if importlib.util.find_spec("torch") is None:
            return None
    except Exception:
        return None
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    line = p.stdout.readline()
    if "load running" not in line:
        p.kill()
        return None
    return p


def run_phase(node, name, conf, nv_static, nv_s, smi_s, smi_static, rounds, interval,
              source, report):
    node.start_agent(conf)
    try:
        node.wait(lambda: len(node.walk_gpus()) >= len(nv_static), "the agent's GPU rows", 40)
    except RuntimeError as e:
        failed = [(name, "-", "(rows)", "missing", "", "", "FAIL: %s" % e)]
        report.append((name, failed, "(no table)\n"))
        return failed
    time.sleep(interval * 2 + 0.5)  # let the samplers cover a full window
    results = []
    for _ in range(rounds):
        results += compare_round(node, nv_static, nv_s, smi_s, smi_static, interval * 2 + 1.0,
                                 name, source)
        time.sleep(interval + 0.3)
    # the poller table shows what one real poll of the GPUs costs
    report.append((name, results, node.table() + "\n" + node.table(POLLER_TABLE)))
    return results


def write_report(path, header, phases, extra):
    with open(path, "w") as f:
        f.write(header)
        for name, results, table in phases:
            f.write("\n## Phase: %s\n\n```\n%s```\n\n" % (name, table))
            f.write("| GPU | column | agent | NVML (pynvml) | nvidia-smi | verdict |\n")
            f.write("|---|---|---|---|---|---|\n")
            last = {}
            for r in results:   # the last round's line per column, any failure kept
                key = (r[1], r[2])
                if key not in last or not last[key][6].startswith("FAIL"):
                    last[key] = r
            for (_, idx, col, a, nv, smi, verdict) in last.values():
                f.write("| %s | %s | %s | %s | %s | %s |\n" % (idx, col, a, nv, smi, verdict))
        f.write(extra)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agent", default="./primus-node-agent")
    ap.add_argument("--mibdir", default="mibs")
    ap.add_argument("--nvidia-smi", default=shutil.which("nvidia-smi") or "nvidia-smi")
    ap.add_argument("--port", type=int, default=21161)
    ap.add_argument("--trap-port", type=int, default=21162)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--report", default="gpu-compare-report.md")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--agent-conf", action="append", default=[], metavar="LINE",
                    help="a further line for the agent's configuration file (repeatable)")
    args = ap.parse_args()
    if pynvml is None:
        print("SKIP: the NVML Python binding (nvidia-ml-py) is not installed")
        return 77
    pynvml.nvmlInit()
    nv_static = nvml_static()
    if not nv_static:
        print("SKIP: NVML sees no GPU")
        return 77
    interval = 1
    fields = smi_known_fields(args.nvidia_smi)
    smi_static = smi_xml(args.nvidia_smi)
    handles = {idx: st["handle"] for idx, st in nv_static.items()}
    nv_s = Sampler(lambda: {i: nvml_sample(h) for i, h in handles.items()}, 0.1)
    smi_s = SmiStream(args.nvidia_smi, fields, 100)
    nv_s.start()
    smi_s.start()
    node = Node(os.path.abspath(args.agent), os.path.abspath(args.mibdir), args.port,
                args.trap_port)
    phases, all_results, notes = [], [], []
    load = None
    try:
        node.start_snmpd()
        base = ["pollInterval gpu %d" % interval, "pollInterval node 60",
                "pollInterval containers 60"] + args.agent_conf
        all_results += run_phase(node, "idle, NVML", base, nv_static, nv_s, smi_s, smi_static,
                                 args.rounds, interval, 1, phases)
        load = start_load(120)
        if load:
            all_results += run_phase(node, "under load, NVML", base, nv_static, nv_s, smi_s,
                                     smi_xml(args.nvidia_smi), args.rounds, interval, 1, phases)
        else:
            notes.append("No load phase: torch is not importable here.")
        # The XID listener and the thermal notification, from the NVML phase's agent.
        log = open(node.agent_log).read()
        m = re.search(r"XID listener watching (\d+) GPU", log)
        all_results.append(("notifications", "-", "XID listener", m.group(0) if m else "absent",
                            "", "", "ok" if m else "FAIL: no 'XID listener' line in the log"))
        # A threshold below the current temperature: primusGpuThermal at the first poll.
        node.start_agent(base + ["gpuTempThreshold 1"])
        trap_re = re.compile(re.escape(THERMAL_TRAP_OID) + r"(?![.\d])")
        deadline = time.monotonic() + 20
        thermal = []
        while time.monotonic() < deadline and not thermal:
            time.sleep(0.5)
            traps = open(node.path("traps.log")).read() if os.path.exists(
                node.path("traps.log")) else ""
            thermal = [l for l in traps.splitlines() if trap_re.search(l)]
        all_results.append(("notifications", "-", "primusGpuThermal", "%d trap(s)" % len(thermal),
                            "", "", "ok" if thermal else "FAIL: no primusGpuThermal trap"))
        if load:
            load.kill()
            load.wait()
            load = None
            time.sleep(3)
        all_results += run_phase(node, "idle, nvidia-smi -q -x fallback",
                                 base + ["nvmlLibrary /nonexistent/libnvidia-ml.so.1",
                                         "nvidiaSmi %s" % args.nvidia_smi],
                                 nv_static, nv_s, smi_s, smi_xml(args.nvidia_smi), args.rounds,
                                 interval, 2, phases)
    finally:
        if load:
            load.kill()
        nv_s.stop_flag.set()
        smi_s.stop()
        node.close()
    fails = [r for r in all_results if r[6].startswith("FAIL")]
    versions = run([args.nvidia_smi, "--version"], check=False)
    header = ("# primusGpuTable compared with nvidia-smi and NVML\n\n"
              "Agent `%s`; %d GPU(s); %d check(s), %d failed; %d round(s) per phase, "
              "gpu poll interval %d s.\n\n```\n%s```\n" % (
                  run([node.agent, "--version"], check=False).strip(), len(nv_static),
                  len(all_results), len(fails), args.rounds, interval, versions))
    extra = "\n## Notifications\n\n" + "".join(
        "- %s: %s (%s)\n" % (r[2], r[3], r[6]) for r in all_results if r[0] == "notifications")
    extra += "".join("\n%s\n" % n for n in notes)
    if nv_s.errors or smi_s.errors:
        extra += "\nReader errors: %s\n" % (nv_s.errors[:3] + smi_s.errors[:3])
    write_report(args.report, header, phases, extra)
    for r in fails:
        print("FAIL %s GPU %s %s: %s" % (r[0], r[1], r[2], r[6]))
    print("%d checks, %d failed; report in %s; logs in %s" % (
        len(all_results), len(fails), args.report, node.dir))
    if not args.keep:
        logs = ["agent-%d.log" % i for i in range(1, getattr(node, "starts", 0) + 1)]
        for name in logs + ["snmpd.log", "traps.log"]:
            if os.path.exists(node.path(name)):
                shutil.copy(node.path(name), os.path.join(
                    os.path.dirname(os.path.abspath(args.report)), "gpu-compare-" + name))
        shutil.rmtree(node.dir, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
