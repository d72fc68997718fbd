/*
 * Host unit tests of the AHCI driver's slot bookkeeping (kernel/dev/ahci_ncq.c; lab ncq):
 *   pick_    which slot a new command takes: queued commands fill free slots from the lowest,
 *            never past the port's slots; a non-queued one waits for an empty port;
 *   finished_ which slots an interrupt completes: PxCI and PxSACT both clear, several at once,
 *            never a slot that was not issued;
 *   fault_   how a recovery sorts the slots in flight: finished ones completed, the culprit
 *            named when it can be known (a non-queued command, the watchdog's slot, the only
 *            one left), every other one re-issued; and, over many random register states,
 *            the three sets never overlap and always cover every slot in flight.
 */
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <sys/prctl.h>
#include "unit.h"
#include "dev/ahci_ncq.h"

/*
 * The student's three functions are asked of ahci_ncq_answer, a process of its own beside this
 * binary (tests/unit/ahci_ncq_answer.c): the checks below call these stand-ins, so no code of
 * the student's runs in this process. An answerer that dies or answers nonsense gives values no
 * check expects.
 */
static FILE *to_answerer, *from_answerer;

static void answerer_start(void)
{
	char path[4096];
	int q[2], a[2];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	if (n <= 0 || pipe(q) != 0 || pipe(a) != 0)
		return;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "ahci_ncq_answer");
	signal(SIGPIPE, SIG_IGN);
	if (fork() == 0) {
		dup2(q[0], 0);
		dup2(a[1], 1);
		close(q[0]), close(q[1]), close(a[0]), close(a[1]);
		execl(path, path, (char *)NULL);
		perror(path);
		_exit(127);
	}
	close(q[0]), close(a[1]);
	to_answerer = fdopen(q[1], "w");
	from_answerer = fdopen(a[0], "r");
	prctl(PR_SET_DUMPABLE, 0);      /* the answerer may not read this process's memory (unless root) */
}

static int ask(char *answer, size_t size, const char *fmt, ...)
{
	va_list ap;

	answer[0] = '\0';
	if (!to_answerer)
		return 0;
	va_start(ap, fmt);
	vfprintf(to_answerer, fmt, ap);
	va_end(ap);
	fputc('\n', to_answerer);
	return fflush(to_answerer) == 0 && fgets(answer, size, from_answerer) != NULL;
}

int ncq_pick_slot(uint32_t active, int nslots, bool queued)
{
	char a[64];
	int slot;

	if (ask(a, sizeof(a), "pick %u %d %d", active, nslots, queued) && sscanf(a, "%d", &slot) == 1)
		return slot;
	return -2;
}

uint32_t ncq_finished(uint32_t active, uint32_t ci, uint32_t sact)
{
	char a[64];
	unsigned done;

	if (ask(a, sizeof(a), "finished %u %u %u", active, ci, sact) && sscanf(a, "%u", &done) == 1)
		return done;
	return ~active;
}

void ncq_sort_fault(uint32_t active, uint32_t pending, bool nonq, int culprit, struct ncq_fault *f)
{
	char a[128];

	if (!ask(a, sizeof(a), "fault %u %u %d %d", active, pending, nonq, culprit) ||
	    sscanf(a, "%u %d %u", &f->finished, &f->culprit, &f->reissue) != 3)
		*f = (struct ncq_fault){ ~0u, -2, ~0u };
}

static void test_pick(void)
{
	check_int("pick_queued_empty_port_slot_0", ncq_pick_slot(0, 32, true), 0);
	check_int("pick_queued_lowest_free", ncq_pick_slot(0x0000000b, 32, true), 2);
	check_int("pick_queued_slot_31", ncq_pick_slot(0x7fffffff, 32, true), 31);
	check_int("pick_queued_all_32_busy", ncq_pick_slot(0xffffffff, 32, true), -1);
	check_int("pick_queued_not_past_nslots", ncq_pick_slot(0x000000ff, 8, true), -1);
	check_int("pick_queued_nslots_4_has_room", ncq_pick_slot(0x00000007, 4, true), 3);
	check_int("pick_nonqueued_waits_for_empty_port", ncq_pick_slot(0x00000100, 32, false), -1);
	check_int("pick_nonqueued_on_empty_port", ncq_pick_slot(0, 32, false), 0);
	check_int("pick_one_slot_port_busy", ncq_pick_slot(1, 1, true), -1);
}

static void test_finished(void)
{
	/* Slots 0-4 in flight, all FPDMA. The HBA clears PxCI once it has sent a command; the
	 * device clears PxSACT bits when it reports them done (a Set Device Bits FIS). */
	check_u64("finished_sent_but_not_done_is_running", ncq_finished(0x1f, 0x00, 0x1f), 0);
	check_u64("finished_several_in_one_interrupt", ncq_finished(0x1f, 0x00, 0x12), 0x0d);
	check_u64("finished_not_yet_sent_is_running", ncq_finished(0x1f, 0x10, 0x10), 0x0f);
	check_u64("finished_all_at_once", ncq_finished(0x1f, 0, 0), 0x1f);
	check_u64("finished_ci_still_set_sact_clear", ncq_finished(0x03, 0x01, 0x00), 0x02);
	/* A non-queued command never sets PxSACT: it is done when PxCI clears. */
	check_u64("finished_nonqueued_ci_clear", ncq_finished(0x01, 0x00, 0x00), 0x01);
	check_u64("finished_nonqueued_ci_set", ncq_finished(0x01, 0x01, 0x00), 0);
	check_u64("finished_only_slots_issued", ncq_finished(0x05, 0x00, 0x00), 0x05);
	check_u64("finished_slot_31", ncq_finished(0x80000000u, 0, 0), 0x80000000u);
}

static void check_fault(const char *name, uint32_t active, uint32_t pending, bool nonq, int culprit,
                        uint32_t finished, int want_culprit, uint32_t reissue)
{
	struct ncq_fault f = { 0xdeadbeef, 99, 0xdeadbeef };
	char n[96];

	ncq_sort_fault(active, pending, nonq, culprit, &f);
	snprintf(n, sizeof(n), "%s_finished", name);
	check_u64(n, f.finished, finished);
	snprintf(n, sizeof(n), "%s_culprit", name);
	check_int(n, f.culprit, want_culprit);
	snprintf(n, sizeof(n), "%s_reissue", name);
	check_u64(n, f.reissue, reissue);
}

static void test_fault(void)
{
	/* One command at a time (the handout's driver): it is the culprit, nothing to re-issue. */
	check_fault("fault_nonqueued_alone", 0x01, 0x01, true, -1, 0, 0, 0);
	check_fault("fault_one_queued_in_flight", 0x04, 0x04, false, -1, 0, 2, 0);
	/* NCQ, five in flight, slots 1 and 3 had finished: who failed is unknown, so the other
	 * three are all re-issued (one at a time, by the driver) and none is blamed yet. */
	check_fault("fault_ncq_several_unknown", 0x1f, 0x15, false, -1, 0x0a, -1, 0x15);
	/* Everything else had finished: the one left is the culprit. */
	check_fault("fault_ncq_only_one_left", 0x1f, 0x08, false, -1, 0x17, 3, 0);
	/* The watchdog names slot 4 (its command timed out): the others still out are re-issued,
	 * the finished ones completed, and slot 4 is blamed even though its bits are clear. */
	check_fault("fault_watchdog_names_slot", 0x1f, 0x06, false, 4, 0x09, 4, 0x06);
	/* An interface error after everything finished: nothing to blame or re-issue. */
	check_fault("fault_all_finished", 0x07, 0x00, false, -1, 0x07, -1, 0);
	check_fault("fault_nothing_in_flight", 0, 0, false, -1, 0, -1, 0);
	check_fault("fault_slot_31", 0x80000001u, 0x80000001u, false, -1, 0, -1, 0x80000001u);
}

/* Random register states: finished, culprit and reissue are disjoint and cover `active`. */
static void test_fault_partition(void)
{
	int bad = 0, n = 20000;

	srand(4242);
	for (int i = 0; i < n; i++) {
		uint32_t active = (uint32_t)rand() ^ ((uint32_t)rand() << 16);
		uint32_t pending = ((uint32_t)rand() ^ ((uint32_t)rand() << 16)) & active;
		int culprit = active != 0 && rand() % 4 == 0 ? __builtin_ctz(active) : -1;
		bool nonq = false;
		struct ncq_fault f;
		uint32_t blamed;

		if (i % 5 == 0) {                           /* a non-queued command runs alone */
			active = active != 0 ? 1u << (rand() % 32) : 0;
			pending &= active;
			nonq = active != 0;
			culprit = -1;
		}
		ncq_sort_fault(active, pending, nonq, culprit, &f);
		blamed = f.culprit >= 0 && f.culprit < 32 ? 1u << f.culprit : 0;
		if ((f.finished & f.reissue) || (f.finished & blamed) || (f.reissue & blamed) ||
		    (f.finished | f.reissue | blamed) != active || (blamed & ~active) ||
		    (culprit >= 0 && f.culprit != culprit) || (nonq && f.culprit < 0)) {
			if (bad++ == 0)
				printf("  first bad case: active 0x%08x pending 0x%08x nonq %d culprit %d -> "
				       "finished 0x%08x culprit %d reissue 0x%08x\n", active, pending, nonq, culprit,
				       f.finished, f.culprit, f.reissue);
		}
	}
	check_int("fault_random_states_sorted_into_three_disjoint_sets", bad, 0);
}

int main(void)
{
	answerer_start();
	test_pick();
	test_finished();
	test_fault();
	test_fault_partition();
	return unit_exit();
}
