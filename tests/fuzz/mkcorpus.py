#!/usr/bin/env python3
"""mkcorpus.py -- (re)build the fuzzing seed corpora in tests/fuzz/corpus/ from
tests/fixtures/ (see tests/fixtures/SOURCES.md for where each fixture comes from).

Run from the source tree's top: python3 tests/fuzz/mkcorpus.py
Only seeds named seed-* are rewritten; other files in a corpus directory
(regression inputs from fuzzing runs, named after the bug) are left alone.

Seeds are kept small: trees carry only the files the collector reads, JSON
lists are cut to their first entries, and every seed fits the harness's
-max_len in tests/fuzz/run.sh.  Where the fixtures have no sample of a format
(procfs node files, Kubernetes quantities, cgroup paths, the config file),
the seeds are short texts in the kernel's, Kubernetes' or the agent's
documented format, written here."""
import glob
import json
import os
import re
import struct
import sys

TOP = os.getcwd()
FX = os.path.join(TOP, "tests", "fixtures")
OUT = os.path.join(TOP, "tests", "fuzz", "corpus")
MAX_FILE = 8192  # a tree file larger than this is cut (none the collectors read is)


def put(name, seed, data):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + seed), "wb") as f:
        f.write(data)


def clear_seeds():
    for p in glob.glob(os.path.join(OUT, "*", "seed-*")):
        os.remove(p)


def rd(*parts):
    with open(os.path.join(FX, *parts), "rb") as f:
        return f.read()


# ---- trees ------------------------------------------------------------------

def tree_records(src, prefix, keep=None):
    """Records for every file under SRC, as PREFIX/relative-path; KEEP(rel) filters."""
    recs = []
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for fn in sorted(filenames):
            full = os.path.join(dirpath, fn)
            rel = os.path.relpath(full, src)
            if keep and not keep(rel):
                continue
            with open(full, "rb") as f:
                data = f.read(MAX_FILE)
            recs.append((prefix + "/" + rel, data))
    return recs


def tree(recs):
    """Encode records (path, bytes) or (path, None, target) as a tree input (fuzz.h)."""
    out = b""
    for r in recs:
        if len(r) == 3:
            out += b"=== %s -> %s\n" % (r[0].encode(), r[2].encode())
            continue
        path, data = r
        out += b"=== " + path.encode() + b"\n" + data
        if data and not data.endswith(b"\n"):
            # only the last record can end without one; the readers trim it anyway
            out += b"\n"
    return out


# ---- harnesses -----------------------------------------------------------------

def fileio():
    put("fileio", "counter", rd("ib-sysfs", "node_exporter", "sys", "class", "infiniband",
                                "mlx4_0", "ports", "1", "counters", "port_xmit_data"))
    put("fileio", "no-pma", b"N/A (no PMA)\n")
    put("fileio", "hex", b"0x1f\n")
    put("fileio", "max", b"18446744073709551615\n")
    put("fileio", "over", b"18446744073709551616\n")
    put("fileio", "blanks", b"  42 \n\n\n")
    put("fileio", "nul-padded", b"123\0\0\0\0")
    put("fileio", "state", rd("ib-sysfs", "node_exporter", "sys", "class", "infiniband",
                              "mlx4_0", "ports", "1", "state"))


NODE_STAT = ("cpu  96625 0 54197 323497 3947 0 700 685 0 0\n"
             "cpu0 44380 0 24462 169684 734 0 92 333 0 0\n"
             "cpu1 52245 0 29734 153812 3212 0 608 352 0 0\n"
             "ctxt 4338621\nbtime 1795357057\nprocesses 277130\n")
NODE_MEMINFO = ("MemTotal:       24684084 kB\nMemFree:        23430680 kB\n"
                "MemAvailable:   24036772 kB\nBuffers:           34804 kB\n"
                "Cached:           711628 kB\nSwapTotal:        1048572 kB\n"
                "SwapFree:          1048572 kB\n")
NODE_CPUINFO = "".join(
    "processor\t: %d\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor\n"
    "physical id\t: %d\nsiblings\t: 2\ncore id\t\t: %d\ncpu cores\t: 1\n\n" % (i, i // 2, i % 2)
    for i in range(4))


def node():
    base = [("proc/stat", NODE_STAT.encode()), ("proc/meminfo", NODE_MEMINFO.encode()),
            ("proc/cpuinfo", NODE_CPUINFO.encode()),
            ("proc/loadavg", b"4.33 2.90 2.32 11/187 17535\n"),
            ("proc/uptime", b"2409.06 3234.97\n"),
            ("proc/sys/kernel/hostname", b"node-1\n"),
            ("proc/sys/kernel/osrelease", b"6.1.0-18-amd64\n"),
            ("proc/sys/kernel/arch", b"x86_64\n"),
            ("root/etc/os-release", b'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'
                                    b'NAME="Debian GNU/Linux"\nID=debian\n')]
    put("node", "debian12", tree(base))
    # before Linux 3.14: no MemAvailable; os-release only under usr/lib; single CPU, no topology
    old = [("proc/stat", b"cpu  10 0 5 100 1 0 0\nbtime 1\n"),
           ("proc/meminfo", b"MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 10 kB\nCached: 20 kB\n"),
           ("proc/cpuinfo", b"processor\t: 0\nmodel name\t: ARMv7 Processor rev 4 (v7l)\n"),
           ("proc/loadavg", b"0.00 0.01 0.05 1/50 99\n"), ("proc/uptime", b"1.5 1.0\n"),
           ("root/usr/lib/os-release", b"PRETTY_NAME='Old Linux'\n")]
    put("node", "old-kernel", tree(old))


def ib_keep(rel):
    parts = rel.split("/")
    return not (len(parts) > 4 and parts[3] == "power")


def ib():
    ne = os.path.join(FX, "ib-sysfs", "node_exporter", "sys", "class", "infiniband")
    pf = os.path.join(FX, "ib-sysfs", "procfs", "sys")
    for dev in sorted(os.listdir(ne)):
        put("ib_sysfs", "node-exporter-" + dev,
            tree(tree_records(os.path.join(ne, dev), "sys/class/infiniband/" + dev)))
    for dev in sorted(os.listdir(os.path.join(pf, "class", "infiniband"))):
        recs = tree_records(os.path.join(pf, "class", "infiniband", dev),
                            "sys/class/infiniband/" + dev)
        if dev == "mlx5_0":
            recs += tree_records(os.path.join(pf, "class", "net"), "sys/class/net")
        put("ib_sysfs", "procfs-" + dev, tree(recs))
    # a RoCE port as on a live system: the device is a link to its PCI function,
    # which has the driver link and the netdev (matched by dev_port)
    roce = tree_records(os.path.join(pf, "class", "infiniband", "mlx5_0"),
                        "sys/class/infiniband/mlx5_0")
    roce = [r for r in roce if "/gid_attrs/" not in r[0]]
    pci = "sys/devices/pci0000:00/0000:5e:00.0"
    roce += [("sys/class/infiniband/mlx5_0/device", None, "../../../devices/pci0000:00/0000:5e:00.0"),
             (pci + "/driver", None, "../../../bus/pci/drivers/mlx5_core"),
             ("sys/bus/pci/drivers/mlx5_core/module", b"mlx5_core\n"),
             (pci + "/net/ens1f0/dev_port", b"0\n"),
             (pci + "/net/ens1f1/dev_port", b"1\n"),
             ("sys/class/net/ens1f0/ifindex", b"4\n")]
    # links before the files that go through them
    roce.sort(key=lambda r: 0 if len(r) == 3 else 1)
    put("ib_sysfs", "roce-links", tree(roce))


AMD_FILES = re.compile(
    r"^(uevent|product_name|unique_id|serial_number|vbios_version|gpu_busy_percent|"
    r"mem_busy_percent|mem_info_vram_(total|used)|(current|max)_link_(speed|width)|"
    r"pcie_replay_count|pp_dpm_[sm]clk|"
    r"hwmon/hwmon\d+/(temp\d_(input|label|crit|emergency)|power1_(average|input|cap)|"
    r"energy1_input|freq\d_(label|input)|pwm1|pwm1_max|fan1_input)|"
    r"ras/\w+_err_count|drm/renderD\d+/dev)$")

PCI_IDS = (b"# pci.ids excerpt (format of the PCI ID repository)\n"
           b"1002  Advanced Micro Devices, Inc. [AMD/ATI]\n"
           b"\t687f  Vega 10 XL/XT [Radeon RX Vega 56/64]\n"
           b"\t\t1043 0555  Vega 56\n"
           b"\t73bf  Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]\n"
           b"\t15bf  Phoenix1\n"
           b"1022  Advanced Micro Devices, Inc. [AMD]\n"
           b"\t1480  Starship/Matisse Root Complex\n")


def amd_device(src, card):
    return tree_records(src, "sys/class/drm/%s/device" % card,
                        keep=lambda rel: AMD_FILES.match(rel) is not None)


def amdgpu():
    base = os.path.join(FX, "amdgpu-sysfs")
    for name in ("lact-phoenix", "lact-rx6900xt"):
        sysd = os.path.join(base, name, "sys")
        recs = []
        drm = os.path.join(sysd, "class", "drm")
        for card in sorted(os.listdir(drm)):
            recs += amd_device(os.path.join(drm, card, "device"), card)
        kfd = os.path.join(sysd, "class", "kfd", "kfd", "topology", "nodes")
        if os.path.isdir(kfd):
            recs += tree_records(kfd, "sys/class/kfd/kfd/topology/nodes",
                                 keep=lambda rel: rel.endswith("/properties") and rel.count("/") == 1)
        put("amdgpu_sysfs", name, tree(recs))
    # product_name empty: the name comes from pci.ids; osrelease as the driver version
    recs = amd_device(os.path.join(base, "procfs", "sys", "class", "drm", "card0", "device"), "card0")
    recs += [("root/usr/share/misc/pci.ids", PCI_IDS),
             ("proc/sys/kernel/osrelease", b"6.1.0-18-amd64\n")]
    put("amdgpu_sysfs", "procfs-vega10-pciids", tree(recs))
    for name in ("vega56", "rx7900xt"):
        recs = amd_device(os.path.join(base, "amdgpu-sysfs-rs", name), "card0")
        if not any(p.endswith("/uevent") for p, _ in recs):
            # this partial dump has no uevent: the identity an RDNA3 card's would give
            recs.append(("sys/class/drm/card0/device/uevent",
                         b"DRIVER=amdgpu\nPCI_CLASS=30000\nPCI_ID=1002:744C\n"
                         b"PCI_SUBSYS_ID=1002:0E3B\nPCI_SLOT_NAME=0000:03:00.0\n"))
        recs.append(("sys/module/amdgpu/version", b"6.3.6\n"))
        put("amdgpu_sysfs", "amdgpu-sysfs-rs-" + name, tree(recs))


def ethtool_stats(text):
    stats = []
    for line in text.decode(errors="replace").splitlines():
        m = re.match(r"^\s*([^:\s][^:]*):\s*(\d+)\s*$", line)
        if m:
            stats.append((m.group(1).encode()[:32], int(m.group(2)) & (2**64 - 1)))
    return stats


def pfc():
    files = [("mlx5-connectx4lx", rd("ethtool", "ethq-mlx5_core-connectx4lx.txt"))]
    for p in sorted(glob.glob(os.path.join(FX, "ethtool", "amd-ainic-ionic", "*.txt"))):
        files.append(("ionic-" + os.path.basename(p)[len("ethtool_S_"):-4], open(p, "rb").read()))
    for name, text in files:
        out = bytes([0]) + struct.pack("<Q", 1000)
        for sname, value in ethtool_stats(text):
            out += sname.ljust(32, b"\0") + struct.pack("<Q", value)
        put("pfc_names", name, out)


def cri_spec():
    spec = json.loads(rd("containerd", "oci-runtime-spec-config-example.json"))
    spec["annotations"] = {
        "io.kubernetes.cri.container-type": "container",
        "io.kubernetes.cri.container-name": "trainer",
        "io.kubernetes.cri.sandbox-name": "llm-0",
        "io.kubernetes.cri.sandbox-namespace": "ml",
        "io.kubernetes.cri.sandbox-uid": "5d6e2c1a-0b1f-4d7e-9a57-1a2b3c4d5e6f",
        "io.kubernetes.cri.image-name": "registry.local/train:1.2",
    }
    spec["linux"]["cgroupsPath"] = "kubepods-besteffort-pod5d6e.slice:cri-containerd:abc123"
    spec["linux"]["devices"] = [
        {"path": "/dev/dri/renderD128", "type": "c", "major": 226, "minor": 128},
        {"path": "/dev/nvidia0", "type": "c", "major": 195, "minor": 0},
        {"path": "/dev/infiniband/uverbs0", "type": "c", "major": 231, "minor": 192}]
    spec["linux"]["resources"]["devices"] = [
        {"allow": False, "access": "rwm"},
        {"allow": True, "type": "c", "major": 226, "minor": 1, "access": "rw"},
        {"allow": True, "type": "c", "major": 195, "minor": 255, "access": "rw"},
        {"allow": True, "type": "c", "major": 231, "minor": -1, "access": "rw"}]
    return json.dumps(spec, separators=(",", ":")).encode()


def oci():
    put("oci_spec", "runtime-spec-example", rd("containerd", "oci-runtime-spec-config-example.json"))
    put("oci_spec", "schema-test-linux-rdma",
        rd("containerd", "oci-runtime-spec-schema-test-linux-rdma.json"))
    put("oci_spec", "cri-annotated", cri_spec())
    put("oci_spec", "sandbox", b'{"annotations":{"io.kubernetes.cri.container-type":"sandbox"},'
                               b'"linux":{"cgroupsPath":"/kubepods/pod1/pause"}}')


def cstorage():
    """CRI-O's state.json and containers/storage's containers.json (tests/fixtures/crio)."""
    ctrs = ("crio", "rootfs", "var", "lib", "containers", "storage", "overlay-containers")
    trainer = "c4f1a8e2b6d03957f1e8c2a4b6d8f0e2c4a6b8d0f2e4c6a8b0d2f4e6c8a0b2d4"
    put("cstorage", "crio-state-running", rd(*ctrs, trainer, "userdata", "state.json"))
    put("cstorage", "containers-json", rd(*ctrs, "containers.json"))
    put("cstorage", "podman-containers-json",
        b'[{"id":"9b3a88da4e93ef953370688f1bfcbe3f3e256476610409df25f17a1687f27026",'
        b'"names":["t1"],"image":"56dd8e7ab265579890d8a2bee37b76c92c5a235112211ac744832b0c1b94c0df",'
        b'"metadata":"{\\"image-name\\":\\"localhost/bb:1\\",\\"name\\":\\"t1\\",'
        b'\\"created-at\\":1796676461}","created":"2026-12-07T20:47:41.307530269Z"}]')
    put("cstorage", "crio-state-stopped",
        b'{"ociVersion":"1.0.2-dev","id":"x","status":"stopped","pid":0,"started":'
        b'"2026-12-07T18:02:13.25Z","finished":"2026-12-07T19:00:00Z","exitCode":137,'
        b'"oomKilled":true,"initPid":40233,"initStartTime":"7000425"}')


def containerd():
    task = "root/run/containerd/io.containerd.runtime.v2.task"
    cg = os.path.join(FX, "cgroup", "telegraf-v2")
    v2 = [("sys/fs/cgroup/cgroup.controllers", b"cpuset cpu io memory hugetlb pids rdma misc\n")]
    path = "sys/fs/cgroup/kubepods.slice/kubepods-besteffort.slice/" \
           "kubepods-besteffort-pod5d6e.slice/cri-containerd-abc123.scope"
    for f in ("memory.current", "memory.max", "memory.events"):
        v2.append((path + "/" + f, rd("cgroup", "telegraf-v2", f)))
    recs = [(task + "/k8s.io/abc123/config.json", cri_spec()),
            (task + "/k8s.io/abc123/init.pid", b"4242"),
            ("proc/4242/cgroup", b"0::/kubepods.slice/kubepods-besteffort.slice/"
                                 b"kubepods-besteffort-pod5d6e.slice/cri-containerd-abc123.scope\n"),
            (task + "/default/plain/config.json", rd("containerd", "oci-runtime-spec-config-example.json")),
            ("sys/dev/char/226:1/uevent", b"MAJOR=226\nMINOR=1\nDEVNAME=dri/card1\nDEVTYPE=drm_minor\n"),
            ("sys/class/drm/renderD128/device/uevent", b"DRIVER=amdgpu\nPCI_SLOT_NAME=0000:03:00.0\n"),
            ("sys/class/infiniband_verbs/uverbs0/ibdev", b"mlx5_0\n"),
            ("proc/driver/nvidia/gpus/0000:41:00.0/information",
             b"Model: \t\t NVIDIA H100 80GB HBM3\nDevice Minor: \t 0\nBus Location: \t 0000:41:00.0\n")]
    put("containerd", "k8s-v2", tree(v2 + recs))
    v1 = [("sys/fs/cgroup/memory/memory.usage_in_bytes", b"0\n"),
          ("sys/fs/cgroup/memory/kubepods/pod1/ctr1/memory.usage_in_bytes", b"104857600\n"),
          ("sys/fs/cgroup/memory/kubepods/pod1/ctr1/memory.limit_in_bytes", b"9223372036854771712\n"),
          ("sys/fs/cgroup/memory/kubepods/pod1/ctr1/memory.oom_control",
           b"oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"),
          ("sys/fs/cgroup/memory/kubepods/pod1/ctr1/cgroup.event_control", b""),
          (task + "/moby/ctr1/config.json", rd("containerd", "oci-runtime-spec-schema-test-linux-rdma.json")),
          (task + "/moby/ctr1/init.pid", b"77\n"),
          ("proc/77/cgroup", b"12:memory:/kubepods/pod1/ctr1\n11:cpu,cpuacct:/kubepods/pod1/ctr1\n")]
    put("containerd", "moby-v1", tree(v1))


def cgroup():
    put("cgroup", "proc-v2", b"0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-abc.scope\n")
    put("cgroup", "proc-v1", b"12:memory:/docker/0123abcd\n5:cpu,cpuacct:/docker/0123abcd\n"
                             b"1:name=systemd:/docker/0123abcd\n0::/\n")
    put("cgroup", "spec-systemd", b"kubepods-besteffort-pod5d6e.slice:cri-containerd:abc123")
    put("cgroup", "spec-path", b"/kubepods/besteffort/pod5d6e/abc123")
    put("cgroup", "memory-events", rd("cgroup", "telegraf-v2", "memory.events"))
    put("cgroup", "oom-control", b"oom_kill_disable 0\nunder_oom 0\noom_kill 7\n")


def slurm_cgroup():
    # Slurm's documented layouts (cgroup.conf, cgroup/v1 and cgroup/v2
    # plugins), written here: paths, a devices.list, and trees of each
    put("slurm_cgroup", "path-v1", b"/slurm_n1/uid_1000/job_42/step_0/task_0\n")
    put("slurm_cgroup", "path-v2", b"/system.slice/n1_slurmstepd.scope/job_77/step_batch/user/task_0\n")
    put("slurm_cgroup", "path-bad", b"/slurm/uid_1000/job_99999999999999999999/step_0\n")
    put("slurm_cgroup", "devices", b"c 195:0 rwm\nc 231:192 rwm\nb 8:* r\n")
    put("slurm_cgroup", "tree-v1", tree([
        ("sys/fs/cgroup/memory/slurm_n1/uid_1000/job_42/memory.usage_in_bytes", b"73400320\n"),
        ("sys/fs/cgroup/memory/slurm_n1/uid_1000/job_42/memory.limit_in_bytes", b"209715200\n"),
        ("sys/fs/cgroup/memory/slurm_n1/uid_1000/job_42/step_batch/task_0/cgroup.procs", b"310\n"),
        ("sys/fs/cgroup/memory/slurm_n1/uid_1000/job_abc/cgroup.procs", b""),
        ("sys/fs/cgroup/devices/slurm_n1/uid_1000/job_42/devices.list",
         b"c 195:3 rwm\nc 231:192 rwm\n")]))
    put("slurm_cgroup", "tree-v2", tree([
        ("sys/fs/cgroup/cgroup.controllers", b"cpuset cpu io memory pids\n"),
        ("sys/fs/cgroup/system.slice/n1_slurmstepd.scope/job_77/memory.current", b"52428800\n"),
        ("sys/fs/cgroup/system.slice/n1_slurmstepd.scope/job_77/memory.max", b"max\n"),
        ("sys/fs/cgroup/system.slice/n1_slurmstepd.scope/job_77/step_0/user/task_0/cgroup.procs",
         b"311\n"),
        ("proc/311/status", b"Name:\tpython3\n")]))


def docker():
    put("docker_list", "dockerprom", rd("docker", "prometheus-dockerprom", "containers-json.json"))
    put("docker_list", "telegraf", rd("docker", "telegraf", "list.json"))
    for p in sorted(glob.glob(os.path.join(FX, "docker", "telegraf", "inspect_*.json"))):
        name = "running" if "b7dfbb" in p else "non-running"
        put("docker_inspect", "telegraf-" + name, open(p, "rb").read())
    gpu = {"State": {"Status": "running", "Pid": 4242, "OOMKilled": False,
                     "StartedAt": "2024-03-01T10:20:30.123456789+01:00"},
           "HostConfig": {"Memory": 4294967296,
                          "Devices": [{"PathOnHost": "/dev/infiniband/uverbs0",
                                       "PathInContainer": "/dev/infiniband/uverbs0",
                                       "CgroupPermissions": "rwm"}],
                          "DeviceRequests": [{"Driver": "nvidia", "Count": 0,
                                              "DeviceIDs": ["0", "3"],
                                              "Capabilities": [["gpu"]]}]}}
    put("docker_inspect", "gpu-requests", json.dumps(gpu, separators=(",", ":")))
    events = rd("docker", "deck-chores-events_00.jsonl")
    lines = events.split(b"\n")
    put("docker_events", "deck-chores", bytes([7]) + b"\n".join(lines[:40]) + b"\n")
    put("docker_events", "legacy-and-oom",
        bytes([1]) + b'{"status":"oom","id":"0123abcd","from":"busybox","time":1528955333}\n'
        b'{"Type":"container","Action":"die","Actor":{"ID":"0123abcd","Attributes":'
        b'{"exitCode":"137","name":"web"}},"time":1528955334,"timeNano":1528955334000000000}\n'
        b'{"Type":"container","Action":"exec_start: sh -c true","Actor":{"ID":"0123abcd"}}\n')
    times = ["2018-06-14T05:48:53.266176036Z", "0001-01-01T00:00:00Z",
             "2024-03-01T10:20:30+01:00", "2024-02-29T23:59:60.5-00:30", "1970-01-01 00:00:00z"]
    for i, t in enumerate(times):
        put("rfc3339", "time-%d" % i, t)


def kubelet():
    pods = json.loads(rd("kubelet", "nri-kubernetes-k8s-1.35", "pods.json"))
    items = pods.get("items", [])
    pods["items"] = items[:4]
    put("kubelet_pods", "k8s-1.35-first4", json.dumps(pods, separators=(",", ":")))
    gpu_pod = {"kind": "PodList", "items": [
        {"metadata": {"name": "trainer-0", "namespace": "ml", "uid": "u-1"},
         "spec": {"containers": [{"name": "t", "resources": {
             "limits": {"nvidia.com/gpu": "2", "ephemeral-storage": "10Gi"},
             "requests": {"nvidia.com/gpu": "2"}}}],
                  "initContainers": [{"name": "sidecar", "restartPolicy": "Always",
                                      "resources": {"limits": {"amd.com/gpu": 1}}},
                                     {"name": "init", "resources": {"requests": {
                                         "gpu.intel.com/i915": "500m"}}}]},
         "status": {"phase": "Running"}},
        {"metadata": {"name": "done", "namespace": "ml", "uid": "u-2"},
         "spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
         "status": {"phase": "Succeeded"}}]}
    put("kubelet_pods", "gpu-requests", json.dumps(gpu_pod, separators=(",", ":")))
    for name, parts in (("k8s-1.35", ("nri-kubernetes-k8s-1.35", "stats-summary.json")),
                        ("minikube-2020", ("stats-summary-minikube-2020.json",))):
        summ = json.loads(rd("kubelet", *parts))
        summ["pods"] = summ.get("pods", [])[:4]
        for p in summ["pods"]:
            p.pop("containers", None)
        put("kubelet_summary", name, json.dumps(summ, separators=(",", ":")))
    for i, q in enumerate(["2", "500m", "1Ki", "10Gi", "0.5", "1.25M", "129e6", "8589934591Gi",
                           ".5", "1k"]):
        put("k8s_quantity", "q-%d" % i, q)


def nvsmi():
    for p in sorted(glob.glob(os.path.join(FX, "nvidia", "*-q-x.xml"))):
        name = os.path.basename(p)[:-len("-nvidia-smi-q-x.xml")]
        put("nvsmi", name, open(p, "rb").read())


def config():
    conf = open(os.path.join(TOP, "etc", "primus-node-agent.conf.example"), "rb").read()
    put("config", "example", conf)
    # the agent's tokens, then a key of every type of the harness's own
    # poller (the agent's pollers are not linked into it: their keys are
    # unknown tokens there)
    put("config", "every-token",
        "sysfsRoot /host/sys\nprocfsRoot /host/proc\ndevfsRoot /host/dev\nrootfsRoot /host\n"
        "httpAddress 127.0.0.1:9101\nhttpMaxConnections 64\neventHistory 500\nstaleAfter 300\n"
        "poller gpu off\npollInterval ib 5\npollTimeout kubelet 10\n"
        "fzString a\nfzBool no\nfzUint 7\nfzSeconds 30\nfzU64 1000\nfzInt 85\n"
        "fzNames eth0 eth1\nfzNames eth2\nfzCustom word\nfzIdleThreshold 2.5% 15m\n"
        "agentXSocket tcp:localhost:705\nagentXPingInterval 15\n"
        "rocommunity public 127.0.0.1 # comment\ncreateUser ops SHA-256 authpass AES privpass\n"
        "rouser ops priv\n")
    # the tokenizer's corners: net-snmp's quoting and comments, a quote left
    # open, a NUL inside a line, a token given twice with extra words
    put("config", "create-user-twice",
        b"createUser u1 SHA abcdefgh AES abcdefgh extra\ncreateUser u1 SHA abcdefgh\n")
    put("config", "nul-byte", b"rocommunity public\nnodeName a\x00b\n")
    put("config", "quoting",
        b'# quoting as net-snmp reads it\nnodeName "gpu node 17"   # a comment\n'
        b"fzString 'https://h:10250/#x'\nfzString run/a\\#b.sock#comment\n"
        b'fzString "/opt/say \\"hi\\""\n'
        b'createUser u1 SHA-256 "pass#word1" AES \'pr#v secret\'  # comment\n'
        b"createUser -e 0x80000000010203 u2 SHA abcdefgh\ncreateUser u3\n"
        b'createUser "u 4" sha1 abcdefgh aes\n'
        b"createUser u5 SHA-512 -m 0x0102 AES-256 -l 0x0304\nrouser u1 priv\n")
    put("config", "unterminated-quote", b'createUser u1 SHA-256 "pass#word\n')


def dri_map():
    for p in sorted(glob.glob(os.path.join(FX, "amdgpu-sysfs", "dev-dri-by-path", "*ls-by-path.txt"))):
        recs = []
        for line in open(p, encoding="utf-8", errors="replace"):
            m = re.search(r"(pci-\S+) -> (\S+)", line)
            if m:
                recs.append(("dev/dri/by-path/" + m.group(1), None, m.group(2)))
        put("dri_map", os.path.basename(p)[:-len("-ls-by-path.txt")], tree(recs))


def mig_caps():
    # the driver's list, as in the distinct fixture (built in the kernel
    # module's format: gpuN/giG/access, gpuN/giG/ciC/access, config, monitor)
    put("mig_caps", "distinct", tree([("proc/driver/nvidia-caps/mig-minors",
                                        rd("distinct", "proc", "driver", "nvidia-caps", "mig-minors"))]))
    put("mig_caps", "two-gpus", tree([("proc/driver/nvidia-caps/mig-minors",
                                        b"config 1\nmonitor 2\ngpu0/gi1/access 3\ngpu0/gi1/ci0/access 4\n"
                                        b"gpu0/gi2/access 12\ngpu0/gi2/ci0/access 13\n"
                                        b"gpu1/gi7/access 84\ngpu1/gi7/ci1/access 86\n")]))


def amd_kfd():
    # the KFD sysfs ABI (amdkfd: topology nodes, per-process vram_<gpu_id>);
    # no recorded tree exists, so the seed is built in that format
    t = "sys/class/kfd/kfd/"
    put("amd_kfd", "two-gpus", tree([
        (t + "topology/nodes/0/gpu_id", b"0\n"),
        (t + "topology/nodes/0/properties", b"cpu_cores_count 16\nlocation_id 0\ndomain 0\n"),
        (t + "topology/nodes/1/gpu_id", b"41234\n"),
        (t + "topology/nodes/1/properties", b"simd_count 160\nlocation_id 3072\ndomain 0\n"),
        (t + "topology/nodes/2/gpu_id", b"41235\n"),
        (t + "topology/nodes/2/properties", b"simd_count 160\nlocation_id 25600\ndomain 0\n"),
        (t + "proc/7001/vram_41234", b"2147483648\n"),
        (t + "proc/7001/vram_41235", b"4096\n"),
        (t + "proc/7002/vram_41234", b"268435456\n"),
        (t + "proc/7002/pasid", b"32770\n")]))
    # the second GPU (0000:64:00.0) in two compute partitions: two nodes at
    # its address with their render minors, dies and compute units
    props = ("simd_count 152\nsimd_per_cu 4\nlocation_id 25600\ndomain 0\n"
             "drm_render_minor %d\nnum_xcc 1\n")
    put("amd_kfd", "partitioned", tree([
        (t + "topology/nodes/1/gpu_id", b"51001\n"),
        (t + "topology/nodes/1/properties", (props % 129).encode()),
        (t + "topology/nodes/2/gpu_id", b"51002\n"),
        (t + "topology/nodes/2/properties", (props % 130).encode()),
        (t + "proc/7101/vram_51001", b"1073741824\n"),
        (t + "proc/7101/vram_51002", b"536870912\n")]))


def cdi():
    # a real spec nvidia-ctk wrote (tests/fixtures/cdi/, SOURCES.md), and the
    # same shape as JSON, written here from the CDI specification's format
    for p in sorted(glob.glob(os.path.join(FX, "cdi", "*.yaml"))):
        put("cdi", os.path.basename(p)[:-len(".yaml")], open(p, "rb").read())
    put("cdi", "spec-json", json.dumps({
        "cdiVersion": "0.6.0", "kind": "vendor.com/device",
        "devices": [{"name": "myDevice", "containerEdits": {"deviceNodes": [
            {"path": "/dev/card1", "hostPath": "/dev/dri/card1", "type": "c", "major": 226, "minor": 1}]}},
            {"name": "all", "containerEdits": {"deviceNodes": [{"path": "/dev/card1"}]}}],
        "containerEdits": {"deviceNodes": [{"path": "/dev/vendorctl"}]}}, indent=1))


def dcb():
    # the kernel's own DCB netlink answers (real-*) and the replies built from
    # include/uapi/linux/dcbnl.h (built-*), as tests/fixtures/dcb/README.md says
    for p in sorted(glob.glob(os.path.join(FX, "dcb", "*.bin"))):
        put("dcb", os.path.basename(p)[:-len(".bin")], open(p, "rb").read())


def ethtool_nl():
    # the kernel's ethtool netlink answers recorded on veth and lo (real-*)
    # and the replies built from its attribute definitions (built-*), as
    # tests/fixtures/ethtool-nl/README.md says; the first octet picks the
    # parser (fuzz_ethtool_nl.c): 0 link state, 1 FEC, 2 statistics,
    # 3 pause, 4 module EEPROM, whose length (minus 1) is the next octet
    pick = {"linkstate": 0, "fec": 1, "stats": 2, "pause": 3, "eeprom": 4}
    for p in sorted(glob.glob(os.path.join(FX, "ethtool-nl", "*.bin"))):
        name = os.path.basename(p)[:-len(".bin")]
        data = open(p, "rb").read()
        kind = name.split("-")[1]
        if kind == "bad":
            kind = {"truncated": "stats", "nest": "stats", "group": "stats", "short": "pause",
                    "fec": "fec", "bitset": "fec"}.get(name.split("-")[2], "linkstate")
        if kind == "eeprom":
            put("ethtool_nl", name, bytes([4, 127]) + data)
        else:
            put("ethtool_nl", name, bytes([pick[kind]]) + data)


def node_info(node_type, nports, guid, local_port):
    """NodeInfo attribute data (IBA vol. 1, 14.2.5.3), padded to an SMP's 64 octets."""
    g = struct.pack(">Q", guid)
    return (bytes([1, 1, node_type, nports]) + struct.pack(">Q", guid ^ 0x5a) + g +
            struct.pack(">Q", guid ^ 0xa5) + struct.pack(">HHI", 0x8000, 0xd2f0, 0xa1) +
            bytes([local_port]) + b"\x00\x02\xc9").ljust(64, b"\0")


def ib_smp():
    # directed-route SMP replies: no capture exists (no IB hardware recorded),
    # so the attribute data is built from the IBA layouts; the first octet
    # picks the description buffer's size (64 -> 65 octets)
    put("ib_smp", "node-info-switch", bytes([64]) + node_info(2, 41, 0x0c42a10300798ad0, 17))
    put("ib_smp", "node-info-hca", bytes([64]) + node_info(1, 2, 0xb8599f0300d45a2e, 2))
    put("ib_smp", "node-desc-switch", bytes([64]) + b"MF0;leaf-03:MQM8700/U1".ljust(64, b" "))
    put("ib_smp", "node-desc-host", bytes([64]) + b"gpu-node-17 mlx5_2".ljust(64, b"\0"))
    put("ib_smp", "node-desc-odd", bytes([20]) + b" \t\x1b[31mleaf\x01caf\xc3\xa9".ljust(64, b"\xff"))
    put("ib_smp", "short", bytes([7]) + node_info(2, 41, 0x0c42a10300798ad0, 17)[:39])


def lldp_tlv():
    # OUI, subtype, information string, as lldpd hands over a TLV it keeps as
    # custom.  PFC Configuration (802.1Qaz, subtype 11) in the standard's
    # layout; a real Link Aggregation TLV (802.1 subtype 7) an H3C switch sent,
    # which is not one (see tests/unit/test_lldp_tlv.c); a PVID TLV; a short
    # and a long one.
    dot1 = bytes([0x00, 0x80, 0xc2])
    put("lldp_tlv", "pfc-3-4", dot1 + bytes([0x0b, 0x08, 0x18]))
    put("lldp_tlv", "pfc-willing-mbc-cap3", dot1 + bytes([0x0b, 0xc3, 0x01]))
    put("lldp_tlv", "pfc-reserved-bits", dot1 + bytes([0x0b, 0x38, 0xff]))
    put("lldp_tlv", "pfc-cap-15", dot1 + bytes([0x0b, 0x0f, 0x08]))
    put("lldp_tlv", "h3c-link-aggregation", dot1 + bytes([0x07, 0x01, 0x00, 0x00, 0x00, 0x00]))
    put("lldp_tlv", "pvid-100", dot1 + bytes([0x01, 0x00, 0x64]))
    put("lldp_tlv", "pfc-short", dot1 + bytes([0x0b, 0x08]))
    put("lldp_tlv", "pfc-long", dot1 + bytes([0x0b, 0x08, 0x18, 0x00]))


def pcie():
    # every file of tests/fixtures/pcie/ (real aer_dev_* and link files of
    # three AMD GPUs, and the built cases its README.md lists)
    for p in sorted(glob.glob(os.path.join(FX, "pcie", "*", "sys", "bus", "pci", "devices", "*", "*"))):
        parts = p.split(os.sep)
        put("pcie", "%s-%s-%s" % (parts[-7], parts[-2].replace(":", "_"), parts[-1]),
            open(p, "rb").read())


def module():
    # EEPROM images built from the specifications (two with the values of
    # real ethtool -m captures), as tests/fixtures/module/README.md says, and
    # two cut short: page 00h only of a paged module, half a lower page
    for p in sorted(glob.glob(os.path.join(FX, "module", "*.bin"))):
        put("module", os.path.basename(p)[:-len(".bin")], open(p, "rb").read())
    arista = rd("module", "arista-qdd-400g-xdr4-cmis4.bin")
    put("module", "arista-page0-only", arista[:256])
    put("module", "arista-half-lower", arista[:64])


def rtnl_link():
    # the kernel's own RTM_NEWLINK / RTM_DELLINK messages, as
    # tests/fixtures/rtnl/README.md says, one by one and two in one datagram
    # (a notification's carrier loss, then its return)
    for p in sorted(glob.glob(os.path.join(FX, "rtnl", "*.bin"))):
        put("rtnl_link", os.path.basename(p)[:-len(".bin")], open(p, "rb").read())
    put("rtnl_link", "down-up-datagram",
        rd("rtnl", "newlink-0-carrier0.bin") + rd("rtnl", "newlink-1-carrier1.bin"))


def netlink():
    # the attribute parser shared by those three readers (fuzz_netlink.c), on
    # the same recorded and built replies and on the regression inputs of
    # their corpora (less the octets that pick a parser there).  The first
    # octet: the family header (low two bits: 0 a 4-octet genlmsghdr or
    # dcbmsg, 1 the 16-octet ifinfomsg) and the policy's turn (the upper six
    # bits), a different one for each seed so that the types meet every kind
    seeds = []
    for d, hdr in (("ethtool-nl", 0), ("dcb", 0), ("rtnl", 1)):
        for p in sorted(glob.glob(os.path.join(FX, d, "*.bin"))):
            seeds.append((d + "-" + os.path.basename(p)[:-len(".bin")], hdr,
                          open(p, "rb").read()))
    seeds.append(("rtnl-down-up-datagram", 1,
                  rd("rtnl", "newlink-0-carrier0.bin") + rd("rtnl", "newlink-1-carrier1.bin")))
    for corpus, hdr in (("ethtool_nl", 0), ("dcb", 0), ("rtnl_link", 1)):
        for p in sorted(glob.glob(os.path.join(OUT, corpus, "*"))):
            name = os.path.basename(p)
            if name.startswith("seed-"):
                continue
            data = open(p, "rb").read()
            if corpus == "ethtool_nl" and data:
                data = data[2:] if data[0] % 5 == 4 else data[1:]
            seeds.append(("corpus-%s-%s" % (corpus, name), hdr, data))
    for i, (name, hdr, data) in enumerate(seeds):
        put("netlink", name, bytes([((i * 4) & 0xfc) | hdr]) + data)


def amd_gpu_metrics():
    # the recorded blobs, and MI300-style headers BUILT from the kernel's
    # struct sizes (v1.4 288 ... v1.8 3360 bytes): every other byte 0xff, the
    # driver's "not supported", with two partitions and link states set
    for p in sorted(glob.glob(os.path.join(FX, "amdgpu-sysfs", "gpu_metrics", "*.bin"))):
        put("amd_gpu_metrics", os.path.basename(p)[:-len(".bin")], open(p, "rb").read())
    sizes = {4: 288, 5: 360, 6: 1664, 7: 2208, 8: 3360}
    partitions = {6: 306, 7: 338, 8: 338}
    for content, size in sizes.items():
        blob = bytearray(b"\xff" * size)
        blob[0:4] = struct.pack("<HBB", size, 1, content)
        if content in partitions:
            blob[partitions[content]:partitions[content] + 2] = struct.pack("<H", 2)
        if content >= 7:
            blob[264:280] = struct.pack("<8H", 1, 1, 0, 1, 0xffbd, 1, 1, 0xffff)
        put("amd_gpu_metrics", "built-mi-v1_%d" % content, bytes(blob))


def accounting_state():
    # The accounting state file (sources/accounting/state_file.c), built in
    # the layout its writer uses: a GPU, a holder row on it, its pod and a
    # Slurm job; then the same cut in half, and one record out of order.
    import json
    fig = {"has_energy": True, "energy_mj": 370371, "held_ms": 8510, "has_sm_active": False,
           "sm_active_ms": 0, "has_mem": False, "mem_byte_s": 0, "mem_byte_ms_rem": 0}
    gpu = {"index": 48, "pci_bus_id": "0000:00:06.0", "uuid": "GPU-9523b415-042d-2522-6d49-eb87275e096c",
           "energy_from": 1, "has_sample": True, "sample_ms": 1796690282235, "counter_mj": 1240742,
           "idle_mj": 870371, "charged_mj": 370371, "created_ms": 1796690280231, "rejected": 0}
    row = dict({"gpu_index": 48, "pci_bus_id": "0000:00:06.0", "uuid": gpu["uuid"], "gpu_number": 0,
                "kind": 1, "id": "ml/train-a/trainer", "namespace": "ml", "pod": "train-a",
                "container": "trainer", "job": 0, "energy_from": 1, "rule": 1,
                "created_ms": 1796690253000, "last_seen_ms": 1796690282235}, **fig)
    pod = dict({"namespace": "ml", "pod": "train-a", "job": 0,
                "created_ms": 1796690253000, "last_seen_ms": 1796690282235}, **fig)
    job = dict(pod, namespace="", pod="", job=60917)
    state = {"version": 1, "clean": True, "saved_ms": 1796690283445, "gpus": [gpu], "rows": [row],
             "pods": [pod], "jobs": [job]}
    text = json.dumps(state, separators=(",", ":"))
    put("accounting_state", "clean", text)
    put("accounting_state", "truncated", text[: len(text) // 2])
    put("accounting_state", "out-of-order", json.dumps(dict(state, jobs=[job, job])))
def pci_path():
    # the resolved bus/pci/devices link of every function of the trees of
    # tests/fixtures/topology/, below devices/, and a few that break a rule
    for tree in sorted(glob.glob(os.path.join(FX, "topology", "*", "sys"))):
        bus = os.path.join(tree, "bus", "pci", "devices")
        for link in sorted(glob.glob(os.path.join(bus, "*"))):
            target = os.readlink(link)
            if "/devices/" not in target:
                continue
            rel = target.split("/devices/", 1)[1]
            put("pci_path", "%s-%s" % (tree.split(os.sep)[-2], os.path.basename(link).replace(":", "_")),
                rel)
    put("pci_path", "built-no-host-bridge", "0000:00:01.0/0000:01:00.0")
    put("pci_path", "built-not-a-function", "pci0000:00/0000:00:01.0/virtual/0000:01:00.0")
    put("pci_path", "built-too-deep", "pci0000:00/" + "/".join(["0000:00:01.0"] * 17))
    put("pci_path", "built-double-slash", "pci0000:00//0000:00:01.0/")


def main():
    if not os.path.isdir(FX):
        sys.exit("run from the top of the source tree")
    clear_seeds()
    for fn in (fileio, node, ib, amdgpu, pfc, oci, containerd, cgroup, docker, kubelet, nvsmi,
               config, dri_map, mig_caps, amd_kfd, cdi, dcb, ib_smp, lldp_tlv, pcie, module,
               ethtool_nl, rtnl_link, netlink, amd_gpu_metrics, cstorage, slurm_cgroup,
               accounting_state, pci_path):
        fn()


if __name__ == "__main__":
    main()
