# docker_lib.sh -- a private Docker daemon for the tests that need the real
# thing (the Docker collector, the image build), and the local base images
# they run, since no registry can be reached.  Sourced after lib.sh.
#
#   need_dockerd             skip (77) with the reason where dockerd cannot run
#   start_dockerd            dockerd with its data, exec root and socket under
#                            $WORK/dk; sets DOCKER ("docker -H unix://...") and
#                            DK_TASKS (its containerd's task bundle directory),
#                            DK_CGROUP (the cgroup parent of its containers).
#                            Everything it started or created goes at exit.
#   restart_dockerd          stop it and start it again on the same data
#   busybox_image NAME       import an image made of busybox-static's binary
#   debian_base_image NAME   import a Debian 12 minbase image, made with
#                            debootstrap once and kept in $PNA_TEST_CACHE
#
# The daemon runs without networking of its own (no bridge, no iptables):
# containers get --network none, `docker build` needs --network host.

: "${PNA_TEST_CACHE:=/var/tmp/primus-node-agent-test-cache}"
DK="$WORK/dk"
DK_PID=""
DOCKER=""
DK_TASKS="$DK/exec/containerd/daemon/io.containerd.runtime.v2.task/moby"

need_dockerd() {
    [ "$(id -u)" = 0 ] || skip "needs root to run dockerd"
    for tool in dockerd containerd runc busybox tar; do
        command -v "$tool" >/dev/null || skip "$tool not installed (Debian: docker.io busybox-static)"
    done
    # The client that came with the daemon first: its API version is the daemon's.
    DOCKER_CLI=/usr/bin/docker
    [ -x "$DOCKER_CLI" ] || DOCKER_CLI=$(command -v docker) || skip "no docker client (Debian: docker.io)"
    BUSYBOX=$(command -v busybox)
    ldd "$BUSYBOX" >/dev/null 2>&1 && skip "$BUSYBOX is not static (Debian: busybox-static)"
    return 0
}

# What dockerd writes outside its own directories whatever the flags; removed
# at exit when this test created them.
DK_LEFTOVERS=()
note_leftover() { [ -e "$1" ] || DK_LEFTOVERS+=("$1"); }

start_dockerd() {
    mkdir -p "$DK/data" "$DK/exec"
    note_leftover /etc/docker/key.json
    note_leftover /etc/docker
    note_leftover /run/docker
    # Containers' cgroups under a parent of this test's own (not the shared
    # "docker"), removed at exit.
    DK_CGROUP="pna-docker-$$"
    local h
    for h in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do note_leftover "$h$DK_CGROUP"; done
    launch_dockerd
    wait_until 30 $DOCKER version ||
        skip "dockerd did not start here: $(tail -n 3 "$WORK/dockerd.log" | tr '\n' ' ')"
}

launch_dockerd() {
    setsid dockerd --data-root "$DK/data" --exec-root "$DK/exec" -H "unix://$DK/docker.sock" \
        --pidfile "$DK/docker.pid" --cgroup-parent "/$DK_CGROUP" \
        --iptables=false --ip-forward=false --ip-masq=false \
        --bridge=none --storage-driver overlay2 >>"$WORK/dockerd.log" 2>&1 &
    DK_PID=$!
    DOCKER="$DOCKER_CLI -H unix://$DK/docker.sock"
}

# restart_dockerd: stop the daemon (its containers stop with it) and start it
# again on the same data; returns once it answers.
restart_dockerd() {
    kill "$DK_PID" 2>/dev/null
    for _ in $(seq 150); do kill -0 "$DK_PID" 2>/dev/null || break; sleep 0.1; done
    launch_dockerd
    wait_until 30 $DOCKER version || fail "dockerd did not come back: $(tail -n 3 "$WORK/dockerd.log")"
}

stop_dockerd() {
    [ -n "$DK_PID" ] || return 0
    if [ -S "$DK/docker.sock" ]; then
        local ids
        ids=$($DOCKER ps -aq 2>/dev/null)
        [ -z "$ids" ] || $DOCKER rm -f $ids >/dev/null 2>&1
    fi
    kill "$DK_PID" 2>/dev/null
    for _ in $(seq 150); do kill -0 "$DK_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$DK_PID" 2>/dev/null
    # Its containerd and shims are its children's children: gone with the session.
    pkill -9 -s "$DK_PID" 2>/dev/null
    DK_PID=""
    # Mounts it may leave behind (overlay layers, the exec root's netns).
    grep -o " $DK/[^ ]*" /proc/mounts 2>/dev/null | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null; done
    local p c
    for p in "${DK_LEFTOVERS[@]}"; do
        case $p in
            /sys/fs/cgroup/*)
                [ -d "$p" ] || continue
                for c in "$p"/*/; do [ -d "$c" ] && rmdir "$c" 2>/dev/null; done
                rmdir "$p" 2>/dev/null ;;
            *) rm -rf "$p" ;;
        esac
    done
}

dk_cleanup() { stop_dockerd; cleanup; }
trap dk_cleanup EXIT

# busybox_image NAME: a one-layer image of busybox-static and its applets.
busybox_image() { busybox_import "$DOCKER" "$1"; }

# The Debian mirror the machine's apt uses (deb822 or one-line sources).
debian_mirror() {
    local m
    m=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' |
        grep -v security | head -n 1)
    [ -n "$m" ] || m=$(grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
                       awk '{print $2}' | grep -v security | head -n 1)
    echo "${m:-http://deb.debian.org/debian}"
}

# debian_rootfs_tar: DEBIAN_TAR, the cached tarball of a bookworm minbase
# root, made once (about a minute) and shared by every test and pass of a run.
debian_rootfs_tar() {
    local tarball="$PNA_TEST_CACHE/debian-12-minbase.tar"
    DEBIAN_TAR=$tarball
    mkdir -p "$PNA_TEST_CACHE"
    (
        flock 9
        [ -s "$tarball" ] && exit 0
        command -v debootstrap >/dev/null || exit 3
        local root="$PNA_TEST_CACHE/rootfs.$$"
        rm -rf "$root"
        debootstrap --variant=minbase bookworm "$root" "$(debian_mirror)" \
            >"$PNA_TEST_CACHE/debootstrap.log" 2>&1 || { rm -rf "$root"; exit 4; }
        # What the official slim image leaves out, and its apt settings that
        # keep package caches out of every layer.
        rm -rf "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
            "$root"/usr/share/locale/* "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/*
        cat > "$root/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
APT
        echo 'Acquire::GzipIndexes "true";' > "$root/etc/apt/apt.conf.d/docker-gzip-indexes"
        tar --numeric-owner -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
        rm -rf "$root"
    ) 9>"$PNA_TEST_CACHE/.lock"
    case $? in
        0) ;;
        3) skip "debootstrap not installed (Debian: debootstrap)" ;;
        *) skip "debootstrap of bookworm from $(debian_mirror) failed: $(tail -n 2 "$PNA_TEST_CACHE/debootstrap.log" | tr '\n' ' ')" ;;
    esac
}

# debian_base_image NAME: the cached minbase root imported as NAME.
debian_base_image() {
    debian_rootfs_tar
    $DOCKER import --change 'CMD ["/bin/bash"]' "$DEBIAN_TAR" "$1" >"$WORK/import-debian.log" 2>&1 ||
        fail "docker import of the Debian base failed: $(tail -n 2 "$WORK/import-debian.log")"
}
