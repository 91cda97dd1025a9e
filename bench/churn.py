#!/usr/bin/env python3
"""churn.py -- container create/exit cycles on a generated containerd tree
(bench/gen_node.py), sampling the agent's resident memory as they run.

One cycle is one task's life as containerd leaves it on disk: the bundle
directory with config.json and init.pid appears, its process (a procfs
entry) and cgroup v2 directory with memory files appear, then the process
exits (procfs entry removed), and the bundle and cgroup go.  Cycles run in
batches: BATCH tasks are created, SETTLE seconds pass (the agent's containers
poller is woken by inotify and rescans), then the BATCH exit and are removed,
SETTLE seconds again.  The agent's VmRSS (/proc/PID/status) is sampled
SAMPLES times, evenly over the run, and once at the end.

Usage: churn.py --gen DIR --pid AGENT_PID [--cycles 100000] [--batch 250]
                [--settle 0.05] [--samples 10]
Prints one line per sample: "cycles=N rss_kb=R cpu_s=C elapsed_s=E", then
"churn: ..." with the RSS before, its range during the cycles and the
means of the first and second half of the samples (growth shows as a trend).
"""
import argparse
import json
import os
import shutil
import sys
import time

TASKS = "root/run/containerd/io.containerd.runtime.v2.task/k8s.io"


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spec(n):
    return json.dumps({
        "ociVersion": "1.1.0", "process": {"args": ["sh"], "cwd": "/"},
        "root": {"path": "rootfs"},
        "annotations": {"io.kubernetes.cri.container-type": "container",
                        "io.kubernetes.cri.container-name": "churn-%d" % n,
                        "io.kubernetes.cri.sandbox-name": "churn-pod-%d" % (n // 4),
                        "io.kubernetes.cri.sandbox-namespace": "churn",
                        "io.kubernetes.cri.sandbox-uid": "uid-churn-%d" % (n // 4),
                        "io.kubernetes.cri.image-name": "registry.local/churn:1"},
        "linux": {"cgroupsPath": "churn.slice:c:%d" % n}})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gen", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--cycles", type=int, default=100000)
    ap.add_argument("--batch", type=int, default=250)
    ap.add_argument("--settle", type=float, default=0.05)
    ap.add_argument("--samples", type=int, default=10)
    a = ap.parse_args()
    tasks = os.path.join(a.gen, TASKS)
    proc = os.path.join(a.gen, "proc")
    cgroot = os.path.join(a.gen, "sys/fs/cgroup/churn.slice")
    every = max(a.batch, a.cycles // a.samples)
    t0 = time.monotonic()
    cpu0 = cpu_s(a.pid)
    samples = []
    done = 0
    next_sample = 0
    while done < a.cycles:
        if done >= next_sample:
            s = (done, rss_kb(a.pid), cpu_s(a.pid) - cpu0, time.monotonic() - t0)
            samples.append(s)
            print("cycles=%d rss_kb=%d cpu_s=%.1f elapsed_s=%.1f" % s, flush=True)
            next_sample += every
        n = min(a.batch, a.cycles - done)
        live = []
        for k in range(n):
            i = done + k
            cid = "%064x" % (0xc4a2 << 200 | i)
            pid = 900000 + (i % 100000)
            b = os.path.join(tasks, cid)
            cg = os.path.join(cgroot, "c-%d" % i)
            os.makedirs(os.path.join(proc, str(pid)), exist_ok=True)
            with open(os.path.join(proc, str(pid), "cgroup"), "w") as f:
                f.write("0::/churn.slice/c-%d\n" % i)
            os.makedirs(cg)
            for name, text in (("memory.current", "1048576\n"), ("memory.max", "max\n"),
                               ("memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")):
                with open(os.path.join(cg, name), "w") as f:
                    f.write(text)
            os.makedirs(b)
            with open(os.path.join(b, "config.json.tmp"), "w") as f:
                f.write(spec(i))
            os.rename(os.path.join(b, "config.json.tmp"), os.path.join(b, "config.json"))
            with open(os.path.join(b, "init.pid"), "w") as f:
                f.write(str(pid))
            live.append((b, cg, pid))
        time.sleep(a.settle)
        for b, cg, pid in live:
            shutil.rmtree(os.path.join(proc, str(pid)))   # the process exits
            shutil.rmtree(b)                               # containerd removes the bundle
            shutil.rmtree(cg)                              # and the cgroup goes
        time.sleep(a.settle)
        done += n
    time.sleep(2)
    s = (done, rss_kb(a.pid), cpu_s(a.pid) - cpu0, time.monotonic() - t0)
    samples.append(s)
    print("cycles=%d rss_kb=%d cpu_s=%.1f elapsed_s=%.1f" % s, flush=True)
    # Growth shows as a trend: compare the mean of the first and second half
    # of the samples taken once cycles ran (malloc keeps freed arenas, so
    # single samples go up and down with the rows alive at that moment).
    run = [x[1] for x in samples[1:]] or [samples[0][1]]
    half = max(1, len(run) // 2)
    first, second = run[:half], run[half:] or run[:half]
    m1, m2 = sum(first) / len(first), sum(second) / len(second)
    print("churn: %d cycles in %.0f s; RSS before %d kB; during the cycles min %d, max %d kB; "
          "mean of the first half %.0f kB, of the second half %.0f kB (%+.0f kB); agent CPU %.1f s"
          % (done, s[3], samples[0][1], min(run), max(run), m1, m2, m2 - m1, s[2]))
    try:
        os.rmdir(cgroot)
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
