#!/bin/bash
# docs_metrics.sh -- the documentation names everything the agent serves,
# checked against the catalogue `primus-node-agent --list-metrics` prints
# (one tab-separated line per served value: table, object, column, syntax,
# max, family, type, scale, label, json):
#   - every Prometheus family (column 6, when not '-') appears written out in
#     full, in backticks, in docs/metrics.md (`primus_x_total`; an abbreviation
#     such as "`primus_x_rx_total`, `_tx_total`" does not count);
#   - every MIB object (column 2, when not '-') appears somewhere in
#     docs/mib.md.  A missing MIB object is reported on a WARNING line only:
#     the test fails on families alone.
# Each missing family is reported as
#   FAIL: docs_metrics: <family> is served but docs/metrics.md does not name it
# and the test fails when there is any.
set -u

top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 99
metrics_md=docs/metrics.md
mib_md=docs/mib.md
[ -f "$metrics_md" ] || { echo "docs_metrics: no $metrics_md under $top" >&2; exit 99; }

agent=${PNA_AGENT:-}
if [ -z "$agent" ] || [ ! -x "$agent" ]; then
    echo "SKIP: docs_metrics: the agent binary is missing (PNA_AGENT='$agent'); build it and set PNA_AGENT"
    exit 77
fi

catalogue=$("$agent" --list-metrics) || { echo "docs_metrics: $agent --list-metrics failed" >&2; exit 99; }
[ -n "$catalogue" ] || { echo "docs_metrics: $agent --list-metrics printed nothing" >&2; exit 99; }

# column N of the catalogue (header and '-' left out), each value once
catalogue_column() {
    printf '%s\n' "$catalogue" | awk -F'\t' -v c="$1" '!/^#/ && $c != "" && $c != "-" { print $c }' |
        LC_ALL=C sort -u
}

families=$(catalogue_column 6)
[ -n "$families" ] || { echo "docs_metrics: no family in the catalogue of $agent" >&2; exit 99; }

failed=0
nfam=0
for fam in $families; do
    nfam=$((nfam + 1))
    grep -qF "\`$fam\`" "$metrics_md" ||
        { echo "FAIL: docs_metrics: $fam is served but $metrics_md does not name it"; failed=1; }
done

nobj=0
missing_obj=""
if [ -f "$mib_md" ]; then
    for obj in $(catalogue_column 2); do
        nobj=$((nobj + 1))
        grep -qwF "$obj" "$mib_md" || missing_obj="$missing_obj $obj"
    done
    [ -z "$missing_obj" ] ||
        echo "WARNING: docs_metrics: MIB objects served but not named in $mib_md:$missing_obj"
else
    echo "WARNING: docs_metrics: no $mib_md, MIB objects not checked"
fi

[ "$failed" -eq 0 ] || exit 1
echo "ok - docs_metrics: $metrics_md names all $nfam families of --list-metrics ($nobj MIB objects looked up in $mib_md)"
exit 0
