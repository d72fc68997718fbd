/*
 * vmstat: virtual memory statistics, in FreeBSD 4's vmstat(8) layout.
 *   vmstat [-w wait] [-c count] [wait [count]]
 *   vmstat -s
 * Each report is one line: the first covers the time since boot, each later one the last
 * `wait` seconds (default 1 when count is given); `count` reports in all (default 1 without a
 * wait, unlimited with one). The header is repeated every 20 lines.
 *   procs   r  runnable processes (vmstat itself not counted)
 *           b  processes waiting for I/O or memory (sleeping on a disk, buffer, swap or
 *              vmwait wait message)
 *           w  runnable but swapped out (always 0: wdrain never swaps whole processes)
 *   memory  avm  KB resident in user processes; fre  KB free (free + cache queues)
 *   page    flt page faults, re pages reactivated, pi / po pager page-in / page-out
 *           operations (swap and vnode), fr pages freed, sr pages scanned by the pagedaemon,
 *           all per second
 *   faults  in device interrupts, sy system calls, cs context switches, per second
 *   cpu     us sy id: percentage of time in user mode, in the kernel, idle (kern.cp_time)
 * -s prints the counters since boot, one per line (vm.stats.vm.*), as FreeBSD's vmstat -s.
 * Exit 0, 1 if a sysctl fails, 2 for a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>
#include <time.h>
#include <libutil.h>
#include <sys/sysctl.h>

struct sample {
	unsigned vals[16];
	long cp[5];
	double t;
};

/* The counters of a report, in the order of `struct sample`'s vals. */
static const char *const names[] = {
	"v_vm_faults", "v_reactivated", "v_swapin", "v_vnodein", "v_swapout", "v_vnodeout",
	"v_tfree", "v_pdpages", "v_intr", "v_syscall", "v_swtch", "v_free_count", "v_cache_count",
};
enum { FLT, RE, SWIN, VNIN, SWOUT, VNOUT, FR, SR, IN, SY, CS, FREE, CACHE, NVALS };

static unsigned counter(const char *name)
{
	char full[64];
	unsigned v;
	size_t len = sizeof v;
	snprintf(full, sizeof full, "vm.stats.vm.%s", name);
	if (sysctl(full, &v, &len, NULL, 0) != 0)
		err(1, "sysctl %s", full);
	return v;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void take(struct sample *s)
{
	for (int i = 0; i < NVALS; i++)
		s->vals[i] = counter(names[i]);
	size_t len = sizeof s->cp;
	if (sysctl("kern.cp_time", s->cp, &len, NULL, 0) != 0)
		err(1, "sysctl kern.cp_time");
	s->t = now();
}

static int is_io_wait(const char *w)
{
	static const char *const waits[] = { "vmwait", "vmpfw", "pgrab", "swread", "swwrt", "biord",
	                                      "biowr", "bwait", "getblk", "wdrain", "flswai", NULL };
	for (int i = 0; waits[i]; i++)
		if (strncmp(w, waits[i], KI_WMESGLEN) == 0)
			return 1;
	return 0;
}

static void procs(int *r, int *b, unsigned long *avm)
{
	int n;
	struct kinfo_proc *kp = kinfo_getallproc(&n);
	if (kp == NULL)
		err(1, "sysctl kern.proc");
	*r = -1;                                  /* vmstat itself */
	*b = 0;
	*avm = 0;
	for (int i = 0; i < n; i++) {
		if (kp[i].ki_stat == 'R')
			(*r)++;
		else if (kp[i].ki_stat == 'S' && is_io_wait(kp[i].ki_wmesg))
			(*b)++;
		*avm += kp[i].ki_size / 1024;
	}
	free(kp);
}

static void header(void)
{
	printf(" procs      memory      page                    faults      cpu\n");
	printf(" r b w     avm    fre  flt  re  pi  po  fr  sr   in   sy  cs us sy id\n");
}

static void report(const struct sample *a, const struct sample *b)
{
	double dt = b->t - a->t;
	if (dt <= 0)
		dt = 1;
#define RATE(i) ((unsigned long)((b->vals[i] - a->vals[i]) / dt + 0.5))
	int r, bl;
	unsigned long avm;
	procs(&r, &bl, &avm);
	long busy[5], total = 0;
	for (int i = 0; i < 5; i++) {
		busy[i] = b->cp[i] - a->cp[i];
		total += busy[i];
	}
	if (total == 0)
		total = 1;
	printf("%2d %1d %1d %7lu %6lu ", r < 0 ? 0 : r, bl, 0, avm,
	       (unsigned long)(b->vals[FREE] + b->vals[CACHE]) * 4);
	printf("%4lu %3lu %3lu %3lu %3lu %3lu ", RATE(FLT), RATE(RE),
	       (unsigned long)((b->vals[SWIN] + b->vals[VNIN] - a->vals[SWIN] - a->vals[VNIN]) / dt + 0.5),
	       (unsigned long)((b->vals[SWOUT] + b->vals[VNOUT] - a->vals[SWOUT] - a->vals[VNOUT]) / dt + 0.5),
	       RATE(FR), RATE(SR));
	printf("%4lu %4lu %3lu %2ld %2ld %2ld\n", RATE(IN), RATE(SY), RATE(CS),
	       (busy[0] + busy[1]) * 100 / total, (busy[2] + busy[3]) * 100 / total, busy[4] * 100 / total);
	fflush(stdout);
#undef RATE
}

/* vmstat -s: FreeBSD's wording, then wdrain's own counters. */
static void summary(void)
{
	static const struct { const char *name, *text; } lines[] = {
		{ "v_swtch", "cpu context switches" }, { "v_intr", "device interrupts" },
		{ "v_trap", "traps" }, { "v_syscall", "system calls" },
		{ "v_swapin", "swap pager pageins" }, { "v_swappgsin", "swap pager pages paged in" },
		{ "v_swapout", "swap pager pageouts" }, { "v_swappgsout", "swap pager pages paged out" },
		{ "v_vnodein", "vnode pager pageins" }, { "v_vnodepgsin", "vnode pager pages paged in" },
		{ "v_vnodeout", "vnode pager pageouts" }, { "v_vnodepgsout", "vnode pager pages paged out" },
		{ "v_pgpgout", "pages paged out" },
		{ "v_pdwakeups", "page daemon wakeups" }, { "v_pdpages", "pages examined by the page daemon" },
		{ "v_reactivated", "pages reactivated" }, { "v_cow_faults", "copy-on-write faults" },
		{ "v_zfod", "zero fill pages zeroed" }, { "v_vm_faults", "total VM faults taken" },
		{ "v_tfree", "pages freed" }, { "v_dfree", "pages freed by daemon" },
		{ "v_active_count", "pages active" }, { "v_inactive_count", "pages inactive" },
		{ "v_cache_count", "pages in VM cache" }, { "v_wire_count", "pages wired down" },
		{ "v_free_count", "pages free" }, { "v_kmem_count", "pages used by kmalloc" },
		{ "v_pdlaundered", "pages laundered by the page daemon" },
		{ "v_pdclusters", "page daemon launder operations" },
		{ "v_pdrequeued", "dirty pages sent around the inactive queue (onepass)" },
		{ "v_pdrescans", "second, laundering passes (twopass)" },
		{ "v_pdvnodeskips", "dirty file pages skipped, vnode locked" },
		{ "v_vmwaits", "waits for free memory (vmwait)" },
		{ "v_oomkills", "processes killed: out of swap space" },
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		printf("%9u %s\n", counter(lines[i].name), lines[i].text);
	printf("%9d bytes per page\n", 4096);
}

static int usage(void)
{
	fprintf(stderr, "usage: vmstat [-w wait] [-c count] [wait [count]]\n       vmstat -s\n");
	return 2;
}

static int number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return *end || v < 1 || v > 1000000 ? -1 : (int)v;
}

int main(int argc, char **argv)
{
	int c, wait = 0, count = 0, sflag = 0;
	while ((c = getopt(argc, argv, "c:sw:")) != -1) {
		if (c == 'c' && (count = number(optarg)) < 0)
			return usage();
		else if (c == 'w' && (wait = number(optarg)) < 0)
			return usage();
		else if (c == 's')
			sflag = 1;
		else if (c == '?')
			return usage();
	}
	if (optind < argc && (wait = number(argv[optind++])) < 0)
		return usage();
	if (optind < argc && (count = number(argv[optind++])) < 0)
		return usage();
	if (optind < argc || (sflag && (wait || count)))
		return usage();
	if (sflag) {
		summary();
		return 0;
	}
	if (count && !wait)
		wait = 1;
	if (!count)
		count = wait ? 0 : 1;
	struct sample boot = { { 0 }, { 0 }, 0 }, prev, cur;
	struct ticker tk;
	ticker_start(&tk, wait * 1000);
	take(&cur);
	header();
	report(&boot, &cur);
	for (int n = 1; count == 0 || n < count; n++) {
		prev = cur;
		ticker_wait(&tk);
		take(&cur);
		if (n % 20 == 0)
			header();
		report(&prev, &cur);
	}
	return 0;
}
