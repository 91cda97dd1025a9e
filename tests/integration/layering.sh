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
#
# The same order holds for what the objects call, not only what the sources
# include (a declaration written by hand, an extern, would pass the include
# rules): in the build's objects (under $top_builddir/src), no object of a
# layer may need a symbol (nm -u) that only a higher layer's objects define,
# in the order
#     util < transport < core < model < sources < watchers < pollers
#          < snmp, http (neither uses the other) < main.c
# (a dependency is handed down, as main.c hands the poller registry to the
# core, never reached up for).  Without a build (no objects) this part is
# skipped and says so.
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

# ---- symbols: no object needs what only a higher layer defines -------------

# Known exceptions, one "OBJECT SYMBOL" a line (the object's path under
# src/), each saying when it goes; none is added to make a new call up pass.
# There is none.
allowed_up=""

symbols_checked=0
objects_up() {   # prints "OBJECT SYMBOL DEFINING-LAYERS" for each call up
    local objs=$1
    # what each object defines, then what each needs, one "KIND OBJECT SYMBOL" a line
    for o in $objs; do
        nm -g --defined-only "$o" | awk -v o="$o" 'NF >= 3 { print "D", o, $NF }'
        nm -u "$o" | awk -v o="$o" '{ print "U", o, $NF }'
    done | awk '
        function layer(path,    rest) {
            rest = substr(path, 5)              # after "src/"
            return index(rest, "/") ? substr(rest, 1, index(rest, "/") - 1) : "main"
        }
        BEGIN {
            split("util transport core model sources watchers pollers snmp http main", order, " ")
            for (i in order) rank[order[i]] = i + 0    # numbers, not strings
            rank["http"] = rank["snmp"]         # peers: neither may use the other
        }
        $1 == "D" {
            if (index(defs[$3] " ", " " layer($2) " ") == 0)
                defs[$3] = defs[$3] " " layer($2)
            next
        }
        { need[++n] = $2 " " $3 }
        END {
            for (i = 1; i <= n; i++) {
                split(need[i], f, " ")
                if (!(f[2] in defs))
                    continue                    # a library'"'"'s, not the agent'"'"'s
                me = layer(f[1]); ok = 0
                m = split(defs[f[2]], d, " ")
                for (k = 1; k <= m; k++)
                    if (d[k] == me || rank[d[k]] < rank[me])
                        ok = 1
                if (!ok)
                    print f[1], f[2], defs[f[2]]
            }
        }'
}
if [ -n "${top_builddir:-}" ] && [ -d "$top_builddir/src" ]; then
    objs=$(cd "$top_builddir" && find src -name '*.o' | LC_ALL=C sort)
    if [ -n "$objs" ]; then
        symbols_checked=$(echo "$objs" | wc -l)
        while read -r obj sym layers; do
            [ -n "$obj" ] || continue
            case "
$allowed_up
" in *"
${obj#src/} $sym
"*) echo "# layering: known exception: $obj needs $sym (src/$layers/)"; continue ;; esac
            fail_at "$obj" "needs $sym, which only src/$layers/ defines, not a layer under it: hand it down instead"
        done < <(cd "$top_builddir" && objects_up "$objs")
    fi
fi
if [ "$symbols_checked" -eq 0 ]; then
    echo "# layering: no objects under \$top_builddir/src: the symbol check is skipped"
fi

[ "$failed" -eq 0 ] || exit 1
echo "ok - layering: $checked files, net-snmp only in src/snmp/ and src/main.c, microhttpd only in src/http/, each layer includes only those under it; $symbols_checked objects, none needs a symbol only a higher layer defines"
exit 0
