#!/usr/bin/python3
"""podresources_server.py -- a real gRPC server (python3-grpcio) speaking the
kubelet's pod-resources v1 API on a unix socket, for the agent's tests.

Run it with Debian's /usr/bin/python3: python3-grpcio, python3-grpc-tools and
python3-protobuf import only there (the python3 on PATH may be another build).

Serve:
    /usr/bin/python3 podresources_server.py --socket PATH --scenario FILE.json \
        --control FILE [--proto podresources.proto]

    Serves /v1.PodResourcesLister/List and /GetAllocatableResources on
    unix:PATH.  Both files are re-read at every call:

    SCENARIO  {"list": <ListPodResourcesResponse>,
               "allocatable": <AllocatableResourcesResponse>}
              in the protobuf JSON mapping (camelCase names: "podResources",
              "resourceName", "deviceIds", NUMA nodes as {"ID": "1"}).
    CONTROL   its first word picks what the next call does (absent or empty: ok)
              ok                   answer from the scenario
              hang                 never answer (until the client gives up)
              error CODE MESSAGE   fail with gRPC status CODE (a number) and MESSAGE
              garbage              answer one valid gRPC frame whose bytes are not
                                   the message
              no-allocatable       List answers, GetAllocatableResources says
                                   UNIMPLEMENTED (a kubelet before 1.23)
              exit                 the server process exits, in the middle of the call

Generate a scenario of N pods (each one container with one GPU, NUMA node
i % 2, plus an SR-IOV VF on every tenth pod; allocatable: every GPU and VF):
    /usr/bin/python3 podresources_server.py --pods N > scenario.json

Pack a scenario's two answers as protobuf bytes (the fuzzing seeds):
    /usr/bin/python3 podresources_server.py --pack SCENARIO.json OUTDIR
    writes OUTDIR/packed-NAME-list.bin and OUTDIR/packed-NAME-allocatable.bin

The message classes are generated at start-up from the project's
podresources.proto with grpc_tools.protoc (python3-grpc-tools, whose protoc is
3.5.1) into a temporary directory.  That old generator's code builds
descriptors directly; Debian's python3-protobuf 4.21 (its C++ backend) accepts
it, and the pure-Python backend does too.  Should an import ever fail with
"Descriptors cannot be created directly", the server retries with
PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python (it re-executes itself, since the
backend is chosen when google.protobuf is first imported)."""

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from concurrent import futures

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PROTO = os.path.join(HERE, "..", "..", "src", "sources", "kubernetes", "podresources.proto")
SERVICE = "v1.PodResourcesLister"


def load_messages(proto):
    """Generate podresources_pb2 from PROTO into a temp dir and import it."""
    from grpc_tools import protoc
    out = tempfile.mkdtemp(prefix="podres-pb-")
    try:
        proto = os.path.abspath(proto)
        rc = protoc.main(["grpc_tools.protoc", "-I" + os.path.dirname(proto),
                          "--python_out=" + out, proto])
        if rc != 0:
            sys.exit("podresources_server: protoc failed on %s" % proto)
        sys.path.insert(0, out)
        try:
            import podresources_pb2
        except TypeError as e:
            if os.environ.get("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION") != "python":
                sys.stderr.write("podresources_server: %s; retrying with the pure-Python "
                                 "protobuf backend\n" % e)
                os.environ["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "python"
                os.execv(sys.executable, [sys.executable] + sys.argv)
            raise
        return podresources_pb2
    finally:
        shutil.rmtree(out, ignore_errors=True)


def generate(n):
    pods, alloc_gpus, alloc_vfs = [], [], []
    for i in range(n):
        gpu = "GPU-%08x-0000-4000-8000-%012x" % (i, i)
        devices = [{"resourceName": "nvidia.com/gpu", "deviceIds": [gpu],
                    "topology": {"nodes": [{"ID": str(i % 2)}]}}]
        alloc_gpus.append((gpu, i % 2))
        if i % 10 == 0:
            vf = "0000:%02x:%02x.%d" % (0x3b + (i // 2048) % 0x40, (i // 8) % 32, 2 + i % 6)
            devices.append({"resourceName": "intel.com/sriov_netdevice", "deviceIds": [vf],
                            "topology": {"nodes": [{"ID": str(i % 2)}]}})
            alloc_vfs.append((vf, i % 2))
        pods.append({"name": "worker-%d" % i, "namespace": "batch",
                     "containers": [{"name": "main", "devices": devices}]})
    allocatable = [{"resourceName": "nvidia.com/gpu", "deviceIds": [g],
                    "topology": {"nodes": [{"ID": str(numa)}]}} for g, numa in alloc_gpus]
    allocatable += [{"resourceName": "intel.com/sriov_netdevice", "deviceIds": [v],
                     "topology": {"nodes": [{"ID": str(numa)}]}} for v, numa in alloc_vfs]
    return {"list": {"podResources": pods}, "allocatable": {"devices": allocatable}}


def read_scenario(pb, path):
    from google.protobuf import json_format
    with open(path) as f:
        doc = json.load(f)
    lst = pb.ListPodResourcesResponse()
    json_format.ParseDict(doc.get("list", {}), lst)
    alloc = pb.AllocatableResourcesResponse()
    json_format.ParseDict(doc.get("allocatable", {}), alloc)
    return lst, alloc


def read_control(path):
    try:
        with open(path) as f:
            words = f.read().split(None, 2)
    except FileNotFoundError:
        return ["ok"]
    return words or ["ok"]


def serve(args, pb):
    import grpc

    def handler(method):
        def call(request, context):
            words = read_control(args.control)
            what = words[0]
            if what == "exit":
                sys.stderr.write("podresources_server: exiting during %s\n" % method)
                sys.stderr.flush()
                os._exit(3)
            if what == "hang":
                while context.is_active():
                    time.sleep(0.05)
                return b""
            if what == "error":
                code = int(words[1]) if len(words) > 1 else 2
                status = next((s for s in grpc.StatusCode if s.value[0] == code),
                              grpc.StatusCode.UNKNOWN)
                context.abort(status, words[2].strip() if len(words) > 2 else "")
            if what == "no-allocatable" and method == "GetAllocatableResources":
                context.abort(grpc.StatusCode.UNIMPLEMENTED,
                              "unknown method GetAllocatableResources for service " + SERVICE)
            if what == "garbage":
                # Field 1 with wire type 7 (none exists), then stray bytes.
                return b"\x0f\xff\xff\xffnot a protobuf message"
            lst, alloc = read_scenario(pb, args.scenario)
            return (lst if method == "List" else alloc).SerializeToString()
        return call

    # Bytes in, bytes out: no (de)serializer, the handlers pack themselves.
    handlers = {m: grpc.unary_unary_rpc_method_handler(handler(m))
                for m in ("List", "GetAllocatableResources")}
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_insecure_port("unix:" + args.socket)
    server.start()
    sys.stderr.write("podresources_server: serving on unix:%s (pid %d)\n"
                     % (args.socket, os.getpid()))
    sys.stderr.flush()
    signal.signal(signal.SIGTERM, lambda *_: server.stop(0))
    server.wait_for_termination()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--socket")
    ap.add_argument("--scenario")
    ap.add_argument("--control")
    ap.add_argument("--proto", default=DEFAULT_PROTO)
    ap.add_argument("--pods", type=int, help="print a scenario of N pods and exit")
    ap.add_argument("--pack", nargs=2, metavar=("SCENARIO", "OUTDIR"))
    args = ap.parse_args()
    if args.pods is not None:
        json.dump(generate(args.pods), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    pb = load_messages(args.proto)
    if args.pack:
        lst, alloc = read_scenario(pb, args.pack[0])
        name = os.path.splitext(os.path.basename(args.pack[0]))[0]
        for suffix, msg in (("list", lst), ("allocatable", alloc)):
            with open(os.path.join(args.pack[1], "packed-%s-%s.bin" % (name, suffix)), "wb") as f:
                f.write(msg.SerializeToString())
        return
    if not (args.socket and args.scenario and args.control):
        ap.error("--socket, --scenario and --control are needed to serve")
    serve(args, pb)


if __name__ == "__main__":
    main()
