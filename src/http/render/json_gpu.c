/* http/render/json_gpu.c -- the node exporter's GPU endpoints in its shapes:
 *   /gpus             {"code":0,"data":[{"gpu":N,"asic":{"market_name","device_id",
 *                      "asic_serial"},"bus":{"bdf"},"dri_device":{"card","render",
 *                      "pci_addr"},"health","health_reason","links":[...],
 *                      "processes":[...],"mig":[...]}],"message":"success"}
 *                      (the node exporter's members, then the GPU's detail as /node has it)
 *   /gpuDriverVersion {"code":0,"data":"6.2.4","message":"success"}
 *   /cardMetrics      {"code":0,"data":[{"gpu":N,"gpu_use_percent":75.5,
 *                      "memory_use_percent":60.2}],"message":"success"}
 *   /driMapping       {"code":0,"data":{"/dev/dri/card0":{"card","render","pci_addr",
 *                      "card_id"}},"message":"success"}
 * and the GPU summary embedded in /metrics/json and /node.  With no GPU data
 * yet (or none on the node) the lists are empty, as the node exporter answers on a CPU
 * node.  Device paths are the host's /dev/dri names. */
#include "pna_autoconf.h"
#include "model/gpu/gpu.h"
#include "model/metric_tables.h"
#include "http/render/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct pna_gpu_snap *gpu_snap(const struct pna_http_view *v)
{
    return pna_view_snap(&v->base, PNA_DOM_GPU);
}

static size_t gpu_count(const struct pna_http_view *v)
{
    return gpu_snap(v) ? gpu_snap(v)->count : 0;
}

static json_t *gpu_number(const struct pna_http_view *v, size_t i)
{
    return json_integer(pna_gpu_number(gpu_snap(v), i));
}

static void dri_path(char *buf, size_t cap, const char *node)
{
    if (node[0])
        snprintf(buf, cap, "/dev/dri/%s", node);
    else
        buf[0] = '\0';
}

static json_t *dri_device(const struct pna_gpu *g, bool with_card_id)
{
    char card[48], render[48];
    dri_path(card, sizeof card, g->drm_card);
    dri_path(render, sizeof render, g->drm_render);
    json_t *o = json_object();
    json_object_set_new(o, "card", pna_json_text(card));
    json_object_set_new(o, "render", pna_json_text(render));
    json_object_set_new(o, "pci_addr", pna_json_text(g->pci_bus_id));
    if (with_card_id) {
        long id = -1;
        if (g->has_drm_card_id)
            id = (long)g->drm_card_id;
        else if (strncmp(g->drm_card, "card", 4) == 0)
            id = strtol(g->drm_card + 4, NULL, 10);
        json_object_set_new(o, "card_id", json_integer(id));
    }
    return o;
}

/* GPU I's links, processes, MIG devices and partitions, and its health with the reason:
 * the detail /gpus, /node and /metrics/json share. */
static void put_depth(json_t *o, const struct pna_http_view *v, size_t i, bool with_health)
{
    struct pna_row row;
    if (!pna_http_row(&pna_gpu_metrics, v, i, &row))
        return;
    const struct pna_gpu *g = row.rec;
    if (with_health) {
        pna_json_put(o, &pna_gpu_metrics, "primusGpuHealth", &row);
        pna_json_put(o, &pna_gpu_metrics, "primusGpuHealthReason", &row);
    }
    json_object_set_new(o, "links", pna_json_child_rows(v, &pna_gpu_link_metrics, g));
    json_object_set_new(o, "processes", pna_json_child_rows(v, &pna_gpu_proc_metrics, g));
    json_object_set_new(o, "mig", pna_json_child_rows(v, &pna_gpu_mig_metrics, g));
    json_object_set_new(o, "partitions", pna_json_child_rows(v, &pna_gpu_partition_metrics, g));
}

struct pna_json_reply pna_json_gpus(const struct pna_http_view *v)
{
    json_t *list = json_array();
    for (size_t i = 0; i < gpu_count(v); i++) {
        const struct pna_gpu *g = &gpu_snap(v)->gpus[i];
        char device_id[16] = "";
        if (g->has_pci_ids)
            snprintf(device_id, sizeof device_id, "0x%04x", g->pci_device_id);
        json_t *asic = json_object();
        json_object_set_new(asic, "market_name", pna_json_text(g->name));
        json_object_set_new(asic, "device_id", pna_json_text(device_id));
        json_object_set_new(asic, "asic_serial", pna_json_text(g->serial));
        json_t *bus = json_object();
        json_object_set_new(bus, "bdf", pna_json_text(g->pci_bus_id));
        json_t *o = json_object();
        json_object_set_new(o, "gpu", gpu_number(v, i));
        json_object_set_new(o, "asic", asic);
        json_object_set_new(o, "bus", bus);
        json_object_set_new(o, "dri_device", dri_device(g, false));
        put_depth(o, v, i, true);
        json_array_append_new(list, o);
    }
    return pna_json_envelope(list);
}

/* The node exporter reports the amdgpu driver's version; on NVIDIA nodes the NVIDIA
 * driver's is the useful answer. */
struct pna_json_reply pna_json_gpu_driver_version(const struct pna_http_view *v)
{
    const struct pna_gpu_snap *s = gpu_snap(v);
    const char *version = "";
    if (s) {
        if (s->amd_driver_version[0])
            version = s->amd_driver_version;
        else if (s->nvidia_driver_version[0])
            version = s->nvidia_driver_version;
        else if (s->count)
            version = s->gpus[0].driver_version;
    }
    return pna_json_envelope(pna_json_text(version));
}

/* VRAM used as a percentage of total, in hundredths of a percent; -1 unknown. */
static int64_t memory_use_x100(const struct pna_gpu *g)
{
    if (!g->has_mem_total || !g->has_mem_used || !g->mem_total_bytes)
        return -1;
    unsigned __int128 r = ((unsigned __int128)g->mem_used_bytes * 10000 + g->mem_total_bytes / 2) /
                          g->mem_total_bytes;
    return r > 10000 ? 10000 : (int64_t)r;
}

/* primusGpuUtilization as the node exporter's real number of percent; null when absent. */
static json_t *utilization_percent(const struct pna_http_view *v, size_t i)
{
    const struct pna_metric_table *t = &pna_gpu_metrics;
    struct pna_row row;
    struct pna_value u = { .state = PNA_ABSENT };
    if (pna_http_row(t, v, i, &row))
        pna_metric_value(t, pna_metric_by_object(t, "primusGpuUtilization"), &row, &u);
    return u.state == PNA_PRESENT ? json_real((double)u.u) : json_null();
}

struct pna_json_reply pna_json_card_metrics(const struct pna_http_view *v)
{
    json_t *list = json_array();
    for (size_t i = 0; i < gpu_count(v); i++) {
        const struct pna_gpu *g = &gpu_snap(v)->gpus[i];
        int64_t mem = memory_use_x100(g);
        json_t *o = json_object();
        json_object_set_new(o, "gpu", gpu_number(v, i));
        json_object_set_new(o, "gpu_use_percent", utilization_percent(v, i));
        json_object_set_new(o, "memory_use_percent",
                            mem >= 0 && !g->lost ? pna_json_fixed(mem, 2) : json_null());
        json_array_append_new(list, o);
    }
    return pna_json_envelope(list);
}

struct pna_json_reply pna_json_dri_mapping(const struct pna_http_view *v)
{
    json_t *map = json_object();
    for (size_t i = 0; i < gpu_count(v); i++) {
        const struct pna_gpu *g = &gpu_snap(v)->gpus[i];
        if (!g->drm_card[0])
            continue;
        char card[48];
        dri_path(card, sizeof card, g->drm_card);
        json_object_set_new(map, card, dri_device(g, true));
    }
    return pna_json_envelope(map);
}

/* One GPU of the summary: its number, every primusGpuTable descriptor with a
 * JSON member, and its links, processes and MIG devices. */
static json_t *gpu_summary(const struct pna_http_view *v, size_t i)
{
    const struct pna_metric_table *t = &pna_gpu_metrics;
    struct pna_row row;
    json_t *o = json_object();
    json_object_set_new(o, "index", gpu_number(v, i));
    if (!pna_http_row(t, v, i, &row))
        return o;
    pna_json_put_members(o, t, &row);
    put_depth(o, v, i, false); /* health is among the members already */
    return o;
}

json_t *pna_json_gpu_summary(const struct pna_http_view *v)
{
    json_t *list = json_array();
    for (size_t i = 0; i < gpu_count(v); i++)
        json_array_append_new(list, gpu_summary(v, i));
    const struct pna_gpu_snap *s = gpu_snap(v);
    size_t used = s ? pna_gpu_count_in_use(s->gpus, s->count) : 0;
    json_t *o = json_object();
    json_object_set_new(o, "count", json_integer((json_int_t)gpu_count(v)));
    json_object_set_new(o, "used_count", json_integer((json_int_t)used));
    json_object_set_new(o, "gpus", list);
    return o;
}
