/* model/ib.c -- what is known about InfiniBand counters (widths, units, names),
 * and the work done on a freshly read IB model before it is published:
 * widening wrapping hw_counters, the named RoCE congestion view, and the
 * per-port rates computed against the previous poll (see model/ib.h). */
#include "pna_autoconf.h"
#include "model/ib.h"

#include <stdlib.h>
#include <string.h>

#include "model/counter.h"

/* Widths are those of the IBA PortCounters attribute (IBA 1.x vol. 1,
 * 16.1.3.5), where the counters stop at their maximum.  On current kernels the
 * data and packet files come from PortCountersExtended when the HCA has it and
 * then are 64-bit; a 32-bit data counter reading exactly 2^32-1 is still taken
 * as saturated (the 64-bit source would not sit at that value by chance for
 * longer than one poll).  The unicast/multicast counters exist only in
 * PortCountersExtended.  port_xmit_data / port_rcv_data count 4-octet words
 * (IBA: "divided by 4"); the model holds octets. */
const struct pna_ib_counter_desc pna_ib_counter_descs[PNA_IBC_COUNT] = {
    [PNA_IBC_XMIT_DATA] = { "port_xmit_data", "port_xmit_data_64", 32, 4, false },
    [PNA_IBC_RCV_DATA] = { "port_rcv_data", "port_rcv_data_64", 32, 4, false },
    [PNA_IBC_XMIT_PACKETS] = { "port_xmit_packets", "port_xmit_packets_64", 32, 1, false },
    [PNA_IBC_RCV_PACKETS] = { "port_rcv_packets", "port_rcv_packets_64", 32, 1, false },
    [PNA_IBC_UNICAST_XMIT_PACKETS] = { "unicast_xmit_packets", "port_unicast_xmit_packets", 0, 1, false },
    [PNA_IBC_UNICAST_RCV_PACKETS] = { "unicast_rcv_packets", "port_unicast_rcv_packets", 0, 1, false },
    [PNA_IBC_MULTICAST_XMIT_PACKETS] = { "multicast_xmit_packets", "port_multicast_xmit_packets", 0, 1, false },
    [PNA_IBC_MULTICAST_RCV_PACKETS] = { "multicast_rcv_packets", "port_multicast_rcv_packets", 0, 1, false },
    [PNA_IBC_SYMBOL_ERROR] = { "symbol_error", NULL, 16, 1, true },
    [PNA_IBC_LINK_ERROR_RECOVERY] = { "link_error_recovery", NULL, 8, 1, true },
    [PNA_IBC_LINK_DOWNED] = { "link_downed", NULL, 8, 1, true },
    [PNA_IBC_RCV_ERRORS] = { "port_rcv_errors", NULL, 16, 1, true },
    [PNA_IBC_RCV_REMOTE_PHYSICAL_ERRORS] = { "port_rcv_remote_physical_errors", NULL, 16, 1, true },
    [PNA_IBC_RCV_SWITCH_RELAY_ERRORS] = { "port_rcv_switch_relay_errors", NULL, 16, 1, true },
    [PNA_IBC_XMIT_DISCARDS] = { "port_xmit_discards", NULL, 16, 1, true },
    [PNA_IBC_XMIT_CONSTRAINT_ERRORS] = { "port_xmit_constraint_errors", NULL, 8, 1, true },
    [PNA_IBC_RCV_CONSTRAINT_ERRORS] = { "port_rcv_constraint_errors", NULL, 8, 1, true },
    [PNA_IBC_LOCAL_LINK_INTEGRITY_ERRORS] = { "local_link_integrity_errors", NULL, 4, 1, true },
    [PNA_IBC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = { "excessive_buffer_overrun_errors", NULL, 4, 1, true },
    [PNA_IBC_VL15_DROPPED] = { "VL15_dropped", NULL, 16, 1, true },
    [PNA_IBC_XMIT_WAIT] = { "port_xmit_wait", NULL, 32, 1, false },
    [PNA_IBC_RCV_DISCARDS] = { "port_rcv_discards", NULL, 0, 1, false },
};

const char *const pna_roce_cc_names[PNA_CC_COUNT] = {
    [PNA_CC_NP_ECN_MARKED_ROCE_PACKETS] = "np_ecn_marked_roce_packets",
    [PNA_CC_NP_CNP_SENT] = "np_cnp_sent",
    [PNA_CC_RP_CNP_HANDLED] = "rp_cnp_handled",
    [PNA_CC_RP_CNP_IGNORED] = "rp_cnp_ignored",
    [PNA_CC_OUT_OF_SEQUENCE] = "out_of_sequence",
    [PNA_CC_PACKET_SEQ_ERR] = "packet_seq_err",
    [PNA_CC_LOCAL_ACK_TIMEOUT_ERR] = "local_ack_timeout_err",
    [PNA_CC_RNR_NAK_RETRY_ERR] = "rnr_nak_retry_err",
    [PNA_CC_IMPLIED_NAK_SEQ_ERR] = "implied_nak_seq_err",
    [PNA_CC_DUPLICATE_REQUEST] = "duplicate_request",
    [PNA_CC_ROCE_ADP_RETRANS] = "roce_adp_retrans",
    [PNA_CC_ROCE_ADP_RETRANS_TO] = "roce_adp_retrans_to",
    [PNA_CC_ROCE_SLOW_RESTART] = "roce_slow_restart",
    [PNA_CC_ROCE_SLOW_RESTART_CNPS] = "roce_slow_restart_cnps",
    [PNA_CC_ROCE_SLOW_RESTART_TRANS] = "roce_slow_restart_trans",
    [PNA_CC_OUT_OF_BUFFER] = "out_of_buffer",
    [PNA_CC_RX_ICRC_ENCAPSULATED] = "rx_icrc_encapsulated",
};

/* Other drivers' names for the same events.  ionic (AMD Pensando) counts
 * CNPs and ECN marks as rdma packets and does not split handled/ignored CNPs;
 * its responder out-of-sequence counter carries the driver's own spelling. */
static const struct {
    enum pna_roce_cc cc;
    const char *name;
} cc_aliases[] = {
    { PNA_CC_NP_ECN_MARKED_ROCE_PACKETS, "rx_rdma_ecn_pkts" },
    { PNA_CC_NP_CNP_SENT, "tx_rdma_cnp_pkts" },
    { PNA_CC_RP_CNP_HANDLED, "rx_rdma_cnp_pkts" },
    { PNA_CC_OUT_OF_SEQUENCE, "resp_rx_outouf_seq" },
    { PNA_CC_PACKET_SEQ_ERR, "req_rx_pkt_seq_err" },
    { PNA_CC_RNR_NAK_RETRY_ERR, "req_rx_rnr_retry_err" },
    { PNA_CC_IMPLIED_NAK_SEQ_ERR, "req_rx_impl_nak_seq_err" },
    { PNA_CC_DUPLICATE_REQUEST, "resp_rx_dup_request" },
    { PNA_CC_OUT_OF_BUFFER, "resp_rx_outof_buf" },
};

/* mlx5 "Q counters" come from QUERY_Q_COUNTER, whose fields are 32 bits wide:
 * they wrap.  (The congestion counters np_* / rp_* and rx_icrc_encapsulated
 * come from 64-bit registers and are not in this list.)  Sorted for bsearch. */
static const char *const wraps32_names[] = {
    "duplicate_request",
    "implied_nak_seq_err",
    "local_ack_timeout_err",
    "out_of_buffer",
    "out_of_sequence",
    "packet_seq_err",
    "req_cqe_error",
    "req_cqe_flush_error",
    "req_remote_access_errors",
    "req_remote_invalid_request",
    "req_rnr_retries_exceeded",
    "req_transport_retries_exceeded",
    "resp_cqe_error",
    "resp_cqe_flush_error",
    "resp_local_length_error",
    "resp_remote_access_errors",
    "rnr_nak_retry_err",
    "roce_adp_retrans",
    "roce_adp_retrans_to",
    "roce_slow_restart",
    "roce_slow_restart_cnps",
    "roce_slow_restart_trans",
    "rx_atomic_requests",
    "rx_dct_connect",
    "rx_read_requests",
    "rx_write_requests",
};

static int cmp_name_key(const void *key, const void *elem)
{
    return strcmp((const char *)key, *(const char *const *)elem);
}

bool pna_ib_hw_wraps32(const char *name)
{
    return bsearch(name, wraps32_names, sizeof wraps32_names / sizeof wraps32_names[0],
                   sizeof wraps32_names[0], cmp_name_key) != NULL;
}

const char *pna_ib_state_name(int32_t state)
{
    static const char *const names[] = { "", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };
    return state >= 0 && state < 6 ? names[state] : "";
}

const char *pna_ib_phys_state_name(int32_t phys_state)
{
    static const char *const names[] = { "", "Sleep", "Polling", "Disabled",
                                         "PortConfigurationTraining", "LinkUp",
                                         "LinkErrorRecovery", "PhyTest" };
    return phys_state >= 0 && phys_state < 8 ? names[phys_state] : "";
}

static void free_device(struct pna_ib_device *d)
{
    for (size_t p = 0; p < d->n_ports; p++)
        free(d->ports[p].hw);
    free(d->ports);
    free(d->hw);
}

void pna_ib_model_free(struct pna_ib_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_devices; i++)
        free_device(&m->devices[i]);
    free(m->devices);
    m->devices = NULL;
    m->n_devices = 0;
}

const struct pna_ib_device *pna_ib_find_device(const struct pna_ib_model *m, const char *name)
{
    size_t lo = 0, hi = m ? m->n_devices : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, m->devices[mid].name);
        if (c == 0)
            return &m->devices[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

bool pna_ib_find_netdev(const struct pna_ib_model *m, const char *netdev,
                        const struct pna_ib_device **dev, const struct pna_ib_port **port)
{
    for (size_t i = 0; m && netdev[0] && i < m->n_devices; i++)
        for (size_t p = 0; p < m->devices[i].n_ports; p++)
            if (strcmp(m->devices[i].ports[p].netdev, netdev) == 0) {
                *dev = &m->devices[i];
                *port = &m->devices[i].ports[p];
                return true;
            }
    return false;
}

const struct pna_ib_port *pna_ib_find_port(const struct pna_ib_device *d, uint32_t num)
{
    size_t lo = 0, hi = d ? d->n_ports : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->ports[mid].num == num)
            return &d->ports[mid];
        if (num < d->ports[mid].num)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const struct pna_hw_counter *pna_ib_find_hw(const struct pna_hw_counter *hw, size_t n,
                                            const char *name)
{
    size_t lo = 0, hi = hw ? n : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, hw[mid].name);
        if (c == 0)
            return &hw[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* Carry each counter's widened value over from the previous poll. */
static void widen_hw(struct pna_hw_counter *hw, size_t n, const struct pna_hw_counter *prev_hw,
                     size_t prev_n)
{
    for (size_t i = 0; i < n; i++) {
        struct pna_hw_counter *c = &hw[i];
        const struct pna_hw_counter *p = pna_ib_find_hw(prev_hw, prev_n, c->name);
        enum pna_widen how;
        c->wraps32 = pna_ib_hw_wraps32(c->name);
        if (c->wraps32)
            how = pna_counter_widen32(p != NULL, p ? p->raw : 0, p ? p->value : 0, c->raw,
                                      &c->value);
        else
            how = pna_counter_widen64(p != NULL, p ? p->raw : 0, p ? p->value : 0, c->raw,
                                      &c->value);
        c->restarts = (p ? p->restarts : 0) + (how == PNA_WIDEN_RESTART);
    }
}

static void fill_cc(struct pna_ib_port *port)
{
    memset(port->cc, 0, sizeof port->cc);
    for (int i = 0; i < PNA_CC_COUNT; i++) {
        const struct pna_hw_counter *h =
            pna_ib_find_hw(port->hw, port->n_hw, pna_roce_cc_names[i]);
        if (h)
            port->cc[i] = (struct pna_counter){ .value = h->value, .present = true };
    }
    for (size_t a = 0; a < sizeof cc_aliases / sizeof cc_aliases[0]; a++) {
        struct pna_counter *c = &port->cc[cc_aliases[a].cc];
        if (c->present)
            continue;
        const struct pna_hw_counter *h = pna_ib_find_hw(port->hw, port->n_hw, cc_aliases[a].name);
        if (h)
            *c = (struct pna_counter){ .value = h->value, .present = true };
    }
}

static bool both_present(const struct pna_counter *a, const struct pna_counter *b)
{
    return a->present && b->present && a->value >= b->value;
}

static uint32_t utilization_cpct(uint64_t bytes_per_s, uint64_t rate_mbps)
{
    if (rate_mbps == 0)
        return 0;
    /* bytes/s * 8 bit / (rate_mbps * 10^6 bit/s) * 10^4 hundredths of a percent */
    unsigned __int128 v = (unsigned __int128)bytes_per_s * 8u / ((unsigned __int128)rate_mbps * 100u);
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void compute_rates(struct pna_ib_port *port, const struct pna_ib_port *prev,
                          int64_t interval_ms)
{
    struct pna_ib_rates *r = &port->rates;
    memset(r, 0, sizeof *r);
    if (!prev || interval_ms <= 0)
        return;
    const struct pna_counter *c = port->counters, *pc = prev->counters;
    if (!both_present(&c[PNA_IBC_RCV_DATA], &pc[PNA_IBC_RCV_DATA]) ||
        !both_present(&c[PNA_IBC_XMIT_DATA], &pc[PNA_IBC_XMIT_DATA]))
        return;
    r->valid = true;
    r->interval_ms = interval_ms;
    r->rx_bytes_per_s = pna_counter_rate(c[PNA_IBC_RCV_DATA].value - pc[PNA_IBC_RCV_DATA].value,
                                         interval_ms, 1);
    r->tx_bytes_per_s = pna_counter_rate(c[PNA_IBC_XMIT_DATA].value - pc[PNA_IBC_XMIT_DATA].value,
                                         interval_ms, 1);
    r->rx_util_cpct = utilization_cpct(r->rx_bytes_per_s, port->rate_mbps);
    r->tx_util_cpct = utilization_cpct(r->tx_bytes_per_s, port->rate_mbps);
    for (int i = 0; i < PNA_IBC_COUNT; i++) {
        if (!pna_ib_counter_descs[i].is_error || !c[i].present)
            continue;
        if (c[i].saturated)
            r->errors_saturated = true;
        if (pc[i].present)
            r->errors += pna_counter_delta(pc[i].value, c[i].value);
    }
    r->error_rate_cps = pna_counter_rate(r->errors, interval_ms, 100);
}

void pna_ib_derive(struct pna_ib_model *cur, const struct pna_ib_model *prev)
{
    int64_t interval_ms = prev ? cur->sample_mono_ms - prev->sample_mono_ms : 0;
    for (size_t i = 0; i < cur->n_devices; i++) {
        struct pna_ib_device *d = &cur->devices[i];
        const struct pna_ib_device *pd = prev ? pna_ib_find_device(prev, d->name) : NULL;
        widen_hw(d->hw, d->n_hw, pd ? pd->hw : NULL, pd ? pd->n_hw : 0);
        for (size_t p = 0; p < d->n_ports; p++) {
            struct pna_ib_port *port = &d->ports[p];
            const struct pna_ib_port *pp = pd ? pna_ib_find_port(pd, port->num) : NULL;
            widen_hw(port->hw, port->n_hw, pp ? pp->hw : NULL, pp ? pp->n_hw : 0);
            fill_cc(port);
            compute_rates(port, pp, interval_ms);
        }
    }
}
