#!/bin/bash
# fuzz_short.sh -- a short libFuzzer run of every fuzzing harness (make check).
#
# Builds the harnesses with clang -fsanitize=fuzzer,address,undefined and runs
# each for PNA_FUZZ_SECONDS (default 10) over its seed corpus through
# tests/fuzz/run.sh; any crash, sanitizer report, leak or timeout fails.
# Skips (77) where clang or its libFuzzer runtime is not installed (Debian:
# clang and libclang-rt-14-dev).  The longer campaign is in docs/fuzzing.md.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
cc=${FUZZ_CC:-clang}

skip() { echo "SKIP: fuzz_short: $*"; exit 77; }

# The harnesses carry their own sanitizers: a sanitizer build of the suite
# (tools/quickstart.sh sets this for its second pass) need not run them again.
[ "${PNA_FUZZ_SKIP:-0}" = 1 ] && skip "PNA_FUZZ_SKIP=1 (the fuzzers already ran in this suite's first pass)"
command -v "$cc" >/dev/null 2>&1 || skip "$cc not installed (Debian: clang)"
probe=$(mktemp -d "${TMPDIR:-/tmp}/pna-fuzz-probe-XXXXXX")
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
    >"$probe/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined -o "$probe/probe" "$probe/probe.c" >/dev/null 2>&1 ||
    skip "$cc cannot build libFuzzer programs (Debian: libclang-rt-14-dev)"

export top_srcdir top_builddir FUZZ_CC="$cc"
"$top_srcdir/tests/fuzz/run.sh" "${PNA_FUZZ_SECONDS:-10}"
