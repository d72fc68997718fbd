/*
 * sharewrite: processes sharing one file, to see whether its lock is handed round fairly
 * (docs/kernel.md "Sleep locks").
 *
 *   sharewrite [-f] [-p writers] [-t secs] [-b bytes] [-i ms] file
 *
 * The file is created (or truncated) and filled to 64 KB. Then `writers` processes (default 2)
 * each open it and, for `secs` seconds (default 3), write `bytes` (default 512) at random
 * offsets in those 64 KB; with -f every write is followed by fsync(2), so the file's lock is
 * held across a disk write, as a busy database or fsx holds it. Beside them a prober stat(2)s
 * the file every `ms` milliseconds (default 10). All start at the same moment. One write (with
 * its fsync) is one operation; each is timed, and so is each stat. At the end:
 *   sharewrite: writer 1: 2345 ops, p50 410 us, p99 1900 us, max 4100 us
 *   sharewrite: writer 2: 2290 ops, p50 420 us, p99 2000 us, max 3900 us
 *   sharewrite: stat: 280 calls, p50 60 us, p99 1500 us, max 2100 us
 *   sharewrite: ops ratio 1.02 (most 2345, fewest 2290)
 * The ratio is the most operations one writer did over the fewest (0 operations: "inf").
 * Exit status 0 if every call succeeded, 1 if one failed (said on stderr), 2 for a usage error;
 * whether the numbers are fair enough is the caller's verdict (tests/guest/test_fairlock.py).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <libutil.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define FILESIZE    (64 * 1024)
#define MAXWRITERS  16
#define MAXSAMPLES  (1 << 18)        /* latencies kept per process; later ones are counted only */

/* What a worker sends its parent through the result pipe. */
struct result {
	int       who;                   /* 1..writers, or 0 for the prober */
	int       failed;                /* a call failed (the worker said which on stderr) */
	long      ops;
	long long p50, p99, max;         /* microseconds */
};

static int samples[MAXSAMPLES];
static long nsamples;

static void usage(void)
{
	fprintf(stderr, "usage: sharewrite [-f] [-p writers] [-t secs] [-b bytes] [-i ms] file\n");
	exit(2);
}

static long number(const char *arg, char opt, long lo, long hi)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v < lo || v > hi)
		errx(2, "-%c %s: give a number from %ld to %ld", opt, arg, lo, hi);
	return v;
}

static void record(long long us)
{
	if (nsamples < MAXSAMPLES)
		samples[nsamples++] = (int)us;
}

static int cmpint(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The percentiles of the recorded latencies into r. */
static void summarize(struct result *r)
{
	r->p50 = r->p99 = r->max = 0;
	if (nsamples == 0)
		return;
	qsort(samples, (size_t)nsamples, sizeof samples[0], cmpint);
	r->p50 = samples[nsamples / 2];
	r->p99 = samples[nsamples * 99 / 100];
	r->max = samples[nsamples - 1];
}

/* A writer: random small writes (and fsyncs with -f) until the deadline. */
static void writer(struct result *r, const char *path, long long deadline, long bytes, int dosync)
{
	static char buf[FILESIZE];
	unsigned int rng = (unsigned int)getpid();
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		warn("writer %d: %s", r->who, path);
		r->failed = 1;
		return;
	}
	memset(buf, 'a' + r->who, (size_t)bytes);
	while (monotonic_us() < deadline) {
		off_t off = (off_t)(rand_r(&rng) % (FILESIZE - bytes + 1));
		long long t0 = monotonic_us();

		if (pwrite(fd, buf, (size_t)bytes, off) != bytes || (dosync && fsync(fd) < 0)) {
			warn("writer %d: %s at %ld", r->who, dosync ? "write or fsync" : "write", (long)off);
			r->failed = 1;
			break;
		}
		record(monotonic_us() - t0);
		r->ops++;
	}
	close(fd);
}

/* The prober: a timed stat of the file every interval until the deadline. */
static void prober(struct result *r, const char *path, long long deadline, long ms)
{
	struct ticker t;
	struct stat st;

	ticker_start(&t, ms);
	while (monotonic_us() < deadline) {
		long long t0 = monotonic_us();

		if (stat(path, &st) < 0) {
			warn("stat %s", path);
			r->failed = 1;
			break;
		}
		record(monotonic_us() - t0);
		r->ops++;
		ticker_wait(&t);
	}
}

/* Fork worker `who`: it waits for the start (EOF on the go pipe), works `secs` seconds, sends its result. */
static pid_t spawn(int who, const int go[2], int resfd, const char *path, long secs, long bytes, int dosync,
                   long ms)
{
	pid_t pid = fork();
	struct result r;
	char c;

	if (pid != 0)
		return pid;
	memset(&r, 0, sizeof r);
	r.who = who;
	close(go[1]);                    /* else the start pipe never reaches EOF */
	if (read(go[0], &c, 1) < 0)
		err(1, "start pipe");
	long long deadline = monotonic_us() + secs * 1000000LL;
	if (who == 0)
		prober(&r, path, deadline, ms);
	else
		writer(&r, path, deadline, bytes, dosync);
	summarize(&r);
	if (write(resfd, &r, sizeof r) != (ssize_t)sizeof r)
		err(1, "result pipe");
	_exit(0);
}

static void print_result(const struct result *r)
{
	if (r->who == 0)
		printf("sharewrite: stat: %ld calls", r->ops);
	else
		printf("sharewrite: writer %d: %ld ops", r->who, r->ops);
	printf(", p50 %lld us, p99 %lld us, max %lld us\n", r->p50, r->p99, r->max);
}

/* Create the file, filled to FILESIZE, so every write lands inside it. */
static void prepare(const char *path)
{
	static char zero[FILESIZE];
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	if (fd < 0)
		err(1, "%s", path);
	if (write(fd, zero, sizeof zero) != (ssize_t)sizeof zero || fsync(fd) < 0)
		err(1, "filling %s", path);
	close(fd);
}

int main(int argc, char **argv)
{
	long writers = 2, secs = 3, bytes = 512, ms = 10;
	int dosync = 0, c, go[2], res[2], failed = 0;

	while ((c = getopt(argc, argv, "fp:t:b:i:")) != -1) {
		switch (c) {
		case 'f': dosync = 1; break;
		case 'p': writers = number(optarg, 'p', 1, MAXWRITERS); break;
		case 't': secs = number(optarg, 't', 1, 3600); break;
		case 'b': bytes = number(optarg, 'b', 1, FILESIZE); break;
		case 'i': ms = ticker_ms(optarg); break;
		default: usage();
		}
	}
	if (optind != argc - 1)
		usage();
	const char *path = argv[optind];
	prepare(path);
	if (pipe(go) < 0 || pipe(res) < 0)
		err(1, "pipe");
	for (int who = 0; who <= writers; who++)
		if (spawn(who, go, res[1], path, secs, bytes, dosync, ms) < 0)
			err(1, "fork");
	close(go[1]);                    /* every worker's read returns: they start together */
	close(res[1]);

	struct result all[MAXWRITERS + 1], r;
	long most = 0, fewest = -1, n = 0;
	while (read(res[0], &r, sizeof r) == (ssize_t)sizeof r && n <= writers)
		all[n++] = r;
	while (wait(NULL) > 0)
		;
	if (n != writers + 1)
		errx(1, "only %ld of %ld workers reported", n, writers + 1);
	for (int k = 1; k <= writers + 1; k++) {
		int who = k <= writers ? k : 0;              /* the writers in order, the prober last */
		const struct result *p = all;
		while (p->who != who)
			p++;
		print_result(p);
		failed |= p->failed;
		if (p->who != 0) {
			most = p->ops > most ? p->ops : most;
			fewest = fewest < 0 || p->ops < fewest ? p->ops : fewest;
		}
	}
	if (fewest == 0)
		printf("sharewrite: ops ratio inf (most %ld, fewest 0)\n", most);
	else
		printf("sharewrite: ops ratio %ld.%02ld (most %ld, fewest %ld)\n", most / fewest,
		       most * 100 / fewest % 100, most, fewest);
	return failed;
}
