# deps.sh -- the Debian packages the agent needs, in one place.
# Sourced by tools/quickstart.sh (and so by CI).

# Building the agent.
PNA_BUILD_DEPS="build-essential autoconf automake pkg-config
  libsnmp-dev libjansson-dev libyaml-dev libxml2-dev libcurl4-openssl-dev libmicrohttpd-dev
  libibverbs-dev libibmad-dev libibumad-dev librocm-smi-dev
  libprotobuf-c-dev protobuf-c-compiler libmnl-dev liblldpctl-dev"

# Running it next to snmpd (the demo).
PNA_RUN_DEPS="snmpd snmp iproute2 procps"

# The test suite: real peers and checkers.
PNA_TEST_DEPS="snmptrapd smitools prometheus prometheus-snmp-exporter
  prometheus-node-exporter ethtool curl openssl valgrind libxml2-utils jq
  ansible-core python3-yaml containerd runc busybox-static clang libclang-rt-14-dev
  docker.io debootstrap debhelper lintian
  postgresql zabbix-server-pgsql zabbix-frontend-php php-cli php-pgsql
  monitoring-plugins-standard
  python3-grpcio python3-grpc-tools python3-protobuf lldpd
  slurm-wlm slurm-client munge podman"

# Install the named package sets (build, run, test) with apt-get, as root.
pna_install_deps() {
    local pkgs=""
    for set in "$@"; do
        case $set in
            build) pkgs="$pkgs $PNA_BUILD_DEPS" ;;
            run) pkgs="$pkgs $PNA_RUN_DEPS" ;;
            test) pkgs="$pkgs $PNA_TEST_DEPS" ;;
        esac
    done
    local missing
    # shellcheck disable=SC2086
    missing=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $pkgs 2>&1 |
              awk '$1 != "ii" {print $NF}'; for p in $pkgs; do
                  dpkg-query -W "$p" >/dev/null 2>&1 || echo "$p"; done)
    missing=$(echo "$missing" | sort -u | grep -v '^$' || true)
    [ -z "$missing" ] && return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing: $(echo $missing)"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    # shellcheck disable=SC2086
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}

# The RPM's test (rpmbuild, rpmsign, rpmlint; busybox-static above is the
# scratch root's shell) and the schema check of the Prometheus Operator
# monitors against their CRDs (python3-jsonschema).
PNA_TEST_DEPS="$PNA_TEST_DEPS rpm rpmlint gnupg python3-jsonschema"
