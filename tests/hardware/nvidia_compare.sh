#!/bin/bash
# tests/hardware/nvidia_compare.sh [AGENT] [REPORT_DIR]
#
# On a node with NVIDIA GPUs, the NVML driver and net-snmp's snmpd: checks the
# agent's NVML declarations against NVIDIA's nvml.h where the CUDA toolkit is
# installed, then runs nvidia_compare.py (primusGpuTable through a real snmpd
# against nvidia-smi and NVML read through nvidia-ml-py).  Not part of
# `make check`: CI machines have no GPU.  docs/gpu-hardware-check.md has the
# last recorded run.  Exit: 0 all agree, 1 a difference, 77 no GPU here.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
agent=${1:-$top/primus-node-agent}
out=${2:-.}
mkdir -p "$out"
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || {
    echo "SKIP: no NVIDIA GPU (nvidia-smi -L fails)"; exit 77; }
for t in snmpd snmptrapd snmpbulkwalk snmptable; do
    command -v $t >/dev/null || { echo "FAIL: $t not found"; exit 1; }
done
rc=0

# 1. The ABI the agent declares itself (src/sources/gpu/nvml_api.h) against nvml.h.
hdr=""
for d in /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include /usr/include; do
    [ -f "$d/nvml.h" ] && { hdr=$d; break; }
done
cc=$(command -v cc || command -v gcc || true)
if [ -n "$hdr" ] && [ -n "$cc" ]; then
    tmp=$(mktemp -d)
    "$cc" -std=c11 -I"$top/src" "$top/tests/hardware/nvml_abi.c" -o "$tmp/ours" &&
        "$cc" -std=c11 -DPNA_REAL_NVML_H -I"$hdr" "$top/tests/hardware/nvml_abi.c" -o "$tmp/real" &&
        "$tmp/ours" > "$out/nvml-abi-agent.txt" && "$tmp/real" > "$out/nvml-abi-nvml-h.txt"
    if cmp -s "$out/nvml-abi-agent.txt" "$out/nvml-abi-nvml-h.txt"; then
        echo "ABI: $(wc -l < "$out/nvml-abi-agent.txt") sizes, offsets and constants identical to $hdr/nvml.h"
    else
        echo "FAIL: ABI differs from $hdr/nvml.h:"
        diff "$out/nvml-abi-agent.txt" "$out/nvml-abi-nvml-h.txt"
        rc=1
    fi
    rm -rf "$tmp"
else
    echo "ABI check skipped: no nvml.h (CUDA toolkit) or no C compiler"
fi

# 2. The table, column by column, against nvidia-smi and NVML.
python3 "$top/tests/hardware/nvidia_compare.py" --agent "$agent" --mibdir "$top/mibs" \
    --report "$out/gpu-compare-report.md" || rc=$?
exit $rc
