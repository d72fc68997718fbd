/*
 * Device interrupts.
 *   intr_establish(irq, fn, arg, name) - route ISA/PCI INTx line `irq` through the IOAPIC to
 *       vector T_IRQ0+irq on CPU 0 and call fn(arg) on each interrupt (several handlers may share
 *       a line; each must check its own device). Level-triggered, active-low for irq >= 16 or when
 *       `level` is set in intr_establish_level (PCI INTx lines are level-triggered).
 *   intr_establish_msi(fn, arg, name, &addr, &data) - allocate a vector for an MSI and return the
 *       message address/data to program into the device's MSI capability. 0 or errno.
 * Handlers run with interrupts off on that CPU; they may take spinlocks and call wakeup.
 */
#ifndef _ARCH_INTR_H_
#define _ARCH_INTR_H_

#include <stdint.h>
#include <stdbool.h>

#define T_IRQ0      32      /* IRQ n arrives on vector 32 + n (IOAPIC-routed lines) */
#define T_MSI0      80      /* first vector for MSIs */
#define NMSI        32
#define T_LAPIC_TIMER 120
#define T_IPI_HALT    121
#define T_IPI_TLB     122     /* TLB shootdown (arch/pmap.c) */
#define T_SPURIOUS    127

int intr_establish(int irq, void (*fn)(void *), void *arg, const char *name);
int intr_establish_level(int irq, bool level, void (*fn)(void *), void *arg, const char *name);
int intr_establish_msi(void (*fn)(void *), void *arg, const char *name, uint32_t *addr, uint32_t *data);
void intr_dispatch(int vector);      /* called from trap() */

/* IOAPIC and LAPIC (arch/ioapic.c, arch/lapic.c). */
void ioapic_init(void);
void ioapic_route(int irq, int vector, int cpu_apicid, bool level);
void lapic_init(void);               /* this CPU's LAPIC, timer at HZ */
void lapic_eoi(void);
int  lapic_id(void);
void lapic_startap(uint8_t apicid, uint32_t addr);
void lapic_ipi_all_others(int vector);
void lapic_nmi(uint8_t apicid);

#endif
