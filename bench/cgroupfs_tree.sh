#!/bin/bash
# cgroupfs_tree.sh -- the generated node's container cgroups made on the
# kernel's own cgroupfs, so that bench/run.sh can time the containers poll
# on the kernel's files as well as on the generated tree's; and a command run
# alone in a memory cgroup of its own, so that what it holds in the kernel
# can be read.  A benchmark helper (bench/run.sh), not a test.  As root.
#
#   cgroupfs_tree.sh make GEN NAME SYSROOT
#       Makes every cgroup directory of GEN/sys/fs/cgroup (bench/gen_node.py)
#       under NAME in the host's memory hierarchy (cgroup v2: /sys/fs/cgroup,
#       the memory controller enabled down to each container; v1: the memory
#       and, where mounted, freezer controllers' mounts), and SYSROOT, a sysfs
#       root whose fs/cgroup leads there.  Prints "v1" or "v2".
#   cgroupfs_tree.sh remove NAME SYSROOT
#       Removes what make made.
#   cgroupfs_tree.sh run NAME COMMAND...
#       Runs COMMAND in a new memory cgroup NAME, removed after; its status.
set -eu

V2_ROOT=/sys/fs/cgroup
die() { echo "cgroupfs_tree: $*" >&2; exit 1; }

version() {
    if grep -qw memory "$V2_ROOT/cgroup.controllers" 2>/dev/null; then echo v2
    elif [ -d "$V2_ROOT/memory" ]; then echo v1
    else die "no memory cgroup hierarchy under $V2_ROOT"; fi
}

# The memory hierarchy's directory NAME (and v1's freezer one, if any).
bases() {
    if [ "$(version)" = v2 ]; then echo "$V2_ROOT/$1"
    else
        echo "$V2_ROOT/memory/$1"
        [ -d "$V2_ROOT/freezer" ] && echo "$V2_ROOT/freezer/$1"
    fi
    return 0
}

# The cgroup directories of the generated tree, parents first, relative.
generated_dirs() {
    (cd "$1/sys/fs/cgroup" && find . -mindepth 1 -type d | sed 's|^\./||' | sort)
}

make_tree() {   # GEN NAME SYSROOT
    local gen=$1 name=$2 sys=$3 v base
    v=$(version)
    for base in $(bases "$name"); do
        mkdir "$base" || die "cannot make $base"
        (cd "$base" && generated_dirs "$gen" | xargs mkdir)
    done
    if [ "$v" = v2 ]; then
        # The memory controller enabled in every directory that has
        # children, so that each container's cgroup has memory.* files.
        grep -qw memory "$V2_ROOT/cgroup.subtree_control" ||
            echo +memory > "$V2_ROOT/cgroup.subtree_control"
        base="$V2_ROOT/$name"
        echo +memory > "$base/cgroup.subtree_control"
        (cd "$base" && find . -mindepth 1 -type d -links +2 |
            while read -r d; do echo +memory > "$d/cgroup.subtree_control"; done)
        mkdir -p "$sys/fs"
        ln -s "$base" "$sys/fs/cgroup"
    else
        mkdir -p "$sys/fs/cgroup"
        ln -s "$V2_ROOT/memory/$name" "$sys/fs/cgroup/memory"
        [ -d "$V2_ROOT/freezer/$name" ] && ln -s "$V2_ROOT/freezer/$name" "$sys/fs/cgroup/freezer"
    fi
    echo "$v"
}

remove_tree() {   # NAME SYSROOT
    local base
    for base in $(bases "$1"); do
        [ -d "$base" ] && find "$base" -depth -type d -exec rmdir {} + 2>/dev/null
    done
    rm -rf "$2"
    return 0
}

run_alone() {   # NAME COMMAND...
    local name=$1 dir rc=0
    shift
    if [ "$(version)" = v2 ]; then dir="$V2_ROOT/$name"; else dir="$V2_ROOT/memory/$name"; fi
    mkdir "$dir" || die "cannot make $dir"
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$dir" "$@" || rc=$?
    rmdir "$dir" 2>/dev/null || true
    return "$rc"
}

case ${1:-} in
    make) [ $# = 4 ] || die "usage: make GEN NAME SYSROOT"; make_tree "$2" "$3" "$4" ;;
    remove) [ $# = 3 ] || die "usage: remove NAME SYSROOT"; remove_tree "$2" "$3" ;;
    run) [ $# -ge 3 ] || die "usage: run NAME COMMAND..."; shift; run_alone "$@" ;;
    *) die "usage: make GEN NAME SYSROOT | remove NAME SYSROOT | run NAME COMMAND..." ;;
esac
