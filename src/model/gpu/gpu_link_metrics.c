/* model/gpu/gpu_link_metrics.c -- primusGpuLinkTable: one row per GPU and link
 * (NVLink), one descriptor per value (see metric.h, gpu.h).
 *
 * A row's record is the link; its parent is the GPU, whose index comes first
 * in the row's identity.  Rows follow the GPUs' order (ascending index) and,
 * within a GPU, ascending link number: the MIB's index order. */
#include "pna_autoconf.h"
#include "model/metric_tables.h"

#include "model/gpu/gpu.h"
#include "model/gpu/gpu_key.h"
#include "model/metric.h"
#include "model/oids.h"

static const struct pna_gpu_snap *gpu_snap(const struct pna_view *v)
{
    return pna_view_snap(v, PNA_DOM_GPU);
}

static size_t link_rows(const struct pna_view *v)
{
    const struct pna_gpu_snap *s = gpu_snap(v);
    size_t n = 0;
    for (size_t i = 0; s && i < s->count; i++)
        n += s->gpus[i].link_count;
    return n;
}

static bool link_row(const struct pna_view *v, size_t i, struct pna_row *out)
{
    const struct pna_gpu_snap *s = gpu_snap(v);
    for (size_t g = 0; s && g < s->count; g++) {
        if (i < s->gpus[g].link_count) {
            out->parent = &s->gpus[g];
            out->rec = &s->gpus[g].links[i];
            return true;
        }
        i -= s->gpus[g].link_count;
    }
    return false;
}

static const struct pna_gpu_link *link_of(const struct pna_row *r)
{
    return r->rec;
}

static const char *const state_names[] = {
    [PNA_GPU_LINK_STATE_UP] = "up", [PNA_GPU_LINK_STATE_DOWN] = "down",
};
static const struct pna_enum state_enum = PNA_ENUM(state_names);

static void get_state(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu_link *l = link_of(r);
    if (l->has_state)
        pna_value_i64(out, l->up ? PNA_GPU_LINK_STATE_UP : PNA_GPU_LINK_STATE_DOWN);
}

static const char *const remote_names[] = {
    [PNA_GPU_LINK_REMOTE_TYPE_UNKNOWN] = "unknown", [PNA_GPU_LINK_REMOTE_TYPE_GPU] = "gpu",
    [PNA_GPU_LINK_REMOTE_TYPE_NVSWITCH] = "nvswitch", [PNA_GPU_LINK_REMOTE_TYPE_CPU] = "cpu",
};
static const struct pna_enum remote_enum = PNA_ENUM(remote_names);

/* The MIB numbers the model's kinds from 1. */
static void get_remote_type(const struct pna_row *r, struct pna_value *out)
{
    pna_value_i64(out, PNA_GPU_LINK_REMOTE_TYPE_UNKNOWN + (int64_t)link_of(r)->remote_type);
}

/* "3e-12", as a rate reads; "0" when no error was seen. */
static void get_ber(const struct pna_row *r, struct pna_value *out)
{
    const struct pna_gpu_link *l = link_of(r);
    if (!l->has_ber)
        return;
    if (l->ber_mantissa == 0)
        pna_value_text(out, "0");
    else
        pna_value_printf(out, "%ue-%u", (unsigned)l->ber_mantissa, (unsigned)l->ber_exp);
}

#define U32 PNA_SYNTAX_UNSIGNED
#define C64 PNA_SYNTAX_COUNTER64
#define TEXT PNA_SYNTAX_TEXT
#define LINK(member) PNA_FIELD(struct pna_gpu_link, member)
#define LINK_IF(member, has) PNA_FIELD_IF(struct pna_gpu_link, member, has)
#define ERRORS(col, obj, member, name)                                                         \
    { .column = (col), .object = (obj), .syntax = C64, .field = LINK_IF(member, has_errors),   \
      .family = "primus_gpu_link_errors_total", .type = PNA_FAMILY_COUNTER, .label = "type",   \
      .label_value = (name), .help = "Data-link errors on the link since the driver loaded, by type" }

static const struct pna_metric link_metrics[] = {
    { .column = 2, .object = "primusGpuLinkState", .syntax = PNA_SYNTAX_INTEGER, .get = get_state,
      .enums = &state_enum, .family = "primus_gpu_link_up", .type = PNA_FAMILY_GAUGE,
      .true_value = PNA_GPU_LINK_STATE_UP, .json = "state",
      .help = "1 when the link is up, 0 when it is down" },
    { .column = 3, .object = "primusGpuLinkVersion", .syntax = U32,
      .field = LINK_IF(version, has_version), .label = "version", .json = "version" },
    { .column = 4, .object = "primusGpuLinkRemoteBusId", .syntax = TEXT, .field = LINK(remote_bus_id),
      .label = "remote_pci_bus_id", .json = "remote_pci_bus_id" },
    { .column = 5, .object = "primusGpuLinkRemoteType", .syntax = PNA_SYNTAX_INTEGER,
      .get = get_remote_type, .enums = &remote_enum, .label = "remote_type", .json = "remote_type" },
    { .column = 6, .object = "primusGpuLinkSpeed", .syntax = U32,
      .field = LINK_IF(speed_mbps, has_speed), .family = "primus_gpu_link_speed_bytes_per_second",
      .type = PNA_FAMILY_GAUGE, .scale = PNA_SCALE_E(6),
      .help = "Bandwidth of the link in each direction" },
    ERRORS(7, "primusGpuLinkReplayErrors", replay_errors, "replay"),
    ERRORS(8, "primusGpuLinkRecoveryErrors", recovery_errors, "recovery"),
    ERRORS(9, "primusGpuLinkCrcFlitErrors", crc_flit_errors, "crc_flit"),
    ERRORS(10, "primusGpuLinkCrcDataErrors", crc_data_errors, "crc_data"),
    { .column = 11, .object = "primusGpuLinkSymbolErrors", .syntax = C64,
      .field = LINK_IF(symbol_errors, has_symbol_errors),
      .family = "primus_gpu_link_symbol_errors_total", .type = PNA_FAMILY_COUNTER,
      .help = "Symbol errors on the link since the driver loaded (NVLink 5)" },
    { .column = 12, .object = "primusGpuLinkTxBytes", .syntax = C64,
      .field = LINK_IF(tx_bytes, has_traffic), .family = "primus_gpu_link_transmit_bytes_total",
      .type = PNA_FAMILY_COUNTER, .json = "tx_bytes",
      .help = "Payload bytes the GPU sent over the link since the driver loaded" },
    { .column = 13, .object = "primusGpuLinkRxBytes", .syntax = C64,
      .field = LINK_IF(rx_bytes, has_traffic), .family = "primus_gpu_link_receive_bytes_total",
      .type = PNA_FAMILY_COUNTER, .json = "rx_bytes",
      .help = "Payload bytes the GPU received over the link since the driver loaded" },
    { .column = 14, .object = "primusGpuLinkEffectiveBer", .syntax = TEXT, .get = get_ber,
      .label = "effective_ber", .json = "effective_ber" },
};

/* The GPU's key, then the link's number. */
static const struct pna_key_part link_key[] = {
    PNA_GPU_KEY_PARTS(PNA_KEY_FROM_PARENT),
    PNA_KEY_INDEX_FIELD("primusGpuLinkNumber", "link", PNA_KEY_FROM_REC, struct pna_gpu_link,
                        number),
};

const struct pna_metric_table pna_gpu_link_metrics = {
    .object = "primusGpuLinkTable",
    .kind = PNA_TABLE_ROWS,
    .domain = PNA_DOM_GPU,
    .view = PNA_VIEW_DOMAIN(PNA_DOM_GPU),
    PNA_TABLE_OID(PNA_OID_GPU, 11),
    PNA_KEY(link_key),
    .index_ordered = true,
    .metrics = link_metrics,
    .count = sizeof link_metrics / sizeof link_metrics[0],
    .rows = link_rows,
    .row = link_row,
    .info_family = "primus_gpu_link_info",
    .info_help = "One series per GPU link with its NVLink version and remote end (PCI bus id and "
                 "kind: gpu, nvswitch, cpu); always 1",
};
