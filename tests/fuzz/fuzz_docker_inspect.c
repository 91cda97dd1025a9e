/* fuzz_docker_inspect.c -- libFuzzer harness for the Docker Engine API's
 * GET /containers/{id}/json answer (pna_docker_parse_inspect,
 * sources/containers/docker.c): state, pid, StartedAt (RFC 3339), OOMKilled, the memory
 * limit, HostConfig.Devices and the GPU ids of DeviceRequests.  The input is
 * the response body. */
#include "pna_autoconf.h"
#include "sources/containers/docker.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_docker_inspect info;
    char err[256];
    pna_docker_host_paths hosts;
    pna_docker_parse_inspect((const char *)data, size, &info, &hosts, err, sizeof err);
    pna_docker_parse_inspect((const char *)data, size, &info, NULL, err, sizeof err);
    return 0;
}
