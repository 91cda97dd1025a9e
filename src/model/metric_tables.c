/* model/metric_tables.c -- the list of every table of served values, and the
 * catalogue the agent prints with --list-metrics: one line per descriptor,
 * what docs/metrics.md and the MIB check are compared with. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include <stdio.h>

#include "model/export/export.h"

const struct pna_metric_table *const pna_metric_tables[] = {
    &pna_system_metrics,
    &pna_cpu_metrics,
    &pna_memory_metrics,
    &pna_agent_metrics,
    &pna_poller_metrics,
    &pna_event_metrics,
    &pna_gpu_scalar_metrics,
    &pna_gpu_metrics,
    &pna_gpu_link_metrics,
    &pna_gpu_proc_metrics,
    &pna_gpu_mig_metrics,
    &pna_gpu_partition_metrics,
    &pna_rdma_scalar_metrics,
    &pna_rdma_device_metrics,
    &pna_ib_port_metrics,
    &pna_roce_cong_metrics,
    &pna_hw_counter_metrics,
    &pna_phy_metrics,
    &pna_module_metrics,
    &pna_module_lane_metrics,
    &pna_pause_metrics,
    &pna_pfc_metrics,
    &pna_ethtool_metrics,
    &pna_roce_node_metrics,
    &pna_roce_config_metrics,
    &pna_container_scalar_metrics,
    &pna_container_metrics,
    &pna_container_device_metrics,
    &pna_storage_metrics,
    &pna_pod_metrics,
    &pna_k8s_metrics,
    &pna_podres_metrics,
    &pna_pod_label_metrics,
    &pna_slurm_job_metrics,
    &pna_gpu_usage_metrics,
    &pna_pod_gpu_usage_metrics,
    &pna_slurm_job_gpu_usage_metrics,
    &pna_topo_metrics,
    NULL,
};

static const char *syntax_name(uint8_t s)
{
    switch ((enum pna_syntax)s) {
    case PNA_SYNTAX_INTEGER: return "INTEGER";
    case PNA_SYNTAX_UNSIGNED: return "Unsigned32";
    case PNA_SYNTAX_COUNTER32: return "Counter32";
    case PNA_SYNTAX_COUNTER64: return "Counter64";
    case PNA_SYNTAX_TEXT: return "OCTET STRING";
    case PNA_SYNTAX_TRUTH: return "TruthValue";
    case PNA_SYNTAX_NONE: break;
    }
    return "-";
}

static const char *family_type_name(uint8_t t)
{
    switch ((enum pna_family_type)t) {
    case PNA_FAMILY_GAUGE: return "gauge";
    case PNA_FAMILY_COUNTER: return "counter";
    case PNA_FAMILY_UNTYPED: return "untyped";
    case PNA_FAMILY_STATESET: return "stateset";
    case PNA_FAMILY_STATE: return "state";
    case PNA_FAMILY_NONE: break;
    }
    return "-";
}

static const char *dash(const char *s)
{
    return s && s[0] ? s : "-";
}

/* What the export control lets each front end serve of M: its object and
 * family, or NULL (model/export/export.h). */
static const char *exported_object(const struct pna_metric_table *t, const struct pna_metric *m)
{
    return m->object && pna_export_object_on(t, m) ? m->object : NULL;
}

static const char *exported_family(const struct pna_metric *m)
{
    return m->family && pna_export_family_on(m->family) ? m->family : NULL;
}

void pna_metric_catalogue(FILE *out)
{
    fprintf(out, "# table\tobject\tcolumn\tsyntax\tmax\tfamily\ttype\tscale\tlabel\tjson\n");
    for (size_t t = 0; pna_metric_tables[t]; t++) {
        const struct pna_metric_table *tab = pna_metric_tables[t];
        if (tab->info_family && pna_export_family_on(tab->info_family))
            fprintf(out, "%s\t-\t-\t-\t-\t%s\tgauge\t-\t-\t-\n", tab->object, tab->info_family);
        for (size_t i = 0; i < tab->count; i++) {
            const struct pna_metric *m = &tab->metrics[i];
            const char *object = exported_object(tab, m), *family = exported_family(m);
            /* a value the control leaves out of both front ends is not listed */
            if ((m->object || m->family) && !object && !family)
                continue;
            char scale[48];
            pna_scale_text(m->scale, scale, sizeof scale);
            fprintf(out, "%s\t%s\t%u\t%s\t%llu\t%s\t%s\t%s\t%s\t%s\n", tab->object, dash(object),
                    m->column, syntax_name(m->syntax), (unsigned long long)m->max, dash(family),
                    family_type_name(m->type), dash(scale[0] ? scale + 1 : NULL), dash(m->label),
                    dash(m->json));
        }
    }
}

/* The parts of KEY that have USE, comma-separated: their index objects or
 * labels (and the join's labels with WITH_JOIN); "-" when none. */
static void key_list(FILE *out, const struct pna_key *key, unsigned use, bool with_join)
{
    const char *sep = "";
    for (size_t i = 0; i < key->count; i++) {
        const struct pna_key_part *p = &key->parts[i];
        if (!(p->use & use))
            continue;
        fprintf(out, "%s%s", sep, use == PNA_KEY_INDEX ? p->object : p->label);
        sep = ",";
    }
    for (size_t i = 0; with_join && key->join_labels && key->join_labels[i]; i++) {
        fprintf(out, "%s%s", sep, key->join_labels[i]);
        sep = ",";
    }
    if (!sep[0])
        fputc('-', out);
}

void pna_table_catalogue(FILE *out)
{
    fprintf(out, "# table\tkind\toid\tindex\tlabels\n");
    for (size_t t = 0; pna_metric_tables[t]; t++) {
        const struct pna_metric_table *tab = pna_metric_tables[t];
        fprintf(out, "%s\t%s\t", tab->object, tab->kind == PNA_TABLE_SCALARS ? "scalars" : "table");
        for (size_t i = 0; i < tab->oid_len; i++)
            fprintf(out, "%s%u", i ? "." : "", (unsigned)tab->oid[i]);
        fputc('\t', out);
        key_list(out, &tab->key, PNA_KEY_INDEX, false);
        fputc('\t', out);
        key_list(out, &tab->key, PNA_KEY_LABEL, true);
        fputc('\n', out);
    }
}
