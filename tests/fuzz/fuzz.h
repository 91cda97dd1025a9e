/* fuzz.h -- what every fuzzing harness shares.
 *
 * Each tests/fuzz/fuzz_<name>.c exports LLVMFuzzerTestOneInput() for one
 * parser of outside input.  The same file is linked two ways:
 *   - with clang -fsanitize=fuzzer,address,undefined (make fuzz, run.sh):
 *     a libFuzzer binary that explores new inputs;
 *   - with the normal compiler and tests/fuzz/replay.c (make check): a
 *     program that feeds every file of its seed corpus to the harness once,
 *     so a regression input keeps being checked without clang.
 *
 * Rules for a harness: deterministic (the same input takes the same path),
 * frees everything it allocates, writes only under fz_tmpdir() and removes
 * what it wrote before returning, and accepts any byte sequence.
 *
 * Tree inputs.  Collectors that walk a directory (sysfs, procfs, a containerd
 * state directory, /dev/dri/by-path) are fed a small file tree described by
 * the input as text records:
 *
 *     === sys/class/infiniband/mlx5_0/ports/1/state
 *     4: ACTIVE
 *     === dev/dri/by-path/pci-0000:03:00.0-card -> ../card0
 *
 * A record is a line "=== PATH" followed by the file's bytes up to the next
 * "\n=== " (that newline belongs to the file; the last record ends at the end
 * of the input, so a file without a final newline can be written too), or a
 * line "=== PATH -> TARGET", a symbolic link.  PATH is relative to the tree;
 * its first component picks the root it lands in: sys, proc, dev or root (the
 * roots given to the collector).  Components are 1-64 characters of
 * [A-Za-z0-9._:,+=@-], never "." or ".."; a link's target must stay inside the
 * tree.  Anything else is skipped, so every input is a valid tree. */
#ifndef PNA_FUZZ_H
#define PNA_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "core/roots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated malloc'd copy of DATA (aborts when memory runs out: a
 * harness has no better answer). */
char *fz_cstr(const uint8_t *data, size_t size);

/* This process's scratch directory (created on first use under $TMPDIR or
 * /tmp, removed with everything in it at exit). */
const char *fz_tmpdir(void);

/* Write DATA to fz_tmpdir()/NAME; returns the path (static storage). */
const char *fz_write_file(const char *name, const uint8_t *data, size_t size);

/* Remove PATH and everything under it (links are removed, not followed). */
void fz_rm_rf(const char *path);

/* Build the tree an input describes (see above) and return its roots;
 * fz_tree_clear() removes it again.  The tree's root path is longer than 128
 * bytes on purpose: pna_pciids_name() caches names per rootfs path shorter than
 * that, and a cache hit would make one run depend on the runs before it. */
const struct pna_roots *fz_tree_build(const uint8_t *data, size_t size);
void fz_tree_clear(void);

/* Split DATA at the first occurrence of SEP: *A_LEN bytes before it, and the
 * rest after it in *B / *B_LEN (empty when SEP does not occur). */
void fz_split(const uint8_t *data, size_t size, const char *sep, size_t *a_len,
              const uint8_t **b, size_t *b_len);

#endif
