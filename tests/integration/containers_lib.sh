# containers_lib.sh -- helpers shared by the containers integration tests
# (sourced after lib.sh).

CONTAINERS="$OBJ.8"       # primusContainers
STORAGE="$OBJ.9"          # primusStorage
K8S="$OBJ.10"             # primusKubernetes
CTR_ENTRY="$CONTAINERS.10.1"
DEV_ENTRY="$CONTAINERS.20.1"
POD_ENTRY="$STORAGE.10.1"

# str_index STRING: the OID index of a DisplayString (length, then one
# sub-identifier per octet).
str_index() {
    local s=$1 out i
    out=${#s}
    for ((i = 0; i < ${#s}; i++)); do
        out="$out.$(printf '%d' "'${s:i:1}")"
    done
    echo "$out"
}

# Until the containers pollers are in the registry and their tables in the
# agent's MIB registration, there is nothing to test.
require_containers_wired() {
    grep -q 'pna_containers_poller' "$top_srcdir/src/pollers.c" &&
        grep -q 'pna_container_tables_register' "$top_srcdir/src/snmp/agent.c" ||
        skip "the containers pollers / tables are not wired into this build yet"
}

now_ms() { date +%s%3N; }

# fake_procfs DIR: the node files the agent's node poller reads, copied from
# this machine, so that a procfs tree made for containers still starts the agent.
fake_procfs() {
    local d=$1 f
    mkdir -p "$d/sys/kernel"
    for f in cpuinfo loadavg meminfo stat uptime sys/kernel/hostname sys/kernel/osrelease; do
        cat "/proc/$f" > "$d/$f" 2>/dev/null
    done
    uname -m > "$d/sys/kernel/arch"
}
