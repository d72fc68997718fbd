/*
 * Multiprocessor support: which CPU am I, and starting the other CPUs (APs).
 *   mycpu() / cpu_index() - this CPU's struct cpu, read from %gs:0 (cpu.h); before the first AP
 *       is woken, cpus[0]. mycpu_lapic() finds it by the LAPIC id (cpus[i].apicid, filled by
 *       acpi_init), for an AP before its gdt_init. Call with interrupts off, or the answer may
 *       be stale at once (the process may migrate).
 *   smp_start_aps() - boot CPU, once (process 1 calls it, after the PCI probe: kern/main.c), after
 *       everything ap_main() needs exists: starts every other
 *       CPU the MADT lists, one at a time, and returns when each has set cpus[i].started or timed
 *       out (1 s, with a message). ncpu then counts the CPUs that started.
 * How an AP starts (Intel SDM vol. 3A §8.4.4, MP spec 1.4 appendix B.4): the real-mode trampoline
 * (apboot.S, linked at AP_TRAMPOLINE, embedded in the kernel as apboot_blob) is copied to that
 * physical address below 1 MB, which vm_page never hands out (vm_page.c skips pages below 1 MB).
 * Just below it the BSP leaves the trampoline its arguments (AP_ARG_*): the boot page directory
 * (identity + KERNBASE, for the instant paging turns on), the kernel page directory, the entry
 * point ap_main and the top of a fresh 16 KB kernel stack. Then INIT-SIPI-SIPI.
 * Locking: cpus[] entries and ncpu are written only here, by the boot CPU, before an AP runs
 * (no other CPU runs yet: process 1 is the boot CPU's).
 */
#include "arch/cpu.h"
#include "arch/intr.h"
#include "arch/machdep.h"
#include "arch/memlayout.h"
#include "arch/pmap.h"
#include "arch/x86.h"
#include "arch/acpi.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/time.h"

#define AP_TRAMPOLINE   0x7000
#define AP_ARG_BOOTPGDIR (AP_TRAMPOLINE - 16)
#define AP_ARG_PGDIR    (AP_TRAMPOLINE - 12)
#define AP_ARG_ENTRY    (AP_TRAMPOLINE - 8)
#define AP_ARG_STACK    (AP_TRAMPOLINE - 4)
#define AP_STACK_SIZE   16384
#define AP_START_TIMEOUT_US 1000000

extern const uint8_t apboot_blob_start[], apboot_blob_end[];   /* build/apboot_blob.S */
extern pd_entry_t bootpgdir[];                                  /* boot/multiboot.S */

/* Set before the first AP is woken, never cleared (an AP that timed out may still wake up). */
static volatile bool aps_woken;

/*
 * mycpu: this CPU's entry, from %gs:0 (cpu.h). Until an AP has been woken only the boot CPU
 * runs, and it may not have loaded its %gs yet (kprintf runs before gdt_init). Not the LAPIC
 * id: under TCG a LAPIC register read is an MMIO exit into QEMU's APIC model, and mycpu()
 * runs in every spin_lock/spin_unlock and pushcli/popcli - PC
 * samples of the seed's file dd on one CPU found 60 % of them in lapic_id() (docs/bufcache.md,
 * "Measurements").
 */
struct cpu *mycpu(void)
{
	struct cpu *c;

	if (!aps_woken)
		return &cpus[0];
	__asm__ volatile("movl %%gs:0, %0" : "=r"(c));
	return c;
}

/* mycpu by the LAPIC id, for an AP whose %gs is not set up yet (ap_main before gdt_init). */
struct cpu *mycpu_lapic(void)
{
	int id = lapic_id();
	if (id < 0)
		return &cpus[0];
	for (int i = 0; i < ncpu; i++)
		if (cpus[i].apicid == id)
			return &cpus[i];
	panic("mycpu: LAPIC id %d is not a known CPU", id);
}

int cpu_index(void)
{
	return mycpu()->index;
}

static void put_arg(uint32_t pa, uint32_t val)
{
	*(volatile uint32_t *)P2V(pa) = val;
}

/* Start the AP that will be cpus[n]. True if it reported in. */
static bool start_ap(int n, uint8_t apicid)
{
	void *stack = kmalloc(AP_STACK_SIZE, M_NOWAIT);
	if (stack == NULL) {
		kprintf("smp: no memory for a kernel stack for CPU %d (LAPIC %u); not started\n", n, apicid);
		return false;
	}
	struct cpu *c = &cpus[n];
	c->apicid = apicid;
	c->index = n;
	c->started = false;
	ncpu = n + 1;                        /* so that mycpu_lapic() on the AP finds its entry */
	aps_woken = true;                    /* from now on mycpu() reads %gs:0 */
	put_arg(AP_ARG_BOOTPGDIR, V2P(bootpgdir));
	put_arg(AP_ARG_PGDIR, rcr3());
	put_arg(AP_ARG_ENTRY, (uint32_t)ap_main);
	put_arg(AP_ARG_STACK, (uint32_t)stack + AP_STACK_SIZE);
	__sync_synchronize();
	lapic_startap(apicid, AP_TRAMPOLINE);
	for (uint32_t waited = 0; waited < AP_START_TIMEOUT_US; waited += 100) {
		if (c->started)
			return true;
		DELAY(100);
	}
	/* The stack stays allocated: the AP might still wake up and run on it. */
	kprintf("smp: CPU %d (LAPIC %u) did not start within %d ms; continuing without it\n", n, apicid,
	        AP_START_TIMEOUT_US / 1000);
	ncpu = n;
	return false;
}

void smp_start_aps(void)
{
	size_t len = (size_t)(apboot_blob_end - apboot_blob_start);
	if (acpi.ncpus <= 1)
		return;
	memcpy(P2V(AP_TRAMPOLINE), apboot_blob_start, len);
	for (int i = 1; i < acpi.ncpus; i++)
		start_ap(ncpu, acpi.cpu_apicid[i]);
	kprintf("smp: %d of %d CPUs running\n", ncpu, acpi.ncpus);
}
