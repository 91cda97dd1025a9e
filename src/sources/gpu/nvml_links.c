/* sources/gpu/nvml_links.c -- a GPU's NVLinks through NVML (see nvml_priv.h).
 *
 * Links are numbered 0..NVML_NVLINK_MAX_LINKS-1; a link the GPU does not
 * have answers NOT_SUPPORTED or INVALID_ARGUMENT to nvmlDeviceGetNvLinkState
 * and is left out, so a PCIe GPU has no rows.  Error counters come from
 * nvmlDeviceGetNvLinkErrorCounter before Blackwell; NVLink 5 drops it for
 * field values, of which the symbol errors are read.  Traffic is the payload
 * data counter (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_*, KiB). */
#include "pna_autoconf.h"
#include "sources/gpu/nvml_priv.h"

#include <stdio.h>
#include <string.h>

static uint32_t remote_type(int t)
{
    switch (t) {
    case NVML_NVLINK_DEVICE_TYPE_GPU: return PNA_GPU_LINK_REMOTE_GPU;
    case NVML_NVLINK_DEVICE_TYPE_SWITCH: return PNA_GPU_LINK_REMOTE_SWITCH;
    case NVML_NVLINK_DEVICE_TYPE_IBMNPU: return PNA_GPU_LINK_REMOTE_CPU;
    default: return PNA_GPU_LINK_REMOTE_UNKNOWN;
    }
}

static void read_remote(struct dev_read *r, unsigned n, struct pna_gpu_link *l)
{
    struct pna_nvml *nv = r->nv;
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    if (!r->lost && nv->DeviceGetNvLinkRemotePciInfo &&
        pna_nvml_ok(r, nv->DeviceGetNvLinkRemotePciInfo(r->dev, n, &pci))) {
        char busid[40];
        pci.busId[sizeof pci.busId - 1] = '\0';
        snprintf(busid, sizeof busid, "%x:%02x:%02x.0", pci.domain, pci.bus & 0xff, pci.device & 0x1f);
        if (pna_gpu_canon_bus_id(pci.busId[0] ? pci.busId : busid, l->remote_bus_id,
                                 sizeof l->remote_bus_id) != 0)
            l->remote_bus_id[0] = '\0';
    }
    int type;
    if (!r->lost && nv->DeviceGetNvLinkRemoteDeviceType &&
        pna_nvml_ok(r, nv->DeviceGetNvLinkRemoteDeviceType(r->dev, n, &type)))
        l->remote_type = remote_type(type);
}

static void read_errors(struct dev_read *r, unsigned n, struct pna_gpu_link *l)
{
    struct pna_nvml *nv = r->nv;
    unsigned long long c[4];
    static const int counters[4] = { NVML_NVLINK_ERROR_DL_REPLAY, NVML_NVLINK_ERROR_DL_RECOVERY,
                                     NVML_NVLINK_ERROR_DL_CRC_FLIT, NVML_NVLINK_ERROR_DL_CRC_DATA };
    bool all = nv->DeviceGetNvLinkErrorCounter != NULL;
    for (int i = 0; i < 4 && all; i++)
        all = !r->lost && pna_nvml_ok(r, nv->DeviceGetNvLinkErrorCounter(r->dev, n, counters[i], &c[i]));
    if (all) {
        l->has_errors = true;
        l->replay_errors = c[0];
        l->recovery_errors = c[1];
        l->crc_flit_errors = c[2];
        l->crc_data_errors = c[3];
    }
    long long v;
    if (pna_nvml_field(r, NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS, n, &v) && v >= 0) {
        l->has_symbol_errors = true;
        l->symbol_errors = (uint64_t)v;
    }
    if (pna_nvml_field(r, NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER, n, &v) && v >= 0) {
        l->has_ber = true;
        l->ber_mantissa = (uint8_t)((v >> NVML_NVLINK_BER_MANTISSA_SHIFT) & NVML_NVLINK_BER_MANTISSA_WIDTH);
        l->ber_exp = (uint8_t)((v >> NVML_NVLINK_BER_EXP_SHIFT) & NVML_NVLINK_BER_EXP_WIDTH);
    }
}

static void read_link(struct dev_read *r, unsigned n, bool up, struct pna_gpu_link *l)
{
    struct pna_nvml *nv = r->nv;
    memset(l, 0, sizeof *l);
    l->number = n;
    l->has_state = true;
    l->up = up;
    unsigned int version;
    if (!r->lost && nv->DeviceGetNvLinkVersion &&
        pna_nvml_ok(r, nv->DeviceGetNvLinkVersion(r->dev, n, &version))) {
        l->has_version = true;
        l->version = version;
    }
    read_remote(r, n, l);
    long long v;
    if (pna_nvml_field(r, NVML_FI_DEV_NVLINK_GET_SPEED, n, &v) && v > 0) {
        l->has_speed = true;
        l->speed_mbps = (uint32_t)v;
    }
    read_errors(r, n, l);
    long long tx, rx;
    if (pna_nvml_field(r, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, n, &tx) &&
        pna_nvml_field(r, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, n, &rx) && tx >= 0 && rx >= 0) {
        l->has_traffic = true;
        l->tx_bytes = (uint64_t)tx * 1024;
        l->rx_bytes = (uint64_t)rx * 1024;
    }
}

void pna_nvml_read_links(struct dev_read *r, struct pna_gpu *g)
{
    struct pna_nvml *nv = r->nv;
    g->link_count = 0;
    if (!nv->DeviceGetNvLinkState)
        return;
    for (unsigned n = 0; n < NVML_NVLINK_MAX_LINKS && n < PNA_GPU_MAX_LINKS && !r->lost; n++) {
        int state = NVML_FEATURE_DISABLED;
        nvmlReturn_t rc = nv->DeviceGetNvLinkState(r->dev, n, &state);
        if (!pna_nvml_ok(r, rc))
            continue; /* the GPU has no such link */
        read_link(r, n, state == NVML_FEATURE_ENABLED, &g->links[g->link_count++]);
    }
}
