/*
 * Callouts: run a function from the timer interrupt after a number of ticks (FreeBSD callout(9);
 * interface in kern/time.h).
 *   callout_init(c)                   - once, before first use.
 *   callout_reset(c, nticks, fn, arg) - (re)arm c to call fn(arg) `nticks` ticks from now (at least
 *                                       one tick); a pending c is first disarmed.
 *   callout_stop(c)                   - disarm c if pending. If its function is already running on
 *                                       CPU 0 it finishes (as in FreeBSD 4's callout_stop).
 *   callout_tick()                    - CPU 0's timer interrupt, after ticks++: runs due callouts.
 * The pending callouts are a list sorted by firing tick, so callout_tick looks only at the head.
 * Tick comparisons are done modulo 2^32 (the difference as a signed number), so the 497-day wrap of
 * `ticks` at HZ=100 is harmless for delays under 248 days.
 * A callout function runs with callout_lock released and interrupts off: it may take spinlocks,
 * call wakeup, and call callout_reset on its own callout to re-arm itself; it must not sleep.
 * Locking: callout_lock protects the list and every c_next/c_time/c_pending.
 */
#include "kern/types.h"
#include "kern/time.h"
#include "kern/lock.h"
#include "kern/klib.h"

static struct spinlock callout_lock = { .name = "callout" };
static struct callout *callout_list;      /* pending, soonest first; callout_lock */

static bool tick_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* Take c off the list; callout_lock held. */
static void callout_unlink(struct callout *c)
{
	for (struct callout **pp = &callout_list; *pp; pp = &(*pp)->c_next) {
		if (*pp == c) {
			*pp = c->c_next;
			break;
		}
	}
	c->c_next = NULL;
	c->c_pending = false;
}

void callout_init(struct callout *c)
{
	c->c_next = NULL;
	c->c_time = 0;
	c->c_func = NULL;
	c->c_arg = NULL;
	c->c_pending = false;
}

void callout_reset(struct callout *c, int nticks, void (*fn)(void *), void *arg)
{
	if (nticks < 1)
		nticks = 1;
	spin_lock(&callout_lock);
	if (c->c_pending)
		callout_unlink(c);
	c->c_time = ticks + (uint32_t)nticks;
	c->c_func = fn;
	c->c_arg = arg;
	struct callout **pp = &callout_list;
	while (*pp && !tick_before(c->c_time, (*pp)->c_time))
		pp = &(*pp)->c_next;
	c->c_next = *pp;
	*pp = c;
	c->c_pending = true;
	spin_unlock(&callout_lock);
}

void callout_stop(struct callout *c)
{
	spin_lock(&callout_lock);
	if (c->c_pending)
		callout_unlink(c);
	spin_unlock(&callout_lock);
}

void callout_tick(void)
{
	spin_lock(&callout_lock);
	while (callout_list && !tick_before(ticks, callout_list->c_time)) {
		struct callout *c = callout_list;
		callout_list = c->c_next;
		c->c_next = NULL;
		c->c_pending = false;
		void (*fn)(void *) = c->c_func;
		void *arg = c->c_arg;
		spin_unlock(&callout_lock);
		fn(arg);
		spin_lock(&callout_lock);
	}
	spin_unlock(&callout_lock);
}
