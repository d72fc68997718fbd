/*
 * sysfuzz.h: what the two halves of sysfuzz share (docs/reliability.md). calls.c draws a call
 * and its arguments from the pools and makes it; sysfuzz.c runs batches of calls in children
 * and watches them.
 */
#ifndef SYSFUZZ_H
#define SYSFUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/ccdvar.h>
#include <sys/un.h>

typedef uint32_t register_t;   /* a system call argument (kernel/kern/types.h) */

#define HEAPBUF      (64 * 1024) /* the heap buffer pointers point into */
#define NRECENT      8           /* descriptors returned by recent calls, reused as arguments */

#define NPTRS   17               /* pointers in the pool */
#define NPATHS  24               /* paths in the pool (env.paths) */
#define NEXECS  9                /* of them, the last ones, serve execve too */

/* The kinds of argument (calls.c has a pool of values for each). */
enum kind {
	K_NONE, K_INT, K_LEN, K_PTR, K_FD, K_PATH, K_EXEC, K_ARGV, K_OFLAGS, K_MODE, K_PID, K_SIG,
	K_WHENCE, K_OFFP, K_TIMESPEC, K_SYSCTL, K_IOCTL, K_FCNTL, K_FSTYPE, K_MNTDIR, K_DEV,
	K_HOWTO, K_INCR, K_CLOCK, K_WHO, K_CCDIO, K_CCDFD, K_CCDLEN, K_ID, K_FLOCK, K_AMODE,
	K_SOCKTYPE, K_SUN, K_SUNLEN, K_MSGHDR, K_MSECS,
};

struct arg {
	uint8_t  kind;
	uint32_t v;                 /* an index into the kind's pool, or the value itself */
};

struct call {
	int32_t    num;
	const char *name;
	struct arg a[5];
};

/* What a batch works with (set up in its child by run_batch, sysfuzz.c). */
struct fuzzenv {
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
	struct sockaddr_un sun[2];  /* a socket in the scratch tree; the root directory */
	struct iovec iov;
	struct msghdr msg;          /* one buffer on the heap, to or from sun[0] */
};
extern struct fuzzenv env;
extern unsigned int rng_state;   /* rand_r's state: a batch's calls follow from it */

uint32_t rnd(void);
void gen_call(struct call *c);                                       /* the batch's next call */
void describe(char *buf, size_t n, const struct call *c, int nargs);  /* open("/tmp/fz/1/f", ...) */
int  nargs_of(const struct call *c);
long make_call(const struct call *c);                               /* the result, or -errno */

#endif
