/* core/heap.h -- how the agent asks the C library to keep its heap small.
 *
 * The agent is a long-lived process whose pollers build a table of
 * thousands of rows, publish it and drop the previous one, every few
 * seconds, each on its own thread.  glibc's defaults suit the opposite
 * (short programs, many busy threads): one arena per thread, each keeping
 * what its last poll freed, and a threshold for mmap() that rises after
 * the first large free so that big tables end up in those arenas too.  On a
 * node with 2,000 containers that left more than half of the heap free but
 * resident.  See docs/performance.md ("Memory"). */
#ifndef PNA_CORE_HEAP_H
#define PNA_CORE_HEAP_H

#include <stdbool.h>

/* Before any thread starts: large blocks (a table) come from mmap() and go
 * back to the kernel when freed; two arenas, not one per thread.  Returns
 * false where the C library (or a sanitizer's allocator) did not take them;
 * the caller says so once logging is set up. */
bool pna_heap_init(void);

/* After a poller published: give the kernel the free pages inside the heap.
 * Cheap, and done at most once a second for the whole process. */
void pna_heap_release(void);

#endif
