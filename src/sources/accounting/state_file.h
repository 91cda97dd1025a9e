/* sources/accounting/state_file.h -- the accounting ledger's state file
 * (accountingStateFile): the last figures of every row, pod and job, and the
 * GPU counters they were taken against, so the counters survive a restart.
 *
 * JSON (jansson), written to a temporary file beside it, flushed and renamed
 * over it: a reader sees the old file or the new one, never half of either.
 * "clean" says the agent wrote it as it stopped: the figures are the last it
 * served, so they carry on; a file written during the run (then SIGKILL, a
 * crash) holds figures older than those served, so they carry on with a new
 * discontinuity time. */
#ifndef PNA_SOURCES_ACCOUNTING_STATE_FILE_H
#define PNA_SOURCES_ACCOUNTING_STATE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/accounting/usage.h"

#define PNA_USAGE_STATE_MAX_BYTES (16u << 20)   /* larger is refused as corrupt */

/* Write L to PATH (CLEAN: at shutdown), stamped SAVED_MS.  Returns 0, or -1
 * with WHY filled. */
int pna_usage_state_write(const char *path, const struct pna_usage_ledger *l, bool clean,
                          int64_t saved_ms, char *why, size_t cap);

/* Parse TEXT (LEN bytes) into an empty ledger L; *CLEAN as written.
 * Returns 0, or -1 with WHY filled and L left empty. */
int pna_usage_state_parse(const char *text, size_t len, struct pna_usage_ledger *l, bool *clean,
                          char *why, size_t cap);

/* Read PATH into L.  Returns 0, 1 when there is no file, or -1 with WHY. */
int pna_usage_state_read(const char *path, struct pna_usage_ledger *l, bool *clean, char *why,
                         size_t cap);

#endif
