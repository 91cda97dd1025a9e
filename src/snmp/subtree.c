/* snmp/subtree.c -- one registration, dispatched by OID (see subtree.h). */
#include "pna_autoconf.h"
#include "snmp/subtree.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "core/log.h"

/* A table's OID, or a scalar's group.N: short, well within this. */
#define PREFIX_MAX 32
#define MAX_SUBTREES 256

struct subtree {
    oid prefix[PREFIX_MAX];
    size_t len;
    struct pna_resolver rs;
};

static struct subtree subtrees[MAX_SUBTREES];
static size_t nsubtrees;

int pna_subtree_add(const oid *prefix, size_t prefix_len, const struct pna_resolver *rs)
{
    if (nsubtrees == MAX_SUBTREES || prefix_len == 0 || prefix_len > PREFIX_MAX) {
        pna_log(LOG_ERR, "cannot serve one more subtree (%zu kept, prefix of %zu)", nsubtrees,
                prefix_len);
        return -1;
    }
    struct subtree *t = &subtrees[nsubtrees++];
    memcpy(t->prefix, prefix, prefix_len * sizeof *prefix);
    t->len = prefix_len;
    t->rs = *rs;
    return 0;
}

/* NAME lies in T's subtree. */
static bool holds(const struct subtree *t, const oid *name, size_t len)
{
    return netsnmp_oid_is_subtree(t->prefix, t->len, name, len) == 0;
}

/* The subtree that last answered a GETNEXT: a walk asks for what follows the
 * cell it was given last, most often in the same subtree, so one comparison
 * finds it instead of a binary search over every table and scalar group. */
static size_t last_answered = MAX_SUBTREES;

/* The first subtree that holds NAME or comes after it.  The subtrees are
 * sorted and disjoint, so "wholly before NAME" is true of a prefix of the
 * array and false of the rest; and a subtree that holds NAME is that first
 * one. */
static size_t first_from(const oid *name, size_t len)
{
    if (last_answered < nsubtrees && holds(&subtrees[last_answered], name, len))
        return last_answered;
    size_t lo = 0, hi = nsubtrees;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct subtree *t = &subtrees[mid];
        if (snmp_oid_compare(t->prefix, t->len, name, len) < 0 && !holds(t, name, len))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first cell after NAME, looked for from subtree *AT on; *AT is left at
 * the subtree that answered.  False when no subtree has one. */
static bool next_cell(struct pna_view *view, size_t *at, const oid *name, size_t name_len,
                      oid *next, size_t *next_len, struct pna_cell *out)
{
    for (; *at < nsubtrees; (*at)++) {
        const struct pna_resolver *rs = &subtrees[*at].rs;
        pna_view_need(view, rs->view);
        if (rs->next(rs->self, view, name, name_len, next, next_len, out) == 0) {
            last_answered = *at;
            return true;
        }
    }
    return false;
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

static int serve_get(struct pna_view *view, const netsnmp_variable_list *vb, struct pna_cell *out)
{
    size_t at = first_from(vb->name, vb->name_length);
    if (at == nsubtrees || !holds(&subtrees[at], vb->name, vb->name_length))
        return (int)SNMP_NOSUCHOBJECT;
    const struct pna_resolver *rs = &subtrees[at].rs;
    pna_view_need(view, rs->view);
    return rs->get(rs->self, view, vb->name, vb->name_length, out);
}

/* One GETBULK repetition list answered in this call, as far as this
 * registration goes.  Without this net-snmp's bulk_to_next helper calls the
 * handler once per repetition, each inside the agent's whole request loop
 * (access check, result check, reassignment).  The varbinds are filled as
 * that helper would leave them: each answer's OID is where the next
 * repetition starts, R->requestvb the one still to answer, R->repeat the
 * repetitions left.  When the subtree has nothing more, that varbind stays
 * ASN_NULL and the agent goes on after it.  Each answer is checked against
 * the request's view, as the agent's loop would have (an answer out of view
 * is skipped for the next one). */
static void serve_bulk(struct pna_view *view, netsnmp_agent_request_info *reqinfo,
                       netsnmp_request_info *r)
{
    netsnmp_pdu *pdu = reqinfo->asp ? reqinfo->asp->pdu : NULL;
    netsnmp_variable_list *vb = r->requestvb;
    oid from[MAX_OID_LEN], next[MAX_OID_LEN];
    size_t from_len = vb->name_length, next_len;
    memcpy(from, vb->name, from_len * sizeof *from);
    size_t at = first_from(from, from_len);
    for (;;) {
        struct pna_cell cell;
        if (!next_cell(view, &at, from, from_len, next, &next_len, &cell))
            return;
        memcpy(from, next, next_len * sizeof *from);
        from_len = next_len;
        if (pdu && in_a_view(next, &next_len, pdu, cell.type) != VACM_SUCCESS)
            continue;
        snmp_set_var_objid(vb, next, next_len);
        set_value(vb, &cell);
        if (r->repeat <= 0 || !vb->next_variable)
            return;
        r->repeat--;
        vb = vb->next_variable;
        snmp_set_var_objid(vb, next, next_len);
        vb->type = ASN_NULL;
        r->requestvb = vb;
    }
}

/* Every varbind of one request, from one view that takes each domain when a
 * subtree first needs it. */
static int subtree_handler(netsnmp_mib_handler *handler, netsnmp_handler_registration *reginfo,
                           netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
    (void)handler;
    (void)reginfo;
    struct pna_view view;
    pna_view_take(&view, 0);
    for (netsnmp_request_info *r = requests; r; r = r->next) {
        if (r->processed)
            continue;
        netsnmp_variable_list *vb = r->requestvb;
        struct pna_cell cell;
        if (reqinfo->mode == MODE_GET) {
            int rc = serve_get(&view, vb, &cell);
            if (rc == 0)
                set_value(vb, &cell);
            else
                netsnmp_set_request_error(reqinfo, r, rc);
        } else if (reqinfo->mode == MODE_GETNEXT) {
            oid next[MAX_OID_LEN];
            size_t next_len, at = first_from(vb->name, vb->name_length);
            /* Leaving the varbind untouched tells the agent to look further on. */
            if (next_cell(&view, &at, vb->name, vb->name_length, next, &next_len, &cell)) {
                snmp_set_var_objid(vb, next, next_len);
                set_value(vb, &cell);
            }
        } else if (reqinfo->mode == MODE_GETBULK) {
            serve_bulk(&view, reqinfo, r);
        } else {
            netsnmp_set_request_error(reqinfo, r, SNMP_ERR_NOTWRITABLE);
        }
    }
    pna_view_release(&view);
    return SNMP_ERR_NOERROR;
}

static int by_prefix(const void *a, const void *b)
{
    const struct subtree *x = a, *y = b;
    return snmp_oid_compare(x->prefix, x->len, y->prefix, y->len);
}

/* Sorted, each within ROOT, none within another. */
static int check_subtrees(const oid *root, size_t root_len)
{
    qsort(subtrees, nsubtrees, sizeof *subtrees, by_prefix);
    for (size_t i = 0; i < nsubtrees; i++) {
        const struct subtree *t = &subtrees[i];
        bool inside = t->len > root_len &&
                      netsnmp_oid_is_subtree(root, root_len, t->prefix, t->len) == 0;
        bool overlaps = i + 1 < nsubtrees && holds(t, subtrees[i + 1].prefix, subtrees[i + 1].len);
        if (!inside || overlaps) {
            char name[256];
            snprint_objid(name, sizeof name, t->prefix, t->len);
            pna_log(LOG_ERR, "subtree %s %s", name,
                    inside ? "holds another one" : "is outside the registered root");
            return -1;
        }
    }
    return 0;
}

int pna_subtree_register(const char *name, const oid *root, size_t root_len)
{
    if (check_subtrees(root, root_len) != 0)
        return -1;
    netsnmp_mib_handler *h = netsnmp_create_handler(name, subtree_handler);
    netsnmp_handler_registration *r =
        h ? netsnmp_handler_registration_create(name, h, root, root_len,
                                                HANDLER_CAN_RONLY | HANDLER_CAN_GETBULK)
          : NULL;
    if (!r || netsnmp_register_handler(r) != MIB_REGISTERED_OK) {
        pna_log(LOG_ERR, "cannot register %s", name);
        return -1;
    }
    return 0;
}
