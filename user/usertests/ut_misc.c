/* ut_misc.c: usertests cases for clocks, sleeping, sysctl, kern.proc and the libc itself. */
#include "usertests.h"
#include <limits.h>
#include <libutil.h>
#include <sys/wait.h>

static long long mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Both clocks are sane and never go backwards, also across CPUs (we migrate by sleeping). */
UT_CASE(t_time)
{
	struct timeval tv, prev;
	struct timespec ts, pts;

	CHECK(gettimeofday(&prev, NULL) == 0, "gettimeofday: %s", strerror(errno));
	CHECK(prev.tv_sec > 1500000000, "wall clock %lld is before 2017", (long long)prev.tv_sec);
	CHECK(prev.tv_usec >= 0 && prev.tv_usec < 1000000, "tv_usec %ld", (long)prev.tv_usec);
	CHECK(clock_gettime(CLOCK_MONOTONIC, &pts) == 0, "clock_gettime: %s", strerror(errno));
	CHECK(clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts.tv_sec >= prev.tv_sec, "CLOCK_REALTIME behind");
	EXPECT_ERR(clock_gettime(12345, &ts), EINVAL);
	for (int i = 0; i < 2000; i++) {
		gettimeofday(&tv, NULL);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		CHECK(tv.tv_sec > prev.tv_sec || (tv.tv_sec == prev.tv_sec && tv.tv_usec >= prev.tv_usec),
		      "gettimeofday went back from %lld.%06ld to %lld.%06ld", (long long)prev.tv_sec,
		      (long)prev.tv_usec, (long long)tv.tv_sec, (long)tv.tv_usec);
		CHECK(ts.tv_sec > pts.tv_sec || (ts.tv_sec == pts.tv_sec && ts.tv_nsec >= pts.tv_nsec),
		      "CLOCK_MONOTONIC went back");
		CHECK(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000, "tv_nsec %ld", (long)ts.tv_nsec);
		prev = tv;
		pts = ts;
		if (i % 500 == 0)
			usleep(1000);
	}
}

/* timegm inverts gmtime (leap years, before 1970 too) and carries fields out of range. */
UT_CASE(t_timegm)
{
	struct tm tm;
	char buf[32];

	for (long long t = -2208988800LL; t < 4102444800LL; t += 86400LL * 97 + 3671) {
		time_t tt = (time_t)t;
		gmtime_r(&tt, &tm);
		CHECK(timegm(&tm) == tt, "timegm(gmtime(%lld)) = %lld", t, (long long)timegm(&tm));
	}
	tm = (struct tm){ .tm_year = 100, .tm_mon = 11, .tm_mday = 15, .tm_hour = 12 };
	CHECK(timegm(&tm) == 976881600, "2000-12-15 12:00 is %lld, not 976881600", (long long)timegm(&tm));
	CHECK(tm.tm_wday == 5 && tm.tm_yday == 349, "2000-12-15: wday %d yday %d, expected 5 349", tm.tm_wday, tm.tm_yday);
	tm = (struct tm){ .tm_year = 100, .tm_mon = 12, .tm_mday = 0 };
	timegm(&tm);
	strftime(buf, sizeof buf, "%F %T", &tm);
	CHECK(strcmp(buf, "2000-12-31 00:00:00") == 0, "month 12 day 0 of 2000 is %s, expected 2000-12-31", buf);
	tm = (struct tm){ .tm_year = 96, .tm_mon = 1, .tm_mday = 29, .tm_hour = 25 };
	timegm(&tm);
	strftime(buf, sizeof buf, "%F %T", &tm);
	CHECK(strcmp(buf, "1996-03-01 01:00:00") == 0, "1996-02-29 25:00 is %s, expected 1996-03-01 01:00", buf);
}

/* nanosleep sleeps at least as long as asked (and not absurdly longer); bad values: EINVAL. */
UT_CASE(t_nanosleep)
{
	struct timespec ts = { 0, 100000000 };   /* 100 ms */
	long long t0 = mono_us(), dt;

	CHECK(nanosleep(&ts, NULL) == 0, "nanosleep: %s", strerror(errno));
	dt = mono_us() - t0;
	CHECK(dt >= 100000, "slept %lld us, asked 100000", dt);
	CHECK(dt < 2000000, "slept %lld us for 100 ms", dt);
	ts.tv_sec = 0;
	ts.tv_nsec = 1000000000;
	EXPECT_ERR(nanosleep(&ts, NULL), EINVAL);
	ts.tv_sec = -1;
	ts.tv_nsec = 0;
	EXPECT_ERR(nanosleep(&ts, NULL), EINVAL);
	ts.tv_sec = 0;
	ts.tv_nsec = 0;
	CHECK(nanosleep(&ts, NULL) == 0, "zero sleep: %s", strerror(errno));
}

/*
 * A process that wakes does not wait out a CPU-bound process's slice: the spinner gives up the
 * CPU at its next return to user space (need_resched, kernel/kern/kern_synch.c). Each 1 ms sleep
 * ends at the next 10 ms tick; without the rule it then waited for the spinner's 20 ms slice to
 * end as well, about 20 ms in all, where with it a sleep takes at most a tick. A quarter of the
 * sleeps may be late (over 15 ms), room for a busy host; on 2 CPUs the spinner has its own.
 */
UT_CASE(t_wakeup_preempt)
{
	struct timespec ts = { 0, 1000000 };
	int late = 0, n = 40, status;
	pid_t pid = fork();

	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		for (volatile int x = 0;; x++)
			;
	nanosleep(&ts, NULL);                        /* the spinner is running */
	for (int i = 0; i < n; i++) {
		long long t0 = mono_us();
		nanosleep(&ts, NULL);
		late += mono_us() - t0 > 15000;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CHECK(late <= n / 4, "%d of %d 1 ms sleeps beside a spinning process took over 15 ms", late, n);
}

/*
 * The process that used the least CPU lately goes first (kernel/kern/kern_synch.c pick_next).
 * The prober writes a byte to a pipe whose reader sleeps in read(2), so on its way back to user
 * space it gives the CPU to the woken reader; when the reader sleeps again, the prober (it
 * sleeps between rounds) must run next, not one of two spinners, whose round-robin turn would
 * cost it a whole 20 ms slice. With plain round-robin 39 of 40 rounds took over 15 ms on 1 CPU
 * (three runs); a quarter may, room for a busy host. On 2 CPUs the spinners have one of their
 * own.
 */
UT_CASE(t_light_first)
{
	struct timespec ts = { 0, 50000000 };        /* first, the spinners use up their slices */
	int fds[2], late = 0, n = 40, nforked, fork_errno = 0, write_errno = 0, status;
	pid_t pids[3];
	char c = 'x';

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	for (nforked = 0; nforked < 3; nforked++) {
		pids[nforked] = fork();
		if (pids[nforked] < 0) {
			fork_errno = errno;
			break;
		}
		if (pids[nforked] == 0 && nforked == 2) {
			close(fds[1]);
			while (read(fds[0], &c, 1) == 1)
				;
			_exit(0);
		}
		if (pids[nforked] == 0)
			for (volatile int x = 0;; x++)
				;
	}
	close(fds[0]);
	if (nforked == 3)
		nanosleep(&ts, NULL);
	ts.tv_nsec = 1000000;
	for (int i = 0; nforked == 3 && i < n; i++) {
		nanosleep(&ts, NULL);
		long long t0 = mono_us();
		if (write(fds[1], &c, 1) != 1) {
			write_errno = errno;
			break;
		}
		late += mono_us() - t0 > 15000;
	}
	close(fds[1]);                               /* the reader sees EOF and exits */
	for (int i = 0; i < nforked; i++) {          /* the spinners never end by themselves */
		if (i < 2)
			kill(pids[i], SIGKILL);
		waitpid(pids[i], &status, 0);
	}
	CHECK(nforked == 3, "fork: %s", strerror(fork_errno));
	CHECK(write_errno == 0, "write to the pipe: %s", strerror(write_errno));
	CHECK(late <= n / 4, "%d of %d pipe writes beside two spinners took over 15 ms", late, n);
}

/*
 * sysctl: read a string, an int and a quad; write a writable int (kern.syncdelay) and read it
 * back; writes to read-only nodes fail with EPERM, badly sized writes with EINVAL, unknown
 * names with ENOENT, a too-small buffer with ENOMEM.
 */
UT_CASE(t_sysctl)
{
	char s[256], tiny[2];
	int32_t v, old, nv;
	int64_t q;
	size_t len;
	struct sysctl_info info;

	len = sizeof s;
	CHECK(sysctl("kern.bootargs", s, &len, NULL, 0) == 0, "read kern.bootargs: %s", strerror(errno));
	CHECK(len >= 1 && len <= sizeof s && s[len - 1] == 0, "kern.bootargs length %zu without its NUL", len);
	len = 0;
	CHECK(sysctl("kern.bootargs", NULL, &len, NULL, 0) == 0 && len == strlen(s) + 1, "size query gave %zu", len);
	len = sizeof v;
	CHECK(sysctl("kern.hz", &v, &len, NULL, 0) == 0 && len == 4 && v == 100, "kern.hz = %d (len %zu)", v, len);
	len = sizeof q;
	CHECK(sysctl("hw.physmem", &q, &len, NULL, 0) == 0 && len == 8 && q > (16LL << 20),
	      "hw.physmem = %lld", (long long)q);
	CHECK(sysctlinfo("kern.bootargs", &info) == 0 && (info.kind & CTLTYPE) == CTLTYPE_STRING &&
	      !(info.kind & CTLFLAG_WR), "kern.bootargs info kind %#x", info.kind);
	CHECK(info.descr[0] != 0, "kern.bootargs has no description");
	EXPECT_ERR(sysctl("kern.bootargs", NULL, NULL, "x", 2), EPERM);
	v = 1000;
	EXPECT_ERR(sysctl("kern.hz", NULL, NULL, &v, sizeof v), EPERM);
	len = sizeof v;
	EXPECT_ERR(sysctl("kern.nosuchnode", &v, &len, NULL, 0), ENOENT);
	EXPECT_ERR(sysctlinfo("kern.nosuchnode", &info), ENOENT);
	len = sizeof tiny;
	EXPECT_ERR(sysctl("kern.bootargs", tiny, &len, NULL, 0), ENOMEM);

	CHECK(sysctlinfo("kern.syncdelay", &info) == 0 && (info.kind & CTLFLAG_WR) &&
	      (info.kind & CTLTYPE) == CTLTYPE_INT, "kern.syncdelay is not a writable int (kind %#x)", info.kind);
	len = sizeof old;
	CHECK(sysctl("kern.syncdelay", &old, &len, NULL, 0) == 0, "read kern.syncdelay: %s", strerror(errno));
	nv = old + 1;
	CHECK(sysctl("kern.syncdelay", NULL, NULL, &nv, sizeof nv) == 0, "write kern.syncdelay: %s", strerror(errno));
	len = sizeof v;
	CHECK(sysctl("kern.syncdelay", &v, &len, NULL, 0) == 0 && v == old + 1, "read back %d, wrote %d", v, nv);
	EXPECT_ERR(sysctl("kern.syncdelay", NULL, NULL, &nv, 2), EINVAL);   /* not an int's size */
	len = sizeof v;
	CHECK(sysctl("kern.syncdelay", &v, &len, &old, sizeof old) == 0 && v == old + 1, "read-and-restore failed");
	len = sizeof v;
	CHECK(sysctl("kern.syncdelay", &v, &len, NULL, 0) == 0 && v == old, "restore: value %d, expected %d", v, old);
}

/* sysctlnext walks every node once, in strictly increasing order, ending with ENOENT. */
UT_CASE(t_sysctl_next)
{
	char name[SYSCTL_NAMELEN] = "", next[SYSCTL_NAMELEN];
	int n = 0, sawhz = 0;
	struct sysctl_info info;

	while (sysctlnext(name, next, sizeof next) == 0) {
		CHECK(strcmp(next, name) > 0, "\"%s\" came after \"%s\"", next, name);
		CHECK(sysctlinfo(next, &info) == 0, "sysctlinfo(%s): %s", next, strerror(errno));
		sawhz |= strcmp(next, "kern.hz") == 0;
		strlcpy(name, next, sizeof name);
		CHECK(++n < 10000, "sysctlnext does not end");
	}
	CHECK(errno == ENOENT, "the walk ended with %s, expected ENOENT", ut_errname(errno));
	CHECK(n > 5 && sawhz, "walked %d nodes (kern.hz %sseen)", n, sawhz ? "" : "not ");
	EXPECT_ERR(sysctlnext("", next, 2), ENOMEM);
}

/* kern.proc lists us (running), our sleeping child and the kernel threads with names. */
UT_CASE(t_kern_proc)
{
	struct kinfo_proc *kp;
	size_t len = 0;
	int fds[2], me = 0, child = 0, kthreads = 0, init = 0;
	char c;
	pid_t pid;

	CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(fds[1]);
		read(fds[0], &c, 1);
		_exit(0);
	}
	usleep(100000);
	CHECK(sysctl("kern.proc", NULL, &len, NULL, 0) == 0, "size of kern.proc: %s", strerror(errno));
	CHECK(len % sizeof *kp == 0, "kern.proc size %zu is not a multiple of %zu", len, sizeof *kp);
	len += 8 * sizeof *kp;
	kp = malloc(len);
	CHECK(kp && sysctl("kern.proc", kp, &len, NULL, 0) == 0, "read kern.proc: %s", strerror(errno));
	for (size_t i = 0; i < len / sizeof *kp; i++) {
		if (kp[i].ki_pid == getpid())
			me = kp[i].ki_stat == 'R' && kp[i].ki_ppid == getppid();
		if (kp[i].ki_pid == pid)
			child = kp[i].ki_stat == 'S' && kp[i].ki_wmesg[0] && kp[i].ki_ppid == getpid();
		if (kp[i].ki_pid == 1)
			init = 1;
		if (kp[i].ki_kthread && kp[i].ki_comm[0])
			kthreads++;
	}
	close(fds[1]);
	waitpid(pid, NULL, 0);
	CHECK(me, "this process is missing from kern.proc or not 'R' with the right parent");
	CHECK(child, "the child blocked in read is missing or not 'S' with a wait message");
	CHECK(init, "init (pid 1) is missing");
	CHECK(kthreads >= 2, "%d named kernel threads, expected bufdaemon, syncer...", kthreads);
	free(kp);
}

/*
 * sysctl.values: an int and a quad read in one call agree with their own reads; a name that is
 * not an integer node, a list not ending in NUL, an empty or an oversized list are refused;
 * without a list it gives nothing; a process's write(2)s add up in its ki_wbytes.
 */
UT_CASE(t_sysctl_values)
{
	static char big[SYSCTL_VALUES_MAX + 2];
	const char names[] = "kern.hz\0hw.physmem\0";
	int64_t vals[2], q;
	int32_t hz;
	size_t len = sizeof vals, l1 = sizeof hz, l2 = sizeof q;
	struct kinfo_proc *kp;
	int n, fd;
	unsigned long long before = 0, after = 0;

	CHECK(sysctl("sysctl.values", vals, &len, names, sizeof names - 1) == 0, "sysctl.values: %s", strerror(errno));
	CHECK(sysctl("kern.hz", &hz, &l1, NULL, 0) == 0 && sysctl("hw.physmem", &q, &l2, NULL, 0) == 0, "reads");
	CHECK(len == sizeof vals && vals[0] == hz && vals[1] == q, "got %zu bytes: %lld %lld, expected %d %lld", len,
	      (long long)vals[0], (long long)vals[1], hz, (long long)q);
	len = sizeof vals;
	EXPECT_ERR(sysctl("sysctl.values", vals, &len, "kern.hz\0kern.nosuchnode", 24), ENOENT);
	len = sizeof vals;
	EXPECT_ERR(sysctl("sysctl.values", vals, &len, "kern.bootargs", 14), ENOENT);   /* a string */
	len = sizeof vals;
	EXPECT_ERR(sysctl("sysctl.values", vals, &len, "sysctl.values", 14), ENOENT);   /* itself */
	len = sizeof vals;
	EXPECT_ERR(sysctl("sysctl.values", vals, &len, "kern.hz", 7), EINVAL);          /* no NUL */
	len = sizeof vals;
	EXPECT_ERR(sysctl("sysctl.values", vals, &len, "", 0), EINVAL);
	len = sizeof vals;
	EXPECT_ERR(sysctl("sysctl.values", vals, &len, big, sizeof big), EINVAL);
	len = 4;
	EXPECT_ERR(sysctl("sysctl.values", vals, &len, "kern.hz", 8), ENOMEM);          /* room for half */
	len = sizeof vals;
	CHECK(sysctl("sysctl.values", vals, &len, NULL, 0) == 0 && len == 0, "no list: %zu bytes", len);

	for (int pass = 0; pass < 2; pass++) {
		CHECK((kp = kinfo_getallproc(&n)) != NULL, "kinfo_getallproc: %s", strerror(errno));
		for (int i = 0; i < n; i++)
			if (kp[i].ki_pid == getpid())
				*(pass ? &after : &before) = kp[i].ki_wbytes;
		free(kp);
		if (pass == 0) {
			CHECK((fd = open("/dev/null", O_WRONLY)) >= 0, "open /dev/null: %s", strerror(errno));
			CHECK(write(fd, big, 1000) == 1000 && write(fd, big, 234) == 234, "write /dev/null");
			close(fd);
		}
	}
	CHECK(after == before + 1234, "ki_wbytes went from %llu to %llu after writing 1234 bytes", before, after);
}

/* The libc's printf family: conversions, flags, widths, precision, 64-bit values. */
UT_CASE(t_printf)
{
	char buf[128];
	int n;

#define PF(want, ...) do { \
	n = snprintf(buf, sizeof buf, __VA_ARGS__); \
	CHECK(strcmp(buf, want) == 0 && n == (int)strlen(want), "snprintf(%s) gave \"%s\" (%d), expected \"%s\"", \
	      #__VA_ARGS__, buf, n, want); \
} while (0)
	PF("42 -7 0", "%d %i %d", 42, -7, 0);
	PF("4294967295 ffffffff FFFFFFFF 37777777777", "%u %x %X %o", -1, -1, -1, -1);
	PF("[   42][42   ][00042][+42][ 42]", "[%5d][%-5d][%05d][%+d][% d]", 42, 42, 42, 42, 42);
	PF("[-0042][  -42]", "[%05d][%5d]", -42, -42);
	PF("[  abc][ab][abc  ]", "[%5s][%.2s][%-5s]", "abc", "abc", "abc");
	PF("[x][  y]", "[%c][%3c]", 'x', 'y');
	PF("0x1f 0X1F 017", "%#x %#X %#o", 31, 31, 15);
	PF("[ 007][007]", "[%4.3d][%.3d]", 7, 7);
	PF("[][0]", "[%.0d][%d]", 0, 0);
	PF("9223372036854775807 -9223372036854775808", "%lld %lld", LLONG_MAX, LLONG_MIN);
	PF("18446744073709551615 ffffffffffffffff", "%llu %llx", ULLONG_MAX, ULLONG_MAX);
	PF("2147483647 -2147483648 4294967295", "%ld %ld %lu", LONG_MAX, LONG_MIN, ULONG_MAX);
	PF("123 -5 255", "%zu %hd %hhu", (size_t)123, (short)-5, (unsigned char)255);
	PF("0x400000", "%p", (void *)0x400000);
	PF("100% done", "100%% %s", "done");
	PF("[    hi]", "[%*s]", 6, "hi");
	PF("[hi    ]", "[%-*s]", 6, "hi");
	PF("[hel]", "[%.*s]", 3, "hello");
	n = snprintf(buf, 5, "%s", "truncated");
	CHECK(n == 9 && strcmp(buf, "trun") == 0, "truncating snprintf gave \"%s\" (%d)", buf, n);
}

UT_CASE(t_strtol)
{
	char *end;

	CHECK(strtol("  -123xyz", &end, 10) == -123 && strcmp(end, "xyz") == 0, "strtol decimal");
	CHECK(strtol("0x1F", NULL, 0) == 31 && strtol("017", NULL, 0) == 15 && strtol("z", NULL, 36) == 35, "strtol bases");
	errno = 0;
	CHECK(strtol("99999999999", NULL, 10) == LONG_MAX && errno == ERANGE, "strtol overflow");
	errno = 0;
	CHECK(strtol("-2147483648", NULL, 10) == LONG_MIN && errno == 0, "strtol LONG_MIN");
	CHECK(strtoul("4294967295", NULL, 10) == ULONG_MAX, "strtoul max");
	CHECK(strtoll("-9223372036854775808", NULL, 10) == LLONG_MIN, "strtoll min");
	CHECK(strtoull("18446744073709551615", NULL, 10) == ULLONG_MAX, "strtoull max");
	CHECK(strtol("abc", &end, 10) == 0 && strcmp(end, "abc") == 0, "no digits must leave end at the start");
	CHECK(atoi("42") == 42 && atoi("-0") == 0, "atoi");
}

/* malloc/realloc/free: many sizes, contents survive, freed memory is reused. */
UT_CASE(t_malloc)
{
	enum { N = 300 };
	static unsigned char *p[N];
	static size_t sz[N];
	char *a, *b;

	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++) {
			sz[i] = 1 + (size_t)(i * 37 + round * 101) % 3000;
			p[i] = malloc(sz[i]);
			CHECK(p[i] != NULL, "malloc(%zu) failed", sz[i]);
			CHECK(((uintptr_t)p[i] & 7) == 0, "malloc returned unaligned %p", (void *)p[i]);
			ut_fill(p[i], sz[i], i, round);
		}
		for (int i = 0; i < N; i += 2) {
			p[i] = realloc(p[i], sz[i] * 2);
			CHECK(p[i] && ut_verify(p[i], sz[i], i, round) < 0, "realloc lost data of block %d", i);
		}
		for (int i = 0; i < N; i++) {
			CHECK(ut_verify(p[i], sz[i], i, round) < 0, "block %d overwritten", i);
			free(p[i]);
		}
	}
	a = malloc(1 << 20);
	CHECK(a != NULL, "malloc(1 MB) failed");
	free(a);
	b = malloc(1 << 20);
	CHECK(b == a, "a freed 1 MB block was not reused (%p, then %p)", (void *)a, (void *)b);
	free(b);
	CHECK(malloc(0x7fffffff) == NULL && errno == ENOMEM, "malloc(2 GB) did not fail with ENOMEM");
	a = calloc(1000, 4);
	CHECK(a != NULL, "calloc failed");
	for (int i = 0; i < 4000; i++)
		CHECK(a[i] == 0, "calloc memory not zero");
	free(a);
}

static int cmpint(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

UT_CASE(t_qsort)
{
	static int v[5000];
	unsigned x = 12345;

	for (int i = 0; i < 5000; i++) {
		x = x * 1103515245 + 12345;
		v[i] = (int)(x >> 8) % 1000 - 500;
	}
	qsort(v, 5000, sizeof v[0], cmpint);
	for (int i = 1; i < 5000; i++)
		CHECK(v[i - 1] <= v[i], "not sorted at %d: %d > %d", i, v[i - 1], v[i]);
	for (int i = 0; i < 5000; i++)
		v[i] = 5000 - i;   /* reversed, and then all equal: the bad cases of a naive quicksort */
	qsort(v, 5000, sizeof v[0], cmpint);
	for (int i = 0; i < 5000; i++)
		CHECK(v[i] == i + 1, "reversed input sorted wrong at %d", i);
	for (int i = 0; i < 5000; i++)
		v[i] = 7;
	qsort(v, 5000, sizeof v[0], cmpint);
}
