/* snmp/table.c -- the read-only MIB engine (see table.h).
 *
 * One net-snmp handler per table or scalar group.  A request takes one
 * reference to the domain's current snapshot, resolves every varbind against
 * it, and lets it go: the answer is consistent within the request, and a
 * poller can publish meanwhile without waiting for anybody.
 *
 * Row order: SNMP orders rows by their index OIDs, which for string indexes is
 * not the order a collector keeps (length comes first).  The first request
 * after a new snapshot sorts row numbers by index once; every later request is
 * a binary search over that permutation, with no allocation. */
#include "pna_autoconf.h"
#include "snmp/table.h"
#include "core/log.h"
#include "util/array.h"

#include <stdlib.h>
#include <string.h>

/* ---- cells --------------------------------------------------------------- */

int pna_cell_int(struct pna_cell *c, int64_t v)
{
    c->type = ASN_INTEGER;
    c->i = v;
    return 0;
}

int pna_cell_u32(struct pna_cell *c, uint32_t v)
{
    c->type = ASN_UNSIGNED;
    c->u = v;
    return 0;
}

int pna_cell_counter32(struct pna_cell *c, uint32_t v)
{
    c->type = ASN_COUNTER;
    c->u = v;
    return 0;
}

int pna_cell_counter64(struct pna_cell *c, uint64_t v)
{
    c->type = ASN_COUNTER64;
    c->u = v;
    return 0;
}

int pna_cell_str(struct pna_cell *c, const char *s)
{
    c->type = ASN_OCTET_STR;
    c->str = s ? s : "";
    c->len = strlen(c->str);
    return 0;
}

int pna_cell_strcopy(struct pna_cell *c, const char *s)
{
    size_t n = strlen(s);
    if (n >= sizeof c->copy)
        n = sizeof c->copy - 1;
    memcpy(c->copy, s, n);
    c->copy[n] = '\0';
    return pna_cell_bytes(c, c->copy, n);
}

int pna_cell_bytes(struct pna_cell *c, const void *p, size_t len)
{
    c->type = ASN_OCTET_STR;
    c->str = p;
    c->len = len;
    return 0;
}

size_t pna_index_put_string(oid *idx, size_t cap, const char *s)
{
    size_t len = strlen(s);
    if (len + 1 > cap)
        len = cap - 1;
    idx[0] = len;
    for (size_t i = 0; i < len; i++)
        idx[i + 1] = (unsigned char)s[i];
    return len + 1;
}

static void set_value(netsnmp_variable_list *vb, const struct pna_cell *c)
{
    switch (c->type) {
    case ASN_INTEGER: {
        long v = (long)c->i;
        snmp_set_var_typed_value(vb, ASN_INTEGER, &v, sizeof v);
        break;
    }
    case ASN_COUNTER64: {
        struct counter64 v = { .high = (u_long)(c->u >> 32), .low = (u_long)(c->u & 0xffffffffu) };
        snmp_set_var_typed_value(vb, ASN_COUNTER64, &v, sizeof v);
        break;
    }
    case ASN_OCTET_STR:
        snmp_set_var_typed_value(vb, ASN_OCTET_STR, c->str, c->len);
        break;
    default: {
        u_long v = (u_long)(c->u & 0xffffffffu);
        snmp_set_var_typed_value(vb, c->type, &v, sizeof v);
        break;
    }
    }
}

/* ---- registrations and row order ---------------------------------------- */

struct table_reg {
    const struct pna_table_def *def;
    size_t *order;          /* row numbers in index order */
    size_t order_cap, order_len;
    const void *order_ctx;  /* snapshot the order belongs to... */
    uint64_t order_gen;     /* ...and its generation (pointers get reused) */
};

#define MAX_TABLES 32
static struct table_reg tables[MAX_TABLES];
static size_t ntables;

static struct table_reg *reg_for(const struct pna_table_def *def)
{
    for (size_t i = 0; i < ntables; i++)
        if (tables[i].def == def)
            return &tables[i];
    if (ntables == MAX_TABLES)
        return NULL;
    tables[ntables].def = def;
    return &tables[ntables++];
}

static struct pna_snap *acquire(enum pna_domain domain)
{
    return domain == PNA_DOM_NONE ? NULL : pna_cache_acquire(domain);
}

/* qsort_r has no portable context argument: the comparator reads these. */
static const struct pna_table_def *sort_def;
static const void *sort_ctx;

static int compare_rows(const void *a, const void *b)
{
    oid ia[PNA_MAX_INDEX_LEN], ib[PNA_MAX_INDEX_LEN];
    size_t la = sort_def->row_index(sort_ctx, *(const size_t *)a, ia);
    size_t lb = sort_def->row_index(sort_ctx, *(const size_t *)b, ib);
    return snmp_oid_compare(ia, la, ib, lb);
}

/* Make REG's permutation match CTX; returns the number of rows. */
static size_t prepare_order(struct table_reg *reg, const void *ctx)
{
    const struct pna_table_def *def = reg->def;
    size_t n = def->row_count(ctx);
    if (def->rows_in_index_order)
        return n;
    uint64_t gen = ctx ? ((const struct pna_snap *)ctx)->generation : 0;
    if (reg->order && reg->order_ctx == ctx && reg->order_gen == gen && reg->order_len == n)
        return n;
    if (PNA_ARRAY_RESERVE(reg->order, reg->order_cap, n) != 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        reg->order[i] = i;
    sort_def = def;
    sort_ctx = ctx;
    if (n > 1)
        qsort(reg->order, n, sizeof *reg->order, compare_rows);
    reg->order_ctx = ctx;
    reg->order_gen = gen;
    reg->order_len = n;
    return n;
}

static size_t row_at(const struct table_reg *reg, size_t pos)
{
    return reg->def->rows_in_index_order ? pos : reg->order[pos];
}

/* First position whose index is >= IDX (or > IDX when STRICT). */
static size_t lower_bound(const struct table_reg *reg, const void *ctx, size_t n,
                          const oid *idx, size_t idx_len, bool strict)
{
    size_t lo = 0, hi = n;
    oid buf[PNA_MAX_INDEX_LEN];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        size_t len = reg->def->row_index(ctx, row_at(reg, mid), buf);
        int cmp = snmp_oid_compare(buf, len, idx, idx_len);
        if (cmp < 0 || (strict && cmp == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- GET / GETNEXT resolution ------------------------------------------- */

static int resolve_get(struct table_reg *reg, const void *ctx, const oid *name,
                       size_t name_len, struct pna_cell *out)
{
    const struct pna_table_def *def = reg->def;
    size_t t = def->table_oid_len;
    if (name_len <= t + 2 || snmp_oid_compare(name, t, def->table_oid, t) != 0 ||
        name[t] != 1 || name[t + 1] < def->min_col || name[t + 1] > def->max_col)
        return (int)SNMP_NOSUCHOBJECT;
    size_t n = prepare_order(reg, ctx);
    const oid *idx = name + t + 2;
    size_t idx_len = name_len - t - 2;
    size_t pos = lower_bound(reg, ctx, n, idx, idx_len, false);
    if (pos == n)
        return (int)SNMP_NOSUCHINSTANCE;
    oid buf[PNA_MAX_INDEX_LEN];
    size_t len = def->row_index(ctx, row_at(reg, pos), buf);
    if (snmp_oid_compare(buf, len, idx, idx_len) != 0)
        return (int)SNMP_NOSUCHINSTANCE;
    memset(out, 0, sizeof *out);
    if (def->get_cell(ctx, row_at(reg, pos), (unsigned)name[t + 1], out) != 0)
        return (int)SNMP_NOSUCHINSTANCE;
    return 0;
}

static int resolve_next(struct table_reg *reg, const void *ctx, const oid *name,
                        size_t name_len, oid *next, size_t *next_len, struct pna_cell *out)
{
    const struct pna_table_def *def = reg->def;
    size_t t = def->table_oid_len;
    oid entry[MAX_OID_LEN];
    memcpy(entry, def->table_oid, t * sizeof(oid));
    entry[t] = 1;

    unsigned col = def->min_col;
    size_t n = prepare_order(reg, ctx);
    size_t pos = 0;
    size_t common = name_len < t + 1 ? name_len : t + 1;
    int cmp = snmp_oid_compare(name, common, entry, common);
    if (cmp > 0)
        return -1;                               /* past this table */
    if (cmp == 0 && name_len > t + 1) {
        if (name[t + 1] > def->max_col)
            return -1;
        if (name[t + 1] >= def->min_col) {
            col = (unsigned)name[t + 1];
            pos = lower_bound(reg, ctx, n, name + t + 2, name_len - t - 2, true);
        }
    }
    for (; col <= def->max_col; col++, pos = 0) {
        for (; pos < n; pos++) {
            memset(out, 0, sizeof *out);
            if (def->get_cell(ctx, row_at(reg, pos), col, out) != 0)
                continue;
            memcpy(next, entry, (t + 1) * sizeof(oid));
            next[t + 1] = col;
            *next_len = t + 2 + def->row_index(ctx, row_at(reg, pos), next + t + 2);
            return 0;
        }
    }
    return -1;
}

int pna_table_get(const struct pna_table_def *def, const oid *name, size_t name_len,
                  struct pna_cell *out, struct pna_snap **held)
{
    struct table_reg *reg = reg_for(def);
    *held = acquire(def->domain);
    if (!reg || (def->domain != PNA_DOM_NONE && !*held))
        return -1;
    return resolve_get(reg, *held, name, name_len, out) == 0 ? 0 : -1;
}

int pna_table_getnext(const struct pna_table_def *def, const oid *name, size_t name_len,
                      oid *next, size_t *next_len, struct pna_cell *out,
                      struct pna_snap **held)
{
    struct table_reg *reg = reg_for(def);
    *held = acquire(def->domain);
    if (!reg || (def->domain != PNA_DOM_NONE && !*held))
        return -1;
    return resolve_next(reg, *held, name, name_len, next, next_len, out);
}

/* ---- net-snmp handlers --------------------------------------------------- */

/* How one registration resolves names: a table, or one scalar. */
struct resolver {
    enum pna_domain domain;
    void *self;
    int (*get)(void *self, const void *ctx, const oid *name, size_t name_len,
               struct pna_cell *out);
    int (*next)(void *self, const void *ctx, const oid *name, size_t name_len, oid *next,
                size_t *next_len, struct pna_cell *out);
};

/* Answer every varbind of one request from one snapshot reference. */
static int serve_requests(const struct resolver *rs, netsnmp_agent_request_info *reqinfo,
                          netsnmp_request_info *requests)
{
    struct pna_snap *snap = acquire(rs->domain);
    bool have_data = rs->domain == PNA_DOM_NONE || snap != NULL;

    for (netsnmp_request_info *r = requests; r; r = r->next) {
        if (r->processed)
            continue;
        netsnmp_variable_list *vb = r->requestvb;
        struct pna_cell cell;
        if (reqinfo->mode == MODE_GET) {
            int rc = have_data ? rs->get(rs->self, snap, vb->name, vb->name_length, &cell)
                               : (int)SNMP_NOSUCHINSTANCE;
            if (rc == 0)
                set_value(vb, &cell);
            else
                netsnmp_set_request_error(reqinfo, r, rc);
        } else if (reqinfo->mode == MODE_GETNEXT) {
            oid next[MAX_OID_LEN];
            size_t next_len;
            /* Leaving the varbind untouched tells the agent to look further on. */
            if (have_data &&
                rs->next(rs->self, snap, vb->name, vb->name_length, next, &next_len, &cell) == 0) {
                snmp_set_var_objid(vb, next, next_len);
                set_value(vb, &cell);
            }
        } else {
            netsnmp_set_request_error(reqinfo, r, SNMP_ERR_NOTWRITABLE);
        }
    }
    pna_snap_release(snap);
    return SNMP_ERR_NOERROR;
}

static int table_get(void *self, const void *ctx, const oid *name, size_t name_len,
                     struct pna_cell *out)
{
    return resolve_get(self, ctx, name, name_len, out);
}

static int table_next(void *self, const void *ctx, const oid *name, size_t name_len, oid *next,
                      size_t *next_len, struct pna_cell *out)
{
    return resolve_next(self, ctx, name, name_len, next, next_len, out);
}

static int table_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reginfo,
                         netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    (void)reginfo;
    struct table_reg *reg = handler->myvoid;
    struct resolver rs = { reg->def->domain, reg, table_get, table_next };
    return serve_requests(&rs, reqinfo, requests);
}

int pna_table_register(const struct pna_table_def *def)
{
    if (def->table_oid_len + 2 + PNA_MAX_INDEX_LEN > MAX_OID_LEN) {
        pna_log(LOG_ERR, "%s: table OID too deep for %d-sub-identifier indexes", def->name,
                PNA_MAX_INDEX_LEN);
        return -1;
    }
    struct table_reg *reg = reg_for(def);
    if (!reg)
        return -1;
    netsnmp_mib_handler *h = netsnmp_create_handler(def->name, table_handler);
    if (!h)
        return -1;
    h->myvoid = reg;
    netsnmp_handler_registration *r = netsnmp_handler_registration_create(
        def->name, h, def->table_oid, def->table_oid_len, HANDLER_CAN_RONLY);
    if (!r || netsnmp_register_handler(r) != MIB_REGISTERED_OK) {
        pna_log(LOG_ERR, "cannot register %s", def->name);
        return -1;
    }
    return 0;
}

/* ---- scalar groups -------------------------------------------------------- */

static int scalar_get(const struct pna_scalar_def *def, const void *ctx, const oid *name,
                      size_t name_len, struct pna_cell *out)
{
    size_t g = def->group_oid_len;
    if (name_len != g + 2 || snmp_oid_compare(name, g, def->group_oid, g) != 0 ||
        name[g] < def->min_subid || name[g] > def->max_subid)
        return (int)SNMP_NOSUCHOBJECT;
    if (name[g + 1] != 0)
        return (int)SNMP_NOSUCHINSTANCE;
    memset(out, 0, sizeof *out);
    return def->get(ctx, (unsigned)name[g], out) == 0 ? 0 : (int)SNMP_NOSUCHINSTANCE;
}

/* Each scalar has its own registration (group.N): ranges would be simpler,
 * but net-snmp's subagent re-registers a range one OID at a time after a
 * master restart, and the master then rejects the duplicates. */
struct scalar_reg {
    const struct pna_scalar_def *def;
    unsigned subid;
};

#define MAX_SCALARS 128
static struct scalar_reg scalar_regs[MAX_SCALARS];
static size_t nscalar_regs;

/* GETNEXT within one scalar's registration: only group.N.0 can follow. */
static int scalar_next(const struct scalar_reg *sr, const void *ctx, const oid *name,
                       size_t name_len, oid *next, size_t *next_len, struct pna_cell *out)
{
    const struct pna_scalar_def *def = sr->def;
    size_t g = def->group_oid_len;
    oid instance[MAX_OID_LEN];
    memcpy(instance, def->group_oid, g * sizeof(oid));
    instance[g] = sr->subid;
    instance[g + 1] = 0;
    if (snmp_oid_compare(name, name_len, instance, g + 2) >= 0)
        return -1;
    memset(out, 0, sizeof *out);
    if (def->get(ctx, sr->subid, out) != 0)
        return -1;
    memcpy(next, instance, (g + 2) * sizeof(oid));
    *next_len = g + 2;
    return 0;
}

static int scalar_get_one(void *self, const void *ctx, const oid *name, size_t name_len,
                          struct pna_cell *out)
{
    const struct scalar_reg *sr = self;
    return scalar_get(sr->def, ctx, name, name_len, out);
}

static int scalar_next_one(void *self, const void *ctx, const oid *name, size_t name_len,
                           oid *next, size_t *next_len, struct pna_cell *out)
{
    return scalar_next(self, ctx, name, name_len, next, next_len, out);
}

static int scalar_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reginfo,
                          netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    (void)reginfo;
    struct scalar_reg *sr = handler->myvoid;
    struct resolver rs = { sr->def->domain, sr, scalar_get_one, scalar_next_one };
    return serve_requests(&rs, reqinfo, requests);
}

static int register_one_scalar(const struct pna_scalar_def *def, unsigned subid)
{
    if (nscalar_regs == MAX_SCALARS)
        return -1;
    struct scalar_reg *sr = &scalar_regs[nscalar_regs++];
    sr->def = def;
    sr->subid = subid;
    netsnmp_mib_handler *h = netsnmp_create_handler(def->name, scalar_handler);
    if (!h)
        return -1;
    h->myvoid = sr;
    oid name[MAX_OID_LEN];
    memcpy(name, def->group_oid, def->group_oid_len * sizeof(oid));
    name[def->group_oid_len] = subid;
    netsnmp_handler_registration *r = netsnmp_handler_registration_create(
        def->name, h, name, def->group_oid_len + 1, HANDLER_CAN_RONLY);
    if (!r || netsnmp_register_handler(r) != MIB_REGISTERED_OK) {
        pna_log(LOG_ERR, "cannot register %s.%u", def->name, subid);
        return -1;
    }
    return 0;
}

int pna_scalars_register(const struct pna_scalar_def *def)
{
    for (unsigned subid = def->min_subid; subid <= def->max_subid; subid++)
        if (register_one_scalar(def, subid) != 0)
            return -1;
    return 0;
}
