/*
 * iostat: report disk I/O statistics, after FreeBSD's iostat(8).
 *   iostat [-dx] [-w wait] [-c count] [drive ...]
 * Every disk (or the drives named) gets three columns: KB/t (kilobytes per transfer), tps
 * (transfers per second) and MB/s (megabytes per second; 1 MB = 1048576 bytes, as FreeBSD's
 * iostat counts). The first report covers the time since boot, each later one the last
 * interval of `wait` seconds (default 1 when -c is given); `count` reports in all (default 1
 * without -w, unlimited with it).
 *   -x  extended statistics, one line per drive: r/s w/s kr/s kw/s (reads, writes and
 *       kilobytes per second), wait and actv (the mean number of requests waiting in the disk
 *       queue and at the device over the interval: the host's queue and the drive's tagged
 *       commands apart, docs/storage.md "The disk queue"), qlen (requests outstanding now) and
 *       %b (percentage of the time the drive had at least one request outstanding).
 *   -d  drives only. iostat never prints the cpu columns (vmstat shows kern.cp_time), so -d
 *       changes nothing; it is accepted for scripts.
 * The counters are the block layer's sysctls kern.devstat.<drive>.{reads,writes,bytes_read,
 * bytes_written,busy_ns,queue_depth,depth_ns,active_ns} (kernel/dev/disk.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <err.h>

#define MAXDRIVES 32
#define NAMELEN   16
#define PREFIX    "kern.devstat."

struct sample {
	long long reads, writes, rbytes, wbytes, busy_ns, qlen, depth_ns, active_ns;
};

struct drive {
	char          name[NAMELEN];
	struct sample prev, cur;
};

static struct drive drives[MAXDRIVES];
static int ndrives, xflag;

static void usage(void)
{
	fprintf(stderr, "usage: iostat [-dx] [-w wait] [-c count] [drive ...]\n");
	exit(1);
}

static int read_quad(const char *drive, const char *field, long long *v)
{
	char name[SYSCTL_NAMELEN];
	int64_t q = 0;
	size_t len = sizeof q;

	snprintf(name, sizeof name, PREFIX "%s.%s", drive, field);
	if (sysctl(name, &q, &len, NULL, 0) < 0)
		return -1;
	*v = q;
	return 0;
}

static int sample(struct drive *d)
{
	struct sample *s = &d->cur;

	if (read_quad(d->name, "reads", &s->reads) < 0 || read_quad(d->name, "writes", &s->writes) < 0 ||
	    read_quad(d->name, "bytes_read", &s->rbytes) < 0 ||
	    read_quad(d->name, "bytes_written", &s->wbytes) < 0 ||
	    read_quad(d->name, "busy_ns", &s->busy_ns) < 0 ||
	    read_quad(d->name, "queue_depth", &s->qlen) < 0 ||
	    read_quad(d->name, "depth_ns", &s->depth_ns) < 0 ||
	    read_quad(d->name, "active_ns", &s->active_ns) < 0)
		return -1;
	return 0;
}

static void add_drive(const char *name)
{
	int i;

	for (i = 0; i < ndrives; i++)
		if (strcmp(drives[i].name, name) == 0)
			return;
	if (ndrives == MAXDRIVES)
		errx(1, "more than %d drives", MAXDRIVES);
	strlcpy(drives[ndrives].name, name, NAMELEN);
	ndrives++;
}

/* Every drive with devstat counters, in sysctl order. */
static void find_drives(void)
{
	char name[SYSCTL_NAMELEN], next[SYSCTL_NAMELEN], drive[NAMELEN];
	size_t pl = strlen(PREFIX), n;
	char *dot;

	strlcpy(name, "kern.devstat", sizeof name);
	while (sysctlnext(name, next, sizeof next) == 0 && strncmp(next, PREFIX, pl) == 0) {
		dot = strchr(next + pl, '.');
		n = dot ? (size_t)(dot - (next + pl)) : strlen(next + pl);
		if (n > 0 && n < NAMELEN) {
			memcpy(drive, next + pl, n);
			drive[n] = 0;
			add_drive(drive);
		}
		strlcpy(name, next, sizeof name);
	}
}

static long long now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_UPTIME, &ts) < 0)
		err(1, "clock_gettime");
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* num / den with two decimals, rounded, in a field of `width`. */
static void put2(long long num, long long den, int width)
{
	char buf[32];
	long long v = den > 0 ? (num * 100 + den / 2) / den : 0;

	snprintf(buf, sizeof buf, "%lld.%02lld", v / 100, v % 100);
	printf(" %*s", width, buf);
}

/* num / den rounded to an integer. */
static void put0(long long num, long long den, int width)
{
	printf(" %*lld", width, den > 0 ? (num + den / 2) / den : 0);
}

static void header(void)
{
	int i, pad;

	if (xflag) {
		printf("%28s\n", "extended device statistics");
		printf("%-8s %7s %7s %9s %9s %6s %6s %4s %4s\n", "device", "r/s", "w/s", "kr/s", "kw/s", "wait",
		       "actv", "qlen", "%b");
		return;
	}
	for (i = 0; i < ndrives; i++) {
		pad = (19 - (int)strlen(drives[i].name)) / 2;
		printf("%*s%-*s", pad, "", 19 - pad, drives[i].name);
	}
	putchar('\n');
	for (i = 0; i < ndrives; i++)
		printf("   KB/t   tps   MB/s");
	putchar('\n');
}

/* One report over `ns` nanoseconds of the difference between each drive's cur and prev. */
static void report(long long ns)
{
	long long ops, bytes, us = ns / 1000;
	struct sample *c, *p;
	int i;

	for (i = 0; i < ndrives; i++) {
		c = &drives[i].cur;
		p = &drives[i].prev;
		ops = (c->reads - p->reads) + (c->writes - p->writes);
		bytes = (c->rbytes - p->rbytes) + (c->wbytes - p->wbytes);
		if (xflag) {
			printf("%-8s", drives[i].name);
			put0((c->reads - p->reads) * 1000000, us, 7);
			put0((c->writes - p->writes) * 1000000, us, 7);
			put2((c->rbytes - p->rbytes) / 1024 * 1000000, us, 9);
			put2((c->wbytes - p->wbytes) / 1024 * 1000000, us, 9);
			put2((c->depth_ns - p->depth_ns) - (c->active_ns - p->active_ns), ns, 6);
			put2(c->active_ns - p->active_ns, ns, 6);
			printf(" %4lld", c->qlen);
			/* LAB tour BEGIN */
			put0((c->busy_ns - p->busy_ns) * 100, ns, 3);
			/* LAB tour STUB */
			// printf(" %3s", "-");    /* labs/tour: %b, the share of the interval the drive was busy */
			/* LAB tour END */
			putchar('\n');
		} else {
			put2(bytes, ops * 1024, 6);
			put0(ops * 1000000, us, 5);
			put2(bytes / 1024 * 1000000 / 1024, us, 6);
		}
	}
	if (!xflag)
		putchar('\n');
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long wait = 0, count = 0;
	long long t, last = 0;
	char *end;
	int ch, i, reports;

	while ((ch = getopt(argc, argv, "c:dw:x")) != -1) {
		switch (ch) {
		case 'c':
			count = strtol(optarg, &end, 10);
			if (*optarg == 0 || *end != 0 || count < 1)
				errx(1, "bad count '%s': a positive number of reports", optarg);
			break;
		case 'd':
			break;
		case 'w':
			wait = strtol(optarg, &end, 10);
			if (*optarg == 0 || *end != 0 || wait < 1)
				errx(1, "bad wait '%s': a positive number of seconds", optarg);
			break;
		case 'x':
			xflag = 1;
			break;
		default:
			usage();
		}
	}
	for (i = optind; i < argc; i++) {
		if (strncmp(argv[i], "/dev/", 5) == 0)
			argv[i] += 5;
		if (strlen(argv[i]) >= NAMELEN || read_quad(argv[i], "reads", &t) < 0)
			errx(1, "%s: no such drive (no %s%s.* counters)", argv[i], PREFIX, argv[i]);
		add_drive(argv[i]);
	}
	if (ndrives == 0)
		find_drives();
	if (ndrives == 0)
		errx(1, "no drives with statistics");
	if (wait == 0 && count > 1)
		wait = 1;
	if (count == 0 && wait == 0)
		count = 1;
	for (reports = 0; count == 0 || reports < count; reports++) {
		if (reports > 0)
			sleep((unsigned)wait);
		t = now_ns();
		for (i = 0; i < ndrives; i++)
			if (sample(&drives[i]) < 0)
				err(1, "%s: reading its counters", drives[i].name);
		if (reports == 0 || xflag)
			header();
		report(t - last);
		for (i = 0; i < ndrives; i++)
			drives[i].prev = drives[i].cur;
		last = t;
	}
	return 0;
}
