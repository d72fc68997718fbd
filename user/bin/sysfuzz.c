/*
 * sysfuzz: throw random system calls at the kernel.
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
 * records; a scratch mount point. One argument in eight is replaced by a value of another kind.
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

typedef uint32_t register_t;   /* a system call argument (kernel/kern/types.h) */

#define MAXJOBS      16
#define PROGRESS_FD  62          /* where a child reports progress (out of the fd pool) */
#define HEAPBUF      (64 * 1024)
#define KILL_GRACE   10          /* seconds a SIGKILLed child may take to die */
#define LASTCALLS    5
#define NRECENT      8           /* descriptors returned by recent calls, reused as arguments */

/* ---- random numbers: rand_r with our own state, so a batch is the same on every run ------------- */

static unsigned int rng_state;

static uint32_t rnd(void)
{
	return (uint32_t)rand_r(&rng_state);
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* ---- argument kinds and their pools ------------------------------------------------------------ */

enum kind {
	K_NONE, K_INT, K_LEN, K_PTR, K_FD, K_PATH, K_EXEC, K_ARGV, K_OFLAGS, K_MODE, K_PID, K_SIG,
	K_WHENCE, K_OFFP, K_TIMESPEC, K_SYSCTL, K_IOCTL, K_FCNTL, K_FSTYPE, K_MNTDIR, K_DEV,
	K_HOWTO, K_INCR, K_CLOCK, K_WHO, K_CCDIO, K_CCDFD, K_CCDLEN,
};

static const uint32_t ints[] = {
	0, 1, 2, 7, 63, 64, 255, 256, 4095, 4096, 65536, 0x7fffffff, 0x80000000u, 0xffffffffu,
	0xfffffffeu, 0x7ffff000, 1u << 20, 1u << 30,
};
static const uint32_t lens[] = {
	0, 1, 7, 8, 100, 512, 4096, 8192, 16384, 65536, 65537, 0x7fffffff, 0x80000000u, 0xffffffffu,
};
static const uint32_t oflags[] = {
	O_RDONLY, O_WRONLY, O_RDWR, O_RDWR | O_CREAT, O_WRONLY | O_CREAT | O_TRUNC, O_CREAT | O_EXCL | O_RDWR,
	O_RDONLY | O_DIRECTORY, O_WRONLY | O_APPEND, O_RDWR | O_NONBLOCK, O_ACCMODE, O_RDWR | O_FSYNC,
	O_CREAT | O_CLOEXEC | O_WRONLY, 0xffffffffu,
};
static const uint32_t modes[] = { 0, 0644, 0755, 07777, 0xffffffffu, 0170000 };
static const uint32_t sigs[] = { 0, 1, 9, 15, 31, 32, 64, 0xffffffffu, 1000 };
static const uint32_t whences[] = { SEEK_SET, SEEK_CUR, SEEK_END, 3, 0xffffffffu };
static const int64_t offsets[] = {
	0, 1, -1, 4096, 8191, 1LL << 31, 1LL << 32, 5LL << 30, 0x7fffffffffffffffLL, -0x7fffffffffffffffLL - 1,
};
static const uint32_t ioctls[] = { DIOCGSECTORSIZE, DIOCGMEDIASIZE, TIOCGETA, TIOCGPGRP, 0, 0xffffffffu, 0x6482 };
static const uint32_t fcntls[] = { F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, 99, 0xffffffffu };
static const uint32_t incrs[] = { 0, 4096, 0xfffff000u, 1u << 30, 0x7fffffff, 0x80000000u, 0xffff0000u };
static const uint32_t clocks[] = { 0, 1, 4, 99, 0xffffffffu };
static const uint32_t whos[] = { 0, 0xffffffffu, 0xfffffffeu, 7 };
static const char *const sysctls[] = {
	"kern.ostype", "kern.hz", "kern.bootargs", "kern.proc", "kern.boottime", "vfs.numdirtybuffers",
	"vfs.nbuf", "vm.stats.vm.v_page_check", "kern", "", "nosuch.node", "kern.ostype.x",
};
static const char *const fstypes[] = { "wdfs", "devfs", "nosuch", "" };
static const char *const devs[] = { "/dev/md0", "/dev/null", "/dev/ccd0", "/dev/zero", "/nonexistent" };
static const char *const ccdnames[] = { "md0", "ccd0", "ccd1", "null", "", "da1", "0123456789abcdef" };

#define NPTRS   17
#define NPATHS  24
#define NEXECS  9

struct arg {
	uint8_t  kind;
	uint32_t v;                 /* an index into the kind's pool, or the value itself */
};

struct call {
	int32_t    num;
	const char *name;
	struct arg a[5];
};

/* What a child works with (set up by child_setup, in .bss before the heap buffer). */
static struct {
	int      batch;
	char     dir[64];           /* /tmp/fz/<batch> */
	int      fds[12];
	int      recent[NRECENT];
	int      nrecent;
	pid_t    self, kid, kthreads[4];
	int      nkthreads;
	char    *heap;              /* HEAPBUF bytes ending at the break */
	char     paths[NPATHS][80];
	char    *longpath, *longname;
	char    *argv_ok[3], *argv_badelem[3];
	char   **argv_long;
	struct timespec ts[6];
	int64_t  off;
	struct ccd_ioctl ccdio;
	char     stackless[8];
} env;

static char bss[8192];

/* ---- call signatures ------------------------------------------------------------------------- */

struct sig {
	int32_t     num;
	const char *name;
	uint8_t     weight;
	uint8_t     k[5];
};

static const struct sig sigtab[] = {
	{ SYS_exit,         "exit",         1, { K_INT } },
	{ SYS_fork,         "fork",         2, { 0 } },
	{ SYS_read,         "read",         8, { K_FD, K_PTR, K_LEN } },
	{ SYS_write,        "write",        8, { K_FD, K_PTR, K_LEN } },
	{ SYS_write,        "write",        3, { K_CCDFD, K_CCDIO, K_CCDLEN } },
	{ SYS_open,         "open",         8, { K_PATH, K_OFLAGS, K_MODE } },
	{ SYS_close,        "close",        4, { K_FD } },
	{ SYS_wait4,        "wait4",        2, { K_PID, K_PTR, K_INT, K_PTR } },
	{ SYS_link,         "link",         3, { K_PATH, K_PATH } },
	{ SYS_unlink,       "unlink",       3, { K_PATH } },
	{ SYS_execve,       "execve",       3, { K_EXEC, K_ARGV, K_ARGV } },
	{ SYS_chdir,        "chdir",        2, { K_PATH } },
	{ SYS_fstat,        "fstat",        4, { K_FD, K_PTR } },
	{ SYS_stat,         "stat",         4, { K_PATH, K_PTR } },
	{ SYS_getpid,       "getpid",       1, { 0 } },
	{ SYS_getppid,      "getppid",      1, { 0 } },
	{ SYS_kill,         "kill",         2, { K_PID, K_SIG } },
	{ SYS_sbrk,         "sbrk",         2, { K_INCR } },
	{ SYS_pipe,         "pipe",         2, { K_PTR } },
	{ SYS_dup,          "dup",          3, { K_FD } },
	{ SYS_dup2,         "dup2",         3, { K_FD, K_FD } },
	{ SYS_lseek,        "lseek",        4, { K_FD, K_OFFP, K_WHENCE } },
	{ SYS_mkdir,        "mkdir",        3, { K_PATH, K_MODE } },
	{ SYS_rmdir,        "rmdir",        3, { K_PATH } },
	{ SYS_getcwd,       "getcwd",       2, { K_PTR, K_LEN } },
	{ SYS_rename,       "rename",       4, { K_PATH, K_PATH } },
	{ SYS_fsync,        "fsync",        2, { K_FD } },
	{ SYS_sync,         "sync",         1, { 0 } },
	{ SYS_ftruncate,    "ftruncate",    3, { K_FD, K_OFFP } },
	{ SYS_gettimeofday, "gettimeofday", 2, { K_PTR, K_PTR } },
	{ SYS_clock_gettime, "clock_gettime", 2, { K_CLOCK, K_PTR } },
	{ SYS_nanosleep,    "nanosleep",    2, { K_TIMESPEC, K_PTR } },
	{ SYS_sysctl,       "sysctl",       4, { K_SYSCTL, K_PTR, K_PTR, K_PTR, K_LEN } },
	{ SYS_sysctlnext,   "sysctlnext",   2, { K_SYSCTL, K_PTR, K_LEN } },
	{ SYS_sysctlinfo,   "sysctlinfo",   2, { K_SYSCTL, K_PTR } },
	{ SYS_reboot,       "reboot",       1, { K_HOWTO } },
	{ SYS_getdents,     "getdents",     4, { K_FD, K_PTR, K_LEN } },
	{ SYS_ioctl,        "ioctl",        4, { K_FD, K_IOCTL, K_PTR } },
	{ SYS_mount,        "mount",        2, { K_FSTYPE, K_MNTDIR, K_INT, K_DEV } },
	{ SYS_unmount,      "unmount",      2, { K_MNTDIR, K_INT } },
	{ SYS_getrusage,    "getrusage",    2, { K_WHO, K_PTR } },
	{ SYS_mmap,         "mmap",         2, { K_PTR } },
	{ SYS_munmap,       "munmap",       2, { K_PTR, K_LEN } },
	{ SYS_fcntl,        "fcntl",        3, { K_FD, K_FCNTL, K_INT } },
	{ SYS_statfs,       "statfs",       2, { K_PATH, K_PTR } },
	{ SYS_fstatfs,      "fstatfs",      2, { K_FD, K_PTR } },
	{ SYS_getfsstat,    "getfsstat",    2, { K_PTR, K_LEN, K_INT } },
	{ SYS_setpgid,      "setpgid",      1, { K_PID, K_PID } },
	{ SYS_getpgrp,      "getpgrp",      1, { 0 } },
	{ SYS_utimes,       "utimes",       2, { K_PATH, K_PTR } },
};
#define NSIGS (sizeof sigtab / sizeof sigtab[0])

/* Kinds a random value may stand in for: never the ones that keep calls from hurting others. */
static int confusable(int k)
{
	return k == K_INT || k == K_LEN || k == K_PTR || k == K_FD || k == K_OFLAGS || k == K_MODE ||
	       k == K_SIG || k == K_WHENCE || k == K_CLOCK || k == K_WHO || k == K_IOCTL || k == K_FCNTL ||
	       k == K_OFFP || k == K_TIMESPEC;
}

static uint32_t pool_size(int k)
{
	switch (k) {
	case K_INT:      return sizeof ints / 4 + 2;     /* + a small and a full random value */
	case K_LEN:      return sizeof lens / 4;
	case K_PTR:      return NPTRS;
	case K_FD:       return 12 + 7 + NRECENT;       /* the pool, bad numbers, recent results */
	case K_PATH:     return NPATHS + 3;             /* + three bad pointers */
	case K_EXEC:     return NEXECS;
	case K_ARGV:     return 6;
	case K_OFLAGS:   return sizeof oflags / 4;
	case K_MODE:     return sizeof modes / 4;
	case K_PID:      return 9;
	case K_SIG:      return sizeof sigs / 4;
	case K_WHENCE:   return sizeof whences / 4;
	case K_OFFP:     return sizeof offsets / 8 + 2; /* + NULL and a kernel address */
	case K_TIMESPEC: return 8;
	case K_SYSCTL:   return sizeof sysctls / sizeof sysctls[0] + 2;
	case K_IOCTL:    return sizeof ioctls / 4;
	case K_FCNTL:    return sizeof fcntls / 4;
	case K_FSTYPE:   return sizeof fstypes / sizeof fstypes[0] + 1;
	case K_MNTDIR:   return 4;
	case K_DEV:      return sizeof devs / sizeof devs[0] + 1;
	case K_HOWTO:    return 4;
	case K_INCR:     return sizeof incrs / 4;
	case K_CLOCK:    return sizeof clocks / 4;
	case K_WHO:      return sizeof whos / 4;
	case K_CCDIO:    return 0x7fffffff;             /* v is a seed for the record's fields */
	case K_CCDFD:    return 1;
	case K_CCDLEN:   return 3;
	default:         return 1;
	}
}

/* Draw the next call of this batch. */
static void gen_call(struct call *c)
{
	uint32_t total = 0, r;
	const struct sig *s = sigtab;

	for (size_t i = 0; i < NSIGS; i++)
		total += sigtab[i].weight;
	r = below(total);
	for (size_t i = 0; i < NSIGS; i++) {
		if (r < sigtab[i].weight) {
			s = &sigtab[i];
			break;
		}
		r -= sigtab[i].weight;
	}
	c->num = s->num;
	c->name = s->name;
	if (below(40) == 0) {                   /* an invalid number */
		static const int32_t bad[] = { -1, 0, 8, SYS_MAXSYSCALL, SYS_MAXSYSCALL + 1, 1000, 0x7fffffff,
		                               (int32_t)0x80000000, 0x100 + SYS_read };
		c->num = bad[below(sizeof bad / 4)];
		c->name = NULL;
	}
	for (int i = 0; i < 5; i++) {
		int k = s->k[i];
		if (k != K_NONE && confusable(k) && below(8) == 0)
			k = below(2) ? K_INT : K_PTR;
		c->a[i].kind = (uint8_t)k;
		c->a[i].v = k == K_NONE ? rnd() : below(pool_size(k));
	}
}

/* ---- arguments as values ------------------------------------------------------------------------ */

static register_t ptr_value(uint32_t i)
{
	char *end = env.heap + HEAPBUF;

	switch (i) {
	case 0:  return 0;
	case 1:  return (register_t)env.heap;
	case 2:  return (register_t)env.heap + 1;
	case 3:  return (register_t)end - 2;              /* a word that crosses into unmapped memory */
	case 4:  return 0x1000;
	case 5:  return 0x00400000;                       /* our own text: readable, not writable */
	case 6:  return 0x20000000;
	case 7:  return (register_t)bss;
	case 8:  return (register_t)bss + 4095;
	case 9:  return 0x7fff0000 - 4;                   /* the last word below the kernel */
	case 10: return 0x80000000u;
	case 11: return 0x80100000u;                      /* kernel text */
	case 12: return 0xc0000000u;
	case 13: return 0xfffff000u;
	case 14: return 0xffffffffu;
	case 15: return (register_t)env.heap + HEAPBUF / 2 + 3;
	default: return (register_t)&env.stackless;
	}
}

static register_t fd_value(uint32_t i)
{
	static const int bad[] = { -1, 61, 63, 64, 1000, 0x7fffffff, (int)0x80000000 };

	if (i < 12)
		return env.fds[i];
	if (i < 12 + 7)
		return bad[i - 12];
	return env.recent[(i - 19) % NRECENT];
}

static register_t path_value(uint32_t i)
{
	if (i < NPATHS)
		return (register_t)env.paths[i];
	return ptr_value(i == NPATHS ? 0 : i == NPATHS + 1 ? 11 : 3);
}

static register_t pid_value(uint32_t i)
{
	switch (i) {
	case 0: return env.self;
	case 1: return env.kid;
	case 2: return 1;                                   /* init: P_SYSTEM */
	case 3: return 0;
	case 4: return (register_t)-1;
	case 5: return 99999;
	case 6: return 0x80000000u;
	default: return env.nkthreads ? env.kthreads[i % env.nkthreads] : 1;
	}
}

static register_t timespec_value(uint32_t i)
{
	static const struct timespec ts[6] = { { 0, 0 }, { 0, 1000000 }, { 0, 999999999 }, { 0, 1000000000 },
	                                       { -1, 0 }, { 0, -1 } };
	if (i >= 6)
		return ptr_value(i == 6 ? 0 : 10);
	env.ts[i] = ts[i];
	return (register_t)&env.ts[i];
}

/* A ccd configuration record with fields from small pools (the ccd "ioctls"). */
static register_t ccdio_value(uint32_t seed)
{
	static const int32_t cmds[] = { CCDIOCSET, CCDIOCCLR, 0, 7 }, units[] = { 0, 1, 3, 4, -1 };
	static const int32_t ileaves[] = { 0, 1, 128, -1, 0x7fffffff }, flags[] = { 0, CCDF_UNIFORM, CCDF_MIRROR, -1 };
	static const int32_t ndisks[] = { 0, 1, 2, 8, 9, -1 };
	unsigned int saved = rng_state;
	struct ccd_ioctl *c = &env.ccdio;

	rng_state = seed;
	memset(c, 0, sizeof *c);
	c->ccio_cmd = cmds[below(4)];
	c->ccio_unit = units[below(5)];
	c->ccio_ileave = ileaves[below(5)];
	c->ccio_flags = flags[below(4)];
	c->ccio_ndisks = ndisks[below(6)];
	for (int i = 0; i < CCD_MAXDISKS; i++)
		memcpy(c->ccio_disks[i], ccdnames[below(7)], CCD_NAMELEN);   /* the last has no NUL */
	rng_state = saved;
	return (register_t)c;
}

static register_t value(const struct arg *a)
{
	uint32_t v = a->v;

	switch (a->kind) {
	case K_INT:
		if (v < sizeof ints / 4)
			return ints[v];
		return v == sizeof ints / 4 ? v * 13 % 301 : v * 2654435761u;
	case K_LEN:      return lens[v];
	case K_PTR:      return ptr_value(v);
	case K_FD:       return fd_value(v);
	case K_PATH:     return path_value(v);
	case K_EXEC:     return path_value(NPATHS - NEXECS + v);
	case K_ARGV: {
		static char **const none = NULL;
		switch (v) {
		case 0:  return (register_t)none;
		case 1:  return (register_t)env.argv_ok;
		case 2:  return (register_t)env.argv_badelem;
		case 3:  return (register_t)env.argv_long;
		case 4:  return ptr_value(11);
		default: return ptr_value(3);
		}
	}
	case K_OFLAGS:   return oflags[v];
	case K_MODE:     return modes[v];
	case K_PID:      return pid_value(v);
	case K_SIG:      return sigs[v];
	case K_WHENCE:   return whences[v];
	case K_OFFP:
		if (v >= sizeof offsets / 8)
			return ptr_value(v == sizeof offsets / 8 ? 0 : 10);
		env.off = offsets[v];
		return (register_t)&env.off;
	case K_TIMESPEC: return timespec_value(v);
	case K_SYSCTL:
		if (v < sizeof sysctls / sizeof sysctls[0])
			return (register_t)sysctls[v];
		return ptr_value(v == sizeof sysctls / sizeof sysctls[0] ? 3 : 11);
	case K_IOCTL:    return ioctls[v];
	case K_FCNTL:    return fcntls[v];
	case K_FSTYPE:   return v < sizeof fstypes / sizeof fstypes[0] ? (register_t)fstypes[v] : ptr_value(11);
	case K_MNTDIR:
		switch (v) {
		case 0:  return (register_t)env.paths[3];         /* the scratch mount point */
		case 1:  return (register_t)env.paths[4];         /* a file below the scratch dir */
		case 2:  return ptr_value(0);
		default: return ptr_value(11);
		}
	case K_DEV:      return v < sizeof devs / sizeof devs[0] ? (register_t)devs[v] : ptr_value(3);
	case K_HOWTO:    return 0x80000000u | (v * 0x100);    /* always an invalid bit: EINVAL */
	case K_INCR:     return incrs[v];
	case K_CLOCK:    return clocks[v];
	case K_WHO:      return whos[v];
	case K_CCDIO:    return ccdio_value(v);
	case K_CCDFD:    return env.fds[8];
	case K_CCDLEN:   return v == 0 ? sizeof(struct ccd_ioctl) : v == 1 ? sizeof(struct ccd_ioctl) - 1 : 4096;
	default:         return v;
	}
}

/* ---- describing a call (symbolically: a dead child's addresses are not the parent's) -------- */

static const char *const ptr_names[NPTRS] = {
	"NULL", "heap", "heap+1", "heapend-2", "0x1000", "text", "0x20000000", "bss", "bss+4095",
	"0x7fff0000-4", "0x80000000", "ktext", "0xc0000000", "0xfffff000", "0xffffffff", "heap+32771", "nonul",
};
static const char *const fd_names[12] = {
	"0:null", "1:null", "2:null", "file-rw", "file-ro", "dir", "zero", "md0-ro", "ccdctl", "pipe-r",
	"pipe-w", "closed",
};

static int describe_arg(char *buf, size_t n, const struct arg *a)
{
	uint32_t v = a->v;

	switch (a->kind) {
	case K_PTR:
		return snprintf(buf, n, "%s", ptr_names[v]);
	case K_FD:
		if (v < 12)
			return snprintf(buf, n, "fd:%s", fd_names[v]);
		if (v < 19)
			return snprintf(buf, n, "%d", (int)fd_value(v));
		return snprintf(buf, n, "fd:recent%u", (v - 19) % NRECENT);
	case K_PATH:
	case K_EXEC: {
		uint32_t i = a->kind == K_EXEC ? NPATHS - NEXECS + v : v;
		if (i < NPATHS)
			return snprintf(buf, n, "\"%.60s\"", env.paths[i]);
		return snprintf(buf, n, "%s", ptr_names[i == NPATHS ? 0 : i == NPATHS + 1 ? 11 : 3]);
	}
	case K_ARGV: {
		static const char *const names[] = { "NULL", "{\"x\"}", "{\"x\", ktext}", "{1023 args}", "ktext",
		                                     "heapend-2" };
		return snprintf(buf, n, "%s", names[v]);
	}
	case K_SYSCTL:
		if (v < sizeof sysctls / sizeof sysctls[0])
			return snprintf(buf, n, "\"%s\"", sysctls[v]);
		return snprintf(buf, n, "%s", v == sizeof sysctls / sizeof sysctls[0] ? "heapend-2" : "ktext");
	case K_FSTYPE:
		return v < sizeof fstypes / sizeof fstypes[0] ? snprintf(buf, n, "\"%s\"", fstypes[v]) : snprintf(buf, n, "ktext");
	case K_DEV:
		return v < sizeof devs / sizeof devs[0] ? snprintf(buf, n, "\"%s\"", devs[v]) : snprintf(buf, n, "heapend-2");
	case K_MNTDIR:
		return v < 2 ? snprintf(buf, n, "\"%s\"", env.paths[v == 0 ? 3 : 4]) : snprintf(buf, n, v == 2 ? "NULL" : "ktext");
	case K_PID: {
		static const char *const names[] = { "self", "child", "1", "0", "-1", "99999", "0x80000000" };
		return v < 7 ? snprintf(buf, n, "%s", names[v]) : snprintf(buf, n, "kthread%u", v % 4);
	}
	case K_OFFP:
		return v < sizeof offsets / 8 ? snprintf(buf, n, "&%lld", (long long)offsets[v])
		                              : snprintf(buf, n, v == sizeof offsets / 8 ? "NULL" : "0x80000000");
	case K_TIMESPEC: {
		static const char *const names[] = { "&{0,0}", "&{0,1ms}", "&{0,999999999}", "&{0,1e9}", "&{-1,0}",
		                                     "&{0,-1}", "NULL", "0x80000000" };
		return snprintf(buf, n, "%s", names[v]);
	}
	case K_CCDIO:
		ccdio_value(v);
		return snprintf(buf, n, "&{cmd %d unit %d ileave %d flags %d ndisks %d \"%.16s\" \"%.16s\"...}",
		                env.ccdio.ccio_cmd, env.ccdio.ccio_unit, env.ccdio.ccio_ileave, env.ccdio.ccio_flags,
		                env.ccdio.ccio_ndisks, env.ccdio.ccio_disks[0], env.ccdio.ccio_disks[1]);
	case K_CCDFD:
		return snprintf(buf, n, "fd:ccdctl");
	case K_NONE:
		return snprintf(buf, n, "%#x", v);
	default:
		return snprintf(buf, n, "%#x", (unsigned)value(a));
	}
}

static void describe(char *buf, size_t n, const struct call *c, int nargs)
{
	size_t len;

	if (c->name)
		len = (size_t)snprintf(buf, n, "%s(", c->name);
	else
		len = (size_t)snprintf(buf, n, "syscall[%d](", c->num);
	for (int i = 0; i < nargs && len + 1 < n; i++) {
		if (i > 0 && len + 2 < n) {
			buf[len++] = ',';
			buf[len++] = ' ';
		}
		len += (size_t)describe_arg(buf + len, n - len, &c->a[i]);
	}
	if (len + 1 < n) {
		buf[len++] = ')';
		buf[len] = '\0';
	}
}

static int nargs_of(const struct call *c)
{
	int n = 0;

	if (c->name == NULL)
		return 5;
	for (int i = 0; i < 5; i++)
		if (c->a[i].kind != K_NONE)
			n = i + 1;
	return n;
}

/* ---- making a call ------------------------------------------------------------------------------ */

static void remember_fd(long r)
{
	if (r >= 0 && r < 64) {
		env.recent[env.nrecent % NRECENT] = (int)r;
		env.nrecent++;
	}
}

static long make_call(const struct call *c)
{
	register_t v[5];
	long r;

	for (int i = 0; i < 5; i++)
		v[i] = c->a[i].kind == K_NONE ? c->a[i].v : value(&c->a[i]);
	r = syscall(c->num, v[0], v[1], v[2], v[3], v[4]);
	if (r == -1)
		r = -errno;
	if (c->num == SYS_fork && c->name != NULL) {
		if (r == 0)
			_exit(0);                     /* the new child: nothing more to do */
		if (r > 0)
			env.kid = (pid_t)r;
	}
	if (c->num == SYS_open || c->num == SYS_dup || c->num == SYS_dup2)
		remember_fd(r);
	return r;
}

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

	if (stat(path, &st) < 0)
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
	if ((fd = open("/bin/true", O_RDONLY)) >= 0) {            /* a real ELF header, cut short */
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
