#!/usr/bin/env python3
"""gen_node.py -- generate a node at scale for the benchmarks.

Writes, under OUT:
  sys/class/infiniband/mlx5_<n>/...   HCAS devices x PORTS ports, shaped as the
        real mlx5_0 tree in tests/fixtures/ib-sysfs (attributes, the 21 PMA
        counters), each port with HW_COUNTERS hw_counters: every counter name
        the fixtures know (mlx5 sysfs, `rdma statistic` of mlx5 and ionic, the
        optional cc_* set) and, past those, numbered padding names;
  sys/fs/cgroup/...                    cgroup v2 files per container (shaped as
        tests/fixtures/cgroup/telegraf-v2: memory.current, .max, .events, .stat;
        cgroup.events as the kernel documents it);
  proc/<pid>/cgroup, proc/<pid>/       one fake process per container, plus the
        node files the node poller reads (copied from this machine);
  root/run/containerd/io.containerd.runtime.v2.task/k8s.io/<id>/
        config.json (the CRI-shaped spec of tests/integration/containers_fixture.sh)
        and init.pid, CONTAINERS bundles;
  dev/                                 /dev/nvidia<N> and /dev/infiniband nodes
        (plain files) that the first containers hold;
  nvml.xml                             GPUS <gpu> elements for the test NVML
        (tests/nvml), each the H100 fixture with its own PCI bus id and UUID,
        and proc/driver/nvidia/gpus/<bus>/information with its minor number.

Usage: gen_node.py --fixtures DIR --out DIR [--hcas 8] [--ports 2]
                   [--hw-counters 100] [--gpus 16] [--containers 2000]
Prints one line per part with what it made.
"""
import argparse
import json
import os
import random
import re
import shutil
import sys

MLX5 = "ib-sysfs/procfs/sys/class/infiniband/mlx5_0"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def hw_counter_names(fix, want):
    """Every hw counter name found in the fixtures, then padding to WANT."""
    names = []
    d = os.path.join(fix, MLX5, "ports/1/hw_counters")
    names += sorted(n for n in os.listdir(d) if n != "lifespan")
    with open(os.path.join(fix, "rdma-tool/mlx5_0-stat-show-2019.txt")) as f:
        words = f.read().split()
    names += [w for w in words[2::2] if re.match(r"^[a-z][a-z0-9_]*$", w)]
    with open(os.path.join(fix, "rdma-tool/rocep8s0f0-stat-mode-supported-2021.txt")) as f:
        for line in f:
            if "Optional-set:" in line:
                names += line.split(":", 1)[1].split()
    with open(os.path.join(fix, "rdma-tool/amd-ainic-ionic/rdma_statistic_j.json")) as f:
        for k in json.load(f)[0]:
            if k not in ("ifname", "port"):
                names.append(k)
    seen, out = set(), []
    for n in names:
        if n not in seen:
            seen.add(n)
            out.append(n)
    real = len(out)
    i = 0
    while len(out) < want:
        out.append("bench_pad_%03d" % i)
        i += 1
    return out[:want], min(real, want)


def gen_ib(fix, out, hcas, ports, n_hw, rnd):
    src = os.path.join(fix, MLX5)
    pma = sorted(os.listdir(os.path.join(src, "ports/1/counters")))
    hw, real = hw_counter_names(fix, n_hw)
    files = 0
    for h in range(hcas):
        d = os.path.join(out, "sys/class/infiniband/mlx5_%d" % h)
        os.makedirs(d, exist_ok=True)
        for attr in ("hca_type", "fw_ver", "board_id"):
            shutil.copyfile(os.path.join(src, attr), os.path.join(d, attr))
        write(os.path.join(d, "node_guid"), "0a7f:bc12:45ef:%04x\n" % (0xd200 + h))
        write(os.path.join(d, "sys_image_guid"), "0a7f:bc12:45ef:%04x\n" % (0xd200 + h))
        write(os.path.join(d, "node_type"), "1: CA\n")
        files += 6
        for p in range(1, ports + 1):
            pd = os.path.join(d, "ports/%d" % p)
            for attr in ("state", "phys_state", "rate", "link_layer"):
                with open(os.path.join(src, "ports/1", attr)) as f:
                    write(os.path.join(pd, attr), f.read())
            write(os.path.join(pd, "lid"), "0x%x\n" % (h * ports + p))
            write(os.path.join(pd, "sm_lid"), "0x1\n")
            write(os.path.join(pd, "lid_mask_count"), "0\n")
            files += 7
            for c in pma:
                write(os.path.join(pd, "counters", c), "%d\n" % rnd.randrange(0, 1 << 31))
                files += 1
            write(os.path.join(pd, "hw_counters/lifespan"), "10\n")
            for c in hw:
                write(os.path.join(pd, "hw_counters", c), "%d\n" % rnd.randrange(0, 1 << 31))
                files += 1
    print("ib: %d HCAs x %d ports, %d PMA counters + %d hw_counters per port "
          "(%d names from the fixtures, %d padding), %d files"
          % (hcas, ports, len(pma), len(hw), real, len(hw) - real, files))


def gen_gpus(fix, out, n):
    with open(os.path.join(fix, "nvidia/h100-nvidia-smi-q-x.xml")) as f:
        xml = f.read()
    start = xml.index("<gpu id=")
    end = xml.index("</gpu>", start) + len("</gpu>")
    gpu = xml[start:end]
    parts = []
    for i in range(n):
        bus = 0x10 + i * 0x08
        busid = "00000000:%02X:00.0" % bus
        g = gpu.replace('<gpu id="00000000:00:06.0">', '<gpu id="%s">' % busid)
        g = g.replace("<pci_bus_id>00000000:00:06.0</pci_bus_id>",
                      "<pci_bus_id>%s</pci_bus_id>" % busid)
        g = g.replace("<pci_bus>00</pci_bus>", "<pci_bus>%02X</pci_bus>" % bus)
        g = g.replace("GPU-9523b415-042d-2522-6d49-eb87275e096c",
                      "GPU-9523b415-042d-2522-6d49-%012x" % i)
        g = g.replace("<minor_number>0</minor_number>", "<minor_number>%d</minor_number>" % i)
        parts.append(g)
        # The driver's procfs file that ties /dev/nvidia<minor> to the GPU (the
        # layout of tests/integration/podresources_holders.sh's): a container
        # given /dev/nvidia<i> then holds GPU i.
        write(os.path.join(out, "proc/driver/nvidia/gpus/0000:%02x:00.0/information" % bus),
              "Model: \t\t NVIDIA H100\nIRQ:   \t\t 42\nGPU UUID: \t GPU-9523b415-042d-2522-6d49-%012x\n"
              "Device Minor: \t %d\n" % (i, i))
    write(os.path.join(out, "nvml.xml"), xml[:start] + "\n".join(parts) + xml[end:])
    print("gpu: %d GPUs (H100 fixture, bus ids 0x10..0x%02x)" % (n, 0x10 + (n - 1) * 0x08))


def spec(name, pod, cgpath, devices):
    devs = [{"path": p, "type": "c", "major": ma, "minor": mi} for p, ma, mi in devices]
    return json.dumps({
        "ociVersion": "1.1.0",
        "process": {"args": ["python", "train.py"], "env": ["PATH=/usr/bin"], "cwd": "/"},
        "root": {"path": "rootfs"},
        "annotations": {
            "io.kubernetes.cri.container-type": "container",
            "io.kubernetes.cri.container-name": name,
            "io.kubernetes.cri.sandbox-name": pod,
            "io.kubernetes.cri.sandbox-namespace": "bench",
            "io.kubernetes.cri.sandbox-uid": "uid-" + pod,
            "io.kubernetes.cri.image-name": "registry.local/train:1.2"},
        "linux": {"cgroupsPath": cgpath,
                  "resources": {"memory": {"limit": 4294967296},
                                "devices": [{"allow": False, "access": "rwm"}]},
                  "devices": devs}})


def container_id(i):
    return "%064x" % (0xbe0c400000000000 * 7919 + i * 104729)


def gen_containers(fix, out, n, gpus, hcas):
    tasks = os.path.join(out, "root/run/containerd/io.containerd.runtime.v2.task/k8s.io")
    cg = os.path.join(out, "sys/fs/cgroup")
    write(os.path.join(cg, "cgroup.controllers"), "cpu memory pids\n")
    tmpl = {}
    for f in ("memory.current", "memory.max", "memory.events", "memory.stat"):
        with open(os.path.join(fix, "cgroup/telegraf-v2", f)) as fh:
            tmpl[f] = fh.read()
    # Every cgroup v2 directory has cgroup.events; no capture of one is in
    # the fixtures, so it is written in the kernel's documented format
    # (Documentation/admin-guide/cgroup-v2.rst): a populated, thawed cgroup.
    tmpl["cgroup.events"] = "populated 1\nfrozen 0\n"
    for g in range(gpus):
        write(os.path.join(out, "dev/nvidia%d" % g), "")
    for h in range(hcas):
        write(os.path.join(out, "dev/infiniband/uverbs%d" % h), "")
        write(os.path.join(out, "sys/class/infiniband_verbs/uverbs%d/ibdev" % h), "mlx5_%d\n" % h)
    for i in range(n):
        cid = container_id(i)
        pid = 100000 + i
        rel = "kubepods.slice/pod-%d/ctr-%d" % (i // 2, i)
        devices = []
        if i < gpus:
            devices.append(("/dev/nvidia%d" % i, 195, i))
        if i < hcas:
            devices.append(("/dev/infiniband/uverbs%d" % i, 231, 192 + i))
        b = os.path.join(tasks, cid)
        write(os.path.join(b, "config.json"),
              spec("ctr-%d" % i, "pod-%d" % (i // 2), rel.replace("/", ":"), devices))
        write(os.path.join(b, "init.pid"), "%d" % pid)
        # As on a host with both hierarchies (systemd's hybrid layout): the
        # v2 line, and the v1 memory and freezer lines, so that the same
        # processes serve a v1 cgroupfs (bench/cgroupfs_tree.sh).
        write(os.path.join(out, "proc/%d/cgroup" % pid),
              "7:freezer:/%s\n4:memory:/%s\n0::/%s\n" % (rel, rel, rel))
        for f, t in tmpl.items():
            write(os.path.join(cg, rel, f), t)
    os.makedirs(os.path.join(out, "root/var/lib/kubelet"), exist_ok=True)
    print("containers: %d bundles in k8s.io, cgroup v2 files, %d hold a GPU, %d an HCA"
          % (n, min(n, gpus), min(n, hcas)))


def gen_procfs(out):
    p = os.path.join(out, "proc")
    for f in ("cpuinfo", "loadavg", "meminfo", "stat", "uptime",
              "sys/kernel/hostname", "sys/kernel/osrelease"):
        try:
            with open("/proc/" + f) as fh:
                write(os.path.join(p, f), fh.read())
        except OSError:
            pass
    write(os.path.join(p, "sys/kernel/arch"), os.uname().machine + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hcas", type=int, default=8)
    ap.add_argument("--ports", type=int, default=2)
    ap.add_argument("--hw-counters", type=int, default=100)
    ap.add_argument("--gpus", type=int, default=16)
    ap.add_argument("--containers", type=int, default=2000)
    a = ap.parse_args()
    if a.gpus > 16:
        sys.exit("gen_node.py: the test NVML serves at most 16 GPUs")
    rnd = random.Random(7)
    os.makedirs(a.out, exist_ok=True)
    gen_procfs(a.out)
    gen_ib(a.fixtures, a.out, a.hcas, a.ports, a.hw_counters, rnd)
    gen_gpus(a.fixtures, a.out, a.gpus)
    gen_containers(a.fixtures, a.out, a.containers, a.gpus, a.hcas)


if __name__ == "__main__":
    main()
