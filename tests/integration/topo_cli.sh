#!/bin/bash
# topo_cli.sh -- `primus-node-agent --topo` on the trees of tests/fixtures/topology/
# (see its README.md: built from each platform's description, not captured):
# the matrix it prints is compared, cell by cell, with the `nvidia-smi topo -m`
# matrix kept beside each tree.  --topo reads sysfs alone, so between two GPUs it
# prints their PCIe class where nvidia-smi prints NV#: such a cell must hold a
# PCIe class.  The bad tree's problems are named after the matrix; a sysfs
# root without PCI devices is an error.  Under PNA_VALGRIND=1 each run is
# checked by valgrind.
. "$(dirname "$0")/lib.sh"

TOPO=$PNA_FIXTURES/topology

# run_topo TREE: the agent's output for TREE in $WORK/TREE.out.
run_topo() {
    $(agent_wrapper) "$PNA_AGENT" --topo --sysfs "$TOPO/$1/sys" >"$WORK/$1.out" \
        2>"$WORK/$1.err" || fail "--topo on $1 exited $?: $(cat "$WORK/$1.err")"
    [ -s "$WORK/agent-valgrind.log" ] && fail "valgrind report on $1"
    true
}

# compare TREE: every matrix cell of the output against the expected file.
compare() {
    awk -F'\t' -v tree="$1" '
        function trim(s) { gsub(/^ +| +$/, "", s); return s }
        NR == FNR { ref[FNR] = $0; rows = FNR; next }
        FNR <= rows {
            n = split(ref[FNR], e, "\t"); split($0, g, "\t")
            if (FNR == 1) { if ($0 != ref[1]) { print tree ": header " $0; bad++ } ; ncol = n - 3; next }
            if (g[1] != e[1]) { print tree ": row " FNR " is " g[1] ", expected " e[1]; bad++ }
            for (j = 2; j <= ncol + 1; j++) {
                want = trim(e[j]); got = trim(g[j])
                if (want ~ /^NV[0-9]+$/) {
                    if (got !~ /^(PIX|PXB|PHB|NODE|SYS)$/) { print tree ": " e[1] "/" j-1 " " got; bad++ }
                } else if (got != want) { print tree ": " e[1] " column " j-1 ": " got ", expected " want; bad++ }
                cells++
            }
            if (e[1] ~ /^GPU/ && (g[ncol + 2] != e[ncol + 2] || g[ncol + 3] != e[ncol + 3])) {
                print tree ": " e[1] " affinity " g[ncol + 2] "/" g[ncol + 3]; bad++
            }
        }
        END { print tree ": " cells " cells compared"; exit bad > 0 || cells == 0 }
    ' "$TOPO/$1/expected-topo-m.txt" "$WORK/$1.out" || fail "$1: the matrix differs"
}

for tree in dgx-h100 two-socket bad-input; do
    run_topo "$tree"
    compare "$tree"
    ok "$tree: every cell as in its nvidia-smi topo -m matrix"
done

grep -q '^  NIC7: mlx5_11$' "$WORK/dgx-h100.out" || fail "dgx-h100: NIC legend: $(grep NIC7: "$WORK/dgx-h100.out")"
ok "dgx-h100: the NIC legend names the RDMA devices"

for want in "GPU1 (0000:21:00.0): numa_node is -1" \
            "NIC1 (0000:41:00.0): place unknown: 0000:41:00.0: a loop of links" \
            "NIC2 (0000:61:00.0): place unknown: 0000:61:00.0: parent 0000:60:01.0 missing"; do
    grep -qF "$want" "$WORK/bad-input.out" || fail "bad-input: no line '$want'"
done
ok "bad-input: the loop, the NUMA node of -1 and the missing parent are named"

mkdir -p "$WORK/empty-sys"
if $(agent_wrapper) "$PNA_AGENT" --topo --sysfs "$WORK/empty-sys" >"$WORK/empty.out" 2>"$WORK/empty.err"; then
    fail "--topo on a tree without bus/pci/devices exited 0"
fi
grep -q 'topo: .*/bus/pci/devices: No such file or directory' "$WORK/empty.err" ||
    fail "no clear error for a tree without PCI devices: $(cat "$WORK/empty.err")"
ok "a tree without bus/pci/devices: exit 1 with the path named"
