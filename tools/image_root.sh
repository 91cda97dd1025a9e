#!/bin/sh
# image_root.sh DESTDIR ROOT -- the container image's whole file system,
# assembled in the Dockerfile's build stage from `make install-strip
# DESTDIR=...` and the build stage's own Debian files; the final stage is
# FROM scratch and copies ROOT.
#
# ROOT holds what the agent needs at run time and nothing else:
#   - the agent and the MIB, as installed;
#   - every shared library the agent loads (its ldd closure, ld.so included),
#     at the build stage's paths, with their soname links;
#   - libibverbs' providers (the user-space drivers it dlopens for real HCAs:
#     the libibverbs/ directory and /etc/libibverbs.d) and their closure;
#   - rocm-smi-lib, which it dlopens on nodes with an AMD GPU, and its closure;
#   - glibc's small compatibility libraries (libdl, libpthread, librt), which
#     the nvidia-smi and libnvidia-ml.so.1 that the NVIDIA runtime injects
#     link: the runtime never injects glibc;
#   - /bin/sh (dash) and cat, for the DaemonSet's init container that writes
#     the config file (etc/kubernetes/daemonset.yaml);
#   - the CA bundle (HTTPS to the kubelet), /etc/passwd and /etc/group with
#     root and the image's user primus (uid/gid 10001).
# Not shipped: perl's modules (libnetsnmpagent links libperl, whose
# interpreter the agent never starts), MIB packages (the agent reads no MIB
# file), apt, dpkg, coreutils.
#
# Run as root (file owners are kept); needs ldd, realpath, cp.  Fails when a
# library cannot be found.
set -eu
DESTDIR=$1
mkdir -p "$2"
ROOT=$(realpath "$2")
# It writes etc/passwd and etc/group: never into a live system's root.
if [ "$ROOT" = / ] || [ -n "$(ls -A "$ROOT")" ]; then
    echo "image_root.sh: $ROOT must be a new, empty directory" >&2
    exit 2
fi
MULTIARCH=$(dirname "$(realpath "$(ldd /bin/cat | awk '/libc\.so/ { print $3 }')")")

# The top-level links of a merged-/usr system (/lib -> usr/lib, ...), as the
# build stage has them, so that every path ldd prints resolves the same way.
for d in bin sbin lib lib64 lib32 libx32; do
    if [ -L "/$d" ]; then
        ln -sfn "$(readlink "/$d")" "$ROOT/$d"
    fi
done

# copy_path PATH: PATH into ROOT under its own name (its directory resolved,
# so that no link of ROOT is written through); a symlink is copied as a link,
# then what it points to, link after link.
copy_path() {
    p=$1
    while :; do
        dir=$(realpath "$(dirname "$p")")
        p="$dir/$(basename "$p")"
        # From / with a relative path: coreutils 9.1's cp -a --parents fails
        # on an absolute source outside the current directory.
        [ -e "$ROOT$p" ] || [ -L "$ROOT$p" ] || (cd / && cp -a --parents "${p#/}" "$ROOT")
        [ -L "$p" ] || break
        target=$(readlink "$p")
        case $target in
            /*) p=$target ;;
            *) p="$dir/$target" ;;
        esac
    done
}

# copy_libs FILE...: every library ldd says FILE loads.
copy_libs() {
    for f in "$@"; do
        if ldd "$f" | grep -q 'not found'; then
            echo "image_root.sh: $f: $(ldd "$f" | grep 'not found' | tr -s ' \t\n' ' ')" >&2
            exit 1
        fi
        for lib in $(ldd "$f" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
            copy_path "$lib"
        done
    done
}

# The agent and the MIB, as `make install` put them, and the agent's libraries.
(cd "$DESTDIR" && cp -a --parents usr/sbin/primus-node-agent \
    usr/share/snmp/mibs/PRIMUS-NODE-MIB.txt "$ROOT")
copy_libs "$ROOT/usr/sbin/primus-node-agent"

# libibverbs' providers and their configuration.
for p in "$MULTIARCH"/libibverbs/*.so; do
    copy_path "$p"
    copy_libs "$p"
done
copy_path /etc/libibverbs.d

# rocm-smi-lib, which the agent loads at run time on nodes with an AMD GPU,
# and its closure; Debian installs it in /usr/lib, a
# directory the loader searches without its cache.
for p in "$MULTIARCH"/librocm_smi64.so.* /usr/lib/librocm_smi64.so.*; do
    [ -e "$p" ] || continue
    copy_path "$p"
    copy_libs "$p"
done

for lib in libdl.so.2 libpthread.so.0 librt.so.1; do
    copy_path "$MULTIARCH/$lib"
done

# /bin/sh and cat for the DaemonSet's init container.
for f in /bin/sh /bin/cat; do
    copy_path "$f"
    copy_libs "$f"
done

mkdir -p "$ROOT/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/"
cat > "$ROOT/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/usr/sbin/nologin
primus:x:10001:10001:primus-node-agent:/nonexistent:/usr/sbin/nologin
EOF
cat > "$ROOT/etc/group" <<'EOF'
root:x:0:
primus:x:10001:
EOF
