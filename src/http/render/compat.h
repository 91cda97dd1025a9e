/* http/render/compat.h -- other exporters' metric names on /metrics (prometheusCompat).
 *
 * With `prometheusCompat dcgm`, /metrics also carries NVIDIA dcgm-exporter's
 * DCGM_FI_* families for the NVIDIA GPUs, with its label set; with `amd`,
 * AMD device-metrics-exporter's gpu_* families for the AMD GPUs.  Dashboards
 * and alerts written for those exporters then work against the agent.
 *
 * One truth: a compat family has no value of its own.  Each is one line of a
 * mapping table naming the primus descriptor (model/gpu/gpu_metrics.c) it is
 * computed from and the unit conversion, and its samples are that
 * descriptor's values (pna_metric_value()) converted, so a compat name cannot
 * disagree with the primus family of the same descriptor.  A descriptor not
 * (yet) in the table is simply not served: mapping a new one is one line.
 *
 * compat.c renders an exporter from its table; compat_dcgm.c and
 * compat_amd.c hold the two tables and label sets. */
#ifndef PNA_HTTP_COMPAT_H
#define PNA_HTTP_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/render/render.h"

/* One family of the other exporter, or one constant-labelled part of it
 * (consecutive lines with the same NAME share its HELP and TYPE). */
struct pna_compat_map {
    const char *name;               /* the other exporter's family, as it spells it */
    enum pna_prom_type type;
    const char *help;               /* its HELP text, as it writes it */
    /* The primus descriptor: a MIB object ("primusGpuPowerDraw") or, for a
     * bridge-only one, its family; with SOURCE_LABEL, the descriptor of that
     * family whose constant label has this value (primus_gpu_remapped_rows
     * {type="correctable"}). */
    const char *source;
    const char *source_label;
    /* Conversion from the descriptor's value (the MIB object's units): first
     * shifted right by SHIFT (whole MiB from bytes: 20, truncated as DCGM
     * and amdsmi count them), then times SCALE (exactly, as primus families). */
    uint8_t shift;
    struct pna_scale scale;
    struct pna_prom_label extra[2]; /* constant labels of these samples (gpu_clock's) */
    /* Non-NULL: the descriptor is planned but not in the model yet, and why
     * the family waits.  Such a line is rendered as soon as its descriptor
     * exists; the unit test fails until the mark is removed, so that the
     * conversion gets checked then. */
    const char *pending;
};

#define PNA_COMPAT_LABELS_MAX 16
#define PNA_COMPAT_LABEL_TEXT 256

/* The labels of one GPU's samples, in the exporter's order; values copied. */
struct pna_compat_labels {
    struct pna_prom_label l[PNA_COMPAT_LABELS_MAX + 2];
    size_t n;
    char text[PNA_COMPAT_LABELS_MAX][PNA_COMPAT_LABEL_TEXT];
};

/* One exporter's names: the GPUs it describes, its families, its labels. */
struct pna_compat_exporter {
    const char *name;               /* the prometheusCompat word: "dcgm" */
    unsigned bit;                   /* enum pna_prom_compat */
    const char *vendor;             /* primusGpuVendor's label of its GPUs: "nvidia" */
    const struct pna_compat_map *maps;
    size_t count;
    /* The labels of ROW, the NUMBER-th GPU of this vendor (0-based). */
    void (*labels)(const struct pna_http_view *v, const struct pna_row *row, size_t number,
                   struct pna_compat_labels *out);
    /* Families not taken from a descriptor's value (counts); may be NULL. */
    void (*extra)(struct pna_prom *p, const struct pna_http_view *v, size_t gpus);
};

extern const struct pna_compat_exporter pna_compat_dcgm;
extern const struct pna_compat_exporter pna_compat_amd;

/* The descriptor of pna_gpu_metrics map M reads, or NULL (not in the model). */
const struct pna_metric *pna_compat_source(const struct pna_compat_map *m);

/* Every family of exporter E for the GPUs of V of its vendor. */
void pna_compat_render(struct pna_prom *p, const struct pna_http_view *v,
                       const struct pna_compat_exporter *e);

/* ---- for the label functions --------------------------------------------------- */

/* Append label NAME with a copy of VALUE to OUT.  An exporter's label set is
 * the same on every series, as both write it: a value the agent does not know
 * is written empty (which Prometheus stores as no label). */
void pna_compat_put(struct pna_compat_labels *out, const char *name, const char *value);

/* The value of the GPU descriptor of MIB object OBJECT in ROW as label text
 * into BUF ("" when absent); returns BUF. */
const char *pna_compat_text(const struct pna_row *row, const char *object, char *buf, size_t cap);

/* The GPU's number as its vendor's tool gives it (primusGpuOrdinal), else
 * NUMBER, its position among the GPUs of that vendor. */
void pna_compat_gpu_number(const struct pna_row *row, size_t number, char *buf, size_t cap);

/* container, namespace and pod of the container holding the GPU (the one
 * primusGpuHolderPod/Namespace name; container: its name, primusContainerName,
 * as the kubelet's pod resources name it), appended to OUT in that order as
 * both exporters name them; nothing when no pod holds the GPU. */
void pna_compat_holder(const struct pna_http_view *v, const struct pna_row *row,
                       struct pna_compat_labels *out);

#endif
