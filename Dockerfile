# Dockerfile -- primus-node-agent in a small image built on Debian 12.
#
# Two stages: "build" installs the -dev packages on Debian 12, builds the
# agent from this source tree with autotools, and assembles the image's whole
# file system (tools/image_root.sh): the agent, the MIB, the shared libraries
# the agent loads, libibverbs' providers, the CA bundle, /bin/sh and cat, and
# passwd/group entries.  The final image is FROM scratch and holds only that:
# no package manager, no perl modules, no MIB packages (docs/deploy.md,
# "Docker", gives its size and contents).
#
#   docker build -t primus-node-agent:0.1.0 .
#
# The entrypoint is the agent in the foreground, logging to stderr:
#   docker run IMAGE --standalone ADDRESS --http ADDRESS ...
# The HEALTHCHECK asks the HTTP bridge's /healthz on 127.0.0.1:9101 with
# `primus-node-agent --probe`; change it with --health-cmd where the bridge
# listens elsewhere, or turn it off with --no-healthcheck.
#
# The image runs as an unprivileged user (uid 10001) by default, which is
# enough for node, CPU, memory, InfiniBand/RoCE, PFC and amdgpu-sysfs data.
# Reading containerd's task bundles (root-owned 0700 directories) needs uid 0;
# run it then with every capability dropped: docs/deploy.md, "Docker", and
# etc/kubernetes/daemonset.yaml show both.

ARG DEBIAN_IMAGE=debian:12-slim

FROM ${DEBIAN_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential autoconf automake pkg-config \
      libsnmp-dev libjansson-dev libyaml-dev libxml2-dev libcurl4-openssl-dev libmicrohttpd-dev \
      libibverbs-dev ibverbs-providers libibmad-dev libibumad-dev librocm-smi-dev \
      libprotobuf-c-dev protobuf-c-compiler libmnl-dev liblldpctl-dev \
      ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN autoreconf -fi \
 && ./configure --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
 && make -j"$(nproc)" \
 && make install-strip DESTDIR=/out
RUN sh tools/image_root.sh /out /image

FROM scratch
COPY --from=build /image/ /
USER 10001:10001
# SNMP (standalone mode) and the HTTP bridge.
EXPOSE 161/udp 9101/tcp
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["/usr/sbin/primus-node-agent", "--probe", "http://127.0.0.1:9101/healthz"]
# Foreground, logging to stderr (the default with -f; -Lf/-Ls change it).
ENTRYPOINT ["/usr/sbin/primus-node-agent", "-f"]
# Give the mode and the host roots: -x unix:/var/agentx/master (a subagent of
# the host's snmpd) or --standalone ADDRESS, --http 127.0.0.1:9101,
# --sysfs /host/sys ... (docs/deploy.md).
CMD ["--help"]
