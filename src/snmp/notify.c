/* snmp/notify.c -- one notification per event, with the identifying columns of
 * the row it is about as varbinds (PRIMUS-NODE-MIB, primusNodeNotifications).
 *
 * Every notification ends with primusEventSeverity and primusEventText of the
 * event-table row the event became, so an NMS that missed the trap can read it
 * back by the same index. */
#include "pna_autoconf.h"
#include "snmp/notify.h"
#include "model/metric_tables.h"
#include "model/oids.h"
#include "snmp/table.h"
#include "core/log.h"
#include "snmp/log_gate.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

static const oid snmptrap_oid[] = { 1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0 };
static const oid notifications_oid[] = { PNA_OID_NOTIFICATIONS };
static const oid notify_objects[] = { PNA_OID_NOTIFY_OBJECTS };

/* A varbind list being built; NAME is reused for each OID. */
struct vb_builder {
    netsnmp_variable_list *vars;
    oid name[MAX_OID_LEN];
    size_t len;
};

/* Start NAME as BASE.SUB (a column or a scalar of a group). */
static void vb_name(struct vb_builder *b, const oid *base, size_t base_len, oid sub)
{
    memcpy(b->name, base, base_len * sizeof(oid));
    b->name[base_len] = sub;
    b->len = base_len + 1;
}

/* Start NAME as the cell of MIB object OBJECT of table T: entry.column of a
 * table (its index follows), group.subid of a scalar group (its .0
 * follows); the OID from T's declaration, the column from the object's
 * descriptor. */
static void vb_column(struct vb_builder *b, const struct pna_metric_table *t, const char *object)
{
    const struct pna_metric *m = pna_metric_by_object(t, object);
    b->len = pna_table_oid(t, b->name);
    if (t->kind == PNA_TABLE_ROWS)
        b->name[b->len++] = 1;
    b->name[b->len++] = m ? m->column : 0;
}

static void vb_index_u32(struct vb_builder *b, uint32_t v)
{
    if (b->len < MAX_OID_LEN)
        b->name[b->len++] = v;
}

static void vb_index_str(struct vb_builder *b, const char *s)
{
    b->len += pna_index_put_string(b->name + b->len, MAX_OID_LEN - b->len, s);
}

static void vb_add(struct vb_builder *b, const struct pna_cell *c)
{
    switch (c->type) {
    case ASN_INTEGER: {
        long v = (long)c->i;
        snmp_varlist_add_variable(&b->vars, b->name, b->len, ASN_INTEGER, &v, sizeof v);
        break;
    }
    case ASN_COUNTER64: {
        struct counter64 v = { .high = (u_long)(c->u >> 32), .low = (u_long)(c->u & 0xffffffffu) };
        snmp_varlist_add_variable(&b->vars, b->name, b->len, ASN_COUNTER64, &v, sizeof v);
        break;
    }
    case ASN_OCTET_STR:
        snmp_varlist_add_variable(&b->vars, b->name, b->len, ASN_OCTET_STR, c->str, c->len);
        break;
    default: {
        u_long v = (u_long)(c->u & 0xffffffffu);
        snmp_varlist_add_variable(&b->vars, b->name, b->len, c->type, &v, sizeof v);
        break;
    }
    }
}

static void add_str(struct vb_builder *b, const char *s)
{
    struct pna_cell c = { 0 };
    pna_cell_str(&c, s);
    vb_add(b, &c);
}

static void add_int(struct vb_builder *b, int64_t v)
{
    struct pna_cell c = { 0 };
    pna_cell_int(&c, v);
    vb_add(b, &c);
}

static void add_u32(struct vb_builder *b, uint32_t v)
{
    struct pna_cell c = { 0 };
    pna_cell_u32(&c, v);
    vb_add(b, &c);
}

static void add_counter(struct vb_builder *b, u_char type, uint64_t v)
{
    struct pna_cell c = { 0 };
    if (type == ASN_COUNTER)
        pna_cell_counter32(&c, (uint32_t)v);
    else
        pna_cell_counter64(&c, v);
    vb_add(b, &c);
}

/* notify-only scalars are sent with instance .0 */
static void add_notify_object(struct vb_builder *b, unsigned sub)
{
    vb_name(b, notify_objects, OID_LENGTH(notify_objects), sub);
    vb_index_u32(b, 0);
}

static void poller_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_poller *p = &ev->u.poller;
    vb_column(b, &pna_poller_metrics, "primusPollerName");
    vb_index_u32(b, p->index);
    add_str(b, p->name);
    vb_column(b, &pna_poller_metrics, "primusPollerErrors");
    vb_index_u32(b, p->index);
    add_counter(b, ASN_COUNTER, p->errors);
    if (ev->type == PNA_EV_POLLER_FAILED) {
        vb_column(b, &pna_poller_metrics, "primusPollerLastError");
        vb_index_u32(b, p->index);
        add_str(b, p->last_error);
    }
}

static void ib_port_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_ib_port *p = &ev->u.ib_port;
    add_notify_object(b, PNA_SC_NOTIFY_RDMA_DEVICE);
    add_str(b, p->device);
    add_notify_object(b, PNA_SC_NOTIFY_IB_PORT);
    add_u32(b, p->port);
    add_notify_object(b, PNA_SC_NOTIFY_IB_PORT_OLD_STATE);
    add_int(b, p->old_state);
    vb_column(b, &pna_ib_port_metrics, "primusIbPortState");
    vb_index_str(b, p->device);
    vb_index_u32(b, p->port);
    add_int(b, p->new_state);
}

static void oom_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_oom *o = &ev->u.oom;
    static const struct { const char *object; size_t off; } text_cols[] = {
        { "primusContainerName", offsetof(struct pna_event_oom, container_name) },
        { "primusContainerPodName", offsetof(struct pna_event_oom, pod) },
        { "primusContainerPodNamespace", offsetof(struct pna_event_oom, namespace_) },
    };
    for (size_t i = 0; i < sizeof text_cols / sizeof text_cols[0]; i++) {
        vb_column(b, &pna_container_metrics, text_cols[i].object);
        vb_index_str(b, o->container_id);
        add_str(b, (const char *)o + text_cols[i].off);
    }
    vb_column(b, &pna_container_metrics, "primusContainerOomKills");
    vb_index_str(b, o->container_id);
    add_counter(b, ASN_COUNTER64, o->kill_count);
}

/* The name of GPU INDEX's cell of primusGpuTable column OBJECT. */
static void gpu_cell(struct vb_builder *b, const char *object, uint32_t index)
{
    vb_column(b, &pna_gpu_metrics, object);
    vb_index_u32(b, index);
}

/* The name of the cell of primusGpuLinkTable column OBJECT for GPU INDEX's LINK. */
static void gpu_link_cell(struct vb_builder *b, const char *object, uint32_t index, uint32_t link)
{
    vb_column(b, &pna_gpu_link_metrics, object);
    vb_index_u32(b, index);
    vb_index_u32(b, link);
}

/* The verdict, since when the GPU is below the threshold (0: it is not),
 * and who holds it, at the GPU's row. */
static void gpu_idle_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_gpu *g = &ev->u.gpu;
    gpu_cell(b, "primusGpuIdleAllocated", g->index);
    add_int(b, g->idle_allocated ? PNA_TRUTH_TRUE : PNA_TRUTH_FALSE);
    gpu_cell(b, "primusGpuLowActivitySince", g->index);
    add_u32(b, (uint32_t)g->low_since_s);
    gpu_cell(b, "primusGpuHolderPod", g->index);
    add_str(b, g->holder_pod);
    gpu_cell(b, "primusGpuHolderNamespace", g->index);
    add_str(b, g->holder_namespace);
    gpu_cell(b, "primusGpuHolderJob", g->index);
    add_u32(b, g->holder_job);
}

static void gpu_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_gpu *g = &ev->u.gpu;
    gpu_cell(b, "primusGpuUuid", g->index);
    add_str(b, g->uuid);
    gpu_cell(b, "primusGpuPciBusId", g->index);
    add_str(b, g->pci_bus_id);
    if (ev->type == PNA_EV_GPU_XID) {
        add_notify_object(b, PNA_SC_NOTIFY_GPU_XID);
        add_u32(b, (uint32_t)g->xid);
    } else if (ev->type == PNA_EV_GPU_LINK_DOWN || ev->type == PNA_EV_GPU_LINK_UP) {
        gpu_link_cell(b, "primusGpuLinkState", g->index, g->link);
        add_int(b, ev->type == PNA_EV_GPU_LINK_UP ? PNA_GPU_LINK_STATE_UP : PNA_GPU_LINK_STATE_DOWN);
        gpu_link_cell(b, "primusGpuLinkRemoteBusId", g->index, g->link);
        add_str(b, g->remote_bus_id);
    } else if (ev->type == PNA_EV_GPU_HEALTH) {
        gpu_cell(b, "primusGpuHealth", g->index);
        add_int(b, g->health);
        gpu_cell(b, "primusGpuHealthReason", g->index);
        add_str(b, g->reason);
    } else if (ev->type == PNA_EV_GPU_IDLE_ALLOCATED) {
        gpu_idle_varbinds(b, ev);
    } else if (ev->type == PNA_EV_GPU_ORPHAN_PROCESS) {
        vb_column(b, &pna_gpu_proc_metrics, "primusGpuProcName");
        vb_index_u32(b, g->index);
        vb_index_u32(b, g->pid);
        add_str(b, g->process);
        gpu_cell(b, "primusGpuOrphanProcesses", g->index);
        add_u32(b, g->orphans);
    } else if (ev->type == PNA_EV_GPU_THERMAL) {
        gpu_cell(b, "primusGpuTemperature", g->index);
        add_int(b, g->temperature_c);
        add_notify_object(b, PNA_SC_NOTIFY_GPU_THRESHOLD);
        add_int(b, g->threshold_c);
    }
}

static void pfc_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_pfc *p = &ev->u.pfc;
    add_notify_object(b, PNA_SC_NOTIFY_IF_NAME);
    add_str(b, p->ifname);
    add_notify_object(b, PNA_SC_NOTIFY_PFC_PRIORITY);
    add_int(b, p->priority);
    add_notify_object(b, PNA_SC_NOTIFY_PAUSE_RATE);
    add_counter(b, ASN_COUNTER64, p->pause_per_s);
}

/* An interface's verdict and reason at its primusRoceConfigTable row, or the
 * node's at its scalars. */
static void lossless_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_lossless *l = &ev->u.lossless;
    if (ev->type == PNA_EV_ROCE_LOSSLESS) {
        vb_column(b, &pna_roce_config_metrics, "primusRoceLossless");
        vb_index_str(b, l->ifname);
        add_int(b, l->verdict);
        vb_column(b, &pna_roce_config_metrics, "primusRoceLosslessReason");
        vb_index_str(b, l->ifname);
        add_str(b, l->reason);
        return;
    }
    vb_column(b, &pna_roce_node_metrics, "primusRoceNodeLossless");
    vb_index_u32(b, 0);
    add_int(b, l->verdict);
    vb_column(b, &pna_roce_node_metrics, "primusRoceNodeLosslessReason");
    vb_index_u32(b, 0);
    add_str(b, l->reason);
}

/* The device, then its link and maximum at its primusRdmaDeviceTable row
 * (0 where a figure is not known). */
static void pcie_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_pcie *p = &ev->u.pcie;
    static const char *const objects[] = { "primusRdmaPcieLinkSpeed", "primusRdmaPcieMaxLinkSpeed",
                                           "primusRdmaPcieLinkWidth", "primusRdmaPcieMaxLinkWidth" };
    const uint32_t values[] = { p->speed_mtps, p->max_speed_mtps, p->width, p->max_width };
    add_notify_object(b, PNA_SC_NOTIFY_RDMA_DEVICE);
    add_str(b, p->device);
    for (size_t i = 0; i < sizeof objects / sizeof objects[0]; i++) {
        vb_column(b, &pna_rdma_device_metrics, objects[i]);
        vb_index_str(b, p->device);
        add_u32(b, values[i]);
    }
}

/* The interface, which reading, its lane, its level and the threshold. */
static void module_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_module *m = &ev->u.module;
    add_notify_object(b, PNA_SC_NOTIFY_IF_NAME);
    add_str(b, m->ifname);
    add_notify_object(b, PNA_SC_NOTIFY_MODULE_QUANTITY);
    add_int(b, m->quantity);
    add_notify_object(b, PNA_SC_NOTIFY_MODULE_LANE);
    add_u32(b, m->lane);
    add_notify_object(b, PNA_SC_NOTIFY_MODULE_LEVEL);
    add_int(b, m->level);
    add_notify_object(b, PNA_SC_NOTIFY_MODULE_VALUE);
    add_int(b, m->value);
    add_notify_object(b, PNA_SC_NOTIFY_MODULE_THRESHOLD);
    add_int(b, m->threshold);
}

/* The ended job's row of primusSlurmJobTable, by its primusSlurmJobId: the
 * row itself is gone, its cells say who ran it. */
static void slurm_job_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    const struct pna_event_slurm_job *j = &ev->u.slurm_job;
    vb_column(b, &pna_slurm_job_metrics, "primusSlurmJobUid");
    vb_index_u32(b, j->job_id);
    add_u32(b, j->has_uid ? j->uid : 0);
    vb_column(b, &pna_slurm_job_metrics, "primusSlurmJobUser");
    vb_index_u32(b, j->job_id);
    add_str(b, j->user);
}

static unsigned notification_number(enum pna_event_type type)
{
    switch (type) {
    case PNA_EV_POLLER_FAILED: return PNA_NOTIF_POLLER_FAILED;
    case PNA_EV_POLLER_RECOVERED: return PNA_NOTIF_POLLER_RECOVERED;
    case PNA_EV_IB_PORT_DOWN: return PNA_NOTIF_IB_PORT_DOWN;
    case PNA_EV_IB_PORT_UP: return PNA_NOTIF_IB_PORT_UP;
    case PNA_EV_CONTAINER_OOM: return PNA_NOTIF_CONTAINER_OOM_KILL;
    case PNA_EV_GPU_XID: return PNA_NOTIF_GPU_XID_ERROR;
    case PNA_EV_GPU_THERMAL: return PNA_NOTIF_GPU_THERMAL;
    case PNA_EV_GPU_LOST: return PNA_NOTIF_GPU_LOST;
    case PNA_EV_PFC_PAUSE_STORM: return PNA_NOTIF_PFC_PAUSE_STORM;
    case PNA_EV_GPU_LINK_DOWN: return PNA_NOTIF_GPU_LINK_DOWN;
    case PNA_EV_GPU_LINK_UP: return PNA_NOTIF_GPU_LINK_UP;
    case PNA_EV_GPU_HEALTH: return PNA_NOTIF_GPU_HEALTH_CHANGE;
    case PNA_EV_ROCE_LOSSLESS: return PNA_NOTIF_ROCE_LOSSLESS_CHANGE;
    case PNA_EV_ROCE_NODE_LOSSLESS: return PNA_NOTIF_ROCE_NODE_LOSSLESS_CHANGE;
    case PNA_EV_PCIE_DOWNTRAINED: return PNA_NOTIF_PCIE_DOWNTRAINED;
    case PNA_EV_PCIE_RESTORED: return PNA_NOTIF_PCIE_RESTORED;
    case PNA_EV_MODULE_THRESHOLD: return PNA_NOTIF_MODULE_THRESHOLD;
    case PNA_EV_MODULE_THRESHOLD_CLEAR: return PNA_NOTIF_MODULE_THRESHOLD_CLEAR;
    case PNA_EV_SLURM_JOB_END: return PNA_NOTIF_SLURM_JOB_END;
    case PNA_EV_GPU_IDLE_ALLOCATED: return PNA_NOTIF_GPU_IDLE_ALLOCATED_CHANGE;
    case PNA_EV_GPU_ORPHAN_PROCESS: return PNA_NOTIF_GPU_ORPHAN_PROCESS;
    }
    return 0;
}

static void row_varbinds(struct vb_builder *b, const struct pna_event *ev)
{
    switch (ev->type) {
    case PNA_EV_POLLER_FAILED:
    case PNA_EV_POLLER_RECOVERED: poller_varbinds(b, ev); break;
    case PNA_EV_IB_PORT_DOWN:
    case PNA_EV_IB_PORT_UP: ib_port_varbinds(b, ev); break;
    case PNA_EV_CONTAINER_OOM: oom_varbinds(b, ev); break;
    case PNA_EV_GPU_XID:
    case PNA_EV_GPU_THERMAL:
    case PNA_EV_GPU_LOST:
    case PNA_EV_GPU_LINK_DOWN:
    case PNA_EV_GPU_LINK_UP:
    case PNA_EV_GPU_HEALTH: gpu_varbinds(b, ev); break;
    case PNA_EV_PFC_PAUSE_STORM: pfc_varbinds(b, ev); break;
    case PNA_EV_ROCE_LOSSLESS:
    case PNA_EV_ROCE_NODE_LOSSLESS: lossless_varbinds(b, ev); break;
    case PNA_EV_PCIE_DOWNTRAINED:
    case PNA_EV_PCIE_RESTORED: pcie_varbinds(b, ev); break;
    case PNA_EV_MODULE_THRESHOLD:
    case PNA_EV_MODULE_THRESHOLD_CLEAR: module_varbinds(b, ev); break;
    case PNA_EV_SLURM_JOB_END: slurm_job_varbinds(b, ev); break;
    case PNA_EV_GPU_IDLE_ALLOCATED:
    case PNA_EV_GPU_ORPHAN_PROCESS: gpu_varbinds(b, ev); break;
    }
}

/* ---- SNMPv1 sinks ------------------------------------------------------------ */

static bool v1_sinks;   /* a trapsink, or a trapsess -v 1, in the config */

static bool is_v1_trapsess(const char *args)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", args);
    char *save = NULL;
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (strcmp(w, "-v1") == 0)
            return true;
        if (strcmp(w, "-v") == 0) {
            const char *v = strtok_r(NULL, " \t", &save);
            return v && strcmp(v, "1") == 0;
        }
    }
    return false;
}

void pna_notify_note_directive(const char *line)
{
    size_t skip = strspn(line, " \t");
    size_t len = strcspn(line + skip, " \t");
    const char *token = line + skip, *args = line + skip + len;
    if (len == 8 && strncasecmp(token, "trapsink", 8) == 0)
        v1_sinks = true;
    else if (len == 8 && strncasecmp(token, "trapsess", 8) == 0 && is_v1_trapsess(args))
        v1_sinks = true;
}

static bool has_counter64(const netsnmp_variable_list *vars)
{
    for (; vars; vars = vars->next_variable)
        if (vars->type == ASN_COUNTER64)
            return true;
    return false;
}

/* net-snmp builds an SNMPv1 form of every notification, for sinks that may
 * not exist, and logs two lines whenever a Counter64 makes that impossible.
 * Those lines are dropped; where an SNMPv1 sink does exist (standalone agent),
 * one line of ours says what it misses.  A subagent's master converts for its
 * own sinks. */
static void send_quietly(netsnmp_variable_list *vars, unsigned number)
{
    bool subagent = netsnmp_ds_get_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE);
    if (v1_sinks && !subagent && has_counter64(vars))
        pna_log(LOG_WARNING, "notification primusNodeNotifications.%u not sent to SNMPv1 sinks: "
                "it carries Counter64 values, which SNMPv1 cannot", number);
    pna_log_gate_mute_v1_conversion(true);
    send_v2trap(vars);
    pna_log_gate_mute_v1_conversion(false);
}

void pna_notify_event(const struct pna_event *ev, void *arg)
{
    (void)arg;
    unsigned number = notification_number(ev->type);
    if (!number)
        return;
    struct vb_builder b = { 0 };
    oid trap[OID_LENGTH(notifications_oid) + 1];
    memcpy(trap, notifications_oid, sizeof notifications_oid);
    trap[OID_LENGTH(notifications_oid)] = number;
    snmp_varlist_add_variable(&b.vars, snmptrap_oid, OID_LENGTH(snmptrap_oid), ASN_OBJECT_ID,
                              trap, sizeof trap);
    row_varbinds(&b, ev);
    vb_column(&b, &pna_event_metrics, "primusEventSeverity");
    vb_index_u32(&b, ev->seq);
    add_int(&b, ev->severity);
    vb_column(&b, &pna_event_metrics, "primusEventText");
    vb_index_u32(&b, ev->seq);
    add_str(&b, ev->text);
    send_quietly(b.vars, number);
    snmp_free_varbind(b.vars);
}
