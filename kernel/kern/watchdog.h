/*
 * The deadlock watchdog (kern/kern_watchdog.c): a CPU that does not pass through its scheduler
 * for debug.watchdog.timeout seconds panics with its trap frame and backtrace.
 */
#ifndef _KERN_WATCHDOG_H_
#define _KERN_WATCHDOG_H_

struct trapframe;

void watchdog_pass(void);              /* scheduler(): this CPU is alive */
void watchdog_start(void);             /* boot CPU, once all CPUs are up */
void watchdog_stop(void);              /* reboot(2), panic: halting CPUs are not stuck */
void watchdog_nmi(struct trapframe *tf);   /* trap(): every NMI */
int  watchdog_arch_start(void);        /* arch/clock.c: start the periodic NMI; 0 or -1 */

#endif
