/* model/containers.c -- the container record set every container source fills:
 * growth, per-container device bounds, sorting by id, and row indexes that stay
 * the same while a container lives (see model/containers.h). */
#include "pna_autoconf.h"
#include "model/containers.h"
#include "model/row_index.h"
#include "model/storage.h"
#include "util/array.h"
#include "util/fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pna_container_set_init(struct pna_container_set *set)
{
    memset(set, 0, sizeof *set);
}

void pna_container_set_free(struct pna_container_set *set)
{
    free(set->rows);
    free(set->devs);
    pna_strpool_free(&set->strings);
    memset(set, 0, sizeof *set);
}

void pna_container_set_clear(struct pna_container_set *set)
{
    set->count = 0;
    set->dev_count = 0;
    set->devices_dropped = 0;
    pna_strpool_clear(&set->strings);
    set->strings_lost = false;
}

struct pna_container *pna_container_set_add(struct pna_container_set *set)
{
    if (PNA_ARRAY_RESERVE(set->rows, set->cap, set->count + 1) != 0)
        return NULL;
    struct pna_container *c = &set->rows[set->count++];
    pna_container_init(c);
    c->dev_first = (uint32_t)set->dev_count;
    return c;
}

void pna_container_init(struct pna_container *c)
{
    memset(c, 0, sizeof *c);
    c->id = c->name = c->pod_name = c->pod_namespace = "";
    c->pod_uid = c->image = c->rt_namespace = c->cgroup_path = "";
    c->state = PNA_CSTATE_UNKNOWN;
}

/* The largest of the PNA_CTR_*_CAP. */
#define TEXT_CAP_MAX 256
_Static_assert(PNA_CTR_IMAGE_CAP <= TEXT_CAP_MAX && PNA_CTR_CGROUP_CAP <= TEXT_CAP_MAX &&
               PNA_CTR_POD_NAME_CAP <= TEXT_CAP_MAX, "a container string cap over TEXT_CAP_MAX");

static int keep_text(struct pna_container_set *set, const char **field, const char *text)
{
    const char *kept = pna_strpool_add(&set->strings, text);
    if (!kept) {
        set->strings_lost = true;
        return -1;
    }
    *field = kept;
    return 0;
}

int pna_container_set_text(struct pna_container_set *set, const char **field,
                           const char *value, size_t cap)
{
    char buf[TEXT_CAP_MAX];
    pna_strlcpy(buf, value ? value : "", cap < sizeof buf ? cap : sizeof buf);
    return keep_text(set, field, buf);
}

int pna_container_set_display(struct pna_container_set *set, const char **field,
                              const char *value, size_t cap)
{
    char buf[TEXT_CAP_MAX];
    pna_copy_display(buf, value, cap < sizeof buf ? cap : sizeof buf);
    return keep_text(set, field, buf);
}

size_t pna_container_device_number_name(const struct pna_container_device *dev, char *buf,
                                        size_t cap)
{
    if (!dev->has_numbers)
        return 0;
    int n = snprintf(buf, cap, "/dev/%s/%u:%u", dev->type == 'b' ? "block" : "char",
                     dev->major, dev->minor);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

bool pna_container_id_ok(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    return n >= 1 && n <= PNA_CONTAINER_ID_MAX;
}

/* The same device node: both numbered alike (a type left unknown matches;
 * a FIFO has no device numbers to compare). */
static bool same_numbers(const struct pna_container_device *a, const struct pna_container_device *b)
{
    return a->has_numbers && b->has_numbers && a->type != 'p' && b->type != 'p' &&
           a->major == b->major && a->minor == b->minor &&
           (a->type == b->type || !a->type || !b->type);
}

/* KEEP and D are one device found twice: KEEP takes D's source when that
 * ranks higher, and D's numbers when KEEP has none. */
static void absorb_device(struct pna_container_device *keep,
                                        const struct pna_container_device *d)
{
    if (pna_dev_source_rank(d->source) > pna_dev_source_rank(keep->source))
        keep->source = d->source;
    if (!keep->has_numbers && d->has_numbers) {
        keep->has_numbers = true;
        keep->type = d->type;
        keep->major = d->major;
        keep->minor = d->minor;
    }
}

int pna_container_set_add_device(struct pna_container_set *set,
                                 const struct pna_container_device *dev)
{
    if (!set->count)
        return -1;
    struct pna_container *c = &set->rows[set->count - 1];
    struct pna_container_device d = *dev;
    /* The device's name is an index string: a path too long for it gives way
     * to the numbers, and with no numbers the device has no name at all. */
    if (!d.path[0] || strlen(d.path) > PNA_CONTAINER_DEVICE_NAME_MAX) {
        if (!pna_container_device_number_name(&d, d.path, sizeof d.path)) {
            set->devices_dropped++;
            return 1;
        }
    }
    for (uint32_t i = 0; i < c->dev_count; i++) {
        const struct pna_container_device *o = &set->devs[c->dev_first + i];
        /* Listed twice (spec and allow-list, the runtime twice, or one node
         * under two paths): one device. */
        if (strcmp(o->path, d.path) == 0 || same_numbers(o, &d)) {
            absorb_device(&set->devs[c->dev_first + i], &d);
            return 0;
        }
    }
    if (c->dev_count >= PNA_CONTAINER_MAX_DEVICES) {
        set->devices_dropped++;
        return 1;
    }
    if (PNA_ARRAY_RESERVE(set->devs, set->dev_cap, set->dev_count + 1) != 0)
        return -1;
    set->devs[set->dev_count++] = d;
    c->dev_count++;
    return 0;
}

void pna_container_set_drop_last(struct pna_container_set *set)
{
    if (!set->count)
        return;
    struct pna_container *c = &set->rows[set->count - 1];
    set->dev_count = c->dev_first;
    set->count--;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct pna_container *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    if (c)
        return c;
    return (int)x->runtime - (int)y->runtime;
}

int pna_container_set_sort(struct pna_container_set *set)
{
    if (set->count < 2)
        return 0;
    qsort(set->rows, set->count, sizeof *set->rows, cmp_rows);
    /* The rows moved: regroup the device array in the new row order. */
    if (!set->dev_count)
        return 0;
    struct pna_container_device *nd = malloc(set->dev_count * sizeof *nd);
    if (!nd)
        return -1;
    size_t at = 0;
    for (size_t i = 0; i < set->count; i++) {
        struct pna_container *c = &set->rows[i];
        memcpy(nd + at, set->devs + c->dev_first, c->dev_count * sizeof *nd);
        c->dev_first = (uint32_t)at;
        at += c->dev_count;
    }
    free(set->devs);
    set->devs = nd;
    set->dev_cap = set->dev_count;
    return 0;
}

const struct pna_container *pna_container_set_find(const struct pna_container_set *set,
                                                   const char *id)
{
    size_t lo = 0, hi = set ? set->count : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(set->rows[mid].id, id);
        if (c == 0)
            return &set->rows[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void pna_container_set_count_devices(struct pna_container_set *set)
{
    for (size_t i = 0; i < set->count; i++) {
        struct pna_container *c = &set->rows[i];
        c->gpu_count = c->rdma_count = 0;
        if (c->dev_count == 0)
            continue;   /* DEVS may be NULL: no offset from it */
        const struct pna_container_device *d = set->devs + c->dev_first;
        /* A GPU is usually there twice (cardN and renderDN): count distinct. */
        for (uint32_t k = 0; k < c->dev_count; k++) {
            bool gpu_new = d[k].gpu_index != 0, rdma_new = d[k].rdma_dev[0] != '\0';
            for (uint32_t j = 0; j < k; j++) {
                if (gpu_new && d[j].gpu_index == d[k].gpu_index)
                    gpu_new = false;
                if (rdma_new && strcmp(d[j].rdma_dev, d[k].rdma_dev) == 0)
                    rdma_new = false;
            }
            c->gpu_count += gpu_new;
            c->rdma_count += rdma_new;
        }
    }
}

bool pna_container_holds_gpu(const struct pna_container_set *set, const struct pna_container *c,
                             uint32_t gpu_index)
{
    for (uint32_t k = 0; gpu_index && k < c->dev_count; k++)
        if (set->devs[c->dev_first + k].gpu_index == gpu_index)
            return true;
    return false;
}

/* The first container of SET for which HOLDS(set, c, KEY), and in *COUNT
 * (when not NULL) how many there are. */
static const struct pna_container *
first_holder(const struct pna_container_set *set,
             bool (*holds)(const struct pna_container_set *, const struct pna_container *, uint32_t),
             uint32_t key, uint32_t *count)
{
    const struct pna_container *first = NULL;
    uint32_t n = 0;
    for (size_t i = 0; set && i < set->count; i++) {
        if (!holds(set, &set->rows[i], key))
            continue;
        if (!first)
            first = &set->rows[i];
        n++;
        if (!count)
            break;
    }
    if (count)
        *count = n;
    return first;
}

const struct pna_container *pna_container_holding_gpu(const struct pna_container_set *set,
                                                      uint32_t gpu_index, uint32_t *count)
{
    if (!gpu_index) {
        if (count)
            *count = 0;
        return NULL;
    }
    return first_holder(set, pna_container_holds_gpu, gpu_index, count);
}

/* Whether container C was given the device of FAMILY numbered UNIT. */
static bool holds_unit(const struct pna_container_set *set, const struct pna_container *c,
                       enum pna_dev_family family, uint32_t unit)
{
    for (uint32_t k = 0; k < c->dev_count; k++) {
        const struct pna_container_device *d = &set->devs[c->dev_first + k];
        if (d->family == family && d->unit >= 0 && (uint32_t)d->unit == unit)
            return true;
    }
    return false;
}

bool pna_container_holds_cap(const struct pna_container_set *set, const struct pna_container *c,
                             uint32_t cap)
{
    return holds_unit(set, c, PNA_DEVF_NVIDIA_CAP, cap);
}

bool pna_container_holds_render(const struct pna_container_set *set, const struct pna_container *c,
                                uint32_t minor)
{
    return holds_unit(set, c, PNA_DEVF_DRM_RENDER, minor);
}

const struct pna_container *pna_container_holding_cap(const struct pna_container_set *set,
                                                      uint32_t cap, uint32_t *count)
{
    return first_holder(set, pna_container_holds_cap, cap, count);
}

const struct pna_container *pna_container_of_device(const struct pna_container_set *set,
                                                    size_t dev)
{
    /* Rows hold their devices in ascending, contiguous ranges. */
    size_t lo = 0, hi = set->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct pna_container *c = &set->rows[mid];
        if (dev < c->dev_first)
            hi = mid;
        else if (dev >= (size_t)c->dev_first + c->dev_count)
            lo = mid + 1;
        else
            return c;
    }
    return NULL;
}

static uint32_t container_key(const void *ctx, size_t i)
{
    const struct pna_container_set *set = ctx;
    return pna_row_index_hash(set->rows[i].runtime, set->rows[i].id);
}

void pna_container_set_assign_indexes(struct pna_container_set *set,
                                      const struct pna_container_set *prev)
{
    if (!set->count)
        return;
    uint32_t *old = calloc(set->count * 2, sizeof *old);
    if (!old) {
        for (size_t i = 0; i < set->count; i++)
            set->rows[i].index = (uint32_t)i + 1;
        return;
    }
    for (size_t i = 0; i < set->count; i++) {
        const struct pna_container *p = pna_container_set_find(prev, set->rows[i].id);
        old[i] = p ? p->index : 0;
    }
    pna_row_index_assign(set->count, old, old + set->count, container_key, set);
    for (size_t i = 0; i < set->count; i++)
        set->rows[i].index = old[set->count + i];
    free(old);
}

size_t pna_copy_display(char *dst, const char *src, size_t cap)
{
    if (cap == 0)
        return 0;
    if (!src)
        src = "";
    size_t n = 0;
    const unsigned char *s = (const unsigned char *)src;
    while (*s && n + 1 < cap) {
        unsigned char ch = *s;
        size_t seq = ch < 0x80 ? 1 : (ch & 0xe0) == 0xc0 ? 2 : (ch & 0xf0) == 0xe0 ? 3
                   : (ch & 0xf8) == 0xf0 ? 4 : 0;
        if (seq == 0) {            /* a stray continuation or invalid lead byte */
            dst[n++] = '?';
            s++;
            continue;
        }
        if (n + seq >= cap)        /* would not fit whole: stop before it */
            break;
        /* Stop at the first byte that is not a continuation: it may be the
         * terminating NUL, and nothing after that may be read. */
        bool ok = true;
        for (size_t k = 1; ok && k < seq; k++)
            ok = (s[k] & 0xc0) == 0x80;
        if (!ok) {
            dst[n++] = '?';
            s++;
            continue;
        }
        if (seq == 1 && (ch < 0x20 || ch == 0x7f))
            dst[n++] = '?';
        else
            for (size_t k = 0; k < seq; k++)
                dst[n++] = (char)s[k];
        s += seq;
    }
    dst[n] = '\0';
    return n;
}

/* ---- pods (model/storage.h) ------------------------------------------------ */

void pna_pod_set_init(struct pna_pod_set *set)
{
    memset(set, 0, sizeof *set);
}

void pna_pod_set_free(struct pna_pod_set *set)
{
    free(set->rows);
    memset(set, 0, sizeof *set);
}

struct pna_pod *pna_pod_set_add(struct pna_pod_set *set)
{
    if (PNA_ARRAY_RESERVE(set->rows, set->cap, set->count + 1) != 0)
        return NULL;
    struct pna_pod *p = &set->rows[set->count++];
    memset(p, 0, sizeof *p);
    p->phase = PNA_POD_UNKNOWN;
    return p;
}

static int cmp_pods(const void *a, const void *b)
{
    const struct pna_pod *x = a, *y = b;
    int c = strcmp(x->namespace_, y->namespace_);
    if (c)
        return c;
    c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->uid, y->uid);
}

void pna_pod_set_sort(struct pna_pod_set *set)
{
    if (set->count > 1)
        qsort(set->rows, set->count, sizeof *set->rows, cmp_pods);
}

static uint32_t pod_key(const void *ctx, size_t i)
{
    const struct pna_pod_set *set = ctx;
    return pna_row_index_hash(0, set->rows[i].uid[0] ? set->rows[i].uid : set->rows[i].name);
}

void pna_pod_set_assign_indexes(struct pna_pod_set *set, const struct pna_pod_set *prev)
{
    if (!set->count)
        return;
    uint32_t *old = calloc(set->count * 2, sizeof *old);
    if (!old) {
        for (size_t i = 0; i < set->count; i++)
            set->rows[i].index = (uint32_t)i + 1;
        return;
    }
    for (size_t i = 0; i < set->count && prev; i++) {
        /* prev is sorted by (namespace, name, uid): a linear scan is fine for the
         * few hundred pods a node runs, and avoids relying on that order. */
        for (size_t j = 0; j < prev->count; j++)
            if (strcmp(prev->rows[j].uid, set->rows[i].uid) == 0 &&
                strcmp(prev->rows[j].name, set->rows[i].name) == 0) {
                old[i] = prev->rows[j].index;
                break;
            }
    }
    pna_row_index_assign(set->count, old, old + set->count, pod_key, set);
    for (size_t i = 0; i < set->count; i++)
        set->rows[i].index = old[set->count + i];
    free(old);
}

/* ---- one row per container across runtimes ------------------------------------------ */

/* Docker runs its containers as containerd tasks in the "moby" namespace, so a
 * Docker container is seen twice.  Keep the Docker row (it has the name and
 * image) and give it what only the task's spec had: pid, cgroup, and the
 * devices with their numbers (merge_devices). */
static void absorb_task(struct pna_container *dst, const struct pna_container *task)
{
    if (!dst->pid)
        dst->pid = task->pid;
    /* Both rows' strings are in one pool (the set's, taken over whole). */
    if (!dst->cgroup_path[0])
        dst->cgroup_path = task->cgroup_path;
    if (!dst->rt_namespace[0])
        dst->rt_namespace = task->rt_namespace;
    if (!dst->has_memory && task->has_memory) {
        dst->has_memory = true;
        dst->mem_usage_bytes = task->mem_usage_bytes;
    }
    if (!dst->has_working_set && task->has_working_set) {
        dst->has_working_set = true;
        dst->mem_working_set_bytes = task->mem_working_set_bytes;
    }
    if (!dst->has_limit && task->has_limit) {
        dst->has_limit = true;
        dst->mem_limit_bytes = task->mem_limit_bytes;
    }
    if (!dst->has_oom && task->has_oom) {
        dst->has_oom = true;
        dst->oom_kills = task->oom_kills;
    }
}

/* The same device node: by numbers when both have them, else by path. */
static bool same_device(const struct pna_container_device *a, const struct pna_container_device *b)
{
    if (a->has_numbers && b->has_numbers)
        return a->type == b->type && a->major == b->major && a->minor == b->minor;
    return strcmp(a->path, b->path) == 0;
}

/* D among the devices OUT has already given its last row, or NULL. */
static struct pna_container_device *has_device(struct pna_container_set *out,
                                               const struct pna_container_device *d)
{
    const struct pna_container *c = &out->rows[out->count - 1];
    for (uint32_t k = 0; k < c->dev_count; k++)
        if (same_device(&out->devs[c->dev_first + k], d))
            return &out->devs[c->dev_first + k];
    return NULL;
}

/* The devices of rows [FIRST, END) of SET (one container seen by several
 * runtimes) for OUT's last row: every row's, each device once.  The rows
 * are sorted by runtime, so containerd's task comes before Docker: its spec
 * has the numbers, Docker's inspect may have only paths; a device is linked
 * by its numbers, so a node renamed in the container is still the host's
 * device it really is. */
static int merge_devices(struct pna_container_set *out, const struct pna_container_set *set,
                         size_t first, size_t end)
{
    for (size_t k = first; k < end; k++) {
        const struct pna_container *r = &set->rows[k];
        for (uint32_t d = 0; d < r->dev_count; d++) {
            const struct pna_container_device *dev = &set->devs[r->dev_first + d];
            struct pna_container_device *have = has_device(out, dev);
            if (have) {
                /* Docker's DeviceRequests name a GPU the task's spec lists too. */
                if (pna_dev_source_rank(dev->source) > pna_dev_source_rank(have->source))
                    have->source = dev->source;
            } else if (pna_container_set_add_device(out, dev) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

int pna_container_set_merge_runtimes(struct pna_container_set *set)
{
    bool dup = false;
    for (size_t i = 0; i + 1 < set->count; i++)
        if (strcmp(set->rows[i].id, set->rows[i + 1].id) == 0)
            dup = true;
    if (!dup)
        return 0;
    struct pna_container_set out;
    pna_container_set_init(&out);
    for (size_t i = 0; i < set->count;) {
        size_t j = i + 1;
        while (j < set->count && strcmp(set->rows[j].id, set->rows[i].id) == 0)
            j++;
        /* Sorted by (id, runtime): the last of the group is Docker's if any. */
        const struct pna_container *keep = &set->rows[j - 1];
        struct pna_container *c = pna_container_set_add(&out);
        if (!c) {
            pna_container_set_free(&out);
            return -1;
        }
        *c = *keep;
        c->dev_first = (uint32_t)out.dev_count;
        c->dev_count = 0;
        for (size_t k = i; k + 1 < j; k++)
            absorb_task(c, &set->rows[k]);
        if (merge_devices(&out, set, i, j) < 0) {
            pna_container_set_free(&out);
            return -1;
        }
        i = j;
    }
    out.devices_dropped = set->devices_dropped;
    out.strings_lost = set->strings_lost;
    pna_strpool_take(&out.strings, &set->strings);   /* the rows point into it */
    pna_container_set_free(set);
    *set = out;
    return 0;
}

/* ---- devices found after the scan ------------------------------------------------ */

/* Sources read after the runtimes (the kubelet's pod-resources) add devices
 * to rows in the middle of the set.  Rather than shift the device array,
 * copy the set row by row into a new one, each row followed by its extra
 * devices while it is the last row: pna_container_set_add_device then merges
 * them with what the row already has. */
int pna_container_set_add_devices(struct pna_container_set *set,
                                  const struct pna_container_extra *extra, size_t n)
{
    if (!n)
        return 0;
    struct pna_container_set out;
    pna_container_set_init(&out);
    size_t e = 0;
    for (size_t i = 0; i < set->count; i++) {
        const struct pna_container *r = &set->rows[i];
        struct pna_container *c = pna_container_set_add(&out);
        if (!c || PNA_ARRAY_RESERVE(out.devs, out.dev_cap, out.dev_count + r->dev_count) != 0)
            goto oom;
        *c = *r;
        c->dev_first = (uint32_t)out.dev_count;
        if (r->dev_count)
            memcpy(out.devs + out.dev_count, set->devs + r->dev_first,
                   r->dev_count * sizeof *out.devs);
        out.dev_count += r->dev_count;
        for (; e < n && extra[e].row == i; e++)
            if (pna_container_set_add_device(&out, &extra[e].dev) < 0)
                goto oom;
    }
    out.devices_dropped += set->devices_dropped;
    out.strings_lost = set->strings_lost;
    pna_strpool_take(&out.strings, &set->strings);   /* the rows point into it */
    pna_container_set_free(set);
    *set = out;
    return 0;
oom:
    pna_container_set_free(&out);
    return -1;
}

/* CGROUP is PARENT or lies under it. */
static bool cgroup_within(const char *cgroup, const char *parent)
{
    size_t n = strlen(parent);
    return n && strncmp(cgroup, parent, n) == 0 &&
           (cgroup[n] == '\0' || cgroup[n] == '/' || parent[n - 1] == '/');
}

const struct pna_container *pna_container_of_cgroup(const struct pna_container_set *set,
                                                    const char *cgroup)
{
    const struct pna_container *best = NULL;
    for (size_t i = 0; set && cgroup[0] && i < set->count; i++) {
        const struct pna_container *c = &set->rows[i];
        if (c->cgroup_path && cgroup_within(cgroup, c->cgroup_path) &&
            (!best || strlen(c->cgroup_path) > strlen(best->cgroup_path)))
            best = c;
    }
    return best;
}
