/* test_heap.c -- the agent's malloc policy (core/heap.c), as glibc applies
 * it: a table above the threshold is mapped on its own (and goes back to the
 * kernel when freed), while net-snmp's receive buffer, a fresh 64 KiB block
 * for every packet read (SNMP_MAX_RCV_MSG_SIZE), comes from the heap even
 * right after a trim.  Mapped, it cost two system calls and page faults per
 * request.  glibc counts mapped blocks in mallinfo2().hblks; where another
 * allocator stands in (a sanitizer's, valgrind's) the test skips. */
#include "pna_autoconf.h"
#include "core/heap.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#if defined(HAVE_MALLINFO2) && defined(HAVE_MALLOC_TRIM)
#include <malloc.h>

static size_t mapped_blocks(void)
{
    return mallinfo2().hblks;
}

/* Trim the heap, as the poller threads do after each publication, so that
 * no free chunk or heap top can serve SIZE (glibc only weighs the threshold
 * then); allocate SIZE bytes, touch them, and say whether that mapped a
 * block. */
static int maps(size_t size)
{
    malloc_trim(0);
    size_t before = mapped_blocks();
    char *p = malloc(size);
    if (!p)
        return -1;
    memset(p, 0x5a, size);
    int mapped = mapped_blocks() > before;
    free(p);
    return mapped;
}

int main(void)
{
    if (!pna_heap_init()) {
        printf("SKIP: the C library did not take the heap settings (another allocator)\n");
        return 77;
    }
    /* A block far above any threshold is mapped by glibc: when it is not, the
     * allocator is not glibc's and hblks says nothing. */
    if (maps(4 << 20) != 1) {
        printf("SKIP: the allocator does not report mapped blocks (not glibc's malloc)\n");
        return 77;
    }
    CHECK_INT(maps(72 * 1024), 1);   /* a table just above the threshold */
    CHECK_INT(maps(1 << 20), 1);
    /* net-snmp's receive buffer, request after request */
    for (int i = 0; i < 3; i++)
        CHECK_INT(maps(65536), 0);
    CHECK_INT(maps(32 * 1024), 0);
    UNIT_END();
}
#else
int main(void)
{
    printf("SKIP: no mallinfo2() or malloc_trim() in this C library\n");
    return 77;
}
#endif
