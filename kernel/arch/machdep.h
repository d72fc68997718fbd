/*
 * Machine-dependent start-up: what kmain (kern/main.c) calls to bring up the platform, in order:
 *   acpi_init()      - find the ACPI tables: CPUs, IOAPIC, interrupt overrides, PM timer, HPET
 *                      (arch/acpi.c). Sane defaults and a console line when a table is missing.
 *   clock_init()     - calibrate the TSC against the PM timer or HPET, read the CMOS RTC into
 *                      boottime, register kern.boottime and machdep.tsc_freq (arch/clock.c).
 *   ioapic_init()    - every IOAPIC pin masked, the 8259 PICs masked (arch/ioapic.c, intr.h).
 *   lapic_init()     - this CPU's LAPIC and its HZ timer (arch/lapic.c, intr.h); also on each AP.
 *   smp_start_aps()  - start every other enabled CPU from the MADT (arch/mp.c); each lands in
 *                      ap_main() on its own 16 KB kernel stack; ncpu counts the CPUs that started.
 * The rest is shared between the files of arch/ and not for callers outside it.
 */
#ifndef _ARCH_MACHDEP_H_
#define _ARCH_MACHDEP_H_

#include "kern/types.h"

void acpi_init(void);
void clock_init(void);
void smp_start_aps(void);

/* Internal to arch/. */
void ap_main(void);                                    /* kern/main.c: where an AP lands */
uint64_t tsc_freq_hz(void);                            /* calibrated TSC rate (clock.c) */
void ioapic_program(int gsi, int vector, int apicid, bool level, bool activelow);
bool ioapic_has_gsi(int gsi);
void ioapic_program_nmi(int gsi, int apicid);

#endif
