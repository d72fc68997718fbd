/*
 * syncio: the synchronous I/O that user processes waited for (vfs.syncio; docs/bufcache.md
 * "Synchronous I/O"): file system blocks read (metaread) and written synchronously (metawrite,
 * e.g. each new indirect block), file data read (dataread) or written with O_SYNC (datawrite),
 * and whole fsync(2) calls.
 *
 *   syncio [-s seq] [-p pid]                  a summary per kind of the waits in the kernel's
 *                                             list of recent ones (vfs.syncio.events)
 *   syncio -e [-s seq] [-p pid] [-o file] [-l label]
 *                                             the waits themselves, one CSV line each
 *   syncio -n                                 the sequence number the next wait will get
 * -s seq: only waits numbered seq or later (take `syncio -n` before a run, pass it after);
 * -p pid: only that process's waits. The summary has, per kind: how many, the total time
 * waited, the median, 99th percentile and longest wait, and the mean number of requests the
 * disk had outstanding when the I/O arrived (qahead; for a striped disk the most any
 * component had). The kernel keeps the last SYNCIO_RING waits: if the ones asked for start
 * earlier, the summary says how many were lost.
 * CSV (-e), written with one write(2) per line (libutil's line records, so it can share
 * /dev/ttyd1 with sampler and latprobe): a header "seq,kind,start_us,wait_us,qahead,pid", a
 * line per wait (start_us is CLOCK_MONOTONIC, as sampler's t_us), and "#end events=N lost=N".
 * The totals since boot are also in sysctl vfs.syncio.<kind>.{count,ns,max_ns,qahead}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <err.h>
#include <libutil.h>
#include <sys/sysctl.h>

static struct syncio_event ev[SYNCIO_RING];
static const char *const kinds[SYNCIO_NKINDS] = SYNCIO_KIND_NAMES;

static void usage(void)
{
	fprintf(stderr, "usage: syncio [-s seq] [-p pid]\n"
	                "       syncio -e [-s seq] [-p pid] [-o file] [-l label]\n"
	                "       syncio -n\n");
	exit(2);
}

static unsigned long long number(const char *arg, const char *what)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (*arg == 0 || *end != 0)
		errx(2, "%s: not a number: %s", what, arg);
	return v;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Microseconds as milliseconds with two decimals, right-aligned in `width` (no %f here). */
static void print_ms(long long us, int width)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld.%02lld", us / 1000, us % 1000 / 10);
	printf(" %*s", width, buf);
}

/* The p-th percentile of n sorted values (nearest rank). */
static uint32_t percentile(const uint32_t *v, int n, int p)
{
	int rank = (p * n + 99) / 100;

	return v[rank > 0 ? rank - 1 : 0];
}

static void summary(const struct syncio_event *e, int n, unsigned long long lost)
{
	static uint32_t waits[SYNCIO_RING];

	printf("%-10s %6s %10s %9s %9s %9s %7s\n", "kind", "count", "total_ms", "p50_ms", "p99_ms",
	       "max_ms", "qahead");
	for (int k = 0; k < SYNCIO_NKINDS; k++) {
		long long total = 0, qsum = 0;
		int m = 0, qn = 0;

		for (int i = 0; i < n; i++) {
			if (e[i].se_kind != k)
				continue;
			waits[m++] = e[i].se_wait_us;
			total += e[i].se_wait_us;
			if (e[i].se_qahead >= 0) {
				qsum += e[i].se_qahead;
				qn++;
			}
		}
		if (m == 0) {
			printf("%-10s %6d %10s %9s %9s %9s %7s\n", kinds[k], 0, "-", "-", "-", "-", "-");
			continue;
		}
		qsort(waits, (size_t)m, sizeof(waits[0]), cmp_u32);
		printf("%-10s %6d", kinds[k], m);
		print_ms(total, 10);
		print_ms(percentile(waits, m, 50), 9);
		print_ms(percentile(waits, m, 99), 9);
		print_ms(waits[m - 1], 9);
		if (qn > 0)
			printf(" %5lld.%lld\n", qsum / qn, qsum * 10 / qn % 10);
		else
			printf(" %7s\n", "-");
	}
	if (lost > 0)
		printf("(%llu earlier waits asked for are no longer in the kernel's list of %d)\n", lost,
		       SYNCIO_RING);
}

static void events(const struct syncio_event *e, int n, unsigned long long lost, const char *out,
                   const char *label)
{
	if (lr_open(out, label) < 0)
		err(1, "%s", out);
	lr_begin();
	lr_printf("seq,kind,start_us,wait_us,qahead,pid");
	lr_end();
	for (int i = 0; i < n; i++) {
		lr_begin();
		lr_printf("%llu,%s,%llu,%u,%d,%d", (unsigned long long)e[i].se_seq, kinds[e[i].se_kind],
		          (unsigned long long)e[i].se_start_us, e[i].se_wait_us, e[i].se_qahead,
		          e[i].se_pid);
		lr_end();
	}
	lr_meta("end events=%d lost=%llu", n, lost);
}

int main(int argc, char **argv)
{
	unsigned long long from = 0, lost = 0;
	long long pid = -1;
	const char *out = NULL, *label = NULL;
	int c, eflag = 0, nflag = 0, n, kept = 0;
	size_t len = sizeof(ev);

	while ((c = getopt(argc, argv, "enl:o:p:s:")) != -1) {
		switch (c) {
		case 'e': eflag = 1; break;
		case 'n': nflag = 1; break;
		case 'l': label = optarg; break;
		case 'o': out = optarg; break;
		case 'p': pid = (long long)number(optarg, "-p"); break;
		case 's': from = number(optarg, "-s"); break;
		default: usage();
		}
	}
	if (optind != argc || (nflag && (eflag || out || label || pid >= 0 || from)) ||
	    (!eflag && (out || label)))
		usage();
	if (sysctl("vfs.syncio.events", ev, &len, NULL, 0) != 0)
		err(1, "sysctl vfs.syncio.events");
	n = (int)(len / sizeof(ev[0]));
	if (nflag) {
		printf("%llu\n", n > 0 ? (unsigned long long)ev[n - 1].se_seq + 1 : 1ull);
		return 0;
	}
	if (from > 0 && n > 0 && ev[0].se_seq > from)
		lost = ev[0].se_seq - from;
	for (int i = 0; i < n; i++)
		if (ev[i].se_seq >= from && (pid < 0 || ev[i].se_pid == pid) &&
		    ev[i].se_kind >= 0 && ev[i].se_kind < SYNCIO_NKINDS)
			ev[kept++] = ev[i];
	if (eflag)
		events(ev, kept, lost, out, label);
	else
		summary(ev, kept, lost);
	return 0;
}
