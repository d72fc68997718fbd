/*
 * ahci_ncq_answer: kernel/dev/ahci_ncq.c (lab ncq) in a process of its own, for test_ahci_ncq,
 * which holds the checks and the grader's channel and never runs the student's code itself
 * (labs/README.md, "Unit tests a student's code cannot rewrite"). One question a line on stdin,
 * its answer a line on stdout, numbers in decimal:
 *   pick ACTIVE NSLOTS QUEUED           -> the slot (ncq_pick_slot)
 *   finished ACTIVE CI SACT             -> the slots finished (ncq_finished)
 *   fault ACTIVE PENDING NONQ CULPRIT   -> FINISHED CULPRIT REISSUE (ncq_sort_fault)
 */
#include <stdio.h>
#include "dev/ahci_ncq.h"

int main(void)
{
	char line[256];
	unsigned long a, b, c;
	long d;

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "pick %lu %ld %lu", &a, &d, &c) == 3) {
			printf("%d\n", ncq_pick_slot(a, d, c));
		} else if (sscanf(line, "finished %lu %lu %lu", &a, &b, &c) == 3) {
			printf("%u\n", ncq_finished(a, b, c));
		} else if (sscanf(line, "fault %lu %lu %lu %ld", &a, &b, &c, &d) == 4) {
			struct ncq_fault f = { 0xdeadbeef, 99, 0xdeadbeef };
			ncq_sort_fault(a, b, c, d, &f);
			printf("%u %d %u\n", f.finished, f.culprit, f.reissue);
		} else {
			printf("?\n");
		}
		fflush(stdout);
	}
	return 0;
}
