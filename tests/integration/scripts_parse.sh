#!/bin/bash
# scripts_parse.sh -- every shell script of the tree parses: bash -n (sh -n
# for the #!/bin/sh ones) on the benchmarks, the tools, the CI entry point,
# the packaging scripts and the integration tests themselves.  A script run
# only by hand (bench/run.sh, behind `make bench`) is otherwise never parsed
# by CI, and a comment that swallows a closing brace makes it fail at once.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$here/../..}"
cd "$top_srcdir" || exit 1
n=0 bad=0
for f in bench/*.sh tools/*.sh .ci/run tests/integration/*.sh tests/nvml/fake-nvidia-smi \
         etc/zabbix/*.sh debian/*.sh; do
    [ -f "$f" ] || continue
    case $(head -1 "$f") in
        '#!/bin/sh'*) shell=sh ;;
        '#!'*bash*|'') shell=bash ;;
        *) shell=bash ;;
    esac
    n=$((n + 1))
    if ! out=$($shell -n "$f" 2>&1); then
        echo "FAIL: scripts_parse: $f: $out"
        bad=$((bad + 1))
    fi
done
[ "$n" -gt 50 ] || { echo "FAIL: scripts_parse: only $n scripts found under $top_srcdir"; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "ok - $n shell scripts parse"
echo "PASS: scripts_parse"
