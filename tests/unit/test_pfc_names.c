/* test_pfc_names.c -- pause/PFC name mapping on recorded `ethtool -S` output
 * (mlx5_core ConnectX-4 Lx, ionic Pollara PF and VF), on the documented mlx5
 * per-priority names, and the rate / storm rules. */
#include "pna_autoconf.h"
#include "sources/pfc/pfc_names.h"

#include <ctype.h>
#include <limits.h>

#include "unit.h"

/* Parse `name: value` lines (with or without ethtool's "NIC statistics:"
 * header and indentation) into a malloc'd array. */
static size_t load_stats(const char *rel, struct pna_eth_stat **out)
{
    char path[PATH_MAX], line[256];
    snprintf(path, sizeof path, "%s/%s", unit_fixtures(), rel);
    FILE *f = fopen(path, "r");
    size_t n = 0, cap = 1024;
    struct pna_eth_stat *v = calloc(cap, sizeof *v);
    if (!f || !v) {
        fprintf(stderr, "cannot read %s\n", path);
        if (f)
            fclose(f);
        *out = v;
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        char *colon = strstr(s, ": ");
        if (!colon || strncmp(s, "NIC statistics", 14) == 0)
            continue;
        *colon = '\0';
        if (n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
        }
        if (strlen(s) >= sizeof v[n].name)
            continue; /* not an ethtool name: at most 32 characters */
        memcpy(v[n].name, s, strlen(s) + 1);
        v[n].value = strtoull(colon + 2, NULL, 10);
        n++;
    }
    fclose(f);
    *out = v;
    return n;
}

static uint64_t stat_value(const struct pna_eth_stat *v, size_t n, const char *name, bool *found)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0) {
            *found = true;
            return v[i].value;
        }
    *found = false;
    return 0;
}

/* Every statistic is kept, in file order, with its mapping noted; a mapped
 * one also fills its slot with the file's value. */
static void check_every_stat_placed(const struct pna_pfc_if *pif, const struct pna_eth_stat *v,
                                    size_t n)
{
    CHECK_U64(pif->n_stats, n);
    CHECK_INT(pif->duplicates, 0);
    for (size_t i = 0; i < n && i < pif->n_stats; i++) {
        const struct pna_eth_stat *k = &pif->stats[i];
        struct pna_pfc_slot slot;
        enum pna_pfc_map_kind kind = pna_pfc_map_name(v[i].name, &slot);
        CHECK_STR(k->name, v[i].name);
        CHECK_U64(k->value, v[i].value);
        CHECK_INT(k->map_kind, kind);
        if (kind == PNA_PFC_MAP_IF) {
            CHECK_INT(k->map_field, slot.field);
            CHECK(pif->f[slot.field].present);
            CHECK_U64(pif->f[slot.field].value, v[i].value);
        } else if (kind == PNA_PFC_MAP_PRIO) {
            CHECK_INT(k->map_field, slot.field);
            CHECK_INT(k->map_prio, slot.prio);
            CHECK(pif->prio[slot.prio][slot.field].present);
            CHECK_U64(pif->prio[slot.prio][slot.field].value, v[i].value);
        }
    }
}

static void test_mlx5_capture(void)
{
    struct pna_eth_stat *v;
    size_t n = load_stats("ethtool/ethq-mlx5_core-connectx4lx.txt", &v);
    CHECK_U64(n, 751);
    struct pna_pfc_if pif;
    memset(&pif, 0, sizeof pif);
    CHECK_INT(pna_pfc_fill(&pif, v, n), 0);
    check_every_stat_placed(&pif, v, n);

    bool found;
    CHECK(pif.f[PNA_PFC_RX_PAUSE_CTRL_PHY].present);
    CHECK_U64(pif.f[PNA_PFC_RX_PAUSE_CTRL_PHY].value, stat_value(v, n, "rx_pause_ctrl_phy", &found));
    CHECK(pif.f[PNA_PFC_RX_PAUSE].present);               /* rx_global_pause */
    CHECK(pif.f[PNA_PFC_RX_PAUSE_TRANSITION].present);    /* rx_global_pause_transition */
    CHECK(pif.f[PNA_PFC_TX_PAUSE_DURATION_US].present);   /* tx_global_pause_duration */
    CHECK(pif.f[PNA_PFC_RX_DISCARDS_PHY].present);
    CHECK(pif.f[PNA_PFC_RX_OUT_OF_BUFFER].present);
    CHECK(!pif.f[PNA_PFC_STORM_WARNING_EVENTS].present);  /* not in this firmware's list */
    CHECK(!pif.f[PNA_PFC_RX_PFC_FRAMES].present);
    /* global pause only: no per-priority pause counters, traffic on prio 0 */
    for (int p = 0; p < PNA_PFC_PRIOS; p++) {
        CHECK(!pif.prio[p][PNA_PFCP_RX_PAUSE].present);
        CHECK(pif.prio[p][PNA_PFCP_RX_BYTES].present);
        CHECK(pif.prio[p][PNA_PFCP_TX_PACKETS].present);
    }
    CHECK_U64(pif.prio[0][PNA_PFCP_RX_BYTES].value, UINT64_C(2202570777997));
    CHECK_U64(pif.prio[0][PNA_PFCP_TX_PACKETS].value, UINT64_C(896117891));
    CHECK_U64(pif.prio[5][PNA_PFCP_RX_BYTES].value, 0);
    /* per-ring counters and totals stay generic */
    bool rx0_packets_generic = false;
    for (size_t i = 0; i < pif.n_stats; i++)
        if (strcmp(pif.stats[i].name, "rx0_packets") == 0)
            rx0_packets_generic = pif.stats[i].map_kind == PNA_PFC_MAP_NONE;
    CHECK(rx0_packets_generic);
    uint64_t frames;
    CHECK(pna_pfc_pause_frames(&pif, false, &frames)); /* rx_pause_ctrl_phy */
    CHECK_U64(frames, stat_value(v, n, "rx_pause_ctrl_phy", &found));
    pna_pfc_if_clear(&pif);
    free(v);
}

static void test_ionic_capture(const char *rel, size_t expect_n, uint64_t octets_rx_ok)
{
    struct pna_eth_stat *v;
    size_t n = load_stats(rel, &v);
    CHECK_U64(n, expect_n);
    struct pna_pfc_if pif;
    memset(&pif, 0, sizeof pif);
    CHECK_INT(pna_pfc_fill(&pif, v, n), 0);
    check_every_stat_placed(&pif, v, n);
    bool found;
    CHECK(pif.f[PNA_PFC_RX_PAUSE].present);       /* frames_rx_pause */
    CHECK(pif.f[PNA_PFC_TX_PFC_FRAMES].present);  /* frames_tx_pripause */
    for (int p = 0; p < PNA_PFC_PRIOS; p++) {
        char name[40];
        snprintf(name, sizeof name, "frames_rx_pri_%d", p);
        CHECK(pif.prio[p][PNA_PFCP_RX_PACKETS].present);
        CHECK_U64(pif.prio[p][PNA_PFCP_RX_PACKETS].value, stat_value(v, n, name, &found));
        snprintf(name, sizeof name, "tx_pripause_%d_1us_count", p);
        CHECK(pif.prio[p][PNA_PFCP_TX_PAUSE_DURATION_US].present == found);
        CHECK(!pif.prio[p][PNA_PFCP_RX_PAUSE].present); /* ionic has no per-priority frame count */
    }
    uint64_t frames;
    CHECK(pna_pfc_pause_frames(&pif, true, &frames));
    CHECK_U64(frames, stat_value(v, n, "frames_tx_pause", &found) +
                          stat_value(v, n, "frames_tx_pripause", &found));
    /* 64-bit octet counters are kept, unmapped */
    bool octets = false;
    for (size_t i = 0; i < pif.n_stats; i++)
        if (strcmp(pif.stats[i].name, "octets_rx_ok") == 0 && pif.stats[i].value == octets_rx_ok)
            octets = pif.stats[i].map_kind == PNA_PFC_MAP_NONE;
    CHECK(octets);
    pna_pfc_if_clear(&pif);
    free(v);
}

/* mlx5 names with PFC on (counters.rst): no attributable capture exists, so
 * the documented names are checked one by one. */
static void test_mlx5_documented_names(void)
{
    static const struct {
        const char *name;
        enum pna_pfc_map_kind kind;
        int field, prio;
    } cases[] = {
        { "rx_prio3_pause", PNA_PFC_MAP_PRIO, PNA_PFCP_RX_PAUSE, 3 },
        { "rx_prio3_pause_duration", PNA_PFC_MAP_PRIO, PNA_PFCP_RX_PAUSE_DURATION_US, 3 },
        { "rx_prio3_pause_transition", PNA_PFC_MAP_PRIO, PNA_PFCP_RX_PAUSE_TRANSITION, 3 },
        { "tx_prio7_pause", PNA_PFC_MAP_PRIO, PNA_PFCP_TX_PAUSE, 7 },
        { "tx_prio0_pause_duration", PNA_PFC_MAP_PRIO, PNA_PFCP_TX_PAUSE_DURATION_US, 0 },
        { "rx_prio4_discards", PNA_PFC_MAP_PRIO, PNA_PFCP_RX_DISCARDS, 4 },
        { "tx_pause_storm_warning_events", PNA_PFC_MAP_IF, PNA_PFC_STORM_WARNING_EVENTS, 0 },
        { "tx_pause_storm_error_events", PNA_PFC_MAP_IF, PNA_PFC_STORM_ERROR_EVENTS, 0 },
        { "tx_global_pause", PNA_PFC_MAP_IF, PNA_PFC_TX_PAUSE, 0 },
        { "rx_prio8_pause", PNA_PFC_MAP_NONE, 0, 0 },        /* only priorities 0-7 */
        { "rx_prio3_pause_x", PNA_PFC_MAP_NONE, 0, 0 },
        { "rx_prio33_pause", PNA_PFC_MAP_NONE, 0, 0 },
        { "rx_prio3_buf_discard", PNA_PFC_MAP_NONE, 0, 0 },  /* kept generic */
        { "", PNA_PFC_MAP_NONE, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct pna_pfc_slot s;
        CHECK_INT(pna_pfc_map_name(cases[i].name, &s), cases[i].kind);
        if (cases[i].kind != PNA_PFC_MAP_NONE) {
            CHECK_INT(s.field, cases[i].field);
            CHECK_INT(s.prio, cases[i].prio);
        }
    }
    /* a repeated name is dropped and counted; the first one counts */
    struct pna_eth_stat dup[3] = { { .name = "rx_prio3_pause", .value = 5 },
                                   { .name = "x", .value = 1 },
                                   { .name = "rx_prio3_pause", .value = 9 } };
    struct pna_pfc_if pif;
    memset(&pif, 0, sizeof pif);
    CHECK_INT(pna_pfc_fill(&pif, dup, 3), 0);
    CHECK_U64(pif.prio[3][PNA_PFCP_RX_PAUSE].value, 5);
    CHECK_U64(pif.n_stats, 2);
    CHECK_INT(pif.duplicates, 1);
    CHECK(pif.n_stats == 2 && strcmp(pif.stats[1].name, "x") == 0);
    uint64_t frames;
    CHECK(pna_pfc_pause_frames(&pif, false, &frames)); /* sum over priorities */
    CHECK_U64(frames, 5);
    CHECK(!pna_pfc_pause_frames(&pif, true, &frames)); /* nothing for tx */
    pna_pfc_if_clear(&pif);
}

static void set(struct pna_counter *c, uint64_t v)
{
    c->value = v;
    c->present = true;
}

static void test_storm_rules(void)
{
    struct pna_pfc_if prev, cur;
    memset(&prev, 0, sizeof prev);
    memset(&cur, 0, sizeof cur);
    set(&prev.prio[3][PNA_PFCP_RX_PAUSE], 1000);
    set(&cur.prio[3][PNA_PFCP_RX_PAUSE], 1000 + 60000); /* 60000 in 5 s = 12000/s */
    set(&prev.prio[1][PNA_PFCP_TX_PAUSE], 0);
    set(&cur.prio[1][PNA_PFCP_TX_PAUSE], 50);
    set(&prev.f[PNA_PFC_STORM_WARNING_EVENTS], 2);
    set(&cur.f[PNA_PFC_STORM_WARNING_EVENTS], 2);

    pna_pfc_derive(&cur, NULL, 5000, 10000);      /* first poll: nothing known */
    CHECK(!cur.rates_valid);
    CHECK(!cur.storm);

    pna_pfc_derive(&cur, &prev, 5000, 10000);
    CHECK(cur.rates_valid);
    CHECK_U64(cur.rx_pause_per_s, 12000);
    CHECK_U64(cur.tx_pause_per_s, 10);
    CHECK_INT(cur.storm_prio, 3);
    CHECK_U64(cur.prio_rx_pause_per_s[3], 12000);
    CHECK_U64(cur.prio_tx_pause_per_s[1], 10);
    CHECK_U64(cur.prio_rx_pause_per_s[1], 0);
    CHECK(cur.storm);

    pna_pfc_derive(&cur, &prev, 5000, 12000);     /* equal to the threshold: not above */
    CHECK(!cur.storm);
    pna_pfc_derive(&cur, &prev, 5000, 0);         /* rate check off */
    CHECK(!cur.storm);

    set(&cur.f[PNA_PFC_STORM_WARNING_EVENTS], 3); /* the device reported a stall */
    pna_pfc_derive(&cur, &prev, 5000, 0);
    CHECK(cur.storm);

    /* counters that went backwards (driver reload) give no rate, no storm */
    set(&cur.f[PNA_PFC_STORM_WARNING_EVENTS], 0);
    set(&cur.prio[3][PNA_PFCP_RX_PAUSE], 10);
    pna_pfc_derive(&cur, &prev, 5000, 1);
    CHECK_U64(cur.rx_pause_per_s, 0);
    CHECK(cur.storm); /* tx: 10/s > 1 */
    pna_pfc_derive(&cur, &prev, 0, 1);            /* no interval */
    CHECK(!cur.rates_valid && !cur.storm);
}

int main(void)
{
    test_mlx5_capture();
    test_ionic_capture("ethtool/amd-ainic-ionic/ethtool_S_enp68s0.txt", 607, UINT64_C(306471174847120));
    test_ionic_capture("ethtool/amd-ainic-ionic/ethtool_S_enp132s0.txt", 607, UINT64_C(75542062581996));
    test_ionic_capture("ethtool/amd-ainic-ionic/ethtool_S_enp132s0v0.txt", 173, UINT64_C(75542062592239));
    test_mlx5_documented_names();
    test_storm_rules();
    UNIT_END();
}
