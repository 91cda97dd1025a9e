/* transport/process.h -- run a command without a shell and capture its
 * standard output, bounded in time and size (the nvidia-smi fallback). */
#ifndef PNA_TRANSPORT_PROCESS_H
#define PNA_TRANSPORT_PROCESS_H

#include <stddef.h>

/* Run ARGV (ARGV[0] a path, or a name looked up in PATH) without a shell,
 * stdin and stderr on /dev/null, and capture at most MAX_BYTES of its standard
 * output into a malloc'd NUL-terminated *OUT.  The child runs in its own
 * process group; at TIMEOUT_MS the whole group is killed with SIGKILL.
 * Returns 0 when it exited with status 0, -1 with ERR otherwise (timeout, exit
 * status, signal, output too large). */
int pna_run_capture(const char *const argv[], unsigned timeout_ms, size_t max_bytes, char **out,
                    size_t *len, char *err, size_t errlen);

#endif
