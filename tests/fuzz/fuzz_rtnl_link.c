/* fuzz_rtnl_link.c -- libFuzzer harness for the rtnetlink link message parser,
 * pna_rtnl_link_parse() (sources/rdma/rtnl_link.c).  The input is one
 * datagram as the link watcher's socket receives it: netlink messages back to
 * back, parsed one after the other as watchers/link_watch.c does (seeds: the
 * kernel's messages captured in tests/fixtures/rtnl/).  Besides the
 * sanitizers, the harness checks the parser's promises and aborts when one is
 * broken: a length that is -EBADMSG (with a reason, no interface) or within the
 * data and past the header, a link message with an interface index above 0
 * and no reason, and a NUL-terminated interface name. */
#include "pna_autoconf.h"
#include "sources/rdma/rtnl_link.h"
#include "fuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    while (off < size) {
        struct pna_rtnl_link l;
        long used = pna_rtnl_link_parse(data + off, size - off, &l);
        size_t error_len = strnlen(l.error, sizeof l.error);
        if (error_len == sizeof l.error || strnlen(l.ifname, sizeof l.ifname) == sizeof l.ifname)
            abort(); /* not NUL-terminated */
        if (used < 0) {
            if (used != -EBADMSG || error_len == 0 || l.ifindex != 0)
                abort();
            break;
        }
        if (used < 16 || (size_t)used > size - off || error_len != 0 || l.ifindex < 0)
            abort();
        (void)pna_rtnl_link_up(&l);
        off += (size_t)used;
    }
    return 0;
}
