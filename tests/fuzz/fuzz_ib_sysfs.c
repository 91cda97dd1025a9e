/* fuzz_ib_sysfs.c -- libFuzzer harness for the RDMA sysfs reader
 * (sources/rdma/ib_sysfs.c) and what the poller computes from it (model/ib.c).
 *
 * The input is a file tree (see fuzz.h), normally under
 * sys/class/infiniband/<dev>/ and sys/class/net/<if>/: node_type, GUIDs,
 * port state/phys_state/rate/lid/gids, counters, counters_ext, hw_counters,
 * gid_attrs/ndevs and the device's net/ links.  The tree is read twice; the
 * first reading, its counters made smaller (or larger, to look like a reset,
 * when the input's last byte is odd) and dated 1 + size % 10007 ms earlier,
 * is the previous poll of pna_ib_derive(), so widening, the congestion view
 * and the rates run on the parsed values. */
#include "pna_autoconf.h"
#include "sources/rdma/ib_sysfs.h"
#include "fuzz.h"

static uint64_t earlier(uint64_t v, bool reset)
{
    return reset ? v * 2 + 1 : v / 2;
}

static void age_model(struct pna_ib_model *m, bool reset)
{
    m->sample_mono_ms = 1000000;
    for (size_t i = 0; i < m->n_devices; i++) {
        struct pna_ib_device *d = &m->devices[i];
        for (size_t h = 0; h < d->n_hw; h++)
            d->hw[h].raw = d->hw[h].value = earlier(d->hw[h].raw, reset);
        for (size_t p = 0; p < d->n_ports; p++) {
            struct pna_ib_port *port = &d->ports[p];
            for (int c = 0; c < PNA_IBC_COUNT; c++)
                port->counters[c].value = earlier(port->counters[c].value, reset);
            for (size_t h = 0; h < port->n_hw; h++)
                port->hw[h].raw = port->hw[h].value = earlier(port->hw[h].raw, reset);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct pna_roots *roots = fz_tree_build(data, size);
    struct pna_ib_model prev, cur;
    char err[256];
    bool reset = size && (data[size - 1] & 1);
    int64_t interval_ms = 1 + (int64_t)(size % 10007);
    if (pna_ib_sysfs_read(roots, &prev, err, sizeof err) == 0) {
        age_model(&prev, reset);
        pna_ib_derive(&prev, NULL);
        if (pna_ib_sysfs_read(roots, &cur, err, sizeof err) == 0) {
            cur.sample_mono_ms = prev.sample_mono_ms + interval_ms;
            pna_ib_derive(&cur, &prev);
            pna_ib_model_free(&cur);
        }
        pna_ib_model_free(&prev);
    }
    fz_tree_clear();
    return 0;
}
