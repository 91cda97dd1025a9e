/* sources/containers/cstorage_json.h -- the two JSON files of the
 * containers/storage store that CRI-O and Podman share, other than the
 * OCI spec (oci_spec.h): CRI-O's state.json of one container, and the
 * store's list of containers (containers.json), for their names.
 *
 * state.json is what CRI-O writes at every change of a container's state
 * (its oci.ContainerState: the OCI runtime state "status" and "pid", then
 * "started", "initPid", "initStartTime", "oomKilled"...).  Only those are
 * read; its "annotations" (a copy of the spec's) are not looked at.
 * containers.json is containers/storage's record of every container of a
 * graph driver: "id", "names" and "metadata", a JSON text in which Podman
 * keeps "image-name".  Nothing else of either file is read.
 *
 * Pure parsers: no file is opened here (the fuzz harness feeds them). */
#ifndef PNA_SOURCES_CSTORAGE_JSON_H
#define PNA_SOURCES_CSTORAGE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PNA_CRIO_STATE_MAX_BYTES (1u << 20)   /* a state.json larger is refused */
#define PNA_CSTORAGE_INDEX_MAX_BYTES (64u << 20)
#define PNA_CSTORAGE_INDEX_MAX_ENTRIES 65536

/* What a state.json says. */
struct pna_crio_state {
    uint8_t state;              /* enum pna_container_state; UNKNOWN when "status"
                                   is absent or not one of CRI-O's four */
    int32_t pid;                /* "initPid", else "pid"; 0 none */
    bool has_start_ticks;
    uint64_t start_ticks;       /* "initStartTime": field 22 of /proc/PID/stat when
                                   CRI-O recorded the pid (its own pid-reuse check) */
    int64_t started_ms;         /* "started", epoch ms; 0 unknown */
    bool oom_killed;            /* "oomKilled" */
};

/* Parse TEXT (LEN bytes).  Returns 0, or -1 with one line in ERR (not
 * JSON, not an object, a pid out of range) and OUT zeroed. */
int pna_crio_state_parse(const char *text, size_t len, struct pna_crio_state *out, char *err,
                         size_t errlen);

/* One container of containers.json. */
struct pna_cstorage_name {
    char *id;
    char *name;    /* its first name; NULL none */
    char *image;   /* metadata's "image-name"; NULL none */
};

struct pna_cstorage_index {
    struct pna_cstorage_name *v;   /* sorted by id */
    size_t n, cap;
};

/* Parse TEXT (LEN bytes) and add its containers to IDX (which may hold
 * another file's already; call pna_cstorage_index_sort after the last).
 * Entries without an id, and past PNA_CSTORAGE_INDEX_MAX_ENTRIES, are
 * skipped.  Returns 0, or -1 with ERR (not JSON, not an array, out of
 * memory); IDX keeps what it held. */
int pna_cstorage_index_parse(const char *text, size_t len, struct pna_cstorage_index *idx,
                             char *err, size_t errlen);
void pna_cstorage_index_sort(struct pna_cstorage_index *idx);
/* The entry of ID, or NULL (IDX sorted). */
const struct pna_cstorage_name *pna_cstorage_index_find(const struct pna_cstorage_index *idx,
                                                        const char *id);
void pna_cstorage_index_free(struct pna_cstorage_index *idx);   /* left empty */

#endif
