/*
 * Local APIC: each CPU's interrupt controller and its scheduler timer (interface in intr.h).
 *   lapic_init()  - on every CPU (the boot CPU after clock_init): software-enable the LAPIC with
 *                   spurious vector T_SPURIOUS, mask LINT0/LINT1/error/perf LVTs, and start the
 *                   timer periodic at HZ on vector T_LAPIC_TIMER. The timer's rate is measured once,
 *                   on the boot CPU, against the calibrated TSC (itself calibrated against the ACPI
 *                   PM timer or the HPET): no bus frequency is assumed.
 *   lapic_eoi()   - end of interrupt (not for T_SPURIOUS).
 *   lapic_id()    - this CPU's LAPIC id, or -1 before lapic_init ran on the boot CPU.
 *   lapic_startap(apicid, addr) - INIT-SIPI-SIPI an AP to real-mode code at `addr` (4 KB aligned,
 *                   below 1 MB).
 *   lapic_ipi_all_others(vector) - a fixed IPI to every CPU but this one.
 *   lapic_nmi(apicid) - an NMI to one CPU.
 * Registers and IPIs: Intel SDM vol. 3A ch. 10 "Advanced Programmable Interrupt Controller"
 * (ch. 11 in editions from 2023): register map table 10-1, LVT §10.5.1, timer §10.5.4, ICR §10.6.1,
 * EOI §10.8.5, spurious vector §10.9; start-up sequence §8.4.4.1 and MP spec 1.4 appendix B.4.
 * Locking: the registers are per CPU; callers of the ICR functions have interrupts off or are
 * the only CPU sending IPIs (boot); lapic_base and lapic_timer_count are written once at boot.
 */
#include "arch/intr.h"
#include "arch/acpi.h"
#include "arch/machdep.h"
#include "arch/x86.h"
#include "kern/klib.h"
#include "kern/time.h"

#define LAPIC_ID      0x020
#define LAPIC_VER     0x030
#define LAPIC_TPR     0x080
#define LAPIC_EOI     0x0b0
#define LAPIC_SVR     0x0f0
#define LAPIC_ESR     0x280
#define LAPIC_ICRLO   0x300
#define LAPIC_ICRHI   0x310
#define LAPIC_TIMER   0x320
#define LAPIC_PCINT   0x340
#define LAPIC_LINT0   0x350
#define LAPIC_LINT1   0x360
#define LAPIC_ERROR   0x370
#define LAPIC_TICR    0x380       /* timer initial count */
#define LAPIC_TCCR    0x390       /* timer current count */
#define LAPIC_TDCR    0x3e0       /* timer divide configuration */

#define SVR_ENABLE    0x100
#define LVT_MASKED    0x10000
#define TIMER_PERIODIC 0x20000
#define TDCR_DIV16    0x3

#define ICR_FIXED     0x000
#define ICR_NMI       0x400
#define ICR_INIT      0x500
#define ICR_STARTUP   0x600
#define ICR_BUSY      0x1000      /* delivery status: send pending */
#define ICR_ASSERT    0x4000
#define ICR_LEVEL     0x8000
#define ICR_OTHERS    0xc0000     /* destination shorthand: all excluding self */

#define CALIBRATE_NS  50000000u   /* measure the timer for 50 ms */

static uint32_t lapic_base;           /* 0 until lapic_init on the boot CPU */
static uint32_t lapic_timer_count;    /* initial count for one tick (1/HZ s) at divide-by-16 */

static uint32_t lapic_read(uint32_t reg)
{
	return mmio_read32(lapic_base + reg);
}

static void lapic_write(uint32_t reg, uint32_t val)
{
	mmio_write32(lapic_base + reg, val);
	(void)lapic_read(LAPIC_ID);       /* wait for the write to finish (xAPIC ordering) */
}

/*
 * One LAPIC timer reading with the uptime at that instant. A read bracketed by more than 10 us of
 * uptime is retried (under QEMU the first reads after starting the timer take ~15 us). False if
 * no read was quick.
 */
static bool lapic_timer_sample(uint32_t *count, uint64_t *ns)
{
	for (int i = 0; i < 100; i++) {
		uint64_t t0 = nanouptime();
		*count = lapic_read(LAPIC_TCCR);
		uint64_t t1 = nanouptime();
		*ns = (t0 + t1) / 2;
		if (t1 - t0 <= 10000)
			return true;
	}
	return false;
}

/*
 * Timer counts per tick: let it count down from 0xffffffff (one-shot, masked) for CALIBRATE_NS of
 * TSC time. Samples whose read was slow (the host preempted us) are retried.
 */
static uint32_t lapic_timer_calibrate(void)
{
	lapic_write(LAPIC_TDCR, TDCR_DIV16);
	lapic_write(LAPIC_TIMER, LVT_MASKED | T_LAPIC_TIMER);
	for (int attempt = 0; attempt < 5; attempt++) {
		uint32_t c0, c1;
		uint64_t t0, t1;
		lapic_write(LAPIC_TICR, 0xffffffffu);
		bool ok = lapic_timer_sample(&c0, &t0);
		while (nanouptime() - t0 < CALIBRATE_NS)
			pause();
		ok = lapic_timer_sample(&c1, &t1) && ok;
		lapic_write(LAPIC_TICR, 0);
		if (!ok || c1 >= c0)
			continue;
		uint64_t per_tick = (uint64_t)(c0 - c1) * (1000000000u / HZ) / (t1 - t0);
		if (per_tick == 0 || per_tick > 0xffffffffu)
			break;
		kprintf("lapic: timer %u kHz (divide by 16), %u counts per tick at HZ=%d\n",
		        (uint32_t)(per_tick * HZ / 1000), (uint32_t)per_tick, HZ);
		return (uint32_t)per_tick;
	}
	kprintf("lapic: timer calibration failed; assuming 62.5 MHz (1 GHz / 16): ticks may be off\n");
	return 62500000 / HZ;
}

void lapic_init(void)
{
	if (lapic_base == 0)
		lapic_base = acpi.lapic_addr;
	lapic_write(LAPIC_SVR, SVR_ENABLE | T_SPURIOUS);
	lapic_write(LAPIC_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LINT1, LVT_MASKED);
	if (((lapic_read(LAPIC_VER) >> 16) & 0xff) >= 4)
		lapic_write(LAPIC_PCINT, LVT_MASKED);            /* exists when max LVT entry >= 4 */
	lapic_write(LAPIC_ERROR, LVT_MASKED);
	lapic_write(LAPIC_ESR, 0);                           /* back-to-back writes clear it */
	lapic_write(LAPIC_ESR, 0);
	lapic_write(LAPIC_EOI, 0);                           /* in case one was left pending */
	lapic_write(LAPIC_TPR, 0);                           /* accept every priority */

	if (lapic_timer_count == 0)
		lapic_timer_count = lapic_timer_calibrate();
	lapic_write(LAPIC_TDCR, TDCR_DIV16);
	lapic_write(LAPIC_TIMER, TIMER_PERIODIC | T_LAPIC_TIMER);
	lapic_write(LAPIC_TICR, lapic_timer_count);
}

void lapic_eoi(void)
{
	if (lapic_base)
		lapic_write(LAPIC_EOI, 0);
}

int lapic_id(void)
{
	if (lapic_base == 0)
		return -1;
	return (int)(lapic_read(LAPIC_ID) >> 24);
}

/* Send one IPI and wait (up to ~100 ms) for the LAPIC to accept it. False if it never did. */
static bool lapic_icr(uint8_t apicid, uint32_t lo)
{
	lapic_write(LAPIC_ICRHI, (uint32_t)apicid << 24);
	lapic_write(LAPIC_ICRLO, lo);
	for (int i = 0; i < 100000; i++) {
		if (!(lapic_read(LAPIC_ICRLO) & ICR_BUSY))
			return true;
		DELAY(1);
	}
	kprintf("lapic: IPI 0x%x to LAPIC %u not accepted\n", lo, apicid);
	return false;
}

void lapic_startap(uint8_t apicid, uint32_t addr)
{
	/* SDM §8.4.4.1: INIT, 10 ms, STARTUP, 200 us, STARTUP, 200 us. The STARTUP vector is the
	 * page number of the real-mode entry point. */
	if (!lapic_icr(apicid, ICR_INIT | ICR_ASSERT | ICR_LEVEL))
		return;
	DELAY(10000);
	for (int i = 0; i < 2; i++) {
		if (!lapic_icr(apicid, ICR_STARTUP | (addr >> 12)))
			return;
		DELAY(200);
	}
}

/* An NMI to one CPU (the watchdog's way into a CPU that has interrupts off). */
void lapic_nmi(uint8_t apicid)
{
	if (lapic_base)
		lapic_icr(apicid, ICR_ASSERT | ICR_NMI);
}

void lapic_ipi_all_others(int vector)
{
	if (lapic_base)
		lapic_icr(0, ICR_OTHERS | ICR_ASSERT | ICR_FIXED | (uint32_t)vector);
}
