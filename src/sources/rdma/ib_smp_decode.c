/* sources/rdma/ib_smp_decode.c -- the attribute data of the SMP replies
 * ib_smp.c asks for: NodeInfo and NodeDescription, as the neighbour sent them
 * (see ib_smp.h).  Pure functions over at most 64 octets, fuzzed by
 * tests/fuzz/fuzz_ib_smp.c. */
#include "pna_autoconf.h"
#include "sources/rdma/ib_smp.h"

#include <string.h>

/* NodeInfo (IBA vol. 1, 14.2.5.3): octet offsets in its attribute data.
 * 0 BaseVersion, 1 ClassVersion, 2 NodeType, 3 NumPorts, 4..11
 * SystemImageGUID, 12..19 NodeGUID, 20..27 PortGUID, 28..29 PartitionCap,
 * 30..31 DeviceID, 32..35 Revision, 36 LocalPortNum, 37..39 VendorID.
 * Multi-octet fields are big-endian, as everything on the wire. */
#define NODE_INFO_NODE_TYPE 2
#define NODE_INFO_NUM_PORTS 3
#define NODE_INFO_NODE_GUID 12
#define NODE_INFO_LOCAL_PORT 36
#define NODE_INFO_SIZE 40

static uint64_t be64_at(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

int pna_ib_smp_decode_node_info(const uint8_t *data, size_t len, struct pna_smp_node_info *out)
{
    if (!data || len < NODE_INFO_SIZE)
        return -1;
    uint64_t guid = be64_at(data + NODE_INFO_NODE_GUID);
    if (guid == 0)
        return -1;
    *out = (struct pna_smp_node_info){
        .node_type = data[NODE_INFO_NODE_TYPE],
        .num_ports = data[NODE_INFO_NUM_PORTS],
        .node_guid = guid,
        .local_port = data[NODE_INFO_LOCAL_PORT],
    };
    return 0;
}

static bool blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* NodeDescription (IBA vol. 1, 14.2.5.2) is 64 octets of text, padded with
 * NULs or blanks (switches pad with blanks), and UTF-8 by the standard: the
 * MIB's DisplayString is ASCII, so other octets become '?'. */
void pna_ib_smp_decode_node_desc(const uint8_t *data, size_t len, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = '\0';
    if (!data)
        return;
    if (len > PNA_SMP_DATA_SIZE)
        len = PNA_SMP_DATA_SIZE;
    const uint8_t *end = memchr(data, '\0', len);
    size_t first = 0, last = end ? (size_t)(end - data) : len;
    while (first < last && blank(data[first]))
        first++;
    while (last > first && blank(data[last - 1]))
        last--;
    size_t n = 0;
    for (size_t i = first; i < last && n + 1 < cap; i++)
        out[n++] = data[i] >= 0x20 && data[i] < 0x7f ? (char)data[i] : '?';
    while (n > 0 && out[n - 1] == ' ') /* a text cut by CAP may end in one */
        n--;
    out[n] = '\0';
}
