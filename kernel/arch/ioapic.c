/*
 * I/O APIC: routes device interrupt lines (global system interrupts, GSIs) to CPU vectors.
 *   ioapic_init()   - mask every redirection entry and the legacy 8259 PICs (so that only the
 *                     IOAPIC delivers device interrupts). Boot CPU, after acpi_init.
 *   ioapic_route(irq, vector, apicid, level) - unmask GSI `irq` to `vector` on the CPU with LAPIC
 *                     id `apicid`: level-triggered active-low if `level`, else edge/active-high.
 *   ioapic_program(gsi, vector, apicid, level, activelow) - the same with the polarity explicit
 *                     (intr.c uses it for ISA IRQs with MADT overrides).
 * Registers: Intel 82093AA I/O APIC datasheet §3.0 (IOREGSEL at +0x00, IOWIN at +0x10; register 1
 * = version with the highest redirection entry in bits 23:16; redirection entry n at 0x10 + 2n,
 * low word: vector 7:0, delivery mode 10:8 (0 fixed), destination mode 11 (0 physical), polarity 13
 * (1 low), trigger 15 (1 level), mask 16; high word: destination LAPIC id in bits 31:24).
 * Only the IOAPIC with GSI base 0 (acpi.ioapic_addr) is used.
 * Locking: ioapic_lock serializes the select/window register pair.
 */
#include "arch/intr.h"
#include "arch/acpi.h"
#include "arch/machdep.h"
#include "arch/x86.h"
#include "kern/klib.h"
#include "kern/lock.h"

#define IOREGSEL     0x00
#define IOWIN        0x10
#define IOAPICVER    0x01
#define IOREDTBL     0x10

#define RTE_DELMODE_NMI   (4u << 8)     /* delivery mode 100b (82093AA data sheet §3.2.4) */
#define RTE_POLARITY_LOW  (1u << 13)
#define RTE_TRIGGER_LEVEL (1u << 15)
#define RTE_MASKED        (1u << 16)

/* The 8259A PIC data ports (interrupt mask registers). */
#define PIC1_DATA    0x21
#define PIC2_DATA    0xa1

static struct spinlock ioapic_lock;
static uint32_t ioapic_base;
static int ioapic_npins;      /* redirection entries */

static uint32_t ioapic_read(uint32_t reg)
{
	mmio_write32(ioapic_base + IOREGSEL, reg);
	return mmio_read32(ioapic_base + IOWIN);
}

static void ioapic_write(uint32_t reg, uint32_t val)
{
	mmio_write32(ioapic_base + IOREGSEL, reg);
	mmio_write32(ioapic_base + IOWIN, val);
}

void ioapic_init(void)
{
	spin_init(&ioapic_lock, "ioapic");
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
	ioapic_base = acpi.ioapic_addr;
	ioapic_npins = ((ioapic_read(IOAPICVER) >> 16) & 0xff) + 1;
	for (int pin = 0; pin < ioapic_npins; pin++) {
		ioapic_write(IOREDTBL + 2 * pin, RTE_MASKED | (T_IRQ0 + pin));
		ioapic_write(IOREDTBL + 2 * pin + 1, 0);
	}
	kprintf("ioapic: at 0x%x, %d pins (GSI %u-%u), all masked\n", ioapic_base, ioapic_npins,
	        acpi.ioapic_gsibase, acpi.ioapic_gsibase + ioapic_npins - 1);
}

bool ioapic_has_gsi(int gsi)
{
	return gsi >= (int)acpi.ioapic_gsibase && gsi < (int)acpi.ioapic_gsibase + ioapic_npins;
}

void ioapic_program(int gsi, int vector, int apicid, bool level, bool activelow)
{
	int pin = gsi - (int)acpi.ioapic_gsibase;
	uint32_t lo = (uint32_t)vector | (level ? RTE_TRIGGER_LEVEL : 0) | (activelow ? RTE_POLARITY_LOW : 0);
	spin_lock(&ioapic_lock);
	ioapic_write(IOREDTBL + 2 * pin + 1, (uint32_t)apicid << 24);
	ioapic_write(IOREDTBL + 2 * pin, lo);
	spin_unlock(&ioapic_lock);
}

/* GSI `gsi` as an NMI to one CPU: edge-triggered, active-high, the vector ignored. */
void ioapic_program_nmi(int gsi, int apicid)
{
	int pin = gsi - (int)acpi.ioapic_gsibase;
	spin_lock(&ioapic_lock);
	ioapic_write(IOREDTBL + 2 * pin + 1, (uint32_t)apicid << 24);
	ioapic_write(IOREDTBL + 2 * pin, RTE_DELMODE_NMI);
	spin_unlock(&ioapic_lock);
}

void ioapic_route(int irq, int vector, int cpu_apicid, bool level)
{
	if (!ioapic_has_gsi(irq)) {
		kprintf("ioapic: cannot route GSI %d: the IOAPIC has GSIs %u-%u\n", irq, acpi.ioapic_gsibase,
		        acpi.ioapic_gsibase + ioapic_npins - 1);
		return;
	}
	ioapic_program(irq, vector, cpu_apicid, level, level);
}
