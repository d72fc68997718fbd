/*
 * Device interrupt handlers (interface in intr.h): a list of handlers per vector, and the routing
 * of ISA and PCI lines through the IOAPIC, or MSIs straight to a LAPIC.
 *   ISA IRQs (0-15, intr_establish): the MADT interrupt source overrides give the GSI and the
 *       trigger/polarity (ACPI 6.x §5.2.12.5); without an override an ISA IRQ is edge/active-high
 *       on the GSI of the same number.
 *   PCI INTx (intr_establish_level(line, true, ...), or any line >= 16): the line register value is
 *       the GSI (on pc SeaBIOS routes the PCI pins to IRQs 10/11 and the IOAPIC pin is the
 *       line: [@seabios-pciinit] in docs/sources.md; each boot logs the line), level/active-low
 *       (PCI Local Bus spec 3.0 §2.2.6).
 *   MSI (intr_establish_msi): a vector from T_MSI0..T_MSI0+NMSI-1; message address 0xFEE00000 with
 *       the destination LAPIC id in bits 19:12, data = the vector, fixed delivery, edge
 *       (Intel SDM vol. 3A §10.11).
 * Every line is delivered to CPU 0. Each established handler is logged once on the console.
 * Locking: intr_lock serializes establishing. intr_dispatch walks the lists without it: a handler
 * is fully initialized before the store that links it in (lists only grow).
 */
#include "arch/intr.h"
#include "arch/acpi.h"
#include "arch/machdep.h"
#include "arch/cpu.h"
#include "kern/klib.h"
#include "kern/kmalloc.h"
#include "kern/lock.h"
#include <sys/errno.h>

#define NVECTOR   256
#define MSI_ADDR_BASE 0xfee00000u

struct intrhand {
	void            (*ih_fn)(void *);
	void             *ih_arg;
	const char       *ih_name;
	struct intrhand  *ih_next;
};

struct intrvec {
	struct intrhand *iv_handlers;    /* NULL = vector free */
	bool             iv_level;       /* trigger mode of the line (for sharing checks) */
	uint32_t         iv_count;       /* interrupts taken */
	uint32_t         iv_stray;       /* interrupts with no handler */
};

static struct spinlock intr_lock = { .name = "intr" };
static struct intrvec intrvecs[NVECTOR];   /* establishing under intr_lock; see the top comment */

/* Append a handler to a vector's list; the caller holds intr_lock. */
static int intr_add(int vector, void (*fn)(void *), void *arg, const char *name)
{
	struct intrhand *ih = kmalloc(sizeof(*ih), M_NOWAIT | M_ZERO);
	if (ih == NULL)
		return ENOMEM;
	ih->ih_fn = fn;
	ih->ih_arg = arg;
	ih->ih_name = name;
	struct intrhand **pp = &intrvecs[vector].iv_handlers;
	while (*pp)
		pp = &(*pp)->ih_next;
	__sync_synchronize();
	*pp = ih;
	return 0;
}

static int intr_route(int irq, bool level, void (*fn)(void *), void *arg, const char *name)
{
	int gsi = irq;
	bool activelow = level;
	if (irq < 16 && !level) {
		gsi = (int)acpi.isa[irq].gsi;
		level = acpi.isa[irq].level;
		activelow = acpi.isa[irq].activelow;
	}
	int vector = T_IRQ0 + irq;
	if (vector >= T_MSI0 || !ioapic_has_gsi(gsi)) {
		kprintf("intr: %s: IRQ %d (GSI %d) cannot be routed (no IOAPIC pin or vector)\n", name, irq, gsi);
		return EINVAL;
	}
	struct intrvec *iv = &intrvecs[vector];
	if (iv->iv_handlers && iv->iv_level != level) {
		kprintf("intr: %s: IRQ %d is already %s-triggered (%s); cannot share it as %s\n", name, irq,
		        iv->iv_level ? "level" : "edge", iv->iv_handlers->ih_name, level ? "level" : "edge");
		return EINVAL;
	}
	bool first = iv->iv_handlers == NULL;
	int error = intr_add(vector, fn, arg, name);
	if (error) {
		kprintf("intr: %s: no memory for the IRQ %d handler\n", name, irq);
		return error;
	}
	if (first) {
		iv->iv_level = level;
		ioapic_program(gsi, vector, cpus[0].apicid, level, activelow);
	}
	kprintf("intr: %s on IRQ %d: IOAPIC GSI %d, %s/%s, vector %d, CPU 0%s\n", name, irq, gsi,
	        level ? "level" : "edge", activelow ? "low" : "high", vector, first ? "" : " (shared)");
	return 0;
}

int intr_establish_level(int irq, bool level, void (*fn)(void *), void *arg, const char *name)
{
	if (irq < 0 || fn == NULL) {
		kprintf("intr: %s: bad IRQ %d or no handler\n", name, irq);
		return EINVAL;
	}
	spin_lock(&intr_lock);
	int error = intr_route(irq, level || irq >= 16, fn, arg, name);
	spin_unlock(&intr_lock);
	return error;
}

int intr_establish(int irq, void (*fn)(void *), void *arg, const char *name)
{
	return intr_establish_level(irq, false, fn, arg, name);
}

int intr_establish_msi(void (*fn)(void *), void *arg, const char *name, uint32_t *addr, uint32_t *data)
{
	if (fn == NULL)
		return EINVAL;
	spin_lock(&intr_lock);
	int vector = T_MSI0;
	while (vector < T_MSI0 + NMSI && intrvecs[vector].iv_handlers)
		vector++;
	int error = vector < T_MSI0 + NMSI ? intr_add(vector, fn, arg, name) : ENOSPC;
	spin_unlock(&intr_lock);
	if (error) {
		kprintf("intr: %s: no %s for an MSI\n", name, error == ENOSPC ? "free vector" : "memory");
		return error;
	}
	*addr = MSI_ADDR_BASE | ((uint32_t)cpus[0].apicid << 12);
	*data = (uint32_t)vector;
	kprintf("intr: %s on MSI: vector %d, CPU 0 (address 0x%x data 0x%x)\n", name, vector, *addr, *data);
	return 0;
}

void intr_dispatch(int vector)
{
	if (vector < 0 || vector >= NVECTOR)
		return;
	struct intrvec *iv = &intrvecs[vector];
	struct intrhand *ih = iv->iv_handlers;
	iv->iv_count++;
	if (ih == NULL) {
		if (iv->iv_stray++ < 10)
			kprintf("intr: stray interrupt on vector %d on CPU %d\n", vector, cpu_index());
		return;
	}
	for (; ih; ih = ih->ih_next)
		ih->ih_fn(ih->ih_arg);
}
