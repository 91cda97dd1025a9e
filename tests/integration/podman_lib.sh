# podman_lib.sh -- a private Podman store for the tests that run real Podman
# containers (rootful: Podman's own daemonless CLI, with its graph root, run
# root and temp dir under $WORK/pm).  Sourced after lib.sh.
#
#   need_podman             skip (77) with the reason where podman cannot run
#   start_podman            sets PODMAN (the podman command line with the
#                           private store), PM_GRAPH and PM_RUN (the two
#                           roots); everything it made goes at exit
#   podman_busybox_image N  import an image made of busybox-static's binary
#
# Containers run with --network none, the cgroupfs cgroup manager (the
# machines this runs on may have no systemd) under a cgroup parent of the
# test's own, and runc.  Podman 4.3 asks for RLIMIT_NOFILE 1048576 by
# default, over the hard limit of an unprivileged CI container: each
# container is given the test's own limits (PM_ULIMITS).
PM="$WORK/pm"
PODMAN=""
PM_GRAPH="$PM/storage"
PM_RUN="$PM/run"
PM_CGROUP="pna-podman-$$"

need_podman() {
    [ "$(id -u)" = 0 ] || skip "needs root to run rootful podman (rootless Podman is not read)"
    for tool in podman runc conmon busybox tar; do
        command -v "$tool" >/dev/null || skip "$tool not installed (Debian: podman runc conmon busybox-static)"
    done
    BUSYBOX=$(command -v busybox)
    ldd "$BUSYBOX" >/dev/null 2>&1 && skip "$BUSYBOX is not static (Debian: busybox-static)"
    return 0
}

# Paths Podman writes outside its own directories whatever the flags
# (the blob info cache of an import); removed at exit when this test made them.
PM_LEFTOVERS=()
pm_note_leftover() { [ -e "$1" ] || PM_LEFTOVERS+=("$1"); }

start_podman() {
    mkdir -p "$PM_GRAPH" "$PM_RUN" "$PM/tmp"
    pm_note_leftover /var/lib/containers
    local h
    for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do pm_note_leftover "$h$PM_CGROUP"; done
    PODMAN="podman --root $PM_GRAPH --runroot $PM_RUN --tmpdir $PM/tmp --cgroup-manager cgroupfs --runtime runc --events-backend file --storage-driver overlay"
    PM_ULIMITS="--ulimit nofile=$(ulimit -Sn):$(ulimit -Hn) --ulimit nproc=4096:4096"
    $PODMAN info >"$WORK/podman-info.log" 2>&1 ||
        skip "podman does not run here: $(tail -n 2 "$WORK/podman-info.log" | tr '\n' ' ')"
    trap 'pm_cleanup; cleanup' EXIT
}

# podman_run ARGS...: podman run -d with the test's network, cgroup and limits.
podman_run() {
    # shellcheck disable=SC2086
    $PODMAN run -d --network none --cgroup-parent "/$PM_CGROUP" $PM_ULIMITS "$@"
}

podman_busybox_image() { busybox_import "$PODMAN" "$1"; }

pm_cleanup() {
    [ -n "$PODMAN" ] || return 0
    $PODMAN rm -af -t 0 >/dev/null 2>&1
    $PODMAN rmi -af >/dev/null 2>&1
    # The overlay mounts of the store, if any was left behind.
    awk -v p="$PM/" 'index($2, p) == 1 {print $2}' /proc/mounts | sort -r |
        while read -r m; do umount "$m" 2>/dev/null; done
    local p
    for p in "${PM_LEFTOVERS[@]}"; do
        if [ -d "$p" ]; then find "$p" -depth -type d -exec rmdir {} \; 2>/dev/null; rm -rf "$p" 2>/dev/null
        else rm -f "$p"; fi
    done
    PODMAN=""
}
