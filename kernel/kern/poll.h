/*
 * poll(2) (kern/sys_generic.c). A poller scans its descriptors and, if none is ready, sleeps
 * until something that may change readiness calls poll_wakeup() - data or room in a pipe or a
 * socket, a close, a connection, console input - and then scans again (FreeBSD's selwakeup, with
 * one channel for all: simple, and pollers are few).
 *   poll_wakeup()   - every poller looks again. Any context; takes only poll_lock, and only
 *                     while someone is in poll (kern/sys_generic.c).
 */
#ifndef _KERN_POLL_H_
#define _KERN_POLL_H_

void poll_wakeup(void);

#endif
