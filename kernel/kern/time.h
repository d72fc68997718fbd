/*
 * Kernel time.
 *   ticks             - scheduler ticks since boot (HZ per second), incremented by CPU 0's timer.
 *   nanouptime()      - nanoseconds since boot from the calibrated TSC (monotonic, all CPUs).
 *   microuptime(tv)   - the same as a timeval.
 *   microtime(tv)     - wall-clock time (boot time from the CMOS RTC + uptime).
 *   time_second       - wall-clock seconds, cheap.
 *   boottime          - wall-clock time of boot (kern.boottime).
 *   DELAY(us)         - busy-wait for `us` microseconds (drivers, before the scheduler runs).
 * Callouts (FreeBSD callout(9)): run fn(arg) from the timer interrupt after `ticks` ticks.
 *   callout_init(c), callout_reset(c, ticks, fn, arg), callout_stop(c)
 * The function runs in interrupt context: it may take spinlocks and call wakeup, never sleep.
 */
#ifndef _KERN_TIME_H_
#define _KERN_TIME_H_

#include "kern/types.h"
#include <sys/time.h>

#define HZ 100

extern volatile uint32_t ticks;
extern struct timeval boottime;

uint64_t nanouptime(void);
void     microuptime(struct timeval *tv);
void     microtime(struct timeval *tv);
time_t   time_second_now(void);
void     DELAY(uint32_t usec);

struct callout {
	struct callout *c_next;
	uint32_t        c_time;      /* tick at which it fires */
	void          (*c_func)(void *);
	void           *c_arg;
	bool            c_pending;
};

void callout_init(struct callout *c);
void callout_reset(struct callout *c, int nticks, void (*fn)(void *), void *arg);
void callout_stop(struct callout *c);
void callout_tick(void);        /* called by the timer interrupt on CPU 0 */

#endif
