# containers_lib.sh -- helpers shared by the containers integration tests
# (sourced after lib.sh).

CONTAINERS="$OBJ.8"       # primusContainers
STORAGE="$OBJ.9"          # primusStorage
K8S="$OBJ.10"             # primusKubernetes
CTR_ENTRY="$CONTAINERS.10.1"
DEV_ENTRY="$CONTAINERS.20.1"
POD_ENTRY="$STORAGE.10.1"

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

# trainer_spec NAME POD DEVICE-PATH: a spec shaped as containerd's CRI plugin
# writes it (pod POD in namespace ml, DEVICE-PATH and uverbs0 passed in), with
# secrets in args, env and a foreign annotation that must never reach the MIB
# or the bridge.
trainer_spec() {
cat <<JSON
{"ociVersion":"1.1.0",
 "process":{"args":["python","train.py","--token=TOPSECRET"],"env":["HF_TOKEN=TOPSECRET"],"cwd":"/"},
 "root":{"path":"rootfs"},
 "annotations":{"io.kubernetes.cri.container-type":"container",
   "io.kubernetes.cri.container-name":"$1","io.kubernetes.cri.sandbox-name":"$2",
   "io.kubernetes.cri.sandbox-namespace":"ml","io.kubernetes.cri.sandbox-uid":"uid-$2",
   "io.kubernetes.cri.image-name":"registry.local/train:1.2","vendor.example/secret":"TOPSECRET"},
 "linux":{"cgroupsPath":"kubepods-pod.slice:cri-containerd:$1",
   "resources":{"memory":{"limit":4294967296},"devices":[{"allow":false,"access":"rwm"}]},
   "devices":[{"path":"$3","type":"c","major":226,"minor":128,"fileMode":438,"uid":0,"gid":0},
              {"path":"/dev/infiniband/uverbs0","type":"c","major":231,"minor":192}]}}
JSON
}

# trainer_task ROOT SYS PROC DEV: one running containerd task, "trainer" of
# pod llm-0 (pid 4242, cgroup v2 memory files from the telegraf fixture),
# given an AMD render node at 0000:c1:00.0 and uverbs0 of mlx5_0.  Sets ID,
# TASKS and CG.
trainer_task() {
    local r=$1 s=$2 p=$3 d=$4 f
    TASKS="$r/run/containerd/io.containerd.runtime.v2.task"
    ID=5f4a1c2b9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b
    CG="$s/fs/cgroup/kubepods.slice/pod-llm/ctr-trainer"
    mkdir -p "$TASKS/k8s.io/$ID" "$p/4242" "$CG" "$d/dri" "$r/var/lib/kubelet" \
        "$s/class/drm/renderD128/device" "$s/class/infiniband_verbs/uverbs0"
    fake_procfs "$p"
    echo "cpu memory pids" > "$s/fs/cgroup/cgroup.controllers"
    for f in memory.current memory.max memory.events memory.stat; do
        cp "$PNA_FIXTURES/cgroup/telegraf-v2/$f" "$CG/$f"
    done
    chmod u+w "$CG"/*
    echo "0::/kubepods.slice/pod-llm/ctr-trainer" > "$p/4242/cgroup"
    echo 4242 > "$TASKS/k8s.io/$ID/init.pid"
    printf 'DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\n' > "$s/class/drm/renderD128/device/uevent"
    echo mlx5_0 > "$s/class/infiniband_verbs/uverbs0/ibdev"
    trainer_spec trainer llm-0 /dev/dri/renderD128 > "$TASKS/k8s.io/$ID/config.json"
}

# fixture_node_trees: what the fixture nodes (dashboards, NMS tests) serve, in
# $WORK: the test NVML library answering from three recorded nvidia-smi files
# (H100, Tesla T4, A100; exports PNA_FAKE_NVML_XML and an empty
# PNA_FAKE_NVML_CTL), the InfiniBand/RoCE sysfs tree with mlx5_0 port 1 given
# the RDMA stats exporter's congestion counters, and rdma_trainer_task's container.
# Sets R, S, P and D (the roots) and TASKS, ID, CG.
fixture_node_trees() {
    local list="" x hwc
    for x in h100-nvidia-smi-q-x.xml tesla-t4-nvidia-smi-q-x.xml a100-sxm4-80gb-nvidia-smi-q-x.xml; do
        list="$list${list:+:}$PNA_FIXTURES/nvidia/$x"
    done
    export PNA_FAKE_NVML_XML="$list" PNA_FAKE_NVML_CTL="$WORK/nvml.ctl"
    : > "$PNA_FAKE_NVML_CTL"
    R="$WORK/root" S="$WORK/sys" P="$WORK/proc" D="$WORK/dev"
    mkdir -p "$S"
    cp -R "$PNA_FIXTURES/ib-sysfs/procfs/sys/." "$S/"
    hwc="$S/class/infiniband/mlx5_0/ports/1/hw_counters"
    [ -d "$hwc" ] || fail "fixture $hwc missing"
    echo 40394737 > "$hwc/np_ecn_marked_roce_packets"
    echo 34569335 > "$hwc/np_cnp_sent"
    echo 9725873 > "$hwc/rp_cnp_handled"
    echo 0 > "$hwc/rp_cnp_ignored"
    rdma_trainer_task "$R" "$S" "$P" "$D"
}

# rdma_trainer_task ROOT SYS PROC DEV: the fixture nodes' one container (the
# dashboards' and the NMS tests'): "trainer" of pod ml/llm-0, a running
# containerd task (pid 4242) with a 4 GiB memory limit (cgroup v2 files from the
# telegraf fixture) and uverbs0 of mlx5_0.  Sets TASKS, ID and CG.
rdma_trainer_task() {
    local r=$1 s=$2 p=$3 d=$4 f
    TASKS="$r/run/containerd/io.containerd.runtime.v2.task"
    ID=5f4a1c2b9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b
    CG="$s/fs/cgroup/kubepods.slice/pod-llm/ctr-trainer"
    mkdir -p "$TASKS/k8s.io/$ID" "$p/4242" "$CG" "$d" "$r/var/lib/kubelet" "$s/class/infiniband_verbs/uverbs0"
    fake_procfs "$p"
    echo "cpu memory pids" > "$s/fs/cgroup/cgroup.controllers"
    for f in memory.current memory.max memory.events; do cp "$PNA_FIXTURES/cgroup/telegraf-v2/$f" "$CG/$f"; done
    echo "0::/kubepods.slice/pod-llm/ctr-trainer" > "$p/4242/cgroup"
    echo 4242 > "$TASKS/k8s.io/$ID/init.pid"
    echo mlx5_0 > "$s/class/infiniband_verbs/uverbs0/ibdev"
    cat > "$TASKS/k8s.io/$ID/config.json" <<'JSON'
{"ociVersion":"1.1.0","process":{"args":["python","train.py"],"cwd":"/"},"root":{"path":"rootfs"},
 "annotations":{"io.kubernetes.cri.container-type":"container",
   "io.kubernetes.cri.container-name":"trainer","io.kubernetes.cri.sandbox-name":"llm-0",
   "io.kubernetes.cri.sandbox-namespace":"ml","io.kubernetes.cri.sandbox-uid":"uid-llm-0",
   "io.kubernetes.cri.image-name":"registry.local/train:1.2"},
 "linux":{"cgroupsPath":"kubepods-pod.slice:cri-containerd:trainer",
   "resources":{"memory":{"limit":4294967296}},
   "devices":[{"path":"/dev/infiniband/uverbs0","type":"c","major":231,"minor":192}]}}
JSON
}

# cri_bundle ID NAME POD NAMESPACE DEVICES-JSON: a containerd task bundle under
# $TASKS/k8s.io whose config.json is shaped as the CRI plugin writes it:
# container NAME of pod POD in NAMESPACE, the device nodes DEVICES-JSON.
cri_bundle() {
    mkdir -p "$TASKS/k8s.io/$1"
    cat > "$TASKS/k8s.io/$1/config.json" <<JSON
{"ociVersion":"1.1.0","annotations":{"io.kubernetes.cri.container-type":"container",
 "io.kubernetes.cri.container-name":"$2","io.kubernetes.cri.sandbox-name":"$3",
 "io.kubernetes.cri.sandbox-namespace":"$4","io.kubernetes.cri.sandbox-uid":"uid-$3"},
 "linux":{"cgroupsPath":"/k8s.io/$1","devices":[$5]}}
JSON
}
# devnode PATH MAJOR MINOR: one character device of a spec's linux.devices.
devnode() { printf '{"path":"%s","type":"c","major":%d,"minor":%d}' "$1" "$2" "$3"; }
