/*
 * sampler: run a command and sample kernel counters beside it, as CSV (the in-guest time
 * series of tools/experiment; docs/harness.md "The instruments in the guest").
 *
 *   sampler [-i ms] [-o file] [-l label] [-s name[,name...]]... [-w wmesg[,wmesg...]]
 *           [-c comm[,comm...]] command [arg ...]
 *
 * Starts the command, then every -i milliseconds (default 100) writes one CSV line, from one
 * read of the process table and one sysctl("sysctl.values") for all the counters:
 *   t_us        CLOCK_MONOTONIC time in microseconds (since boot; latprobe uses the same clock)
 *   wbytes      bytes the command has written with write(2) so far (kern.proc's ki_wbytes)
 *   <name>      the value of each integer sysctl named with -s
 *   wchan.<w>   how many processes sleep on wait message w (-w), from the process table
 *               (kern.proc, which ps reads too)
 *   cpu.<comm>  the CPU time in microseconds (kern.proc's ki_runtime) of the processes named
 *               comm (-c; summed if several have that name): e.g. cpu.pagedaemon, a kernel
 *               thread's time, which no counter of its own keeps
 * The last line is taken after the command has exited (its zombie still holds ki_wbytes).
 * Then sampler reaps it and exits with its status (128 + the signal if it was killed).
 *
 * -s takes sysctl names, or a prefix ending in ".*" for every node under it (looked up once at
 * the start with sysctlnext). Integer nodes become columns; a string node is reported once as
 * "#const name value", a structure once as "#skipped name (format)"; a name that does not
 * exist, or a prefix with nothing under it, is reported once as "#missing name" and left out.
 * So a list that names counters a kernel does not have yet still works, and new counters show
 * up when the kernel grows them.
 *
 * Output goes to -o (default stdout; opened for appending, e.g. /dev/ttyd1), one write(2) per
 * line (libutil's line records), so several programs can share one device. Lines starting with
 * '#' are metadata: "#const" and "#missing" (while the options are read), "#start
 * interval_ms=N pid=N", and at the end "#end status=N samples=N late=N cpu_us=N" (late: ticks
 * skipped because a sample was taken late; cpu_us: the sampler's own CPU time, user and
 * system, i.e. what sampling cost). The CSV header follows "#start". With -l every line starts
 * with "label,".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <err.h>
#include <libutil.h>

#define MAXCOLS  512
#define MAXWMESG 32

static char cols[MAXCOLS][SYSCTL_NAMELEN];
static int ncols;
static char names[SYSCTL_VALUES_MAX];   /* the columns as sysctl.values wants them */
static size_t nameslen;

static char wmesgs[MAXWMESG][KI_WMESGLEN + 1];
static int nwmesgs;

static char comms[MAXWMESG][KI_NAMELEN];
static int ncomms;

static void usage(void)
{
	fprintf(stderr, "usage: sampler [-i ms] [-o file] [-l label] [-s name[,name...]]... "
	                "[-w wmesg[,wmesg...]] command [arg ...]\n");
	exit(1);
}

/* A node found by name: an integer becomes a column, a string is reported once. */
static void add_node(const char *name)
{
	struct sysctl_info info;
	char sval[256];
	size_t len = sizeof sval;

	if (sysctlinfo(name, &info) < 0) {
		lr_meta("missing %s", name);
		return;
	}
	switch (info.kind & CTLTYPE) {
	case CTLTYPE_INT:
	case CTLTYPE_QUAD:
		for (int i = 0; i < ncols; i++)
			if (strcmp(cols[i], name) == 0)
				return;
		if (ncols == MAXCOLS || nameslen + strlen(name) + 1 > sizeof names)
			errx(1, "too many counters (at most %d, %d bytes of names)", MAXCOLS, SYSCTL_VALUES_MAX);
		strlcpy(cols[ncols++], name, SYSCTL_NAMELEN);
		strlcpy(names + nameslen, name, sizeof names - nameslen);
		nameslen += strlen(name) + 1;
		return;
	case CTLTYPE_STRING:
		if (sysctl(name, sval, &len, NULL, 0) == 0) {
			sval[sizeof sval - 1] = 0;
			lr_meta("const %s %s", name, sval);
		}
		return;
	default:
		lr_meta("skipped %s (%s)", name, info.fmt[0] ? info.fmt : "opaque");
		return;
	}
}

/* "vfs.*": every node whose name starts with "vfs.", in sorted order. */
static void add_prefix(const char *pattern)
{
	char prefix[SYSCTL_NAMELEN], name[SYSCTL_NAMELEN];
	size_t plen = strlen(pattern) - 1;           /* keep the dot, drop the star */
	int found = 0;

	memcpy(prefix, pattern, plen);
	prefix[plen] = 0;
	strlcpy(name, prefix, sizeof name);
	while (sysctlnext(name, name, sizeof name) == 0 && strncmp(name, prefix, plen) == 0) {
		add_node(name);
		found = 1;
	}
	if (!found)
		lr_meta("missing %s", pattern);
}

static void add_names(char *list)
{
	char *w;

	while ((w = strsep(&list, ","))) {
		size_t n = strlen(w);
		if (n == 0)
			continue;
		if (n >= SYSCTL_NAMELEN)
			errx(1, "%s: a sysctl name has at most %d characters", w, SYSCTL_NAMELEN - 1);
		if (n >= 2 && strcmp(w + n - 2, ".*") == 0)
			add_prefix(w);
		else if (strchr(w, '*'))
			errx(1, "%s: only a final \".*\" is a pattern", w);
		else
			add_node(w);
	}
}

static void add_wmesgs(char *list)
{
	char *w;

	while ((w = strsep(&list, ","))) {
		if (*w == 0)
			continue;
		if (strlen(w) > KI_WMESGLEN)
			errx(1, "%s: a wait message has at most %d characters", w, KI_WMESGLEN);
		if (nwmesgs == MAXWMESG)
			errx(1, "more than %d wait messages", MAXWMESG);
		strlcpy(wmesgs[nwmesgs++], w, KI_WMESGLEN + 1);
	}
}

static void add_comms(char *list)
{
	char *w;

	while ((w = strsep(&list, ","))) {
		if (*w == 0)
			continue;
		if (strlen(w) >= KI_NAMELEN)
			errx(1, "%s: a command name has at most %d characters", w, KI_NAMELEN - 1);
		if (ncomms == MAXWMESG)
			errx(1, "more than %d command names", MAXWMESG);
		strlcpy(comms[ncomms++], w, KI_NAMELEN);
	}
}

static void header(void)
{
	lr_begin();
	lr_printf("t_us,wbytes");
	for (int i = 0; i < ncols; i++)
		lr_printf(",%s", cols[i]);
	for (int i = 0; i < nwmesgs; i++)
		lr_printf(",wchan.%s", wmesgs[i]);
	for (int i = 0; i < ncomms; i++)
		lr_printf(",cpu.%s", comms[i]);
	lr_end();
}

/* One data line. Returns whether the command is still running (not yet a zombie). */
static int sample(pid_t child)
{
	int counts[MAXWMESG] = { 0 }, n = 0, running = 0;
	unsigned long long wbytes = 0, cpu[MAXWMESG] = { 0 };
	long long t = monotonic_us();
	struct kinfo_proc *kp = kinfo_getallproc(&n);

	for (int i = 0; kp && i < n; i++) {
		if (kp[i].ki_pid == child) {
			wbytes = kp[i].ki_wbytes;
			running = kp[i].ki_stat != 'Z';
		}
		for (int j = 0; j < ncomms; j++)
			if (strcmp(kp[i].ki_comm, comms[j]) == 0)
				cpu[j] += kp[i].ki_runtime;
		if (kp[i].ki_stat != 'S')
			continue;
		for (int j = 0; j < nwmesgs; j++)
			if (strncmp(kp[i].ki_wmesg, wmesgs[j], KI_WMESGLEN) == 0)
				counts[j]++;
	}
	free(kp);
	static int64_t vals[MAXCOLS];
	size_t len = sizeof vals;
	int ok = ncols == 0 || sysctl("sysctl.values", vals, &len, names, nameslen) == 0;

	if (!ok)
		warn("sysctl.values");                  /* the fields stay empty */
	lr_begin();
	lr_printf("%lld,%llu", t, wbytes);
	for (int i = 0; i < ncols; i++) {
		if (ok)
			lr_printf(",%lld", (long long)vals[i]);
		else
			lr_printf(",");
	}
	for (int j = 0; j < nwmesgs; j++)
		lr_printf(",%d", counts[j]);
	for (int j = 0; j < ncomms; j++)
		lr_printf(",%llu", cpu[j]);
	lr_end();
	return running;
}

/* The CPU time, user and system, this process has used so far, in microseconds. */
static long long cpu_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
	long interval_ms = 100, samples = 0;
	long long cpu0;
	const char *out = NULL, *label = NULL;
	struct ticker tick;
	int c, status;
	pid_t child;

	/* The output first: -s and -w report into it while they are read. */
	while ((c = getopt(argc, argv, "i:o:l:s:w:c:")) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'l')
			label = optarg;
		else if (c == '?')
			usage();
	}
	if (optind >= argc)
		usage();
	if (lr_open(out, label) < 0)
		err(1, "%s", out);
	optind = 1;
	while ((c = getopt(argc, argv, "i:o:l:s:w:c:")) != -1) {
		switch (c) {
		case 'i': interval_ms = ticker_ms(optarg); break;
		case 's': add_names(optarg); break;
		case 'w': add_wmesgs(optarg); break;
		case 'c': add_comms(optarg); break;
		}
	}
	fflush(NULL);
	if ((child = fork()) < 0)
		err(1, "fork");
	if (child == 0) {
		execvp(argv[optind], argv + optind);
		warn("%s", argv[optind]);
		_exit(errno == ENOENT ? 127 : 126);
	}
	lr_meta("start interval_ms=%ld pid=%d", interval_ms, child);
	header();
	cpu0 = cpu_us();
	ticker_start(&tick, interval_ms);
	for (;;) {
		samples++;
		if (!sample(child))
			break;
		ticker_wait(&tick);
	}
	if (waitpid(child, &status, 0) < 0)
		err(1, "waitpid");
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	lr_meta("end status=%d samples=%ld late=%ld cpu_us=%lld", status, samples, tick.late, cpu_us() - cpu0);
	return status;
}
