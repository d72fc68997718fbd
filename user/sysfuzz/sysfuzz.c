/*
 * sysfuzz: throw random system calls at the kernel (this file runs and watches the batches;
 * calls.c draws and makes the calls).
 *
 *   sysfuzz [-v] [-j jobs] [-b batch] [-t secs] SEED COUNT
 *   sysfuzz --replay [-b batch] SEED COUNT [FIRST [LAST]]
 *
 * Makes COUNT calls in all, in batches of `batch` (default 100) calls, each batch in a forked
 * child so that a call that kills its caller (exit, SIGKILL to itself, a shrunken heap) only
 * ends its batch. `jobs` children (default 4) run at once. Batch i draws its calls from its own
 * generator seeded by (SEED, i) and starts from a fresh scratch directory /tmp/fz/<i>, so any
 * batch can be replayed alone and does the same thing.
 *
 * A call is a system call number (now and then an invalid one: negative, past the table, in a
 * gap) with arguments drawn, by the call's signature, from pools of interesting values: 0, -1,
 * boundaries and huge lengths; valid buffers, NULL, unmapped user addresses, kernel addresses,
 * read-only text, page-crossing and misaligned pointers; open, closed and out-of-range
 * descriptors (files, a directory, pipes, /dev/zero, /dev/null, the ccd control device, the
 * root disk read-only); paths that are long, empty, lack a NUL, go through "..", name nothing
 * or name a device; corrupt and truncated ELF files and #! loops for execve; ccd configuration
 * records; a scratch mount point; user and group IDs (root, a user, nobody, -1), flock
 * operations and access(2) modes; socket domains and types, AF_UNIX addresses (a socket in the
 * scratch tree, the root directory) and their lengths, a msghdr of one buffer, short poll
 * timeouts. One argument in eight is replaced by a value of another kind.
 * A batch may give up root (setuid) and go on as a user; a FIFO it makes and then opens may
 * block it until the watchdog's SIGKILL, which is part of what is tested.
 * Calls that would take the system down for everyone are not made: reboot only with invalid
 * flags, kill only of itself, its own child, init, kernel threads and pids that do not exist,
 * sysctl writes only to read-only or missing names, mount/unmount only on the scratch mount
 * point, no writes to the root disk. A child of fork() exits at once.
 *
 * Watchdog: a batch still running after `secs` seconds (default 10) gets SIGKILL; a child that
 * has not died 10 s after SIGKILL is reported as unkillable, with its last calls. Each child
 * reports the index of the call it is about to make through a pipe, so the parent can name the
 * last calls of any batch that died or hung.
 *
 * Output: the seed and counts; a line for each batch the watchdog killed and each unkillable
 * one, with its last five calls and the command that replays it (-v: also `batch 17: pid 230`
 * as each starts, so the process named in a panic names its batch); a summary line
 * `sysfuzz: seed S: N calls in B batches: E exited, S signalled, T timed out, U unkillable`
 * (signalled: died of a signal, mostly its own doing: a bad pointer in user mode, a shrunken
 * heap, kill of itself). Exit status 0, or 1 if a child was unkillable (2 for usage errors).
 *
 * --replay runs batches FIRST..LAST (default all) one at a time in the foreground, printing
 * every call before it is made and its result after: `17.42 open("/tmp/fz/17/f", 0x602, 0644) = 9`.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ccdvar.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include "sysfuzz.h"

#define MAXJOBS      16
#define PROGRESS_FD  62          /* where a child reports progress (out of the fd pool) */
#define KILL_GRACE   10          /* seconds a SIGKILLed child may take to die */
#define LASTCALLS    5

/* ---- a batch in its child ----------------------------------------------------------------------- */

static void writefile(const char *path, const void *data, size_t n, int mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	if (fd >= 0) {
		write(fd, data, n);
		close(fd);
	}
}

static void rmtree(const char *path)
{
	char sub[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (lstat(path, &st) < 0)       /* a batch's symbolic link to "/" must not be followed */
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	if ((d = opendir(path))) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
				rmtree(sub);
			}
		closedir(d);
	}
	rmdir(path);
}

/* The path pool of batch env.batch (pure: the parent computes it too, to describe calls). */
static void set_paths(int batch)
{
	static const char *const names[NPATHS] = {
		"%s/f", "%s/d", "%s/d/x", "%s/mnt", "%s/f", "%s/new", "%s/../%d/f", "%s/d/../../%d/./f",
		"", "/", "/nonexistent/x", "%s/f/x", "/dev/null", "/dev/zero", "/dev/ccd", "/dev", ".",
		"..",
		/* the last NEXECS serve execve too */
		"/bin/true", "%s/badelf", "%s/truncelf", "%s/loop.sh", "%s/notexec", "%s/d",
	};

	env.batch = batch;
	snprintf(env.dir, sizeof env.dir, "/tmp/fz/%d", batch);
	for (int i = 0; i < NPATHS; i++)
		snprintf(env.paths[i], sizeof env.paths[0], names[i], env.dir, batch);
	/* A component of 256 bytes (ENAMETOOLONG) and a path of 1100 (past PATH_MAX). */
	memset(env.longname, 'n', 256);
	env.longname[256] = '\0';
	for (int i = 0; i < 1100; i++)
		env.longpath[i] = i % 2 ? '/' : 'p';
	env.longpath[1100] = '\0';
	snprintf(env.paths[5], sizeof env.paths[0], "%s/%.60s", env.dir, env.longname);
	for (int i = 0; i < 2; i++) {
		env.sun[i].sun_family = AF_UNIX;
		snprintf(env.sun[i].sun_path, sizeof env.sun[i].sun_path, "%s", i == 0 ? env.dir : "/");
		if (i == 0)
			strlcat(env.sun[i].sun_path, "/sock", sizeof env.sun[i].sun_path);
		env.sun[i].sun_len = (uint8_t)SUN_LEN(&env.sun[i]);
	}
}

/* The scratch tree of one batch and the executables that must fail to run. */
static void make_scratch(void)
{
	static const unsigned char badelf[64] = { 0x7f, 'E', 'L', 'F', 1, 1, 1 };
	char buf[128];
	int fd;

	rmtree(env.dir);
	mkdir("/tmp/fz", 0755);
	mkdir(env.dir, 0755);
	mkdir(env.paths[1], 0755);
	mkdir(env.paths[3], 0755);
	writefile(env.paths[0], "fuzz\n", 5, 0644);
	writefile(env.paths[NPATHS - 5], badelf, sizeof badelf, 0755);
	/* A real ELF header, cut short. O_NONBLOCK: an earlier batch may have made /bin/true a FIFO
	 * (unlink, then mkfifo of a path in the pool), whose open would wait for a writer. */
	if ((fd = open("/bin/true", O_RDONLY | O_NONBLOCK)) >= 0) {
		int n = (int)read(fd, buf, sizeof buf);
		close(fd);
		writefile(env.paths[NPATHS - 4], buf, n > 0 ? (size_t)n : 0, 0755);
	}
	snprintf(buf, sizeof buf, "#!%s/loop.sh\n", env.dir);     /* its own interpreter */
	writefile(env.paths[NPATHS - 3], buf, strlen(buf), 0755);
	writefile(env.paths[NPATHS - 2], "echo x\n", 7, 0644);
}

static void find_kthreads(void)
{
	static struct kinfo_proc kp[64];
	size_t len = sizeof kp;

	env.nkthreads = 0;
	if (sysctl("kern.proc", kp, &len, NULL, 0) < 0)
		return;
	for (size_t i = 0; i < len / sizeof kp[0] && env.nkthreads < 4; i++)
		if (kp[i].ki_kthread)
			env.kthreads[env.nkthreads++] = kp[i].ki_pid;
}

/*
 * Descriptors: 0-2 /dev/null (the console is not the fuzzer's), then the pool in a fixed order;
 * `out` (the progress pipe, or the replay log) moves to PROGRESS_FD.
 */
static void setup_fds(int out)
{
	int p[2];

	dup2(out, PROGRESS_FD);
	if (out != PROGRESS_FD)
		close(out);
	for (int i = 0; i < 3; i++) {
		close(i);
		open("/dev/null", O_RDWR);
	}
	for (int fd = 3; fd < PROGRESS_FD; fd++)
		close(fd);
	for (int i = 0; i < 3; i++)
		env.fds[i] = i;
	env.fds[3] = open(env.paths[0], O_RDWR);
	env.fds[4] = open(env.paths[0], O_RDONLY);
	env.fds[5] = open(env.paths[1], O_RDONLY);
	env.fds[6] = open("/dev/zero", O_RDWR);
	env.fds[7] = open("/dev/md0", O_RDONLY);          /* the root disk: never written */
	env.fds[8] = open("/dev/ccd", O_RDWR);
	if (pipe(p) == 0) {
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		env.fds[9] = p[0];
		env.fds[10] = p[1];
	}
	env.fds[11] = open(env.paths[0], O_RDONLY);
	close(env.fds[11]);                                   /* a closed descriptor */
	for (int i = 0; i < NRECENT; i++)
		env.recent[i] = env.fds[i % 12];
	env.nrecent = 0;
}

/* The heap buffer ends exactly at the break, so "heapend-2" crosses into unmapped memory. */
static void setup_memory(uint32_t seed)
{
	unsigned int saved = rng_state;
	char *brk0 = sbrk(0);

	sbrk((4096 - ((uintptr_t)brk0 & 4095)) & 4095);
	env.argv_long = sbrk(1024 * sizeof(char *));
	for (int i = 0; env.argv_long != (void *)-1 && i < 1023; i++)
		env.argv_long[i] = env.paths[0];
	if (env.argv_long != (void *)-1)
		env.argv_long[1023] = NULL;
	env.heap = sbrk(HEAPBUF);
	rng_state = seed;                                     /* its own stream: calls do not depend on it */
	for (int i = 0; i < HEAPBUF / 4; i++) {               /* mostly small words: sane-ish structs */
		uint32_t r = rnd(), w = r % 10 < 5 ? 0 : r % 10 < 8 ? r >> 23 : rnd() << 1;
		memcpy(env.heap + 4 * i, &w, 4);
	}
	rng_state = saved;
	memset(env.heap + HEAPBUF - 8, 'a', 8);               /* a string with no NUL before unmapped memory */
	memset(env.stackless, 'b', sizeof env.stackless);
	env.iov = (struct iovec){ env.heap, 64 };
	env.msg = (struct msghdr){ &env.sun[0], sizeof env.sun[0], &env.iov, 1, NULL, 0, 0 };
	env.argv_ok[0] = "x";
	env.argv_ok[1] = NULL;
	env.argv_badelem[0] = "x";
	env.argv_badelem[1] = (char *)0x80100000u;
	env.argv_badelem[2] = NULL;
}

static void batch_seed(uint32_t seed, int batch)
{
	rng_state = seed * 0x9e3779b9u ^ (uint32_t)batch * 0x85ebca6bu;
	rnd();
}

/* Print to the replay log (PROGRESS_FD); a fuzzed call may have closed it, then it is quiet. */
static void logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf(const char *fmt, ...)
{
	char buf[400];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof buf - 1)
		n = sizeof buf - 1;
	write(PROGRESS_FD, buf, (size_t)n);
}

/*
 * Run batch `batch` in this (child) process. `out` is the progress pipe (each call's index is
 * written to it before the call), or with `replay` the log that gets every call and its result.
 */
static void __attribute__((noreturn)) run_batch(uint32_t seed, int batch, int ncalls, int out, int replay)
{
	struct call c;
	char desc[320];
	long r;

	set_paths(batch);
	make_scratch();
	setup_fds(out);
	env.self = getpid();
	env.kid = 99998;
	find_kthreads();
	batch_seed(seed, batch);
	setup_memory(rng_state ^ 0x5bd1e995u);
	for (int i = 0; i < ncalls; i++) {
		gen_call(&c);
		if (replay) {
			describe(desc, sizeof desc, &c, nargs_of(&c));
			logf("%d.%d %s", batch, i, desc);
		} else {
			int32_t idx = i;
			write(PROGRESS_FD, &idx, sizeof idx);
		}
		r = make_call(&c);
		if (replay)
			logf(" = %ld\n", r);
	}
	_exit(0);
}

/* ---- the parent: jobs, watchdog, report ------------------------------------------------------------ */

struct job {
	pid_t    pid;             /* 0 = free slot */
	int      batch;
	int      fd;              /* progress pipe, read end (non-blocking) */
	int      last;            /* index of the last call it reported, -1 = none yet */
	time_t   start, killed;   /* killed = when the watchdog sent SIGKILL, 0 = not yet */
};

static struct job jobs[MAXJOBS];
static uint32_t g_seed;
static int g_batchsize, g_timeout, g_verbose;
static long n_exited, n_signalled, n_timedout, n_unkillable;

static time_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* Regenerate batch b's calls (the child cannot tell us, it may be dead) and print its last ones. */
static void print_last_calls(int batch, int last)
{
	struct call c;
	char desc[320];

	set_paths(batch);
	batch_seed(g_seed, batch);
	for (int i = 0; i <= last; i++) {
		gen_call(&c);
		if (i > last - LASTCALLS) {
			describe(desc, sizeof desc, &c, nargs_of(&c));
			printf("    %d.%d %s\n", batch, i, desc);
		}
	}
	printf("    (replay: sysfuzz --replay -b %d %u %d %d)\n", g_batchsize, g_seed, g_batchsize * (batch + 1), batch);
	fflush(stdout);
}

static void drain_progress(struct job *j)
{
	int32_t idx[64];
	ssize_t n;

	while ((n = read(j->fd, idx, sizeof idx)) > 0)
		if (n >= 4)
			j->last = idx[n / 4 - 1];
}

static int start_job(struct job *j, int batch)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	fflush(stdout);
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		run_batch(g_seed, batch, g_batchsize, p[1], 0);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	j->pid = pid;
	j->batch = batch;
	j->fd = p[0];
	j->last = -1;
	j->start = now();
	j->killed = 0;
	if (g_verbose)
		printf("batch %d: pid %d\n", batch, (int)pid);
	return 0;
}

static void finish_job(struct job *j, int status)
{
	drain_progress(j);
	close(j->fd);
	if (j->killed) {
		n_timedout++;
		printf("batch %d: still running after %d s: killed (it had reached call %d)\n", j->batch, g_timeout, j->last);
		print_last_calls(j->batch, j->last);
	} else if (WIFSIGNALED(status)) {
		n_signalled++;
	} else {
		n_exited++;
	}
	j->pid = 0;
}

/* Kill batches past their time; a child that outlives SIGKILL by KILL_GRACE is unkillable. */
static void watchdog(struct job *j)
{
	time_t t = now();

	if (!j->killed && t - j->start >= g_timeout) {
		drain_progress(j);
		kill(j->pid, SIGKILL);
		j->killed = t;
	} else if (j->killed && t - j->killed >= KILL_GRACE && j->killed != (time_t)-1) {
		n_unkillable++;
		printf("batch %d: UNKILLABLE: pid %d still alive %d s after SIGKILL (last call %d)\n", j->batch,
		       (int)j->pid, KILL_GRACE, j->last);
		print_last_calls(j->batch, j->last);
		j->killed = (time_t)-1;            /* reported; keep waiting for it */
	}
}

static int fuzz(int count, int njobs)
{
	int nbatches = (count + g_batchsize - 1) / g_batchsize, next = 0, running = 0, status;
	struct timespec tick = { 0, 20000000 };
	pid_t pid;

	printf("sysfuzz: seed %u, %d calls in %d batches of %d, %d at a time, watchdog %d s\n", g_seed,
	       count, nbatches, g_batchsize, njobs, g_timeout);
	fflush(stdout);
	while (next < nbatches || running > 0) {
		for (int i = 0; i < njobs && next < nbatches; i++) {
			if (jobs[i].pid == 0 && start_job(&jobs[i], next) == 0) {
				next++;
				running++;
			}
		}
		while ((pid = wait4(-1, &status, WNOHANG, NULL)) > 0) {
			for (int i = 0; i < njobs; i++) {
				if (jobs[i].pid == pid) {
					finish_job(&jobs[i], status);
					running--;
				}
			}
		}
		for (int i = 0; i < njobs; i++) {
			if (jobs[i].pid != 0) {
				drain_progress(&jobs[i]);
				watchdog(&jobs[i]);
			}
		}
		if (n_unkillable && next >= nbatches && running == (int)n_unkillable)
			break;                             /* only unkillable ones left: stop waiting */
		nanosleep(&tick, NULL);
	}
	rmtree("/tmp/fz");
	printf("sysfuzz: seed %u: %d calls in %d batches: %ld exited, %ld signalled, %ld timed out, %ld unkillable\n",
	       g_seed, count, nbatches, n_exited, n_signalled, n_timedout, n_unkillable);
	return n_unkillable ? 1 : 0;
}

/* --replay: batches first..last in the foreground, every call and its result printed. */
static int replay(int count, int first, int last)
{
	int nbatches = (count + g_batchsize - 1) / g_batchsize, status;
	struct timespec tick = { 0, 20000000 };
	time_t start;
	pid_t pid, got;

	if (last < 0 || last >= nbatches)
		last = nbatches - 1;
	for (int b = first; b <= last; b++) {
		fflush(stdout);
		if ((pid = fork()) == 0)
			run_batch(g_seed, b, g_batchsize, dup(1), 1);
		if (pid < 0) {
			perror("sysfuzz: fork");
			return 1;
		}
		start = now();
		while ((got = wait4(pid, &status, WNOHANG, NULL)) == 0) {
			if (now() - start >= g_timeout) {
				printf("\nbatch %d: still running after %d s: killed\n", b, g_timeout);
				kill(pid, SIGKILL);
				start = now() + 3600;
			}
			nanosleep(&tick, NULL);
		}
		if (got < 0)
			perror("sysfuzz: wait4");
		else if (WIFSIGNALED(status))
			printf("\nbatch %d: killed by signal %d\n", b, WTERMSIG(status));
		else
			printf("batch %d: exited %d\n", b, WEXITSTATUS(status));
	}
	rmtree("/tmp/fz");
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sysfuzz [-v] [-j jobs] [-b batch] [-t secs] seed count\n"
	                "       sysfuzz --replay [-b batch] seed count [first [last]]\n");
	exit(2);
}

static int number(const char *s, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v < min || v > max)
		usage();
	return (int)v;
}

int main(int argc, char **argv)
{
	static char longname[257], longpath[1101];
	int c, njobs = 4, isreplay = 0, count;

	env.longname = longname;
	env.longpath = longpath;
	g_batchsize = 100;
	g_timeout = 10;
	if (argc > 1 && strcmp(argv[1], "--replay") == 0) {
		isreplay = 1;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	while ((c = getopt(argc, argv, "j:b:t:v")) != -1) {
		switch (c) {
		case 'v': g_verbose = 1; break;
		case 'j': njobs = number(optarg, 1, MAXJOBS); break;
		case 'b': g_batchsize = number(optarg, 1, 1000000); break;
		case 't': g_timeout = number(optarg, 1, 3600); break;
		default: usage();
		}
	}
	if (argc - optind < 2 || argc - optind > (isreplay ? 4 : 2))
		usage();
	g_seed = (uint32_t)strtoul(argv[optind], NULL, 0);
	count = number(argv[optind + 1], 1, 0x7fffffff);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (isreplay)
		return replay(count, argc - optind > 2 ? number(argv[optind + 2], 0, 0x7fffffff) : 0,
		              argc - optind > 3 ? number(argv[optind + 3], 0, 0x7fffffff) : -1);
	return fuzz(count, njobs);
}
