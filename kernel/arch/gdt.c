/*
 * Segmentation: flat 4 GB code and data segments for the kernel (ring 0) and user (ring 3), one
 * TSS per CPU so that a trap from user mode lands on the current process's kernel stack, and one
 * small data segment per CPU over its struct cpu, the kernel's %gs (mycpu(), cpu.h).
 * Descriptor layout: Intel SDM vol. 3 §3.4.5 (segment descriptors), §7.2.2 (TSS descriptor).
 */
#include "arch/cpu.h"
#include "arch/x86.h"

struct cpu cpus[NCPU];
int ncpu = 1;

#define STA_X 0x8   /* executable */
#define STA_W 0x2   /* writable (data) */
#define STA_R 0x2   /* readable (code) */

/* A code/data descriptor: base 0, limit 4 GB (granularity 4 KB), 32-bit, present. */
static struct segdesc seg_flat(uint32_t type, uint32_t dpl)
{
	struct segdesc d;
	d.lo = 0x0000ffff;
	d.hi = (type << 8) | (1 << 12) | (dpl << 13) | (1 << 15) | (0xf << 16) | (1 << 22) | (1 << 23);
	return d;
}

/* A ring-0 data segment of limit+1 bytes at base (byte granularity, 32-bit, present). */
static struct segdesc seg_data(uint32_t base, uint32_t limit)
{
	struct segdesc d;
	d.lo = ((base & 0xffff) << 16) | (limit & 0xffff);
	d.hi = ((base >> 16) & 0xff) | (STA_W << 8) | (1 << 12) | (1 << 15) | (limit & 0xf0000) | (1 << 22) |
	       (base & 0xff000000);
	return d;
}

static struct segdesc seg_tss(uint32_t base, uint32_t limit)
{
	struct segdesc d;
	d.lo = ((base & 0xffff) << 16) | (limit & 0xffff);
	d.hi = ((base >> 16) & 0xff) | (0x9 << 8) | (1 << 15) | (limit & 0xf0000) | (base & 0xff000000);
	return d;
}

void gdt_init(struct cpu *c)
{
	c->gdt[0].lo = c->gdt[0].hi = 0;
	c->gdt[SEG_KCODE] = seg_flat(STA_X | STA_R, 0);
	c->gdt[SEG_KDATA] = seg_flat(STA_W, 0);
	c->gdt[SEG_UCODE] = seg_flat(STA_X | STA_R, DPL_USER);
	c->gdt[SEG_UDATA] = seg_flat(STA_W, DPL_USER);
	c->ts.ss0 = SEG_KDATA << 3;
	c->ts.iomb = sizeof(c->ts);          /* no I/O permission bitmap: user port I/O faults */
	c->gdt[SEG_TSS] = seg_tss((uint32_t)&c->ts, sizeof(c->ts) - 1);
	c->self = c;
	c->gdt[SEG_KCPU] = seg_data((uint32_t)c, sizeof(*c) - 1);
	lgdt(c->gdt, sizeof(c->gdt));
	__asm__ volatile(
		"movw %0, %%ds; movw %0, %%es; movw %0, %%ss; movw %1, %%fs; movw %2, %%gs;"
		"ljmp %3, $1f; 1:"
		: : "r"((uint16_t)(SEG_KDATA << 3)), "r"((uint16_t)0), "r"((uint16_t)(SEG_KCPU << 3)),
		    "i"(SEG_KCODE << 3) : "memory");
	ltr(SEG_TSS << 3);
}
