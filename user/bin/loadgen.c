/*
 * loadgen: load and limits, to see that the kernel neither deadlocks nor breaks under them.
 *
 *   loadgen [-p procs] [-t secs] [-d dir]     procs workers for secs seconds (64, 60, /tmp)
 *   loadgen -b [-t secs]                      a fork bomb, bounded by the process table
 *   loadgen -f [-p procs]                     descriptors and pipes until the limits
 *
 * Workers: each loops until the time is up over: write a file of up to 64 KB in its own
 * directory and read it back (compared), fork a child that writes a file and exits (waited
 * for), a pipe to a child that sends 64 KB (compared), unlink, and now and then a short sleep.
 * The parent prints a line a second (`loadgen: 12 s, 1234 operations, 0 errors`) and at the
 * end a summary; any wrong data, unexpected error or worker that died counts as an error.
 *
 * -b: every process forks until fork(2) fails, each child doing the same; the first EAGAIN
 * (or ENOMEM) stops a process, which then holds for secs seconds (default 3) and exits after
 * its children. The line `loadgen: fork bomb: P processes at most, fork failed N times
 * (EAGAIN A, ENOMEM M, other O)` says how far it got.
 * -f: procs processes (default 32) each open /dev/null until open(2) fails, then make pipes
 * until pipe(2) fails; each reports the errno that stopped it, all hold until every one has
 * stopped (so together they meet the system's limit, NFILE, not only their own, NOFILE), then
 * close everything. Printed: `loadgen: limits: open EMFILE 20, ENFILE 12; pipe EMFILE 32`.
 * Exit status 0 if nothing went wrong (limits reached the way they should), 1 otherwise.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXPROCS 128
#define BUFSZ    65536

static char wbuf[BUFSZ], rbuf[BUFSZ];
static unsigned int rng;

static uint32_t rnd(void)
{
	return (uint32_t)rand_r(&rng);
}

static time_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void fill(char *p, size_t n, uint32_t tag)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)(tag + i * 7);
}

static int readall(int fd, char *p, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n && (r = read(fd, p + got, n - got)) > 0)
		got += (size_t)r;
	return got == n ? 0 : -1;
}

/* ---- workers ------------------------------------------------------------------------------------ */

static int file_roundtrip(const char *path, uint32_t tag)
{
	size_t n = 1 + rnd() % BUFSZ;
	int fd, bad = 0;

	fill(wbuf, n, tag);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		return -1;
	bad |= write(fd, wbuf, n) != (ssize_t)n;
	close(fd);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	bad |= readall(fd, rbuf, n) != 0 || memcmp(rbuf, wbuf, n) != 0;
	close(fd);
	return bad ? -1 : 0;
}

static int fork_child(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno == EAGAIN ? 0 : -1;    /* a full process table is not a failure here */
	if (pid == 0)
		_exit(file_roundtrip(path, 99) == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int pipe_child(uint32_t tag)
{
	int p[2], status, bad;
	pid_t pid;

	if (pipe(p) < 0)
		return errno == EMFILE || errno == ENFILE ? 0 : -1;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return errno == EAGAIN ? 0 : -1;
	}
	if (pid == 0) {
		close(p[0]);
		fill(wbuf, BUFSZ, tag);
		_exit(write(p[1], wbuf, BUFSZ) == BUFSZ ? 0 : 1);
	}
	close(p[1]);
	fill(wbuf, BUFSZ, tag);
	bad = readall(p[0], rbuf, BUFSZ) != 0 || memcmp(rbuf, wbuf, BUFSZ) != 0;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		bad = 1;
	return bad ? -1 : 0;
}

/* What a worker reports through the shared pipe (one write each, so never interleaved). */
struct progress { int32_t id; int32_t ops; int32_t errors; };

static void report(int out, int id, long ops, long errors)
{
	struct progress rec = { id, (int32_t)ops, (int32_t)errors };

	write(out, &rec, sizeof rec);
}

/* One worker: operations until `end`; reports its counts through the pipe fd `out`. */
static void __attribute__((noreturn)) worker(int id, const char *dir, time_t end, int out)
{
	char path[256], sub[256];
	long ops = 0, errors = 0;
	struct timespec nap = { 0, 5000000 };

	rng = (uint32_t)id * 2654435761u + 1;
	snprintf(sub, sizeof sub, "%s/load%d", dir, id);
	mkdir(sub, 0755);
	snprintf(path, sizeof path, "%s/f", sub);
	while (now() < end) {
		int r;
		switch (rnd() % 8) {
		case 0: case 1: case 2: r = file_roundtrip(path, (uint32_t)ops); break;
		case 3:             r = fork_child(path); break;
		case 4: case 5:     r = pipe_child((uint32_t)ops); break;
		case 6:             r = unlink(path) < 0 && errno != ENOENT ? -1 : 0; break;
		default:            r = nanosleep(&nap, NULL); break;
		}
		if (r < 0) {
			errors++;
			warn("worker %d: operation %ld", id, ops);
		}
		if (++ops % 16 == 0)
			report(out, id, ops, errors);
	}
	unlink(path);
	rmdir(sub);
	report(out, id, ops, errors);
	_exit(errors ? 1 : 0);
}

/* Read the progress records waiting in fd (whole ones; a partial one is kept for later). */
static void drain(int fd, long *ops, long *errs, int nprocs)
{
	static char carry[sizeof(struct progress) * 64];
	static size_t have;
	struct progress rec;
	ssize_t n;

	while ((n = read(fd, carry + have, sizeof carry - have)) > 0) {
		have += (size_t)n;
		size_t used = 0;
		for (; have - used >= sizeof rec; used += sizeof rec) {
			memcpy(&rec, carry + used, sizeof rec);
			if (rec.id >= 0 && rec.id < nprocs) {
				ops[rec.id] = rec.ops;
				errs[rec.id] = rec.errors;
			}
		}
		memmove(carry, carry + used, have - used);
		have -= used;
	}
}

static int run_load(int nprocs, int secs, const char *dir)
{
	int p[2], status, alive, died = 0;
	long ops[MAXPROCS] = { 0 }, errs[MAXPROCS] = { 0 }, total, nerr;
	time_t start = now(), end = start + secs, last = start;
	struct timespec tick = { 0, 100000000 };
	pid_t pid;

	if (pipe(p) < 0)
		err(1, "pipe");
	for (int i = 0; i < nprocs; i++) {
		if ((pid = fork()) < 0)
			err(1, "fork of worker %d", i);
		if (pid == 0) {
			close(p[0]);
			worker(i, dir, end, p[1]);
		}
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	printf("loadgen: %d workers for %d s in %s\n", nprocs, secs, dir);
	for (alive = nprocs; alive > 0;) {
		drain(p[0], ops, errs, nprocs);
		while ((pid = wait4(-1, &status, WNOHANG, NULL)) > 0) {
			alive--;
			if (!WIFEXITED(status)) {
				died++;
				printf("loadgen: worker pid %d died of signal %d\n", (int)pid, WTERMSIG(status));
			}
		}
		if (now() != last || alive == 0) {
			last = now();
			total = nerr = 0;
			for (int i = 0; i < nprocs; i++) {
				total += ops[i];
				nerr += errs[i];
			}
			printf("loadgen: %d s, %ld operations, %ld errors, %d workers running\n", (int)(last - start), total,
			       nerr, alive);
		}
		nanosleep(&tick, NULL);
	}
	drain(p[0], ops, errs, nprocs);
	close(p[0]);
	total = nerr = 0;
	for (int i = 0; i < nprocs; i++) {
		total += ops[i];
		nerr += errs[i];
	}
	printf("loadgen: done: %d workers, %ld operations, %ld errors, %d died\n", nprocs, total, nerr, died);
	return nerr || died ? 1 : 0;
}

/* ---- the fork bomb -------------------------------------------------------------------------------- */

struct bombstats { int eagain, enomem, other; };

/*
 * Fork until it fails; children do the same. Each process tells the root (through the pipe)
 * how it was stopped; the root counts how many there were at most through kern.proc.
 */
static void __attribute__((noreturn)) bomb(int report, int secs)
{
	struct timespec hold = { secs, 0 };
	int kids = 0;
	char why;

	for (;;) {
		pid_t pid = fork();
		if (pid == 0) {
			kids = 0;
			continue;                      /* the child bombs on too */
		}
		if (pid < 0) {
			why = errno == EAGAIN ? 'A' : errno == ENOMEM ? 'M' : 'O';
			break;
		}
		kids++;
	}
	write(report, &why, 1);
	nanosleep(&hold, NULL);
	while (kids > 0 && wait(NULL) > 0)
		kids--;
	_exit(0);
}

static int count_procs(void)
{
	size_t len = 0;

	if (sysctl("kern.proc", NULL, &len, NULL, 0) < 0)
		return -1;
	return (int)(len / sizeof(struct kinfo_proc));
}

static int run_bomb(int secs)
{
	struct bombstats st = { 0, 0, 0 };
	int p[2], peak = 0, n, status;
	time_t end;
	pid_t pid;
	char why;

	if (pipe(p) < 0)
		err(1, "pipe");
	if ((pid = fork()) < 0)
		err(1, "fork");
	if (pid == 0) {
		close(p[0]);
		bomb(p[1], secs);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	end = now() + secs + 30;
	while (waitpid(pid, &status, WNOHANG) == 0 && now() < end) {
		if ((n = count_procs()) > peak)
			peak = n;
		while (read(p[0], &why, 1) == 1)
			*(why == 'A' ? &st.eagain : why == 'M' ? &st.enomem : &st.other) += 1;
		usleep(20000);
	}
	while (read(p[0], &why, 1) == 1)
		*(why == 'A' ? &st.eagain : why == 'M' ? &st.enomem : &st.other) += 1;
	close(p[0]);
	while (wait(NULL) > 0)
		;
	printf("loadgen: fork bomb: %d processes at most, fork failed %d times (EAGAIN %d, ENOMEM %d, other %d)\n",
	       peak, st.eagain + st.enomem + st.other, st.eagain, st.enomem, st.other);
	return st.other == 0 && st.eagain + st.enomem > 0 ? 0 : 1;
}

/* ---- descriptor and pipe limits -------------------------------------------------------------------- */

static const char *errname(int e)
{
	return e == EMFILE ? "EMFILE" : e == ENFILE ? "ENFILE" : e == ENOMEM ? "ENOMEM" : strerror(e);
}

/* One process: open until it fails, then pipes until they fail; report both errnos; hold. */
static void __attribute__((noreturn)) limits_child(int report, int go)
{
	int e[2], p[2], fd;
	char c;

	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		;
	e[0] = errno;
	while (pipe(p) == 0)
		;
	e[1] = errno;
	write(report, e, sizeof e);
	read(go, &c, 1);                          /* hold everything until all have reported */
	_exit(0);
}

static int run_limits(int nprocs)
{
	int rep[2], go[2], e[2], bad = 0;
	int open_mfile = 0, open_nfile = 0, pipe_mfile = 0, pipe_nfile = 0;

	if (pipe(rep) < 0 || pipe(go) < 0)
		err(1, "pipe");
	for (int i = 0; i < nprocs; i++) {
		pid_t pid = fork();
		if (pid < 0)
			err(1, "fork");
		if (pid == 0) {
			close(rep[0]);
			close(go[1]);
			limits_child(rep[1], go[0]);
		}
	}
	close(rep[1]);
	close(go[0]);
	for (int i = 0; i < nprocs; i++) {
		if (readall(rep[0], (char *)e, sizeof e) != 0) {
			warnx("a child did not report");
			bad = 1;
			break;
		}
		open_mfile += e[0] == EMFILE;
		open_nfile += e[0] == ENFILE;
		pipe_mfile += e[1] == EMFILE;
		pipe_nfile += e[1] == ENFILE;
		if ((e[0] != EMFILE && e[0] != ENFILE) || (e[1] != EMFILE && e[1] != ENFILE)) {
			warnx("a limit gave %s / %s", errname(e[0]), errname(e[1]));
			bad = 1;
		}
	}
	close(go[1]);                             /* everyone lets go */
	while (wait(NULL) > 0)
		;
	close(rep[0]);
	printf("loadgen: limits: %d processes: open EMFILE %d, ENFILE %d; pipe EMFILE %d, ENFILE %d\n", nprocs,
	       open_mfile, open_nfile, pipe_mfile, pipe_nfile);
	return bad;
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp";
	int c, nprocs = -1, secs = -1, mode = 0;

	while ((c = getopt(argc, argv, "bfp:t:d:")) != -1) {
		switch (c) {
		case 'b': mode = 'b'; break;
		case 'f': mode = 'f'; break;
		case 'p': nprocs = atoi(optarg); break;
		case 't': secs = atoi(optarg); break;
		case 'd': dir = optarg; break;
		default: goto usage;
		}
	}
	if (optind != argc || nprocs > MAXPROCS || (nprocs != -1 && nprocs < 1) || (secs != -1 && secs < 0))
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mode == 'b')
		return run_bomb(secs < 0 ? 3 : secs);
	if (mode == 'f')
		return run_limits(nprocs < 0 ? 32 : nprocs);
	return run_load(nprocs < 0 ? 64 : nprocs, secs < 0 ? 60 : secs, dir);
usage:
	fprintf(stderr, "usage: loadgen [-p procs] [-t secs] [-d dir]\n"
	                "       loadgen -b [-t secs]\n"
	                "       loadgen -f [-p procs]\n");
	return 2;
}
