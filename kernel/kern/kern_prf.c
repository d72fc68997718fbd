/*
 * kprintf and panic.
 * kprintf formats into a local buffer and writes it to the console under kprintf_lock, so lines
 * from different CPUs do not interleave. panic stops the other CPUs, prints the message, the trap
 * frame (if the panic came from a trap), the CPU and process, and a symbolic backtrace from the
 * kernel's embedded symbol table (kern/ksyms.c), then halts; under QEMU it also exits through the
 * isa-debug-exit port with status 3 so harnesses see the failure at once.
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/lock.h"
#include "kern/proc.h"
#include "kern/ksyms.h"
#include "kern/watchdog.h"
#include "kern/sysctl.h"
#include "arch/x86.h"
#include "arch/cpu.h"
#include "arch/trap.h"
#include "arch/intr.h"
#include "arch/memlayout.h"
#include "dev/console.h"

static struct spinlock kprintf_lock = { .name = "kprintf" };
static volatile int panicking;
struct trapframe *panic_tf;

void vkprintf(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	bool locked = !panicking;
	if (locked)
		spin_lock(&kprintf_lock);
	for (int i = 0; i < n; i++)
		cons_putc(buf[i]);
	if (locked)
		spin_unlock(&kprintf_lock);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
}

/* Walk the saved-%ebp chain, printing each return address with its symbol. */
static void backtrace(uint32_t ebp)
{
	kprintf("backtrace:\n");
	for (int depth = 0; depth < 24 && ebp >= KERNBASE && ebp < DEVSPACE && (ebp & 3) == 0; depth++) {
		uint32_t *frame = (uint32_t *)ebp;
		uint32_t eip = frame[1];
		if (eip < KERNLINK)
			break;
		uint32_t off;
		const char *name = ksym_lookup(eip - 1, &off);
		kprintf("  #%d %08x in %s+%#x\n", depth, eip, name ? name : "?", off + 1);
		ebp = frame[0];
	}
}

void panic(const char *fmt, ...)
{
	cli();
	if (__atomic_exchange_n(&panicking, 1, __ATOMIC_SEQ_CST)) {
		for (;;)
			hlt();               /* another CPU is already panicking */
	}
	watchdog_stop();
	if (ncpu > 1)
		lapic_ipi_all_others(T_IPI_HALT);
	kprintf("\npanic: ");
	va_list ap;
	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
	kprintf("\n");
	struct cpu *c = mycpu();
	struct proc *p = c->proc;
	kprintf("cpu %d, process %d (%s)\n", c->index, p ? p->p_pid : -1, p ? p->p_comm : "none");
	if (panic_tf) {
		print_trapframe(panic_tf);
		uint32_t off;
		const char *name = ksym_lookup(panic_tf->eip, &off);
		kprintf("  at %s+%#x\n", name ? name : "?", off);
		backtrace(panic_tf->ebp);
	} else
		backtrace(read_ebp());
	outb(0xf4, 1);                       /* QEMU isa-debug-exit: status 3 */
	for (;;)
		hlt();
}

/* debug.kdb.panic=1 panics on purpose (FreeBSD's knob), so tests can check the panic path. */
static int kdb_panic_handler(struct sysctl_req *req)
{
	int v = 0;
	int error = sysctl_handle_int(req, &v);
	if (error || req->newptr == NULL)
		return error;
	if (v != 0)
		panic("debug.kdb.panic requested by process %d", curproc ? curproc->p_pid : 0);
	return 0;
}
SYSCTL_PROC(debug_kdb_panic, "debug.kdb.panic", CTLTYPE_INT | CTLFLAG_RW, NULL, 0, kdb_panic_handler, "I",
            "Set to panic the kernel (for testing the panic path)");
