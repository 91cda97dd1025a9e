/* sources/containers/cstorage_json.c -- CRI-O's state.json and the
 * containers/storage list of containers, read with jansson (see
 * cstorage_json.h for what is, and is not, read). */
#include "pna_autoconf.h"
#include "sources/containers/cstorage_json.h"
#include "model/containers.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/json_load.h"
#include "util/rfc3339.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *jstr(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* CRI-O's four states (oci.ContainerState*), "stopped" being exited. */
static uint8_t state_of(const char *status)
{
    static const struct { const char *name; uint8_t state; } states[] = {
        { "created", PNA_CSTATE_CREATED }, { "running", PNA_CSTATE_RUNNING },
        { "paused", PNA_CSTATE_PAUSED },   { "stopped", PNA_CSTATE_EXITED },
    };
    for (size_t i = 0; status && i < sizeof states / sizeof states[0]; i++)
        if (strcmp(status, states[i].name) == 0)
            return states[i].state;
    return PNA_CSTATE_UNKNOWN;
}

/* A pid member: absent or 0 is none (*PID left); a negative one, one past
 * the kernel's limit or not an integer is malformed. */
static int read_pid(const json_t *root, const char *key, int32_t *pid)
{
    json_t *v = json_object_get(root, key);
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) >= (1 << 30))
        return -1;
    if (json_integer_value(v) > 0)
        *pid = (int32_t)json_integer_value(v);
    return 0;
}

static void read_times(const json_t *root, struct pna_crio_state *out)
{
    uint64_t ticks;
    const char *start = jstr(root, "initStartTime");
    if (start && pna_parse_u64(start, &ticks) == 0) {
        out->has_start_ticks = true;
        out->start_ticks = ticks;
    }
    /* Go's zero time ("0001-01-01T00:00:00Z") before the start: unknown. */
    int64_t ms = pna_parse_rfc3339_ms(jstr(root, "started"));
    out->started_ms = ms > 0 ? ms : 0;
    out->oom_killed = json_is_true(json_object_get(root, "oomKilled"));
}

int pna_crio_state_parse(const char *text, size_t len, struct pna_crio_state *out, char *err,
                         size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->state = PNA_CSTATE_UNKNOWN;
    json_t *root = pna_json_load(text, len, PNA_CRIO_STATE_MAX_BYTES, false, NULL, err, errlen);
    if (!root)
        return -1;
    int rc = 0;
    if (!json_is_object(root)) {
        snprintf(err, errlen, "not a JSON object");
        rc = -1;
    } else if (read_pid(root, "pid", &out->pid) < 0 || read_pid(root, "initPid", &out->pid) < 0) {
        snprintf(err, errlen, "pid is not a process id");
        rc = -1;
    } else {
        out->state = state_of(jstr(root, "status"));
        read_times(root, out);
    }
    json_decref(root);
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        out->state = PNA_CSTATE_UNKNOWN;
    }
    return rc;
}

/* ---- containers.json ---------------------------------------------------------------- */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* Podman's metadata member is JSON inside a string. */
static char *image_name_of(const char *metadata)
{
    if (!metadata)
        return NULL;
    json_t *m = json_loads(metadata, 0, NULL);
    char *image = json_is_object(m) ? dup_or_null(jstr(m, "image-name")) : NULL;
    json_decref(m);
    return image;
}

static int add_entry(struct pna_cstorage_index *idx, const json_t *e)
{
    const char *id = jstr(e, "id");
    if (!id || !*id || strlen(id) > PNA_CONTAINER_ID_MAX)
        return 0;
    if (PNA_ARRAY_RESERVE(idx->v, idx->cap, idx->n + 1) != 0)
        return -1;
    json_t *names = json_object_get(e, "names");
    json_t *first = json_is_array(names) ? json_array_get(names, 0) : NULL;
    struct pna_cstorage_name *n = &idx->v[idx->n];
    n->id = strdup(id);
    n->name = json_is_string(first) ? strdup(json_string_value(first)) : NULL;
    n->image = image_name_of(jstr(e, "metadata"));
    if (!n->id) {
        free(n->name);
        free(n->image);
        return -1;
    }
    idx->n++;
    return 0;
}

int pna_cstorage_index_parse(const char *text, size_t len, struct pna_cstorage_index *idx,
                             char *err, size_t errlen)
{
    json_t *root = pna_json_load(text, len, PNA_CSTORAGE_INDEX_MAX_BYTES, false, NULL, err, errlen);
    if (!root)
        return -1;
    int rc = 0;
    size_t i;
    json_t *e;
    if (!json_is_array(root)) {
        snprintf(err, errlen, "not a JSON array");
        rc = -1;
    }
    json_array_foreach(root, i, e) {
        if (rc < 0 || idx->n >= PNA_CSTORAGE_INDEX_MAX_ENTRIES)
            break;
        if (json_is_object(e) && add_entry(idx, e) < 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
    }
    json_decref(root);
    return rc;
}

static int by_id(const void *a, const void *b)
{
    const struct pna_cstorage_name *x = a, *y = b;
    return strcmp(x->id, y->id);
}

void pna_cstorage_index_sort(struct pna_cstorage_index *idx)
{
    if (idx->n > 1)
        qsort(idx->v, idx->n, sizeof idx->v[0], by_id);
}

const struct pna_cstorage_name *pna_cstorage_index_find(const struct pna_cstorage_index *idx,
                                                        const char *id)
{
    struct pna_cstorage_name key = { .id = (char *)id };
    return idx->n ? bsearch(&key, idx->v, idx->n, sizeof idx->v[0], by_id) : NULL;
}

void pna_cstorage_index_free(struct pna_cstorage_index *idx)
{
    for (size_t i = 0; i < idx->n; i++) {
        free(idx->v[i].id);
        free(idx->v[i].name);
        free(idx->v[i].image);
    }
    free(idx->v);
    memset(idx, 0, sizeof *idx);
}
