/*
 * calls.c: sysfuzz's calls. Each system call has a signature (sigtab: its number, weight and
 * the kinds of its arguments); each kind has a pool of values (0, -1, boundaries; good, NULL,
 * unmapped and kernel pointers; open, closed and bad descriptors; odd paths ...). gen_call
 * draws a call, value() turns an argument into what the kernel gets, describe() names it
 * symbolically, make_call() makes it. What the pools hold and why: sysfuzz.c's opening comment.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
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

struct fuzzenv env;

/* ---- random numbers: rand_r with our own state, so a batch is the same on every run ------------- */

unsigned int rng_state;

uint32_t rnd(void)
{
	return (uint32_t)rand_r(&rng_state);
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* ---- the pools of argument values (the kinds: sysfuzz.h) --------------------------------------- */

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
	O_CREAT | O_CLOEXEC | O_WRONLY, 0xffffffffu, O_RDONLY | O_NOFOLLOW, O_RDWR | O_EXLOCK | O_NONBLOCK,
	O_RDONLY | O_SHLOCK | O_NONBLOCK, O_WRONLY | O_NONBLOCK,
};
static const uint32_t modes[] = {
	0, 0644, 0755, 07777, 0xffffffffu, 0170000, 04755, 01777, S_IFIFO | 0644, S_IFCHR | 0600,
};
/* user and group IDs: root, a user, nobody, "unchanged" (-1) and the largest */
static const uint32_t ids[] = { 0, 1001, 65534, 0xffffffffu, 0x7fffffff };
static const uint32_t flockops[] = {
	LOCK_SH | LOCK_NB, LOCK_EX | LOCK_NB, LOCK_UN, LOCK_SH, 0, LOCK_SH | LOCK_EX, 0xffffffffu,
};
static const uint32_t amodes[] = { F_OK, R_OK, W_OK | X_OK, R_OK | W_OK | X_OK, 8, 0xffffffffu };
/* socket domains and types alike: AF_UNIX/SOCK_STREAM, AF_INET/SOCK_DGRAM, SOCK_SEQPACKET, bad */
static const uint32_t socktypes[] = { 1, 2, 5, 0, 0xffffffffu };
/* address lengths: the whole struct, none, the header alone, past it, SOCK_MAXADDRLEN and more */
static const uint32_t sunlens[] = { sizeof(struct sockaddr_un), 0, 2, 3, 255, 256, 0xffffffffu };
/* poll timeouts (ms): short, so a poll that waits costs the batch little */
static const uint32_t msecs[] = { 0, 1, 20 };
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

static char bss[8192];             /* "bss" and "bss+4095" in the pointer pool */

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
	{ SYS_getuid,       "getuid",       1, { 0 } },
	{ SYS_geteuid,      "geteuid",      1, { 0 } },
	{ SYS_getgid,       "getgid",       1, { 0 } },
	{ SYS_getegid,      "getegid",      1, { 0 } },
	{ SYS_getgroups,    "getgroups",    1, { K_INT, K_PTR } },
	{ SYS_setuid,       "setuid",       1, { K_ID } },
	{ SYS_seteuid,      "seteuid",      1, { K_ID } },
	{ SYS_setgid,       "setgid",       1, { K_ID } },
	{ SYS_setegid,      "setegid",      1, { K_ID } },
	{ SYS_setgroups,    "setgroups",    1, { K_INT, K_PTR } },
	{ SYS_umask,        "umask",        1, { K_MODE } },
	{ SYS_chmod,        "chmod",        2, { K_PATH, K_MODE } },
	{ SYS_fchmod,       "fchmod",       2, { K_FD, K_MODE } },
	{ SYS_chown,        "chown",        2, { K_PATH, K_ID, K_ID } },
	{ SYS_fchown,       "fchown",       2, { K_FD, K_ID, K_ID } },
	{ SYS_lchown,       "lchown",       1, { K_PATH, K_ID, K_ID } },
	{ SYS_symlink,      "symlink",      3, { K_PATH, K_PATH } },
	{ SYS_readlink,     "readlink",     2, { K_PATH, K_PTR, K_LEN } },
	{ SYS_lstat,        "lstat",        2, { K_PATH, K_PTR } },
	{ SYS_mkfifo,       "mkfifo",       1, { K_PATH, K_MODE } },
	{ SYS_mknod,        "mknod",        1, { K_PATH, K_MODE, K_INT } },
	{ SYS_truncate,     "truncate",     2, { K_PATH, K_OFFP } },
	{ SYS_flock,        "flock",        2, { K_FD, K_FLOCK } },
	{ SYS_access,       "access",       2, { K_PATH, K_AMODE } },
	{ SYS_socket,       "socket",       3, { K_SOCKTYPE, K_SOCKTYPE, K_INT } },
	{ SYS_socketpair,   "socketpair",   2, { K_SOCKTYPE, K_SOCKTYPE, K_INT, K_PTR } },
	{ SYS_bind,         "bind",         2, { K_FD, K_SUN, K_SUNLEN } },
	{ SYS_listen,       "listen",       2, { K_FD, K_INT } },
	{ SYS_accept,       "accept",       1, { K_FD, K_PTR, K_PTR } },
	{ SYS_connect,      "connect",      2, { K_FD, K_SUN, K_SUNLEN } },
	{ SYS_sendmsg,      "sendmsg",      2, { K_FD, K_MSGHDR, K_INT } },
	{ SYS_recvmsg,      "recvmsg",      1, { K_FD, K_MSGHDR, K_INT } },
	{ SYS_shutdown,     "shutdown",     1, { K_FD, K_INT } },
	{ SYS_getsockname,  "getsockname",  1, { K_FD, K_PTR, K_PTR } },
	{ SYS_getpeername,  "getpeername",  1, { K_FD, K_PTR, K_PTR } },
	{ SYS_poll,         "poll",         1, { K_PTR, K_INT, K_MSECS } },
};
#define NSIGS (sizeof sigtab / sizeof sigtab[0])

/* Kinds a random value may stand in for: never the ones that keep calls from hurting others. */
static int confusable(int k)
{
	return k == K_INT || k == K_LEN || k == K_PTR || k == K_FD || k == K_OFLAGS || k == K_MODE ||
	       k == K_SIG || k == K_WHENCE || k == K_CLOCK || k == K_WHO || k == K_IOCTL || k == K_FCNTL ||
	       k == K_OFFP || k == K_TIMESPEC || k == K_ID || k == K_FLOCK || k == K_AMODE ||
	       k == K_SOCKTYPE || k == K_SUNLEN;
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
	case K_ID:       return sizeof ids / 4;
	case K_FLOCK:    return sizeof flockops / 4;
	case K_AMODE:    return sizeof amodes / 4;
	case K_SOCKTYPE: return sizeof socktypes / 4;
	case K_SUN:      return 4;                      /* the two addresses, NULL, a kernel address */
	case K_SUNLEN:   return sizeof sunlens / 4;
	case K_MSGHDR:   return 4;                      /* env.msg, NULL, a kernel address, heap junk */
	case K_MSECS:    return sizeof msecs / 4;
	default:         return 1;
	}
}

/* Draw the next call of this batch. */
void gen_call(struct call *c)
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
	case K_ID:       return ids[v];
	case K_FLOCK:    return flockops[v];
	case K_AMODE:    return amodes[v];
	case K_SOCKTYPE: return socktypes[v];
	case K_SUN:      return v < 2 ? (register_t)&env.sun[v] : ptr_value(v == 2 ? 0 : 11);
	case K_SUNLEN:   return sunlens[v];
	case K_MSGHDR:   return v == 0 ? (register_t)&env.msg : ptr_value(v == 1 ? 0 : v == 2 ? 11 : 1);
	case K_MSECS:    return msecs[v];
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
	case K_SUN:
		return v < 2 ? snprintf(buf, n, "&{AF_UNIX \"%s\"}", env.sun[v].sun_path)
		             : snprintf(buf, n, "%s", v == 2 ? "NULL" : "ktext");
	case K_MSGHDR: {
		static const char *const names[] = { "&{to sock, 64 bytes}", "NULL", "ktext", "heap" };
		return snprintf(buf, n, "%s", names[v]);
	}
	case K_NONE:
		return snprintf(buf, n, "%#x", v);
	default:
		return snprintf(buf, n, "%#x", (unsigned)value(a));
	}
}

void describe(char *buf, size_t n, const struct call *c, int nargs)
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

int nargs_of(const struct call *c)
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

long make_call(const struct call *c)
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
	/* A new socket is made non-blocking: a read of an idle socket would otherwise hold the batch
	 * until the watchdog (the blocking paths are usertests's). */
	if ((c->num == SYS_socket || c->num == SYS_accept) && c->name != NULL && r >= 0)
		fcntl((int)r, F_SETFL, O_NONBLOCK);
	if (c->num == SYS_open || c->num == SYS_dup || c->num == SYS_dup2 || c->num == SYS_socket ||
	    c->num == SYS_accept)
		remember_fd(r);
	return r;
}
