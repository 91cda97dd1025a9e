/* fuzz_docker_list.c -- libFuzzer harness for the Docker Engine API's
 * GET /containers/json answer (pna_docker_parse_list, sources/containers/docker.c).
 * The input is the response body; the containers it yields are sorted,
 * merged and numbered as the poller does, and the pod sandboxes' labels are
 * read under a podLabels allow-list (pna_docker_parse_list_labels). */
#include "pna_autoconf.h"
#include "sources/containers/docker.h"
#include "util/label_allow.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pna_container_set set;
    char err[256];
    static struct pna_label_allow allow;
    if (!allow.count)
        pna_label_allow_add(&allow, "team,app.kubernetes.io/*,*", err, sizeof err);
    struct pna_pod_label_set labels;
    pna_pod_label_set_init(&labels);
    pna_container_set_init(&set);
    if (pna_docker_parse_list_labels((const char *)data, size, &set, &allow, &labels, err,
                                     sizeof err) == 0)
        pna_pod_label_set_finish(&labels);
    pna_pod_label_set_free(&labels);
    pna_container_set_clear(&set);
    if (pna_docker_parse_list((const char *)data, size, &set, err, sizeof err) == 0 &&
        pna_container_set_sort(&set) == 0 && pna_container_set_merge_runtimes(&set) == 0) {
        pna_container_set_assign_indexes(&set, NULL);
        pna_container_set_count_devices(&set);
    }
    pna_container_set_free(&set);
    return 0;
}
