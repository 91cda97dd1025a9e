/* pollers/phy_alarms.h -- notifications when a pluggable module's reading
 * crosses one of the module's own thresholds, and when it is back inside.
 *
 * Every monitored value (the module's temperature and supply voltage, each
 * lane's bias, TX and RX power) has a level (model/phy/phy.h).  A change of
 * level posts PNA_EV_MODULE_THRESHOLD (a warning or an alarm) or
 * PNA_EV_MODULE_THRESHOLD_CLEAR (normal again).  Rate limit: one
 * notification per value per hold-off (PNA_MODULE_ALARM_HOLDOFF_MS); a change
 * inside the hold-off is sent when it ends, if the level still differs from
 * the one last sent, so the last word is always the current level.  At
 * start-up only values outside their thresholds are reported.
 *
 * Thread ownership: the phy poller's thread. */
#ifndef PNA_POLLERS_PHY_ALARMS_H
#define PNA_POLLERS_PHY_ALARMS_H

#include <stdint.h>

#include "model/phy/phy.h"

#define PNA_MODULE_ALARM_HOLDOFF_MS (10 * 60 * 1000)

struct pna_phy_alarms;

struct pna_phy_alarms *pna_phy_alarms_new(void);
void pna_phy_alarms_free(struct pna_phy_alarms *a);

/* Compare the levels of M's modules with those last reported and post what
 * changed; NOW_MS is the monotonic time of M's sample. */
void pna_phy_alarms_update(struct pna_phy_alarms *a, const struct pna_phy_model *m, int64_t now_ms);

#endif
