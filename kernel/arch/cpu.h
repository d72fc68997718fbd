/*
 * Per-CPU state and segment descriptors.
 * Each CPU has its own GDT (for its TSS and its %gs segment) and scheduler context. mycpu() reads
 * the current CPU's struct cpu from %gs:0 - the kernel's %gs is a segment whose base is this CPU's
 * struct cpu (SEG_KCPU, as xv6's x86 versions had it), reloaded at every trap entry because user
 * code may change %gs. Callers must have interrupts off (or accept that they may migrate right
 * after). mycpu_lapic() finds it by the LAPIC id instead: for an AP before its gdt_init.
 */
#ifndef _ARCH_CPU_H_
#define _ARCH_CPU_H_

#include "kern/types.h"

#define NCPU 8

/* Segment selectors (GDT index << 3 | RPL). */
#define SEG_KCODE 1
#define SEG_KDATA 2
#define SEG_UCODE 3
#define SEG_UDATA 4
#define SEG_TSS   5
#define SEG_KCPU  6     /* %gs in the kernel: base = this CPU's struct cpu */
#define NSEGS     7
#define DPL_USER  3

struct segdesc {
	uint32_t lo, hi;
};

/* Task state segment: only ss0/esp0 (the kernel stack for traps from user mode) are used. */
struct taskstate {
	uint32_t link, esp0;
	uint16_t ss0, pad0;
	uint32_t unused[22];
	uint16_t t, iomb;
};

struct context;
struct proc;

struct cpu {
	struct cpu      *self;           /* first: %gs:0 (SEG_KCPU's base is this struct) */
	uint8_t          apicid;
	int              index;          /* 0 .. ncpu-1 */
	struct context  *scheduler;      /* swtch() here to enter the scheduler */
	struct taskstate ts;
	struct segdesc   gdt[NSEGS];
	volatile bool    started;
	int              ncli;           /* depth of pushcli nesting */
	bool             intena;         /* were interrupts enabled before pushcli? */
	struct proc     *proc;           /* running process or NULL */
	uint64_t         idle_ns;        /* time spent idle in the scheduler */
	bool             resched;        /* the timer asked for a reschedule */
	bool             want_resched;   /* a sleeper woke: switch on the way back to user space */
	uint32_t         wd_stamp;       /* uptime of its last scheduler pass, 2^20 ns units (kern_watchdog.c) */
	volatile bool    wd_fire;        /* the watchdog found it stuck: report from the NMI */
};

extern struct cpu cpus[NCPU];
extern int ncpu;

struct cpu *mycpu(void);
struct cpu *mycpu_lapic(void);         /* by the LAPIC id: an AP before gdt_init */
int         cpu_index(void);
void        gdt_init(struct cpu *c);   /* load this CPU's GDT and TSS */

#endif
