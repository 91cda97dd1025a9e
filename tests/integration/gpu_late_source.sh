#!/bin/bash
# A GPU driver installed after the agent started (the GPU Operator's driver
# container, a module loaded late): while there is no GPU source the gpu
# poller's row says disabled with the reason and nothing is logged at each
# retry; once NVML can be loaded the GPUs appear without a restart, the row
# turns ok and the XID listener is armed.
. "$(dirname "$0")/lib.sh"

need_fake_nvml
export PNA_FAKE_NVML_XML="$PNA_FIXTURES/nvidia/h100-nvidia-smi-q-x.xml"
POLLER="$OBJ.4.10.1"   # primusPollerEntry; the gpu poller is row 2
GPU="$OBJ.5"

mkdir -p "$WORK/sys" "$WORK/lib"   # no amdgpu card; nvidiaSmi names a missing file
{
    echo "nvmlLibrary $WORK/lib/libnvidia-ml.so.1"
    echo "nvidiaSmi $WORK/lib/nvidia-smi"
    echo "pollInterval gpu 1"
} > "$WORK/agent.conf"
start_snmpd
start_agent --sysfs "$WORK/sys"
wait_agent

wait_until 10 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $POLLER.9.2)\" = 4 ]" ||
    fail "gpu poller status is $(snmp_value $POLLER.9.2), expected disabled(4)"
err=$(snmp_value "$POLLER.7.2")
case "$err" in *"no GPU source"*) ;; *) fail "gpu poller's last error: '$err'" ;; esac
[ "$(snmp_value $GPU.1.0)" = 0 ] || fail "primusGpuCount is $(snmp_value $GPU.1.0) with no source"
ok "no GPU source: poller disabled(4) with '$err', no GPU rows"

sleep 3   # three more looks at the (still absent) sources
[ "$(snmp_value $POLLER.6.2)" = 0 ] || fail "retries counted as errors: $(snmp_value $POLLER.6.2)"
if grep -i 'gpu' "$WORK/agent.log"; then fail "the agent logged about GPUs while none exist"; fi
ok "retries are quiet: no error counted, nothing logged"

ln -s "$FAKE_NVML" "$WORK/lib/libnvidia-ml.so.1"
wait_until 15 sh -c "[ \"\$(snmpget $V2 -On -Oqv $TARGET $GPU.1.0)\" = 1 ]" ||
    fail "the GPU did not appear once NVML could be loaded (count $(snmp_value $GPU.1.0))"
[ "$(snmp_value $POLLER.9.2)" = 1 ] || fail "gpu poller status $(snmp_value $POLLER.9.2), expected ok(1)"
[ "$(snmp_value $GPU.10.1.4.48)" = "NVIDIA H100 80GB HBM3" ] ||
    fail "GPU row 48 name: $(snmp_value $GPU.10.1.4.48)"
[ "$(grep -c 'poller gpu: source found' "$WORK/agent.log")" = 1 ] ||
    fail "expected one 'source found' line: $(cat "$WORK/agent.log")"
grep -q 'XID listener watching 1 GPU' "$WORK/agent.log" || fail "XID listener not armed"
ok "NVML appeared: GPU 0000:00:06.0 served without a restart, poller ok, XIDs armed"
