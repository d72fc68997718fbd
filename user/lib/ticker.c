/* ticker.c: periodic work for <libutil.h> (user/libc): sampler and latprobe tick with it. */
#include <libutil.h>
#include <stdlib.h>
#include <time.h>
#include <err.h>

long ticker_ms(const char *arg)
{
	char *end;
	long ms = strtol(arg, &end, 10);

	if (*end || end == arg || ms < 1 || ms > 3600000)
		errx(1, "-i %s: give milliseconds, 1 to 3600000", arg);
	return ms;
}

void ticker_start(struct ticker *t, long ms)
{
	t->start = monotonic_us();
	t->step = ms * 1000LL;
	t->k = 0;
	t->late = 0;
}

void ticker_wait(struct ticker *t)
{
	long long now = monotonic_us(), due = (now - t->start) / t->step + 1;   /* next tick ahead */
	struct timespec ts;

	if (due > t->k + 1)
		t->late += due - (t->k + 1);
	t->k = due;
	long long d = t->start + t->k * t->step - now;
	ts.tv_sec = d / 1000000;
	ts.tv_nsec = d % 1000000 * 1000;
	nanosleep(&ts, NULL);
}
