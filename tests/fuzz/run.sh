#!/bin/bash
# run.sh -- build the libFuzzer harnesses and fuzz each one for a while.
#
#   tests/fuzz/run.sh SECONDS [NAME...]
#
# Builds tests/fuzz/bin/fuzz_<name> (make fuzz in the configured build tree)
# unless FUZZ_NO_BUILD=1, then runs each harness (all of them when no NAME is
# given; from FUZZ_BIN when set, e.g. a copy kept for a long campaign while the
# tree is rebuilt) for SECONDS over its seed corpus tests/fuzz/corpus/<name>/,
# with -timeout=5 -rss_limit_mb=1024 and a -max_len fitted to what the parser
# reads.  FUZZ_JOBS harnesses run at once (default: the number of CPUs).
#
# The seed corpus is only read: new inputs go to a corpus under the work
# directory (FUZZ_WORK, default a temp dir removed at the end unless a harness
# failed or FUZZ_KEEP=1).  The harnesses' own scratch files go to a temp dir
# on /dev/shm when it is writable (else FUZZ_SCRATCH or the work directory),
# removed at the end.  Any crash, sanitizer report, leak, timeout
# or out-of-memory fails the harness; its input is kept as
# <work>/<name>/crash-* (or leak-*, timeout-*, oom-*) and the run exits 1.
# One summary line per harness:
#   fuzz_node           ok    10s   23456 execs   2345/s  cov 171 ft 402 corpus 2+37
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
seconds=${1:-}
case $seconds in
    '' | *[!0-9]*) echo "usage: $0 SECONDS [NAME...]" >&2; exit 2 ;;
esac
shift

all="fileio node ib_sysfs amdgpu_sysfs pfc_names cgroup config oci_spec containerd
     docker_list docker_inspect docker_events rfc3339 kubelet_pods kubelet_summary
     k8s_quantity nvsmi dri_map amd_gpu_metrics mig_caps amd_kfd cdi dcb ib_smp lldp_tlv pcie
     module ethtool_nl rtnl_link netlink cstorage slurm_cgroup accounting_state"
# The pod-resources harness exists only in a build with protobuf-c.
if grep -q '^#define HAVE_PROTOBUF_C 1' "$top_builddir/pna_autoconf.h" 2>/dev/null; then
    all="$all podresources"
fi
names=${*:-$all}

# The longest input worth trying: about twice the largest real one.
max_len() {
    case $1 in
        rfc3339 | k8s_quantity) echo 64 ;;
        ib_smp) echo 130 ;;
        lldp_tlv) echo 1024 ;; # an LLDP TLV: 4 + at most 507 octets
        fileio) echo 256 ;;
        module) echo 1536 ;; # an image: page 00h and four upper pages, 768 bytes
        cgroup) echo 1024 ;;
        slurm_cgroup) echo 4096 ;;
        dri_map | amd_gpu_metrics | mig_caps | dcb | pcie | rtnl_link) echo 4096 ;;
        ethtool_nl) echo 4096 ;; # the largest ethtool reply seed is 765 octets
        netlink) echo 4096 ;; # its seeds are the ethtool, DCB and rtnetlink replies
        amd_kfd) echo 8192 ;;
        node | config | docker_inspect) echo 16384 ;;
        pfc_names | nvsmi) echo 131072 ;;
        *) echo 32768 ;;
    esac
}

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
    [ -f "$top_builddir/Makefile" ] || { echo "run.sh: $top_builddir is not configured" >&2; exit 2; }
    targets=
    for n in $names; do targets="$targets tests/fuzz/bin/fuzz_$n"; done
    # shellcheck disable=SC2086
    make -s -C "$top_builddir" ${FUZZ_CC:+FUZZ_CC="$FUZZ_CC"} $targets >&2 ||
        { echo "run.sh: building the harnesses failed (a parser that now needs another source file: add it to its FUZZ_SRC_<name> in mk/fuzz.am)" >&2; exit 2; }
fi

work=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/pna-fuzz-run-XXXXXX")}
mkdir -p "$work"
# The tree harnesses write and remove a small file tree per input: on tmpfs
# that is an order of magnitude faster than on a disk.
if [ -z "${FUZZ_SCRATCH:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    scratch=$(mktemp -d /dev/shm/pna-fuzz-XXXXXX)
else
    scratch=$(mktemp -d "${FUZZ_SCRATCH:-$work}/pna-fuzz-XXXXXX")
fi
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM   # runs the EXIT trap too
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

# fuzz_one NAME: run one harness, write its summary line to $work/NAME/summary
fuzz_one() {
    local n=$1 bin="${FUZZ_BIN:-$top_builddir/tests/fuzz/bin}/fuzz_$1" dir="$work/$1"
    local seeds="$top_srcdir/tests/fuzz/corpus/$1"
    mkdir -p "$dir/corpus" "$scratch/$1"
    local t0 t1 rc
    t0=$(date +%s)
    # harnesses write their scratch files under TMPDIR
    TMPDIR="$scratch/$1" ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=1" \
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        "$bin" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 \
        -max_len="$(max_len "$n")" -print_final_stats=1 -artifact_prefix="$dir/" \
        "$dir/corpus" "$seeds" >"$dir/log" 2>&1
    rc=$?
    t1=$(date +%s)
    local execs rate cov ft seeds_n new_n status=ok artifact
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
    cov=$(grep -E '^#[0-9]+' "$dir/log" | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p' | tail -1)
    ft=${cov#* }
    cov=${cov% *}
    seeds_n=$(find "$seeds" -type f | wc -l)
    new_n=$(find "$dir/corpus" -type f | wc -l)
    artifact=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
        -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) | head -1)
    if [ "$rc" -ne 0 ] || [ -n "$artifact" ] || grep -q 'runtime error:' "$dir/log"; then
        status=FAIL
    fi
    printf '%-22s %-4s %5ss %10s execs %7s/s  cov %-5s ft %-5s corpus %s+%s%s\n' \
        "fuzz_$n" "$status" "$((t1 - t0))" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
        "$seeds_n" "$new_n" "${artifact:+  $artifact}" >"$dir/summary"
    if [ "$status" = FAIL ]; then
        grep -E 'ERROR:|runtime error:|SUMMARY:|Test unit written' "$dir/log" | head -5 \
            | sed 's/^/    /' >>"$dir/summary"
        echo "    log: $dir/log" >>"$dir/summary"
    fi
    rm -rf "${scratch:?}/$1"
}

running=0
for n in $names; do
    if [ ! -d "$top_srcdir/tests/fuzz/corpus/$n" ]; then
        echo "run.sh: no harness named $n" >&2
        exit 2
    fi
    fuzz_one "$n" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

failed=0
for n in $names; do
    if [ -f "$work/$n/summary" ]; then
        cat "$work/$n/summary"
        grep -q ' FAIL ' "$work/$n/summary" && failed=1
    else
        echo "fuzz_$n did not finish"
        failed=1
    fi
done
if [ "$failed" = 0 ] && [ "${FUZZ_KEEP:-0}" != 1 ] && [ -z "${FUZZ_WORK:-}" ]; then
    rm -rf "$work"
else
    echo "work directory: $work"
fi
exit "$failed"
