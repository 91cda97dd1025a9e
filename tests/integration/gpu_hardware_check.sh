#!/bin/bash
# The real-GPU check's parts that run anywhere: the ABI printer built against
# src/sources/gpu/nvml_api.h prints every size, offset and constant it names, and
# nvidia_compare.sh answers 77 (skip) without starting anything where no
# NVIDIA GPU is present.
. "$(dirname "$0")/lib.sh"

abi="$top_builddir/tests/hardware/nvml_abi"
[ -x "$abi" ] || fail "$abi not built (make check builds it)"
"$abi" > "$WORK/abi.txt" || fail "nvml_abi failed"
want=$(grep -cE '^\s+(SIZE|OFF|CONST)\(' "$top_srcdir/tests/hardware/nvml_abi.c")
got=$(grep -cE '^(sizeof|offsetof|const) ' "$WORK/abi.txt")
[ "$got" = "$want" ] || fail "nvml_abi printed $got lines, the source names $want"
grep -qx 'sizeof nvmlPciInfo_t 68' "$WORK/abi.txt" || fail "nvmlPciInfo_t is not 68 bytes"
ok "ABI printer: $got sizes, offsets and constants"

# A PATH with nvidia-smi answering as on a node whose driver is not loaded.
mkdir -p "$WORK/bin"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it couldn'"'"'t communicate with the NVIDIA driver."\nexit 9\n' \
    > "$WORK/bin/nvidia-smi"
chmod +x "$WORK/bin/nvidia-smi"
PATH="$WORK/bin:$PATH" "$top_srcdir/tests/hardware/nvidia_compare.sh" "$PNA_AGENT" "$WORK/out" \
    > "$WORK/compare.out" 2>&1
rc=$?
[ "$rc" = 77 ] || fail "nvidia_compare.sh without a GPU: exit $rc, expected 77: $(cat "$WORK/compare.out")"
grep -q '^SKIP: no NVIDIA GPU' "$WORK/compare.out" || fail "no SKIP line: $(cat "$WORK/compare.out")"
ok "nvidia_compare.sh steps aside without a GPU"
python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' \
    "$top_srcdir/tests/hardware/nvidia_compare.py" 2>"$WORK/pyc.err" ||
    fail "nvidia_compare.py does not compile: $(cat "$WORK/pyc.err")"
ok "nvidia_compare.py parses"
