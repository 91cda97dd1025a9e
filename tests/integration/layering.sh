#!/bin/bash
# layering.sh -- the layers of src/ stay apart, checked on the include lines:
#   - only src/snmp/ (and src/main.c, which starts the agent) include net-snmp;
#   - only src/http/ includes libmicrohttpd (microhttpd.h);
#   - src/core, util, transport, model, sources, watchers and pollers include
#     nothing from src/snmp/ or src/http/: the front ends read the layers
#     below, never the other way round;
#   - each layer includes only the layers under it (docs/architecture.md):
#       util       nothing
#       core       util                     transport  util
#       model      core util
#       sources    model core transport util
#       watchers   sources model core transport util
#       pollers    watchers sources model core transport util
#       snmp, http model core util (what they serve comes through the
#                  descriptors of model/ and the views of core/, never from a
#                  source or a poller directly);
# and the tree's shape: no folder of src/ holds more than 25 source files, and
# no two source files share a basename (the static libraries would not mind
# telling them apart, ar and the objects' names do).
# Every offence is reported as FILE:LINE (or FILE) with the rule it breaks;
# the test fails when there is any.
set -u

top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 99
[ -d src/core ] && [ -d src/snmp ] || { echo "layering: no src/core or src/snmp under $top" >&2; exit 99; }

failed=0
fail_at() {  # FILE:LINE RULE
    echo "FAIL: layering: $1: $2"
    failed=1
}

INCLUDE='^[[:space:]]*#[[:space:]]*include[[:space:]]*'

# include_hits REGEX FILE...: FILE:LINE of each include line matching REGEX.
include_hits() {
    local re=$1
    shift
    [ $# -gt 0 ] || return 0
    grep -nE "$INCLUDE$re" "$@" /dev/null | cut -d: -f1,2
}

sources() {  # every .c and .h under src/
    find src -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort
}

checked=0
for f in $(sources); do
    checked=$((checked + 1))
    case $f in
        src/snmp/*|src/main.c) ;;
        *) for at in $(include_hits '[<"]net-snmp/' "$f"); do
               fail_at "$at" "includes net-snmp (only src/snmp/ and src/main.c may)"
           done ;;
    esac
    case $f in
        src/http/*) ;;
        *) for at in $(include_hits '[<"]microhttpd\.h[>"]' "$f"); do
               fail_at "$at" "includes microhttpd.h (only src/http/ may)"
           done ;;
    esac
    case $f in
        src/core/*|src/util/*|src/transport/*|src/model/*|src/sources/*|src/watchers/*|src/pollers/*)
            for at in $(include_hits '[<"](\.\./)*(src/)?(snmp|http)/' "$f"); do
                fail_at "$at" "includes a front end (src/snmp/ or src/http/) from a lower layer"
            done ;;
    esac
done
[ "$checked" -gt 0 ] || { echo "layering: no source files under $top/src" >&2; exit 99; }

# may_include LAYER: the layers LAYER's files may include besides its own.
may_include() {
    case $1 in
        util) echo "" ;;
        core|transport) echo "util" ;;
        model) echo "core util" ;;
        sources) echo "model core transport util" ;;
        watchers) echo "sources model core transport util" ;;
        pollers) echo "watchers sources model core transport util" ;;
        snmp|http) echo "model core util" ;;
        *) echo "-" ;;    # src/main.c: everything
    esac
}
for f in $(sources); do
    layer=${f#src/}
    layer=${layer%%/*}
    allowed=$(may_include "$layer")
    [ "$allowed" = "-" ] && continue
    while IFS=: read -r line to; do
        [ -n "$to" ] && [ "$to" != "$layer" ] || continue
        case " $allowed " in *" $to "*) ;; *)
            fail_at "$f:$line" "src/$layer/ includes src/$to/ (it may include: ${allowed:-nothing})" ;;
        esac
    done < <(grep -nE "$INCLUDE\"[a-z_]+/" "$f" | sed -E 's/^([0-9]+):[^"]*"([a-z_]+)\/.*/\1:\2/')
done

# At most 25 source files (.c and .h together) in any one folder.
for dir in $(find src -type d | LC_ALL=C sort); do
    n=$(find "$dir" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) | wc -l)
    [ "$n" -le 25 ] || fail_at "$dir" "holds $n source files (at most 25)"
done

# Basenames are unique across the tree.
for dup in $(sources | xargs -n1 basename | LC_ALL=C sort | uniq -d); do
    fail_at "$(sources | grep "/$dup\$" | tr '\n' ' ')" "share the basename $dup"
done

[ "$failed" -eq 0 ] || exit 1
echo "ok - layering: $checked files, net-snmp only in src/snmp/ and src/main.c, microhttpd only in src/http/, each layer includes only those under it"
exit 0
