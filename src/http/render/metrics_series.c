/* http/render/metrics_series.c -- the bridge's own cardinality: each
 * family's series count (primus_agent_series{family}), the families
 * exportSeriesLimit left out (primus_agent_series_limited{family}), and the
 * series the export control dropped since start
 * (primus_agent_series_dropped_total{reason}).
 *
 * The counts are those of the rendering being sent: the shared body's
 * (http/metrics_body.c keeps them with it) and the agent part's own
 * families, which come before these three; the three are not in the counts.
 *
 * The drop counters are the agent's figures (core/view.h; primusAgentSeries
 * and primusAgentSeriesDropped read a view's copy), added to by whichever
 * HTTP thread renders a body; /metrics reads them after its body is
 * rendered, so that they include its drops. */
#include "pna_autoconf.h"
#include "http/render/render.h"

void pna_metrics_series_count_drops(const struct pna_prom_stats *body)
{
    if (body && (body->limit_series || body->duplicates))
        pna_agent_series_dropped(body->limit_series, body->duplicates);
}

static void counts_of(struct pna_prom *p, const struct pna_prom_stats *s, bool limited)
{
    for (size_t i = 0; s && i < s->n; i++) {
        if (s->counts[i].dropped != limited)
            continue;
        const struct pna_prom_label l[] = { { "family", pna_prom_count_name(s, &s->counts[i]) } };
        pna_prom_u64(p, l, 1, s->counts[i].series);
    }
}

void pna_metrics_series(struct pna_prom *p, const struct pna_prom_stats *body,
                        const struct pna_prom_stats *own)
{
    pna_agent_series_served((body ? body->series : 0) + (own ? own->series : 0));
    pna_prom_family(p, PNA_SERIES_FAMILY, PNA_PROM_GAUGE,
                    "Series of each family on this /metrics answer (every family but "
                    PNA_SERIES_FAMILY ", " PNA_SERIES_LIMITED_FAMILY " and "
                    PNA_SERIES_DROPPED_FAMILY "), after the export control.");
    counts_of(p, body, false);
    counts_of(p, own, false);
    pna_prom_family(p, PNA_SERIES_LIMITED_FAMILY, PNA_PROM_GAUGE,
                    "Series of each family that exportSeriesLimit left out of this answer, "
                    "whole (absent when none was).");
    counts_of(p, body, true);
    pna_prom_family(p, PNA_SERIES_DROPPED_FAMILY, PNA_PROM_COUNTER,
                    "Series the export control dropped from the /metrics bodies rendered since "
                    "the agent started, by reason: limit (exportSeriesLimit) or duplicate (two "
                    "series made one by exportLabelDrop; the second is dropped).");
    const struct pna_prom_label limit[] = { { "reason", "limit" } };
    const struct pna_prom_label dup[] = { { "reason", "duplicate" } };
    uint64_t by_limit, by_duplicate;
    pna_agent_series_dropped_now(&by_limit, &by_duplicate);
    pna_prom_u64(p, limit, 1, by_limit);
    pna_prom_u64(p, dup, 1, by_duplicate);
}
