/*
 * reread: re-read a file at random 4 KB offsets while another process runs, counting the reads
 * that had to go to the disk (the clean file working set of tools/experiment's loaded workload;
 * docs/harness.md, "The loaded experiment's runs").
 *
 *   reread -w pid [-i ms] [-o file] [-l label] file
 *
 * First it reads the whole file once in order (64 KB at a time), so that its blocks start in
 * the cache, and reports "#ready warm_us=N blocks=N" (blocks: the file's 4 KB blocks). Then,
 * while process pid runs (neither gone nor a zombie), it reads 4 KB at a 4 KB-aligned offset
 * chosen at random (rand_r), as fast as it can. A read went to the disk if the process's block
 * input count (getrusage's ru_inblock: the kernel counts every block read a process starts,
 * buf_read_begin in kernel/vfs/vfs_bio.c) grew across it: that count is exact, the process's
 * own, and not confused by the other readers of the same disk. Every -i ms (default 1000) one
 * CSV line: t_us (CLOCK_MONOTONIC), reads and disk_reads (counted since #ready), inblock (the
 * block reads started since #ready: a read may start more than one) and max_read_us (the
 * slowest read of that interval). At the end "#end reads=N disk_reads=N errors=N late=N".
 * Lines are libutil's line records on -o (default stdout), with "label," if -l is given.
 * Exit 0, or 1 if a read failed or came back short.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <err.h>
#include <libutil.h>
#include <sys/resource.h>

#define RSIZE   4096
#define WARMBUF 65536

static char buf[WARMBUF];

static void usage(void)
{
	fprintf(stderr, "usage: reread -w pid [-i ms] [-o file] [-l label] file\n");
	exit(2);
}

static long inblock(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		err(1, "getrusage");
	return ru.ru_inblock;
}

int main(int argc, char **argv)
{
	long interval_ms = 1000, reads = 0, disk_reads = 0, errors = 0, late = 0;
	long long max_us = 0;
	const char *out = NULL, *label = NULL;
	unsigned seed = 1;
	pid_t watch = 0;
	struct stat sb;
	char *end;
	int c, fd;
	ssize_t n;

	while ((c = getopt(argc, argv, "w:i:o:l:")) != -1) {
		switch (c) {
		case 'w':
			watch = (pid_t)strtol(optarg, &end, 10);
			if (*end || watch < 1)
				errx(2, "-w %s: give a process id", optarg);
			break;
		case 'i': interval_ms = ticker_ms(optarg); break;
		case 'o': out = optarg; break;
		case 'l': label = optarg; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || watch == 0)
		usage();
	const char *path = argv[optind];
	if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &sb) < 0)
		err(1, "%s", path);
	long blocks = (long)(sb.st_size / RSIZE);
	if (blocks < 1)
		errx(1, "%s: smaller than %d bytes", path, RSIZE);
	if (lr_open(out, label) < 0)
		err(1, "%s", out);
	lr_meta("start blocks=%ld interval_ms=%ld", blocks, interval_ms);
	long long t0 = monotonic_us();
	while ((n = read(fd, buf, sizeof buf)) > 0)
		;
	if (n < 0)
		err(1, "%s", path);
	long long now = monotonic_us(), next = now + interval_ms * 1000;
	long base = inblock(), last = base;
	lr_meta("ready warm_us=%lld blocks=%ld", now - t0, blocks);
	lr_begin();
	lr_printf("t_us,reads,disk_reads,inblock,max_read_us");
	lr_end();
	for (;;) {
		off_t off = (off_t)((unsigned long)rand_r(&seed) % (unsigned long)blocks) * RSIZE;
		long long t = monotonic_us();
		if (pread(fd, buf, RSIZE, off) != RSIZE && errors++ == 0)
			warn("%s: read at %lld", path, (long long)off);
		now = monotonic_us();
		if (now - t > max_us)
			max_us = now - t;
		reads++;
		long ib = inblock();
		if (ib != last)
			disk_reads++;
		last = ib;
		if (now < next)
			continue;
		lr_begin();
		lr_printf("%lld,%ld,%ld,%ld,%lld", now, reads, disk_reads, last - base, max_us);
		lr_end();
		max_us = 0;
		for (next += interval_ms * 1000; next <= now; next += interval_ms * 1000)
			late++;
		if (!proc_running(watch))
			break;
	}
	lr_meta("end reads=%ld disk_reads=%ld errors=%ld late=%ld", reads, disk_reads, errors, late);
	return errors ? 1 : 0;
}
