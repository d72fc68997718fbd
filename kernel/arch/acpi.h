/*
 * What the ACPI tables say about the platform (filled in once by acpi_init(), read-only after).
 * Only the static tables are read (RSDP, RSDT/XSDT, MADT, FADT, HPET); there is no AML.
 * When a table is missing or bad, acpi_init() says so on the console and `acpi` keeps the
 * defaults: one CPU, LAPIC at 0xFEE00000, one IOAPIC at 0xFEC00000 with GSI base 0, ISA IRQs
 * identity-mapped edge/high, no PM timer, HPET at its usual 0xFED00000 if it answers.
 */
#ifndef _ARCH_ACPI_H_
#define _ARCH_ACPI_H_

#include "kern/types.h"
#include "arch/cpu.h"

#define LAPIC_DEFAULT_ADDR  0xFEE00000u
#define IOAPIC_DEFAULT_ADDR 0xFEC00000u
#define HPET_DEFAULT_ADDR   0xFED00000u

/* MPS INTI flags of an interrupt source override (ACPI 6.x §5.2.12.5, table "MPS INTI Flags"). */
#define INTI_POL_MASK   0x3
#define INTI_POL_HIGH   0x1
#define INTI_POL_LOW    0x3
#define INTI_TRIG_MASK  0xc
#define INTI_TRIG_EDGE  0x4
#define INTI_TRIG_LEVEL 0xc

struct isa_irq {
	uint32_t gsi;           /* global system interrupt the ISA IRQ arrives on */
	bool     level;         /* level-triggered (default edge) */
	bool     activelow;     /* active-low (default active-high) */
};

struct acpi_info {
	int            ncpus;                 /* enabled processors (at least 1) */
	uint8_t        cpu_apicid[NCPU];      /* their LAPIC ids, the boot CPU first */
	uint32_t       lapic_addr;
	uint32_t       ioapic_addr;           /* the IOAPIC with GSI base 0 */
	uint32_t       ioapic_gsibase;
	struct isa_irq isa[16];               /* ISA IRQ -> GSI, after interrupt source overrides */
	uint16_t       pm_tmr_port;           /* ACPI PM timer I/O port, 0 if none */
	bool           pm_tmr_32bit;          /* FADT TMR_VAL_EXT: 32-bit counter (else 24-bit) */
	uint8_t        rtc_century;           /* CMOS index of the century register, 0 if none */
	uint32_t       hpet_addr;             /* HPET register block, 0 if no HPET table */
};

extern struct acpi_info acpi;

#endif
