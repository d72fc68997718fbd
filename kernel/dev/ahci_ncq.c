/*
 * ahci_ncq.c - the AHCI driver's slot bookkeeping, pure (interface and contracts: dev/ahci_ncq.h).
 * kernel/dev/ahci.c calls these with its port lock held; they touch nothing but their arguments.
 */
#include "dev/ahci_ncq.h"

static int lowest_slot(uint32_t mask)
{
	return __builtin_ctz(mask);
}

int ncq_pick_slot(uint32_t active, int nslots, bool queued)
{
	/* LAB ncq BEGIN */
	if (!queued)
		return active == 0 ? 0 : -1;
	for (int s = 0; s < nslots; s++)
		if ((active & (1u << s)) == 0)
			return s;
	return -1;
	/* LAB ncq STUB */
	// /* One command at a time, in slot 0: the handout's driver (labs/ncq/README.md). */
	// return active == 0 ? 0 : -1;
	/* LAB ncq END */
}

uint32_t ncq_finished(uint32_t active, uint32_t ci, uint32_t sact)
{
	/* LAB ncq BEGIN */
	return active & ~(ci | sact);
	/* LAB ncq STUB */
	// /* A non-queued command is done when the HBA clears its PxCI bit. */
	// return active & ~ci;
	/* LAB ncq END */
}

void ncq_sort_fault(uint32_t active, uint32_t pending, bool nonq, int culprit, struct ncq_fault *f)
{
	/* LAB ncq BEGIN */
	uint32_t left;

	if (culprit < 0 && nonq && active != 0)
		culprit = lowest_slot(active);          /* a non-queued command runs alone */
	f->finished = active & ~pending;
	if (culprit >= 0)
		f->finished &= ~(1u << culprit);
	left = active & ~f->finished;
	if (culprit < 0 && left != 0 && (left & (left - 1)) == 0)
		culprit = lowest_slot(left);            /* the only one still out */
	f->culprit = culprit;
	f->reissue = culprit >= 0 ? left & ~(1u << culprit) : left;
	/* LAB ncq STUB */
	// /* One command at a time: the one in flight is at fault, and nothing else is out. */
	// f->finished = 0;
	// f->culprit = culprit >= 0 ? culprit : active != 0 ? lowest_slot(active) : -1;
	// f->reissue = 0;
	/* LAB ncq END */
}
