# Dockerfile -- primus-node-agent in a Debian 12 image.
#
# Two stages: "build" installs the -dev packages and builds the agent from
# this source tree with autotools; the final image holds only the agent, the
# MIB and the run-time libraries.
#
#   docker build -t primus-node-agent:0.1.0 .
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
      libsnmp-dev libjansson-dev libxml2-dev libcurl4-openssl-dev libmicrohttpd-dev \
      libibverbs-dev libibmad-dev libibumad-dev librocm-smi-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN autoreconf -fi \
 && ./configure --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
 && make -j"$(nproc)" \
 && make install-strip DESTDIR=/out

FROM ${DEBIAN_IMAGE}
# Run-time libraries of the agent (what `ldd primus-node-agent` names) and
# ibverbs-providers, the user-space drivers libibverbs loads for real HCAs.
# No MIB package is needed: the agent reads no MIB file at run time.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libsnmp40 libjansson4 libxml2 libcurl4 libmicrohttpd12 \
      libibverbs1 ibverbs-providers libibmad5 libibumad3 librocm-smi64-1 \
      ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin primus
COPY --from=build /out/usr/sbin/primus-node-agent /usr/sbin/primus-node-agent
COPY --from=build /out/usr/share/snmp/mibs/PRIMUS-NODE-MIB.txt /usr/share/snmp/mibs/PRIMUS-NODE-MIB.txt
USER 10001:10001
# SNMP (standalone mode) and the HTTP bridge.
EXPOSE 161/udp 9101/tcp
ENTRYPOINT ["/usr/sbin/primus-node-agent"]
# Foreground, log to stderr; add --standalone ADDRESS (or -x for an AgentX
# master), --http ADDRESS, and the host roots (--sysfs /host/sys ...).
CMD ["-f", "-Le", "--help"]
