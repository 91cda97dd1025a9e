/* model/metric.h -- one descriptor per served value.
 *
 * Every figure the agent serves is described once, by a `struct pna_metric`
 * next to the model it reads (src/model/<domain>_metrics.c): which field of
 * the row's record backs it (or the function that computes it, with its
 * fallback order written there), the MIB column and syntax that carry it over
 * SNMP, the Prometheus family, type, scale and help text that carry it over
 * /metrics, and its JSON member.  A table of rows (primusGpuTable) or a group
 * of scalars (primusCpu: one row) is a `struct pna_metric_table`: its
 * descriptors and how to find its rows in a view of the cache.
 *
 * The SNMP front end (src/snmp/) and the bridge's renderers (src/http/) walk
 * these tables and read every value through pna_metric_value(): neither
 * decides which counter backs a column, so the two cannot disagree.  Adding a
 * counter to an existing table is one descriptor plus its MIB object.
 *
 * Units: a value is in the MIB object's units (what SNMP answers); the
 * Prometheus and JSON values are that value times their scale, so the help
 * text can name the MIB object with the conversion ("primusGpuPowerDraw /
 * 1000").  Plain data: nothing here knows net-snmp, libmicrohttpd or jansson. */
#ifndef PNA_MODEL_METRIC_H
#define PNA_MODEL_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/view.h"
#include "model/counter.h"

/* ---- values ----------------------------------------------------------------- */

enum pna_value_state {
    PNA_ABSENT = 0,   /* the source does not offer it: SNMP noSuchInstance, no sample */
    PNA_NONE,         /* known to be nothing (no rate before a second poll, no limit):
                         SNMP answers the MIB's stand-in, 0 or "" as its DESCRIPTION
                         says; Prometheus has no sample; JSON null */
    PNA_PRESENT,
};

/* One value, filled by pna_metric_value().  TEXT points into the snapshot the
 * row came from, at a static string, or at BUF. */
struct pna_value {
    uint8_t state;           /* enum pna_value_state */
    bool is_signed;          /* I holds it; else U */
    bool is_text;            /* TEXT/LEN hold it */
    uint64_t u;
    int64_t i;
    const char *text;
    size_t len;
    char buf[64];
};

void pna_value_u64(struct pna_value *v, uint64_t u);
void pna_value_i64(struct pna_value *v, int64_t i);
void pna_value_text(struct pna_value *v, const char *s);  /* NUL-terminated, not copied */
void pna_value_none(struct pna_value *v);                 /* the MIB's stand-in */
/* Text formatted into V's own buffer. */
void pna_value_printf(struct pna_value *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- where a value is read -------------------------------------------------- */

enum pna_field_type {
    PNA_FIELD_NONE = 0,      /* the descriptor has a get() function instead */
    PNA_FIELD_U8,
    PNA_FIELD_U32,
    PNA_FIELD_U64,
    PNA_FIELD_I32,
    PNA_FIELD_I64,
    PNA_FIELD_BOOL,          /* 0 or 1 */
    PNA_FIELD_TEXT,          /* a char array, NUL-terminated */
    PNA_FIELD_TEXT_REF,      /* a const char * to a NUL-terminated string (NULL: absent) */
    PNA_FIELD_COUNTER,       /* a struct pna_counter: its own presence flag */
};

enum pna_field_when {
    PNA_WHEN_ALWAYS = 0,
    PNA_WHEN_FLAG,           /* present when the bool at FLAG (a has_* member) is true */
    PNA_WHEN_NONZERO,        /* absent when 0 (or "" for text) */
};

/* A member of the row's record (struct pna_row.rec), by offset: the value is
 * described beside the field it reads, as the kernel's ethtool string tables
 * name each statistic beside its offset. */
struct pna_field {
    uint8_t type;            /* enum pna_field_type */
    uint8_t when;            /* enum pna_field_when */
    uint32_t offset;
    uint32_t flag;           /* offset of the has_* flag (PNA_WHEN_FLAG) */
};

/* The field type of a member, from its C type. */
#define PNA_FIELD_TYPE_OF(rec, member)                                                   \
    _Generic(((rec *)0)->member,                                                         \
        uint8_t: PNA_FIELD_U8, uint32_t: PNA_FIELD_U32, uint64_t: PNA_FIELD_U64,         \
        int32_t: PNA_FIELD_I32, int64_t: PNA_FIELD_I64, bool: PNA_FIELD_BOOL,            \
        char *: PNA_FIELD_TEXT, /* a char array: decayed */                             \
        const char *: PNA_FIELD_TEXT_REF,                                                \
        struct pna_counter: PNA_FIELD_COUNTER)

/* MEMBER of REC, always present. */
#define PNA_FIELD(rec, member) \
    { PNA_FIELD_TYPE_OF(rec, member), PNA_WHEN_ALWAYS, offsetof(rec, member), 0 }
/* MEMBER of REC, present when the bool HAS is true. */
#define PNA_FIELD_IF(rec, member, has) \
    { PNA_FIELD_TYPE_OF(rec, member), PNA_WHEN_FLAG, offsetof(rec, member), offsetof(rec, has) }
/* MEMBER of REC, absent when 0 or "". */
#define PNA_FIELD_NZ(rec, member) \
    { PNA_FIELD_TYPE_OF(rec, member), PNA_WHEN_NONZERO, offsetof(rec, member), 0 }

/* ---- how it is served ----------------------------------------------------- */

/* The syntax of the MIB object, as the SNMP front end encodes it. */
enum pna_syntax {
    PNA_SYNTAX_NONE = 0,     /* not in the MIB: a bridge-only value */
    PNA_SYNTAX_INTEGER,      /* Integer32, enumerations, InterfaceIndexOrZero */
    PNA_SYNTAX_UNSIGNED,     /* Unsigned32, Gauge32 */
    PNA_SYNTAX_COUNTER32,
    PNA_SYNTAX_COUNTER64,    /* Counter64, CounterBasedGauge64 */
    PNA_SYNTAX_TEXT,         /* OCTET STRING, DisplayString */
    PNA_SYNTAX_TRUTH,        /* TruthValue: the value is 0 or 1, SNMP says false(2) or true(1) */
};

/* The Prometheus family that serves it. */
enum pna_family_type {
    PNA_FAMILY_NONE = 0,     /* not on /metrics as a family (maybe as a label, see LABEL) */
    PNA_FAMILY_GAUGE,
    PNA_FAMILY_COUNTER,      /* the name ends in "_total" */
    PNA_FAMILY_UNTYPED,
    PNA_FAMILY_STATESET,     /* one series per enumeration label (label LABEL), 1 for the value's */
    PNA_FAMILY_STATE,        /* one series carrying the value's enumeration label as LABEL, 1 */
};

/* VALUE x MUL x 10^EXP10; MUL 0 means 1, so a zeroed scale is the identity. */
struct pna_scale {
    int32_t mul;
    int8_t exp10;
};
#define PNA_SCALE_E(e) { 0, (e) }
#define PNA_SCALE_MUL(m) { (m), 0 }

/* Labels of an enumeration, by value, in the MIB's spelling (value 0 has none). */
struct pna_enum {
    size_t count;
    const char *const *names;
};
#define PNA_ENUM(names) { sizeof(names) / sizeof((names)[0]), (names) }

enum pna_metric_flags {
    PNA_METRIC_IDENTITY = 1u << 0,  /* kept while the row's figures are gone (a lost GPU) */
    PNA_METRIC_JSON_BOOL = 1u << 1, /* a 0/1 value that JSON shows as false/true */
};

struct pna_row;

struct pna_metric {
    /* The value: FIELD of the row's record, or GET when the field cannot say
     * it (a fallback order, a sum, a join); clamped to MAX (the MIB range's
     * upper bound; 0: none) for every front end alike. */
    struct pna_field field;
    void (*get)(const struct pna_row *row, struct pna_value *out);
    uint64_t max;
    unsigned flags;                 /* enum pna_metric_flags */
    const struct pna_enum *enums;   /* an enumeration's labels */

    /* SNMP: the column of the table's entry (or the scalar's sub-identifier
     * under its group); 0 when the MIB has no such object. */
    unsigned column;
    const char *object;             /* the MIB object: "primusGpuPowerDraw" */
    uint8_t syntax;                 /* enum pna_syntax */

    /* Prometheus: FAMILY (a full name) of TYPE, the value times SCALE; or,
     * with LABEL and no FAMILY, a label of the table's info series.  With a
     * family, LABEL names the label a state set or state family puts the
     * enumeration's labels in, or, with LABEL_VALUE, a label that is
     * constant for this descriptor (consecutive descriptors of one family
     * then differ in it).  With TRUE_VALUE, the sample is 1 when the value
     * equals it and 0 otherwise (an enumeration served as a 0/1 gauge). */
    const char *family;
    uint8_t type;                   /* enum pna_family_type */
    struct pna_scale scale;
    uint8_t true_value;
    const char *label;
    const char *label_value;
    const char *help;               /* what it is; the MIB reference is added */

    /* JSON: member JSON of the endpoints that carry it, the value times JSON_SCALE. */
    const char *json;
    struct pna_scale json_scale;
};

/* ---- rows and tables ---------------------------------------------------- */

/* One row of a table: the records its fields and its key are read from. */
struct pna_row {
    const void *rec;                /* the record FIELDs are read from */
    const void *parent;             /* the record that holds REC (a port's device, a
                                       link's GPU), or NULL */
    uint32_t key_number;            /* a number of the row's key that no record holds
                                       (a PFC priority, a module lane, a counter's port) */
    size_t pos;                     /* its position in the table */
    const struct pna_view *view;    /* the snapshots the answer is built from */
};

/* ---- a row's key ------------------------------------------------------------ */

/* What identifies a row, declared once with the table, as Prometheus's
 * NewDesc(name, help, labels) declares labels with the value: the SNMP
 * engine encodes and decodes the row index from it, the bridge's renderers
 * take the row's identity labels from it.
 *
 * A part is a number or a string.  A number is one sub-identifier of the
 * index; a string is its length then one sub-identifier per octet (SMIv2's
 * non-IMPLIED OCTET STRING).  A part may be in the index only (primusGpuIndex,
 * the PCI key: no label), a label only (the GPU's uuid), or both (an RDMA
 * device's name, label "device").  Labels read through a join of another
 * domain (the pod holding a GPU) come after the parts': the key names them
 * and one function fills them all, so the join is made once per row; they
 * are left out where a series carries the row's own identity alone
 * (primus_gpu_holder_info). */
enum pna_key_use {
    PNA_KEY_INDEX = 1u << 0,        /* a part of the SNMP row index */
    PNA_KEY_LABEL = 1u << 1,        /* a Prometheus label (LABEL) */
};

enum pna_key_from {
    PNA_KEY_FROM_REC = 0,           /* FIELD of the row's record, or GET on it */
    PNA_KEY_FROM_PARENT,            /* FIELD of the row's parent, or GET on it */
    PNA_KEY_FROM_NUMBER,            /* the row's key_number */
};

struct pna_key_part {
    const char *label;              /* Prometheus label (and JSON member); NULL: none */
    const char *object;             /* the MIB's index object, for an index part */
    uint8_t use;                    /* enum pna_key_use bits */
    uint8_t from;                   /* enum pna_key_from */
    bool is_text;                   /* a string; else a number */
    struct pna_field field;         /* what it reads, or ... */
    /* ... GET's value of RECORD, which is the row's record or its parent (FROM). */
    void (*get)(const struct pna_row *row, const void *record, struct pna_value *out);
};

/* Whether member MEMBER of REC is a string. */
#define PNA_KEY_IS_TEXT_OF(rec, member) \
    (PNA_FIELD_TYPE_OF(rec, member) == PNA_FIELD_TEXT || \
     PNA_FIELD_TYPE_OF(rec, member) == PNA_FIELD_TEXT_REF)

/* An index part read from MEMBER of REC, the MIB's index object OBJECT, also
 * served as label LABEL (NULL: none); FROM says whose record REC is. */
#define PNA_KEY_INDEX_FIELD(object_, label_, from_, rec, member)                             \
    { .label = (label_), .object = (object_),                                                \
      .use = PNA_KEY_INDEX | ((label_) ? PNA_KEY_LABEL : 0), .from = (from_),                \
      .is_text = PNA_KEY_IS_TEXT_OF(rec, member), .field = PNA_FIELD(rec, member) }
/* An index part that is the row's key_number. */
#define PNA_KEY_INDEX_NUMBER(object_, label_)                                                \
    { .label = (label_), .object = (object_),                                                \
      .use = PNA_KEY_INDEX | ((label_) ? PNA_KEY_LABEL : 0), .from = PNA_KEY_FROM_NUMBER }
/* A label only, read from MEMBER of REC. */
#define PNA_KEY_LABEL_FIELD(label_, from_, rec, member)                                      \
    { .label = (label_), .use = PNA_KEY_LABEL, .from = (from_),                              \
      .is_text = PNA_KEY_IS_TEXT_OF(rec, member), .field = PNA_FIELD(rec, member) }
/* A label only, computed by GET (IS_TEXT: a string). */
#define PNA_KEY_LABEL_GET(label_, from_, is_text_, get_)                                     \
    { .label = (label_), .use = PNA_KEY_LABEL, .from = (from_), .is_text = (is_text_),        \
      .get = (get_) }

#define PNA_KEY_JOIN_MAX 4

struct pna_key {
    size_t count;
    const struct pna_key_part *parts;
    /* Labels joined from other domains, after the parts' (NULL-terminated
     * names, at most PNA_KEY_JOIN_MAX); JOIN fills their values for ROW,
     * pointers into the view's snapshots or static text ("" when none). */
    const char *const *join_labels;
    void (*join)(const struct pna_row *row, const char **values);
};
#define PNA_KEY(parts_) .key = { sizeof(parts_) / sizeof((parts_)[0]), (parts_), NULL, NULL }
#define PNA_KEY_JOINED(parts_, labels_, join_) \
    .key = { sizeof(parts_) / sizeof((parts_)[0]), (parts_), (labels_), (join_) }

/* Part P of ROW's key: a number (U) or text (TEXT/LEN); absent when the
 * record has none (a row without its parent). */
void pna_key_read(const struct pna_key_part *p, const struct pna_row *row, struct pna_value *out);

/* ---- tables ----------------------------------------------------------------- */

/* Sub-identifiers one row index may have: an OID has at most 128 (net-snmp's
 * MAX_OID_LEN), and the deepest table's entry.column prefix takes 14. */
#define PNA_KEY_INDEX_MAX 114

/* The OID of a table or scalar group, its sub-identifiers from the
 * enterprise root on: a group of model/oids.h and the table's number in it,
 * e.g. PNA_TABLE_OID(PNA_OID_GPU, 14). */
#define PNA_TABLE_OID(...)                                                                    \
    .oid = (const uint32_t[]){ __VA_ARGS__ },                                                 \
    .oid_len = sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t)

enum pna_table_kind {
    PNA_TABLE_ROWS,                 /* a conceptual table: columns under <table>.1 */
    PNA_TABLE_SCALARS,              /* a group of scalars: one row, <group>.<subid>.0 */
};

struct pna_metric_table {
    const char *object;             /* "primusGpuTable", or the group "primusCpu" */
    uint8_t kind;                   /* enum pna_table_kind */
    int8_t domain;                  /* enum pna_domain of its rows; PNA_DOM_NONE: agent state */
    uint32_t view;                  /* what a view must hold to answer it (PNA_VIEW_* bits):
                                       its domain and the domains its joins read */
    const uint32_t *oid;            /* the table (or group) OID: PNA_TABLE_OID() */
    size_t oid_len;
    struct pna_key key;             /* a table's row key (a scalar group has none) */
    bool index_ordered;             /* rows() come in index order already (skip the sort) */
    const struct pna_metric *metrics;
    size_t count;
    size_t (*rows)(const struct pna_view *v);
    /* Row I; false when the row cannot be shown (an identity outside the
     * MIB's SIZE): it then has no cells anywhere. */
    bool (*row)(const struct pna_view *v, size_t i, struct pna_row *out);
    /* Optional: the row's figures are gone (a GPU that fell off the bus):
     * only PNA_METRIC_IDENTITY metrics keep their values. */
    bool (*figures_gone)(const struct pna_row *row);
    /* The info series: one per row, always 1, whose labels are the row's own
     * and every metric with LABEL (no family); NULL: none. */
    const char *info_family;
    const char *info_help;
};

/* Row I of T in view V, its position and view filled in; false when the row
 * cannot be shown (it then has no cells anywhere). */
bool pna_metric_row(const struct pna_metric_table *t, const struct pna_view *v, size_t i,
                    struct pna_row *out);

/* The value of M in ROW of table T. */
void pna_metric_value(const struct pna_metric_table *t, const struct pna_metric *m,
                      const struct pna_row *row, struct pna_value *out);

/* The metric of column (or scalar sub-identifier) COL of T, or NULL. */
const struct pna_metric *pna_metric_by_column(const struct pna_metric_table *t, unsigned col);
/* The metric of MIB object OBJECT in T, or NULL. */
const struct pna_metric *pna_metric_by_object(const struct pna_metric_table *t,
                                              const char *object);
/* The metric of T whose MIB object or, without one, whose family is NAME. */
const struct pna_metric *pna_metric_by_name(const struct pna_metric_table *t, const char *name);

/* The enumeration label of V under M ("" when M has none for it). */
const char *pna_metric_enum_name(const struct pna_metric *m, const struct pna_value *v);

/* V as label text: text as it is, an enumeration's label (M's; M may be
 * NULL: a key part, which has none), a number in decimal; "" when absent or
 * none.  Returns BUF or the value's own text. */
const char *pna_metric_label_text(const struct pna_metric *m, const struct pna_value *v,
                                  char *buf, size_t cap);

/* The family's HELP line: the descriptor's text and, for a MIB object, the
 * object with the scale that turns its value into the family's
 * ("Power drawn by the board (primusGpuPowerDraw / 1000)."). */
void pna_metric_help(const struct pna_metric *m, char *buf, size_t cap);

/* 10^E, for applying a scale's exponent (E <= 19). */
uint64_t pna_pow10(unsigned e);

/* The scale as text (" / 1000", " x 1000000", ""), for help and docs. */
void pna_scale_text(struct pna_scale s, char *buf, size_t cap);

/* Every table of served values, NULL-terminated (model/metric_tables.c): what
 * both front ends serve, the catalogue and the tests walk. */
extern const struct pna_metric_table *const pna_metric_tables[];

#endif
