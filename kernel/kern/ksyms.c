/* Symbol lookup over the table generated at link time (see ksyms.h). */
#include "kern/ksyms.h"

struct ksym {
	uint32_t addr;
	uint32_t name;      /* offset into ksym_strings */
};

/* Defined by the generated build/ksyms.S (empty in the first link pass). */
extern const struct ksym ksym_table[];
extern const uint32_t ksym_count;
extern const char ksym_strings[];

const char *ksym_lookup(uint32_t addr, uint32_t *offp)
{
	uint32_t lo = 0, hi = ksym_count;
	if (hi == 0 || addr < ksym_table[0].addr)
		return NULL;
	while (hi - lo > 1) {             /* the last entry with addr <= target */
		uint32_t mid = (lo + hi) / 2;
		if (ksym_table[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	*offp = addr - ksym_table[lo].addr;
	return ksym_strings + ksym_table[lo].name;
}
