/*
 * latprobe: time small interactive actions while something else loads the machine (the
 * smoothness probe of tools/experiment; docs/harness.md "The instruments in the guest").
 *
 *   latprobe [-i ms] [-o file] [-l label] [-n count] [-p pid] [-r file] [-s path] [-w dir]
 *
 * Every -i milliseconds (default 50) it does, in this order, the actions asked for and writes
 * one CSV line with the latency of each in microseconds:
 *   stat_us    -s PATH: stat(2) of PATH
 *   read_us    -r FILE: a 4 KB read(2) of FILE at an offset not read before. The offsets walk
 *              the file's blocks (st_blksize) in a scattered order that visits each block once
 *              (block i*s mod n, s odd, n a power of two: a permutation), so neither the cache
 *              nor sequential read-ahead can serve them; after the last block the walk starts
 *              again and "#wrapped" is reported once (from then on reads may be cached).
 *   write_us   -w DIR: create DIR/.latprobe.<pid>, write 512 bytes, fsync(2), close; then the
 *              file is removed (not timed).
 * The line starts with t_us, CLOCK_MONOTONIC in microseconds when the iteration started (the
 * clock sampler uses). A late iteration is not made up for: the next one starts at the next
 * tick still ahead, and the skipped ticks are counted.
 * It stops after -n iterations, or when process -p is gone or a zombie (the sampler running
 * the workload), or on a signal; each line is one write(2) (libutil's line records), so
 * nothing half-written is left. Metadata lines start with '#': "#start interval_ms=N
 * blocks=N", "#wrapped", "#end probes=N late=N errors=N". With -l every line starts with
 * "label,". An action that fails is reported on stderr (once per kind), counted, and its
 * field left empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <err.h>
#include <libutil.h>

#define PROBE_READ  4096
#define PROBE_WRITE 512
#define SCATTER     0x9e37          /* odd, so i * SCATTER mod 2^k visits every block once */

static char rbuf[PROBE_READ], wbuf[PROBE_WRITE];
static long errors;
static int warned[3];

static void usage(void)
{
	fprintf(stderr, "usage: latprobe [-i ms] [-o file] [-l label] [-n count] [-p pid] [-r file] "
	                "[-s path] [-w dir]\n");
	exit(1);
}

static void failed(int kind, const char *what)
{
	errors++;
	if (!warned[kind]) {
		warn("%s", what);
		warned[kind] = 1;
	}
}

/* The field of one action that started at t0: its latency, or empty if it failed. */
static void timed(int ok, long long t0)
{
	if (ok)
		lr_printf(",%lld", monotonic_us() - t0);
	else
		lr_printf(",");
}

int main(int argc, char **argv)
{
	long interval_ms = 50, count = -1, probes = 0;
	const char *out = NULL, *label = NULL, *rpath = NULL, *spath = NULL, *wdir = NULL;
	char tmp[256], *end;
	int c, rfd = -1, wrapped = 0;
	pid_t watch = 0;
	unsigned long nblocks = 0, bsize = 0, i = 0;
	struct stat sb;
	struct ticker tick;

	while ((c = getopt(argc, argv, "i:o:l:n:p:r:s:w:")) != -1) {
		switch (c) {
		case 'i':
			interval_ms = ticker_ms(optarg);
			break;
		case 'n':
			count = strtol(optarg, &end, 10);
			if (*end || count < 1)
				errx(1, "-n %s: give a positive count", optarg);
			break;
		case 'p':
			watch = strtol(optarg, &end, 10);
			if (*end || watch < 1)
				errx(1, "-p %s: give a process id", optarg);
			break;
		case 'o': out = optarg; break;
		case 'l': label = optarg; break;
		case 'r': rpath = optarg; break;
		case 's': spath = optarg; break;
		case 'w': wdir = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || (!rpath && !spath && !wdir))
		usage();
	if (rpath) {
		if ((rfd = open(rpath, O_RDONLY)) < 0 || fstat(rfd, &sb) < 0)
			err(1, "%s", rpath);
		bsize = sb.st_blksize > PROBE_READ ? sb.st_blksize : PROBE_READ;
		for (nblocks = 1; nblocks * 2 * bsize <= (unsigned long)sb.st_size; nblocks *= 2)
			;
		if ((unsigned long)sb.st_size < bsize)
			errx(1, "%s: smaller than one block (%lu bytes)", rpath, bsize);
	}
	if (wdir && snprintf(tmp, sizeof tmp, "%s/.latprobe.%d", wdir, getpid()) >= (int)sizeof tmp)
		errx(1, "%s: name too long", wdir);
	memset(wbuf, 'p', sizeof wbuf);
	if (lr_open(out, label) < 0)
		err(1, "%s", out);
	lr_meta("start interval_ms=%ld blocks=%lu", interval_ms, nblocks);
	lr_begin();
	lr_printf("t_us%s%s%s", spath ? ",stat_us" : "", rpath ? ",read_us" : "", wdir ? ",write_us" : "");
	lr_end();
	ticker_start(&tick, interval_ms);
	while (count < 0 || probes < count) {
		if (watch && !proc_running(watch))
			break;
		if (rpath && i == nblocks && !wrapped) {
			lr_meta("wrapped");
			wrapped = 1;
		}
		long long t0 = monotonic_us();
		lr_begin();
		lr_printf("%lld", t0);
		if (spath) {
			int ok = stat(spath, &sb) == 0;
			timed(ok, t0);
			if (!ok)
				failed(0, spath);
		}
		if (rpath) {
			unsigned long blk = (i++ * SCATTER) & (nblocks - 1);
			long long t1 = monotonic_us();
			int ok = lseek(rfd, (off_t)blk * bsize, SEEK_SET) >= 0 && read(rfd, rbuf, PROBE_READ) > 0;
			timed(ok, t1);
			if (!ok)
				failed(1, rpath);
		}
		if (wdir) {
			long long t1 = monotonic_us();
			int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
			int ok = fd >= 0 && write(fd, wbuf, sizeof wbuf) == sizeof wbuf && fsync(fd) == 0;
			if (fd >= 0 && close(fd) < 0)
				ok = 0;
			timed(ok, t1);
			if (!ok)
				failed(2, tmp);
			unlink(tmp);
		}
		lr_end();
		probes++;
		ticker_wait(&tick);
	}
	lr_meta("end probes=%ld late=%ld errors=%ld", probes, tick.late, errors);
	return 0;
}
