#!/usr/bin/env python3
"""heap_parts.py -- what holds the agent's heap, from a heaptrack recording.

    heap_parts.py STACKS

STACKS is `heaptrack_print -F STACKS --flamegraph-cost-type leaked` of a
recording of the agent stopped by SIGKILL: each line is one call stack
(frames from main to the allocator, separated by ';', a frame of the agent or
of glibc naming its source file in parentheses) and the bytes allocated there
and still held when the agent was stopped.  Each stack is given to the first
part below whose source files it goes through; the parts and their bytes are
printed, largest first, one a line:

    heap: MB NAME

and a last line "heap: MB in use in all" (MB: 10^6 bytes, as heaptrack's).  A benchmark helper (bench/run.sh).
"""
import re
import sys

# (name, source files): the first part a stack goes through is its part.
PARTS = [
    ("the test NVML and its XML documents (a test double; a node maps libnvidia-ml)",
     {"fake_nvml.c"}),
    ("GPU poller: NVML's per-GPU state, GPU rows", {"nvml.c", "gpu.c", "gpu_poller.c"}),
    ("bundle cache: each bundle's parsed spec, file identities, pid",
     {"bundle_cache.c"}),
    ("container strings (src/util/strpool.c: ids, names, pods, images, cgroup paths)",
     {"strpool.c"}),
    ("OOM watch: entries, their names, the bundle directories watched",
     {"oom_watch.c", "oom_ledger.c", "dir_watch.c"}),
    ("container rows and devices", {"containers.c", "containerd.c", "oci_spec.c",
                                    "containers_poller.c", "docker.c", "docker_api.c"}),
    ("event history (primusEventTable)", {"events.c"}),
    ("RDMA devices, ports, counters; link events", {"ib_poller.c", "ib_sysfs.c",
                                                    "link_watch.c", "pfc_poller.c",
                                                    "phy_poller.c"}),
    ("net-snmp, OpenSSL, the MIB registrations (agent start)", {"agent.c"}),
    ("libraries' own start-up (constructors)", {"dl-init.c"}),
]
OTHER = "the rest (thread stacks' TLS, stdio, locale...)"
FRAME_FILE = re.compile(r"\(([\w.-]+\.c)\)")


def part_of(stack):
    files = set(FRAME_FILE.findall(stack))
    for name, sources in PARTS:
        if files & sources:
            return name
    return OTHER


def main(path):
    held = {}
    with open(path, encoding="utf-8", errors="replace") as stacks:
        for line in stacks:
            stack, _, cost = line.rstrip("\n").rpartition(" ")
            if not cost.isdigit():
                continue
            name = part_of(stack)
            held[name] = held.get(name, 0) + int(cost)
    for name, size in sorted(held.items(), key=lambda kv: -kv[1]):
        print(f"heap: {size / 1e6:.2f} MB {name}")
    print(f"heap: {sum(held.values()) / 1e6:.2f} MB in use in all")
    return 0 if held else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
