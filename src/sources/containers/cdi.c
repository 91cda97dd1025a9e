/* sources/containers/cdi.c -- CDI spec files read with libyaml, and the cache of
 * them the containers poller keeps (see cdi.h). */
#include "pna_autoconf.h"
#include "sources/containers/cdi.h"
#include "core/roots.h"
#include "util/array.h"
#include "util/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

/* ---- the parser (pure) -------------------------------------------------------------- */

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == strlen(key) &&
            memcmp(k->data.scalar.value, key, k->data.scalar.length) == 0)
            return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

/* A scalar's text into BUF; false when not a scalar, empty, too long or
 * holding a NUL or control character. */
static bool scalar(const yaml_node_t *n, char *buf, size_t cap)
{
    if (!n || n->type != YAML_SCALAR_NODE || !n->data.scalar.length ||
        n->data.scalar.length >= cap)
        return false;
    for (size_t i = 0; i < n->data.scalar.length; i++)
        if (n->data.scalar.value[i] < 0x20 || n->data.scalar.value[i] == 0x7f)
            return false;
    memcpy(buf, n->data.scalar.value, n->data.scalar.length);
    buf[n->data.scalar.length] = '\0';
    return true;
}

/* A device number: decimal, 0..2^32-1 (CDI's major/minor are int64; a
 * negative or larger one names no device). */
static bool number(const yaml_node_t *n, uint32_t *out)
{
    char text[16];
    if (!scalar(n, text, sizeof text) || strspn(text, "0123456789") != strlen(text))
        return false;
    unsigned long long v = strtoull(text, NULL, 10);
    if (v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Append the deviceNodes of EDITS (a containerEdits mapping) to SPEC;
 * returns how many, or -1 when out of memory. */
static long add_nodes(yaml_document_t *doc, yaml_node_t *edits, struct pna_cdi_spec *spec,
                      size_t *cap)
{
    yaml_node_t *list = map_get(doc, edits, "deviceNodes");
    if (!list || list->type != YAML_SEQUENCE_NODE)
        return 0;
    long added = 0;
    for (yaml_node_item_t *it = list->data.sequence.items.start;
         it < list->data.sequence.items.top && added < PNA_CDI_MAX_NODES; it++) {
        yaml_node_t *n = yaml_document_get_node(doc, *it);
        struct pna_cdi_node node = { 0 };
        if (!scalar(map_get(doc, n, "path"), node.path, sizeof node.path))
            continue;   /* path is required; an over-long one names nothing we can serve */
        if (!scalar(map_get(doc, n, "hostPath"), node.host_path, sizeof node.host_path))
            node.host_path[0] = '\0';
        char type[4];
        if (scalar(map_get(doc, n, "type"), type, sizeof type) && strlen(type) == 1)
            node.type = type[0];
        node.has_numbers = number(map_get(doc, n, "major"), &node.major) &&
                           number(map_get(doc, n, "minor"), &node.minor);
        if (PNA_ARRAY_RESERVE(spec->nodes, *cap, spec->nnodes + 1) != 0)
            return -1;
        spec->nodes[spec->nnodes++] = node;
        added++;
    }
    return added;
}

static int fail(struct pna_cdi_spec *spec, char *err, size_t errlen, const char *what)
{
    pna_cdi_spec_free(spec);
    snprintf(err, errlen, "%s", what);
    return -1;
}

static int parse_doc(yaml_document_t *doc, struct pna_cdi_spec *spec, char *err, size_t errlen)
{
    yaml_node_t *root = yaml_document_get_root_node(doc);
    if (!root || root->type != YAML_MAPPING_NODE)
        return fail(spec, err, errlen, "not a mapping");
    if (!scalar(map_get(doc, root, "kind"), spec->kind, sizeof spec->kind) ||
        !strchr(spec->kind, '/'))
        return fail(spec, err, errlen, "no kind \"vendor/class\"");
    yaml_node_t *devices = map_get(doc, root, "devices");
    if (!devices || devices->type != YAML_SEQUENCE_NODE)
        return fail(spec, err, errlen, "no devices list");
    size_t ndev = (size_t)(devices->data.sequence.items.top - devices->data.sequence.items.start);
    if (ndev > PNA_CDI_MAX_DEVICES) {
        char why[96];
        snprintf(why, sizeof why, "%zu devices, over the %u limit", ndev, PNA_CDI_MAX_DEVICES);
        return fail(spec, err, errlen, why);
    }
    size_t node_cap = 0, dev_cap = 0;
    long n = add_nodes(doc, map_get(doc, root, "containerEdits"), spec, &node_cap);
    if (n < 0)
        return fail(spec, err, errlen, "out of memory");
    spec->ncommon = (size_t)n;
    for (yaml_node_item_t *it = devices->data.sequence.items.start;
         it < devices->data.sequence.items.top; it++) {
        yaml_node_t *d = yaml_document_get_node(doc, *it);
        struct pna_cdi_device dev = { .first = (uint32_t)spec->nnodes };
        if (!scalar(map_get(doc, d, "name"), dev.name, sizeof dev.name))
            return fail(spec, err, errlen, "a device without a name");
        n = add_nodes(doc, map_get(doc, d, "containerEdits"), spec, &node_cap);
        if (n < 0)
            return fail(spec, err, errlen, "out of memory");
        dev.count = (uint32_t)n;
        if (PNA_ARRAY_RESERVE(spec->devs, dev_cap, spec->ndevs + 1) != 0)
            return fail(spec, err, errlen, "out of memory");
        spec->devs[spec->ndevs++] = dev;
    }
    return 0;
}

int pna_cdi_parse(const char *text, size_t len, struct pna_cdi_spec *spec, char *err,
                  size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    if (len > PNA_CDI_MAX_BYTES) {
        snprintf(err, errlen, "%zu bytes, over the %u limit", len, PNA_CDI_MAX_BYTES);
        return -1;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "line %lu: %s", (unsigned long)parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "malformed YAML");
        yaml_parser_delete(&parser);
        return -1;
    }
    int rc = parse_doc(&doc, spec, err, errlen);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return rc;
}

void pna_cdi_spec_free(struct pna_cdi_spec *spec)
{
    free(spec->devs);
    free(spec->nodes);
    memset(spec, 0, sizeof *spec);
}

bool pna_cdi_split_name(const char *qualified, char *kind, size_t kcap, char *name, size_t ncap)
{
    const char *eq = strchr(qualified, '=');
    const char *slash = strchr(qualified, '/');
    if (!eq || !slash || slash > eq || slash == qualified || slash + 1 == eq || !eq[1] ||
        strchr(eq + 1, '='))
        return false;
    const char *slash2 = strchr(slash + 1, '/');
    if (slash2 && slash2 < eq)
        return false;   /* the class has no '/' */
    size_t kl = (size_t)(eq - qualified), nl = strlen(eq + 1);
    if (kl >= kcap || nl >= ncap)
        return false;
    memcpy(kind, qualified, kl);
    kind[kl] = '\0';
    memcpy(name, eq + 1, nl + 1);
    return true;
}

int pna_cdi_spec_nodes(const struct pna_cdi_spec *spec, const char *kind, const char *name,
                       const struct pna_cdi_node **out, size_t cap)
{
    if (strcmp(spec->kind, kind) != 0)
        return -1;
    for (size_t i = 0; i < spec->ndevs; i++) {
        const struct pna_cdi_device *d = &spec->devs[i];
        if (strcmp(d->name, name) != 0)
            continue;
        size_t n = 0;
        for (size_t k = 0; k < spec->ncommon && n < cap; k++)
            out[n++] = &spec->nodes[k];
        for (uint32_t k = 0; k < d->count && n < cap; k++)
            out[n++] = &spec->nodes[d->first + k];
        return (int)n;
    }
    return -1;
}

/* ---- the registry ------------------------------------------------------------------- */

struct cdi_file {
    char path[512];        /* "" for a spec added by pna_cdi_registry_add */
    int64_t mtime_ns;
    off_t size;
    bool ok;               /* parsed; false: malformed (kept so it is not re-read) */
    bool seen;             /* found by this refresh */
    char error[200];
    struct pna_cdi_spec spec;
};

struct pna_cdi_registry {
    struct cdi_file *files;  /* in precedence order: a later one overrides */
    size_t n, cap;
    unsigned bad;
    const char *first_error;
};

/* The CDI specification's directories, lowest precedence first. */
static const char *const cdi_dirs[] = { "/etc/cdi", "/var/run/cdi" };

struct pna_cdi_registry *pna_cdi_registry_new(void)
{
    return calloc(1, sizeof(struct pna_cdi_registry));
}

void pna_cdi_registry_free(struct pna_cdi_registry *reg)
{
    if (!reg)
        return;
    for (size_t i = 0; i < reg->n; i++)
        pna_cdi_spec_free(&reg->files[i].spec);
    free(reg->files);
    free(reg);
}

static bool spec_file_name(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.')
        return false;
    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct cdi_file *find_file(struct pna_cdi_registry *reg, const char *path, size_t from)
{
    for (size_t i = from; i < reg->n; i++)
        if (strcmp(reg->files[i].path, path) == 0)
            return &reg->files[i];
    return NULL;
}

static void load_file(struct cdi_file *f, const struct stat *st)
{
    pna_cdi_spec_free(&f->spec);
    f->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    f->size = st->st_size;
    f->error[0] = '\0';
    char *text = NULL, err[120];
    size_t len = 0;
    int rc = pna_read_alloc(f->path, PNA_CDI_MAX_BYTES, &text, &len);
    if (rc < 0)
        snprintf(err, sizeof err, "%s", rc == -EFBIG ? "over the size limit" : strerror(-rc));
    else
        rc = pna_cdi_parse(text, len, &f->spec, err, sizeof err);
    free(text);
    f->ok = rc == 0;
    if (!f->ok) {
        const char *base = strrchr(f->path, '/');
        snprintf(f->error, sizeof f->error, "CDI spec %.50s: %.90s", base ? base + 1 : f->path,
                 err);
    }
}

/* One directory's spec files, in name order, into the slots from *POS on. */
static void refresh_dir(struct pna_cdi_registry *reg, const char *dir, size_t *pos)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char *names[PNA_CDI_MAX_FILES];
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && nn < PNA_CDI_MAX_FILES)
        if (spec_file_name(e->d_name) && (names[nn] = strdup(e->d_name)) != NULL)
            nn++;
    closedir(d);
    qsort(names, nn, sizeof names[0], cmp_names);
    for (size_t i = 0; i < nn; i++) {
        char path[512];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path ||
            stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        struct cdi_file *f = find_file(reg, path, *pos);
        if (!f) {
            if (PNA_ARRAY_RESERVE(reg->files, reg->cap, reg->n + 1) != 0)
                continue;
            f = &reg->files[reg->n++];
            memset(f, 0, sizeof *f);
            pna_strlcpy(f->path, path, sizeof f->path);
            f->mtime_ns = -1;
        }
        /* Keep the slots in precedence order: this file goes to *pos. */
        size_t at = (size_t)(f - reg->files);
        if (at != *pos) {
            struct cdi_file tmp = reg->files[at];
            reg->files[at] = reg->files[*pos];
            reg->files[*pos] = tmp;
            f = &reg->files[*pos];
        }
        (*pos)++;
        f->seen = true;
        int64_t mt = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        if (mt != f->mtime_ns || st.st_size != f->size)
            load_file(f, &st);
    }
    for (size_t i = 0; i < nn; i++)
        free(names[i]);
}

void pna_cdi_registry_refresh(struct pna_cdi_registry *reg, const struct pna_roots *roots)
{
    for (size_t i = 0; i < reg->n; i++)
        reg->files[i].seen = !reg->files[i].path[0];   /* added by hand: kept */
    size_t pos = 0;
    for (size_t k = 0; k < sizeof cdi_dirs / sizeof cdi_dirs[0]; k++) {
        char dir[512];
        if (pna_path(dir, sizeof dir, roots->rootfs, "%s", cdi_dirs[k]) == 0)
            refresh_dir(reg, dir, &pos);
    }
    /* Files gone since the last refresh. */
    size_t out = 0;
    reg->bad = 0;
    reg->first_error = NULL;
    for (size_t i = 0; i < reg->n; i++) {
        if (!reg->files[i].seen) {
            pna_cdi_spec_free(&reg->files[i].spec);
            continue;
        }
        reg->files[out++] = reg->files[i];
    }
    reg->n = out;
    for (size_t i = 0; i < reg->n; i++)
        if (!reg->files[i].ok && reg->files[i].path[0]) {
            reg->bad++;
            if (!reg->first_error)
                reg->first_error = reg->files[i].error;
        }
}

unsigned pna_cdi_registry_error(const struct pna_cdi_registry *reg, const char **why)
{
    *why = reg->first_error ? reg->first_error : "";
    return reg->bad;
}

int pna_cdi_registry_add(struct pna_cdi_registry *reg, struct pna_cdi_spec *spec)
{
    if (PNA_ARRAY_RESERVE(reg->files, reg->cap, reg->n + 1) != 0)
        return -1;
    struct cdi_file *f = &reg->files[reg->n++];
    memset(f, 0, sizeof *f);
    f->ok = true;
    f->spec = *spec;
    memset(spec, 0, sizeof *spec);
    return 0;
}

int pna_cdi_resolve(const struct pna_cdi_registry *reg, const char *qualified,
                    const struct pna_cdi_node **out, size_t cap)
{
    char kind[PNA_CDI_NAME_MAX], name[PNA_CDI_NAME_MAX];
    if (!reg || !pna_cdi_split_name(qualified, kind, sizeof kind, name, sizeof name))
        return -1;
    /* The last file defining it wins (later directory, later name). */
    for (size_t i = reg->n; i-- > 0;) {
        if (!reg->files[i].ok)
            continue;
        int n = pna_cdi_spec_nodes(&reg->files[i].spec, kind, name, out, cap);
        if (n >= 0)
            return n;
    }
    return -1;
}
