/* Time system calls: gettimeofday(2), clock_gettime(2), nanosleep(2). */
#include "kern/types.h"
#include "kern/proc.h"
#include "kern/syscall.h"
#include "kern/sleep.h"
#include "kern/time.h"
#include "kern/uio.h"
#include <sys/errno.h>
#include <sys/time.h>

int sys_gettimeofday(register_t *args, register_t *rv)
{
	struct timeval tv;
	microtime(&tv);
	return args[0] ? copyout(&tv, (void *)args[0], sizeof(tv)) : 0;
}

int sys_clock_gettime(register_t *args, register_t *rv)
{
	struct timespec ts;
	uint64_t ns;
	switch ((clockid_t)args[0]) {
	case CLOCK_REALTIME: {
		struct timeval tv;
		microtime(&tv);
		ns = (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000;
		ns += nanouptime() % 1000;           /* keep sub-microsecond resolution */
		break;
	}
	case CLOCK_MONOTONIC:
	case CLOCK_UPTIME:
		ns = nanouptime();
		break;
	default:
		return EINVAL;
	}
	ts.tv_sec = ns / 1000000000ull;
	ts.tv_nsec = ns % 1000000000ull;
	return copyout(&ts, (void *)args[1], sizeof(ts));
}

/* Sleep for the requested time; with a kill, stop early and report what was left. */
int sys_nanosleep(register_t *args, register_t *rv)
{
	struct timespec req;
	int error = copyin((void *)args[0], &req, sizeof(req));
	if (error)
		return error;
	if (req.tv_sec < 0 || req.tv_nsec < 0 || req.tv_nsec >= 1000000000)
		return EINVAL;
	uint64_t start = nanouptime();
	uint64_t want = (uint64_t)req.tv_sec * 1000000000ull + req.tv_nsec;
	static int nanosleep_chan;
	for (;;) {
		uint64_t done = nanouptime() - start;
		if (done >= want)
			return 0;
		uint64_t left = want - done;
		uint64_t t = left / (1000000000ull / HZ);
		int timo = t > 0x7fffffff ? 0x7fffffff : (int)t + 1;
		if (tsleep(&nanosleep_chan, PCATCH, "nanslp", timo) == EINTR) {
			if (args[1]) {
				uint64_t rem = want - MIN(want, nanouptime() - start);
				struct timespec r = { rem / 1000000000ull, rem % 1000000000ull };
				copyout(&r, (void *)args[1], sizeof(r));
			}
			return EINTR;
		}
	}
}
