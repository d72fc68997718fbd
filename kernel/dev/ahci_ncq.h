/*
 * ahci_ncq: the AHCI driver's slot bookkeeping (kernel/dev/ahci.c), as pure functions of the
 * port's registers and the driver's masks, so that tests/unit/test_ahci_ncq.c can check them
 * on the host. A mask has bit s set for command slot s; with NCQ the slot is also the command's
 * tag (AHCI 1.3.1 §5.6.4.1). docs/storage.md "AHCI", labs/ncq/README.md.
 *
 *   ncq_pick_slot(active, nslots, queued)
 *       the slot to issue a new command in, or -1 if it must wait: a queued (FPDMA) command
 *       takes the lowest free slot below nslots; a non-queued one (DMA EXT, FLUSH CACHE EXT)
 *       waits for an empty port and then runs alone.
 *   ncq_finished(active, ci, sact)
 *       the slots of `active` the HBA is done with: a command is finished when its PxCI bit
 *       and its PxSACT bit are both clear (a queued command clears PxCI when the HBA has sent
 *       it, and PxSACT only when the device reports it done in a Set Device Bits FIS).
 *   ncq_sort_fault(active, pending, nonq, culprit, &f)
 *       after an error or a timeout (§6.2.2), sort the slots in flight: `pending` is PxCI |
 *       PxSACT, `nonq` says a non-queued command is the one in flight, `culprit` is the slot a
 *       watchdog already blames (or -1). f.finished: done before the error, to complete
 *       normally; f.culprit: the slot at fault when it can be known (a non-queued command, the
 *       watchdog's, or the only one left), else -1; f.reissue: every other slot left in
 *       flight, to re-issue one at a time after the port is reset (each then runs alone, so a
 *       failure names its command).
 */
#ifndef _DEV_AHCI_NCQ_H_
#define _DEV_AHCI_NCQ_H_

#include <stdint.h>
#include <stdbool.h>

struct ncq_fault {
	uint32_t finished;   /* completed before the error: complete them */
	int      culprit;    /* the slot at fault, or -1 when several could be */
	uint32_t reissue;    /* still in flight and not known to be at fault: issue again, alone */
};

int      ncq_pick_slot(uint32_t active, int nslots, bool queued);
uint32_t ncq_finished(uint32_t active, uint32_t ci, uint32_t sact);
void     ncq_sort_fault(uint32_t active, uint32_t pending, bool nonq, int culprit, struct ncq_fault *f);

#endif
