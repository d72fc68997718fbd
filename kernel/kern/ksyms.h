/*
 * The kernel's own symbol table, for backtraces. The build links the kernel twice: the second link
 * adds a table generated from the first one's `nm` output (tools/ksyms.sh), sorted by address.
 *   ksym_lookup(addr, &off) - the name of the function containing addr, and addr's offset in it;
 *                             NULL if unknown.
 */
#ifndef _KERN_KSYMS_H_
#define _KERN_KSYMS_H_

#include "kern/types.h"

const char *ksym_lookup(uint32_t addr, uint32_t *offp);

#endif
