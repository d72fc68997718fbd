/*
 * Sleep and wakeup, FreeBSD style.
 *   msleep(chan, lk, flags, wmesg, timo) - atomically release spinlock `lk` (may be NULL) and sleep on
 *       `chan` until wakeup(chan), `timo` ticks pass (0 = no timeout) or, with PCATCH, the process is
 *       killed. Re-acquires `lk` before returning. Returns 0 (woken), EWOULDBLOCK (timed out) or
 *       EINTR (PCATCH and killed). Wakeups may be spurious: always re-check the condition in a loop.
 *   tsleep(chan, flags, wmesg, timo) - msleep without an interlock. Only for pure timed waits or
 *       where a missed wakeup is covered by the timeout (FreeBSD 4's signature).
 *   wakeup(chan) / wakeup_one(chan) - make all / one sleeper(s) on chan runnable. Callable from
 *       interrupt handlers.
 * `wmesg` is what ps shows in its WCHAN column ("wdrain", "flswai", "psleep", "vmwait", ...).
 */
#ifndef _KERN_SLEEP_H_
#define _KERN_SLEEP_H_

#include "kern/types.h"
#include <sys/errno.h>            /* EWOULDBLOCK (== EAGAIN, as on FreeBSD) */

struct spinlock;

#define PCATCH      0x100     /* a kill ends the sleep with EINTR */

int  msleep(void *chan, struct spinlock *lk, int flags, const char *wmesg, int timo);
int  tsleep(void *chan, int flags, const char *wmesg, int timo);
void wakeup(void *chan);
void wakeup_one(void *chan);

#endif
