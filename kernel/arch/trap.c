/*
 * Trap dispatch: exceptions, device interrupts, the timer, and system calls.
 * An exception in user mode kills the process with the matching signal (and a console line saying
 * why); in kernel mode it is a kernel bug: panic with the trap frame.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/time.h"
#include "kern/watchdog.h"
#include "arch/trap.h"
#include "arch/cpu.h"
#include "arch/intr.h"
#include "arch/x86.h"
#include "vm/vm_fault.h"
#include "arch/pmap.h"
#include "vm/vm_page.h"
#include "kern/sysctl.h"
#include <sys/syscall.h>
#include <sys/signal.h>
#include <sys/errno.h>

void syscall(struct trapframe *tf);

struct gatedesc {
	uint16_t off_lo, sel;
	uint8_t  zero, type;   /* type | S=0 | DPL | P */
	uint16_t off_hi;
};

static struct gatedesc idt[256];
extern uint32_t vectors[];

#define GATE_INTR 0xe          /* interrupt gate: IF cleared on entry */

static void set_gate(int n, uint32_t handler, int dpl)
{
	idt[n].off_lo = handler & 0xffff;
	idt[n].sel = SEG_KCODE << 3;
	idt[n].zero = 0;
	idt[n].type = GATE_INTR | (dpl << 5) | 0x80;
	idt[n].off_hi = handler >> 16;
}

void idt_init(void)
{
	for (int i = 0; i < 256; i++)
		set_gate(i, vectors[i], 0);
	set_gate(T_SYSCALL, vectors[T_SYSCALL], DPL_USER);
}

void idt_load(void)
{
	lidt(idt, sizeof(idt));
}

static const char *trap_name(int n)
{
	static const char *names[] = {
		"divide error", "debug", "NMI", "breakpoint", "overflow", "bound range", "invalid opcode",
		"device not available", "double fault", "coprocessor overrun", "invalid TSS",
		"segment not present", "stack fault", "general protection fault", "page fault", "reserved",
		"x87 FPU error", "alignment check", "machine check", "SIMD error",
	};
	return n < (int)nitems(names) ? names[n] : "interrupt";
}

void print_trapframe(struct trapframe *tf)
{
	kprintf("trap %u (%s), err %#x, eip %08x, cs %04x, eflags %08x", tf->trapno,
	        trap_name(tf->trapno), tf->err, tf->eip, tf->cs, tf->eflags);
	if (tf->trapno == T_PGFLT)
		kprintf(", cr2 %08x", rcr2());
	kprintf("\n  eax %08x ebx %08x ecx %08x edx %08x esi %08x edi %08x ebp %08x\n",
	        tf->eax, tf->ebx, tf->ecx, tf->edx, tf->esi, tf->edi, tf->ebp);
	if (tf->cs & 3)
		kprintf("  user esp %08x ss %04x\n", tf->esp, tf->ss);
}

static int signal_for_trap(int trapno)
{
	switch (trapno) {
	case T_DIVIDE:
	case T_FPERR:
	case T_SIMDERR:
		return SIGFPE;
	case T_ILLOP:
		return SIGILL;
	case T_BRKPT:
	case T_DEBUG:
		return SIGTRAP;
	case T_ALIGN:
		return SIGBUS;
	default:
		return SIGSEGV;
	}
}

extern struct trapframe *panic_tf;

/*
 * kern.cp_time: timer ticks spent in each CPU state, summed over CPUs (FreeBSD's cp_time; its
 * order user, nice, sys, intr, idle; wdrain has no nice and charges interrupts to whatever
 * they interrupted). vmstat's cpu columns come from it.
 */
#define CP_USER 0
#define CP_SYS  2
#define CP_IDLE 4
static long cp_time[5];               /* 32-bit, as FreeBSD i386's */
SYSCTL_PROC(kern_cp_time, "kern.cp_time", CTLTYPE_OPAQUE | CTLFLAG_RD, cp_time, sizeof(cp_time), NULL,
            "S,cp_time", "Timer ticks in each CPU state: user nice sys intr idle (longs)");

/* Advance `ticks` to the TSC's idea of time: QEMU under load may merge timer interrupts, and
 * sleeps with timeouts should not stretch because of it. Each tick still runs the callouts. */
static void clock_catch_up(void)
{
	uint32_t now = nanouptime() / (1000000000ull / HZ);
	do {
		ticks++;
		callout_tick();
	} while ((int32_t)(now - ticks) > 0);
}

/*
 * An exception in user mode. A page fault goes to vm_fault first (demand paging, copy on
 * write); one it cannot resolve, and every other exception, kills the process with a console
 * line naming it ("pid 12 (prog): segmentation fault at 0x00000000, eip 0x00400123"). A fault
 * on a mapped page wholly past the end of its file is a bus error (SIGBUS), as POSIX's mmap()
 * asks; any other unresolved fault is a segmentation fault (SIGSEGV).
 */
static void user_exception(struct trapframe *tf)
{
	struct proc *p = curproc;
	uint32_t addr = tf->trapno == T_PGFLT ? rcr2() : 0;   /* before anything can fault again */
	int sig = signal_for_trap(tf->trapno);
	sti();                             /* resolving a fault may sleep */
	if (tf->trapno == T_PGFLT) {
		int error = vm_fault(p, addr, (tf->err & 2) ? VM_PROT_WRITE : VM_PROT_READ);
		if (error == 0 || error == EINTR)
			return;                    /* resolved, or killed meanwhile (it exits on return) */
		sig = error == ENXIO ? SIGBUS : SIGSEGV;
		kprintf("pid %d (%s): %s at 0x%08x, eip 0x%08x\n", p->p_pid, p->p_comm,
		        sig == SIGBUS ? "bus error (past the end of the mapped file)" : "segmentation fault",
		        addr, tf->eip);
	} else {
		kprintf("pid %d (%s): %s at eip %08x, killed\n", p->p_pid, p->p_comm, trap_name(tf->trapno),
		        tf->eip);
	}
	trapsignal(p, sig);
}

void trap(struct trapframe *tf)
{
	struct proc *p = curproc;
	bool from_user = (tf->cs & 3) == DPL_USER;

	if (tf->trapno == T_NMI) {
		watchdog_nmi(tf);              /* and back at once: an NMI handler must not switch */
		return;
	}
	if (tf->trapno == T_SYSCALL) {
		p->p_tf = tf;
		syscall(tf);
	} else if (tf->trapno == T_LAPIC_TIMER) {
		if (cpu_index() == 0)
			clock_catch_up();
		lapic_eoi();
		if (p) {
			if (from_user)
				p->p_uticks++;
			else
				p->p_sticks++;
		}
		__atomic_add_fetch(&cp_time[p == NULL ? CP_IDLE : from_user ? CP_USER : CP_SYS], 1, __ATOMIC_RELAXED);
		sched_tick();
	} else if (tf->trapno == T_IPI_HALT) {
		for (;;) {
			cli();
			hlt();
		}
	} else if (tf->trapno == T_IPI_TLB) {
		pmap_tlb_ipi();
		lapic_eoi();
	} else if (tf->trapno == T_SPURIOUS) {
		/* Spurious LAPIC interrupt: no EOI (Intel SDM vol. 3 §10.9). */
	} else if (tf->trapno >= T_IRQ0) {
		vmcnt.v_intr++;
		intr_dispatch(tf->trapno);
		lapic_eoi();
	} else if (from_user && p) {
		vmcnt.v_trap++;
		user_exception(tf);
	} else {
		panic_tf = tf;
		panic("%s in kernel mode at eip %08x", trap_name(tf->trapno), tf->eip);
	}

	/*
	 * On the way back: act on a pending signal (die, or run its handler); give up the CPU if
	 * the timer's slice is over or, on the way to user space, if a sleeper woke meanwhile
	 * (sched_userret, kern_synch.c); then look for signals again, which may have come meanwhile.
	 */
	if (from_user && p)
		postsig(tf);
	if (p && p->p_stat == PRS_RUNNING && from_user)
		sched_userret(p);
	else if (p && p->p_stat == PRS_RUNNING && mycpu()->resched)
		sched_yield();
	if (from_user && p)
		postsig(tf);
}
