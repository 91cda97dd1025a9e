/* core/privileges.h -- giving up what the agent does not need once it is up. */
#ifndef PNA_PRIVILEGES_H
#define PNA_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>

/* After every socket is bound and the master connected: keep only the
 * capabilities reading the sources can need (see docs/security.md), drop the
 * rest from the effective, permitted, inheritable and bounding sets, and set
 * no_new_privs so nothing the agent runs (nvidia-smi) can gain any.  A process
 * without capabilities (not root) just gets no_new_privs.  Returns 0, or -1
 * with WHY filled.  MODULE_READS keeps CAP_NET_ADMIN too, where the agent has
 * it: the kernel asks it of a module EEPROM read (moduleInterval not 0). */
int pna_drop_privileges(bool module_reads, char *why, size_t whylen);

#endif
