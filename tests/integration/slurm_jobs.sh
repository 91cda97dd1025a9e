#!/bin/bash
# Slurm jobs end to end: a real single-node Slurm (Debian's slurmctld and
# slurmd 22.05, with a munged of its own) on loopback, its configs, state and
# munge key in the test's directory, runs two batch jobs; the test NVML
# reports one GPU (a Tesla T4 from a recorded nvidia-smi -q -x) whose two
# processes are the jobs' tasks, by PID, as NVML reports a process.  The
# agent reads the cgroups slurmd made (cgroup v1: memory/slurm_<node>/uid_U/
# job_N/step_S/task_T; this node has v1 memory, freezer and devices
# hierarchies) and the real /proc/PID/cgroup of the GPU processes.  Checked
# against Slurm's own answers (squeue, scontrol show job, scontrol listpids):
#   - one primusSlurmJobTable row per running job: uid and user (UserId),
#     steps (listpids' step ids), start time (StartTime), memory limit
#     (MinMemoryNode, ConstrainRAMSpace), GPUs held (1 each);
#   - primusGpuHolderJob is the lower job id, primus_gpu_holder_info has one
#     series per job with the job label; primus_slurm_job_info and the job
#     families of /metrics agree with the SNMP cells;
#   - a cgroup named as no Slurm job can be (job_99999999999999999999) is
#     left out, named in the poller row and logged once;
#   - RDMA devices: slurmd 22.05 leaves devices.list at "a *:* rwm" even
#     with ConstrainDevices=yes (it writes its GRES devices as exceptions
#     over the inherited allow-all, which the v1 kernel does not list; no
#     GRES is configured here); job B's step holds the verbs node of the
#     fixture's mlx5_0 open, so primusSlurmJobRdmaDevices is what the jobs'
#     processes have open (read here with stat over /proc/PID/fd),
#     primusRdmaHolderJob of mlx5_0 is job B, and primus_rdma_holder_info
#     has its series;
#   - scancel: the row goes, one primusSlurmJobEnd trap names the job's uid
#     and user, primusEventTable has a slurmJobEnd(19) row and /events the
#     same event; scontrol says CANCELLED; the other job now holds the GPU.
# Everything started here is stopped, and the job cgroups slurmd leaves
# behind are removed.
. "$(dirname "$0")/http_lib.sh"   # lib.sh, a free HTTP_PORT, curl
need_fake_nvml
[ "$(id -u)" = 0 ] || skip "slurmd must run as root to make the jobs' cgroups"
PATH=$PATH:/usr/sbin
for t in munged slurmctld slurmd sbatch squeue scontrol scancel; do
    command -v "$t" >/dev/null || skip "$t not installed (Debian: slurm-wlm munge)"
done
[ -d /sys/fs/cgroup/memory ] && [ ! -e /sys/fs/cgroup/cgroup.controllers ] ||
    skip "needs a cgroup v1 memory hierarchy at /sys/fs/cgroup/memory for Slurm's cgroup/v1 plugin (a v2-only node: the v2 layout is tested on built trees in test_slurm)"

NODE="pna$$"                       # slurmd -N: its cgroups are slurm_$NODE
S="$WORK/slurm"
mkdir -p "$S/state" "$S/spool" "$S/munge"
export SLURM_CONF="$S/slurm.conf"

# The jobs first (slurmstepd outlives slurmd), then the daemons; a job
# process still in the jobs' cgroups after that is one this test started.
slurm_cleanup() {
    if [ -s "$S/slurmctld.pid" ]; then
        scancel --quiet -w "$NODE" 2>/dev/null
        for _ in $(seq 100); do
            [ -z "$(squeue -h -w "$NODE" 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    for f in slurmd slurmctld munged; do
        [ -s "$S/$f.pid" ] && kill "$(cat "$S/$f.pid")" 2>/dev/null
    done
    for f in slurmd slurmctld munged; do
        for _ in $(seq 50); do
            [ -s "$S/$f.pid" ] && kill -0 "$(cat "$S/$f.pid")" 2>/dev/null || break
            sleep 0.1
        done
    done
    local pid
    for pid in $(cat /sys/fs/cgroup/freezer/slurm_"$NODE"/*/*/*/cgroup.procs \
                     /sys/fs/cgroup/memory/slurm_"$NODE"/*/*/*/*/cgroup.procs 2>/dev/null | sort -u); do
        kill -9 "$pid" 2>/dev/null
    done
    for h in /sys/fs/cgroup/*/slurm_"$NODE"; do
        [ -d "$h" ] || continue
        for _ in $(seq 50); do
            find "$h" -depth -type d -exec rmdir {} + 2>/dev/null
            [ -d "$h" ] || break
            sleep 0.1
        done
    done
}
trap 'slurm_cleanup; cleanup' EXIT

# munge: its own key and socket.
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$S/munge/munge.key"
munged --force --socket="$S/munge/munge.sock" --key-file="$S/munge/munge.key" \
    --pid-file="$S/munged.pid" --log-file="$S/munged.log" --seed-file="$S/munge/seed" ||
    fail "munged did not start: $(cat "$S/munged.log" 2>/dev/null)"

CTLD_PORT=$(free_tcp_port)
SLURMD_PORT=$(free_tcp_port)
HOST=$(hostname -s)
cat > "$S/slurm.conf" <<EOF
ClusterName=pnatest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$S/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
NodeName=$NODE NodeHostname=$HOST NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=pna Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
cat > "$S/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainCores=no
ConstrainRAMSpace=yes
ConstrainDevices=yes
EOF
slurmctld -f "$S/slurm.conf" || fail "slurmctld did not start"
slurmd -f "$S/slurm.conf" -N "$NODE" || fail "slurmd did not start"
node_idle() { sinfo -h -n "$NODE" -o %t | grep -q idle; }
wait_until 30 node_idle || fail "node $NODE not idle: $(sinfo -h -n "$NODE" -o %t)"

# Two jobs: A a plain batch job, B a batch job with a step of its own.
JOB_A=$(sbatch --parsable -w "$NODE" --mem=64 -J pna-a -o /dev/null --wrap "exec sleep 600") ||
    fail "sbatch A"
# B's step holds the verbs node of the fixture's mlx5_0 (uverbs0, char
# 231:192) as an RDMA process does; no rdma driver is loaded here, so the
# node is made with mknod and opened O_PATH (an open for I/O needs the
# driver): /proc/PID/fd leads to the node all the same.
mkdir -p "$WORK/dev"
mknod "$WORK/dev/uverbs0" c 231 192 || skip "mknod refused: cannot make the verbs node job B opens"
HOLD="import os, time; fd = os.open('$WORK/dev/uverbs0', os.O_PATH); time.sleep(600)"
JOB_B=$(sbatch --parsable -w "$NODE" --mem=48 -J pna-b -o /dev/null \
        --wrap "srun --overlap --mem=16 python3 -c \"$HOLD\" & wait") || fail "sbatch B"
running() { [ "$(squeue -h -j "$1" -o %T)" = RUNNING ]; }
wait_until 30 running "$JOB_A" || fail "job $JOB_A not running: $(squeue -j "$JOB_A")"
wait_until 30 running "$JOB_B" || fail "job $JOB_B not running: $(squeue -j "$JOB_B")"
steps_of() { scontrol listpids "$1" 2>/dev/null | awk 'NR > 1 { print $3 }' | sort -u; }
b_has_step() { steps_of "$JOB_B" | grep -qx 0; }
wait_until 30 b_has_step || fail "job $JOB_B has no step 0: $(scontrol listpids "$JOB_B")"
# Each job's first task: Slurm's own word for the process (LOCALID 0).
task_pid() { scontrol listpids "$1" | awk -v s="$2" '$3 == s && $4 == "0" { print $1; exit }'; }
# A step's task is listed with pid -1 until slurmstepd has started it.
has_task() { case $(task_pid "$1" "$2") in [1-9]*) return 0 ;; esac; return 1; }
wait_until 30 has_task "$JOB_A" batch || fail "job $JOB_A has no batch task: $(scontrol listpids "$JOB_A")"
wait_until 30 has_task "$JOB_B" 0 || fail "job $JOB_B's step 0 has no task: $(scontrol listpids "$JOB_B")"
PID_A=$(task_pid "$JOB_A" batch)
PID_B=$(task_pid "$JOB_B" 0)
[ -n "$PID_A" ] && [ -n "$PID_B" ] || fail "no task pids: $(scontrol listpids)"
ok "slurm: jobs $JOB_A (task $PID_A) and $JOB_B (task $PID_B) running on $NODE"

# The GPU: the T4's recorded XML, its two processes made the jobs' tasks.
XML="$WORK/t4.xml"
awk -v a="$PID_A" -v b="$PID_B" '/<pid>/ { n++; sub(/<pid>[0-9]+</, "<pid>" (n == 1 ? a : b) "<") } 1' \
    "$PNA_FIXTURES/nvidia/tesla-t4-nvidia-smi-q-x.xml" > "$XML"
[ "$(grep -c "<pid>\($PID_A\|$PID_B\)</pid>" "$XML")" = 2 ] || fail "the XML's processes were not replaced"
export PNA_FAKE_NVML_XML="$XML"
BUS=$(sed -n 's/.*<gpu id="\([^"]*\)".*/\1/p' "$XML" | head -n 1)
IFS=':.' read -r dom bus dev fn <<< "$BUS"
GPU_IDX=$(( (0x$dom << 16) | (0x$bus << 8) | (0x$dev << 3) | 0x$fn ))

{
    echo "nvmlLibrary $FAKE_NVML"
    echo "nvidiaSmi $WORK/no-nvidia-smi"
    echo "pollInterval gpu 1"
    echo "pollInterval slurm 1"
    echo "pollInterval ib 1"
    for p in pfc containers kubelet storage podresources phy; do echo "poller $p off"; done
} > "$WORK/agent.conf"
# A sysfs of the fixture's RDMA devices (mlx5_0's verbs node is uverbs0),
# whose fs/ is this machine's: Slurm's cgroups are the real ones.
SYS="$WORK/sys"
mkdir -p "$SYS"
cp -a "$PNA_FIXTURES/distinct/sys/class" "$PNA_FIXTURES/distinct/sys/devices" "$SYS/"
ln -s /sys/fs "$SYS/fs"
start_trapd
start_snmpd "trap2sink 127.0.0.1:$TRAP_PORT public"
start_agent --sysfs "$SYS" --procfs /proc --http "127.0.0.1:$HTTP_PORT"
wait_agent

JOB_ENTRY="$OBJ.11.10.1"
GPU_ENTRY="$OBJ.5.10.1"
job() { snmp_value "$JOB_ENTRY.$1.$2"; }
holder_is() { [ "$(snmp_value "$GPU_ENTRY.98.$GPU_IDX")" = "$1" ]; }
wait_until 20 holder_is "$JOB_A" ||
    fail "primusGpuHolderJob.$GPU_IDX is '$(snmp_value "$GPU_ENTRY.98.$GPU_IDX")', not $JOB_A"
ok "primusGpuHolderJob of the T4 is job $JOB_A, the lower of its processes' jobs"

# The rows are squeue's running jobs of this node, no more, no less.
rows=$(snmp_walk "$JOB_ENTRY.2" | sed 's/^[^ ]*\.\([0-9]*\) .*/\1/' | sort -n | tr '\n' ' ')
want=$(squeue -h -w "$NODE" -t RUNNING -o %i | sort -n | tr '\n' ' ')
[ "$rows" = "$want" ] || fail "job rows '$rows', squeue '$want'"
ok "primusSlurmJobTable rows are squeue's jobs: $rows"

epoch() { date -u -d "$1" +%s; }
for j in "$JOB_A" "$JOB_B"; do
    info=$(scontrol show job "$j")
    uid=$(echo "$info" | sed -n 's/.*UserId=[^(]*(\([0-9]*\)).*/\1/p')
    user=$(echo "$info" | sed -n 's/.*UserId=\([^(]*\)(.*/\1/p')
    start=$(epoch "$(echo "$info" | sed -n 's/.*StartTime=\([^ ]*\).*/\1/p')")
    mem=$(echo "$info" | sed -n 's/.*MinMemoryNode=\([0-9]*\)M.*/\1/p')
    steps=$(steps_of "$j" | wc -l)
    [ "$(job 2 "$j")" = "$uid" ] || fail "job $j uid $(job 2 "$j"), scontrol $uid"
    [ "$(job 3 "$j")" = "$user" ] || fail "job $j user '$(job 3 "$j")', scontrol '$user'"
    [ "$(job 4 "$j")" = "$steps" ] || fail "job $j steps $(job 4 "$j"), listpids $steps"
    [ "$(job 5 "$j")" = 1 ] || fail "job $j GPUs $(job 5 "$j"), expected 1 (its process on the T4)"
    [ "$(job 6 "$j")" = 0 ] || fail "job $j MIG devices $(job 6 "$j"): the T4 has none"
    d=$(( $(job 8 "$j") - start )); d=${d#-}
    [ "$d" -le 2 ] || fail "job $j start $(job 8 "$j"), scontrol StartTime $start"
    [ "$(job 10 "$j")" = $((mem * 1048576)) ] || fail "job $j memory limit $(job 10 "$j"), scontrol ${mem}M"
    case $(job 9 "$j") in ''|*[!0-9]*|0) fail "job $j memory usage '$(job 9 "$j")'" ;; esac
    # RDMA devices: the uverbs nodes the job's processes have open (read
    # here with stat -L over scontrol's pids), and those a constraining
    # devices.list names; stock Slurm leaves the list at "a *:* rwm".
    list=$(cat "/sys/fs/cgroup/devices/slurm_$NODE/uid_$uid/job_$j/devices.list" 2>/dev/null)
    opened=$(for pid in $(scontrol listpids "$j" | awk 'NR > 1 { print $1 }'); do
                 stat -L -c '%t %T %F' /proc/"$pid"/fd/* 2>/dev/null
             done | awk '$1 == "e7" && $2 ~ /^[c-f][0-9a-f]$/ && $3 == "character" { print $2 }' |
             sort -u | wc -l)
    if [ -n "$list" ] && ! echo "$list" | grep -q '^a '; then
        fail "job $j: devices.list constrains ('$list'); this test expects stock Slurm's a *:* rwm"
    fi
    [ "$(job 7 "$j")" = "$opened" ] || fail "job $j RDMA devices '$(job 7 "$j")', its processes have $opened verbs nodes open"
    ok "job $j: uid $uid ($user), $steps steps, start $start, limit ${mem}M, 1 GPU, $opened verbs node(s) open, as scontrol and /proc say"
done

# The RDMA device whose verbs node job B's process holds names job B;
# the other device no job.
MLX0=$(str_index mlx5_0) MLX1=$(str_index mlx5_1)
[ "$(snmp_value "$OBJ.6.10.1.25.$MLX0")" = "$JOB_B" ] ||
    fail "primusRdmaHolderJob of mlx5_0 is '$(snmp_value "$OBJ.6.10.1.25.$MLX0")', not job $JOB_B"
[ "$(snmp_value "$OBJ.6.10.1.25.$MLX1")" = 0 ] ||
    fail "primusRdmaHolderJob of mlx5_1 is '$(snmp_value "$OBJ.6.10.1.25.$MLX1")', not 0"
ok "primusRdmaHolderJob: mlx5_0 is used by job $JOB_B (its step holds uverbs0), mlx5_1 by none"

# snmptable renders the table with the MIB (where the IETF base MIBs exist);
# the log keeps it (docs/slurm.md shows one).
if [ -n "$PNA_IETF_MIBDIR" ] && [ -f "$PNA_IETF_MIBDIR/SNMPv2-SMI.txt" ] && command -v snmptable >/dev/null; then
    table=$(MIBDIRS="+$PNA_IETF_MIBDIR:$PNA_MIBDIR" MIBS="+PRIMUS-NODE-MIB" \
            snmptable $V2 -Cib "$TARGET" PRIMUS-NODE-MIB::primusSlurmJobTable 2>&1)
    echo "$table"
    for j in "$JOB_A" "$JOB_B"; do
        echo "$table" | grep -q "^ *$j  *$(job 2 "$j")  *$(job 3 "$j")  *$(job 4 "$j") " ||
            fail "snmptable has no row for job $j: $table"
    done
    ok "snmptable primusSlurmJobTable: a row per job"
else
    echo "note: no IETF base MIBs: snmptable rendering not checked"
fi

# The bridge: the same jobs, the same figures, a holder series per job.
curl -s --max-time 5 "$HTTP_BASE/metrics" > "$WORK/metrics.txt" || fail "no /metrics"
grep -e '^primus_slurm_job' -e '^primus_gpu_holder_info' "$WORK/metrics.txt"
for j in "$JOB_A" "$JOB_B"; do
    grep -q "^primus_slurm_job_info{job=\"$j\",uid=\"$(job 2 "$j")\",user=\"$(job 3 "$j")\"} 1\$" \
        "$WORK/metrics.txt" || fail "no primus_slurm_job_info for $j: $(grep slurm_job_info "$WORK/metrics.txt")"
    for pair in steps:4 gpus:5 mig_devices:6 start_time_seconds:8 memory_limit_bytes:10; do
        fam=${pair%%:*} col=${pair##*:}
        got=$(sed -n "s/^primus_slurm_job_$fam{job=\"$j\"} //p" "$WORK/metrics.txt")
        [ "$got" = "$(job "$col" "$j")" ] || fail "primus_slurm_job_$fam of $j is '$got', SNMP $(job "$col" "$j")"
    done
    grep '^primus_gpu_holder_info{' "$WORK/metrics.txt" | grep -q "job=\"$j\"" ||
        fail "no primus_gpu_holder_info series with job=\"$j\": $(grep holder_info "$WORK/metrics.txt")"
done
grep '^primus_rdma_holder_info{' "$WORK/metrics.txt" | grep 'device="mlx5_0"' | grep -q "job=\"$JOB_B\"" ||
    fail "no primus_rdma_holder_info of mlx5_0 with job=\"$JOB_B\": $(grep rdma_holder_info "$WORK/metrics.txt")"
grep '^primus_rdma_holder_info{' "$WORK/metrics.txt" | grep -q 'device="mlx5_1"' &&
    fail "mlx5_1 has a holder series: $(grep rdma_holder_info "$WORK/metrics.txt")"
ok "bridge: primus_slurm_job_* agree with the SNMP cells; a GPU holder series per job, an RDMA one for job B"

# A cgroup Slurm does not make, beside the real ones: left out, counted and
# named in the poller's row (primusPollerLastError of poller 10) and logged
# once; the jobs are still served.
GARBAGE="/sys/fs/cgroup/memory/slurm_$NODE/uid_0/job_99999999999999999999"
mkdir "$GARBAGE" || fail "cannot make $GARBAGE"
named() { snmp_value "$OBJ.4.10.1.7.10" | grep -q "job_99999999999999999999: bad job id"; }
wait_until 10 named || { rmdir "$GARBAGE"; fail "poller row's last error: $(snmp_value "$OBJ.4.10.1.7.10")"; }
rmdir "$GARBAGE"
[ "$(grep -c "bad job id" "$WORK/agent.log")" = 1 ] || fail "the bad name logged $(grep -c "bad job id" "$WORK/agent.log") times"
[ "$(job 2 "$JOB_A")" = 0 ] && [ "$(job 2 "$JOB_B")" = 0 ] || fail "the jobs' rows went with the bad name"
ok "a cgroup named job_99999999999999999999 is left out, named in the poller row and logged once"

# The end of job A: the row goes, one notification, one event row.
scancel "$JOB_A"
gone() { snmp_value "$JOB_ENTRY.2.$JOB_A" | grep -q "No Such Instance"; }
wait_until 20 gone || fail "job $JOB_A's row is still served after scancel"
state=$(scontrol show job "$JOB_A" | sed -n 's/.*JobState=\([A-Z]*\).*/\1/p')
[ "$state" = CANCELLED ] || fail "scontrol says job $JOB_A is $state"
wait_until 10 grep -q "$NOTIFY.19\b" "$WORK/traps.log" || fail "no primusSlurmJobEnd trap"
trap_text=$(grep -A12 "$NOTIFY.19\b" "$WORK/traps.log")
echo "$trap_text"
echo "$trap_text" | grep -q "$JOB_ENTRY.2.$JOB_A = Gauge32: 0" ||
    echo "$trap_text" | grep -q "$JOB_ENTRY.2.$JOB_A = Unsigned32: 0" ||
    fail "the trap lacks primusSlurmJobUid.$JOB_A = 0: $trap_text"
echo "$trap_text" | grep -q "$JOB_ENTRY.3.$JOB_A = STRING: \"root\"" ||
    fail "the trap lacks primusSlurmJobUser.$JOB_A = root: $trap_text"
[ "$(grep -c "$NOTIFY.19\b" "$WORK/traps.log")" = 1 ] || fail "more than one primusSlurmJobEnd trap"
snmp_walk "$OBJ.4.20.1.3" | grep -q " 19$" || fail "no slurmJobEnd(19) row in primusEventTable"
# /events: the same event, as JSON
curl -s --max-time 5 "$HTTP_BASE/events" > "$WORK/events.json" || fail "no /events"
/usr/bin/python3 - "$WORK/events.json" "$JOB_A" <<'PY' || fail "/events has no slurmJobEnd of job $JOB_A: $(cat "$WORK/events.json")"
import json, sys
events = json.load(open(sys.argv[1]))["events"]
ends = [e for e in events if e["type"] == "slurmJobEnd"]
assert len(ends) == 1 and ends[0]["details"] == {"job": int(sys.argv[2]), "uid": 0, "user": "root"}, ends
PY
holder_is "$JOB_B" || fail "after $JOB_A ended, primusGpuHolderJob is $(snmp_value "$GPU_ENTRY.98.$GPU_IDX"), not $JOB_B"
ok "scancel $JOB_A: row gone, one primusSlurmJobEnd trap (uid 0, root), event row, holder now $JOB_B"
echo "PASS: $TEST_NAME"
