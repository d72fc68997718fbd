/*
 * Clocks (interface in kern/time.h): the calibrated TSC for uptime and DELAY, the CMOS RTC for the
 * wall-clock time at boot.
 *   clock_init() - boot CPU, after acpi_init and before lapic_init (which uses nanouptime to
 *       measure the LAPIC timer). Measures the TSC for 100 ms against a reference clock: the ACPI
 *       PM timer (3.579545 MHz, 24 or 32 bits, port from the FADT; ACPI 6.x §4.8.3.3), else the
 *       HPET (64-bit main counter, period in femtoseconds in GCAP_ID bits 63:32, enabled by
 *       GEN_CONF bit 0; IA-PC HPET spec 1.0a §2.3), else the i8254 PIT channel 2 (1.193182 MHz).
 *       Then reads the RTC into boottime, and registers kern.boottime, machdep.tsc_freq and
 *       machdep.tsc_calibration.
 *   nanouptime() and friends - rdtsc scaled by a fixed-point factor, no division on the fast path.
 *       Under TCG every vCPU's rdtsc reads one machine-wide count (QEMU 7.2: helper_rdtsc() in
 *       target/i386/tcg/misc_helper.c, cpu_get_tsc() in hw/i386/x86.c), so uptime is the same on
 *       all CPUs.
 *   DELAY(us)    - spins on the TSC; before clock_init, on port 0x80 reads (about 1 us each on
 *       real hardware, faster under emulation, so early delays are not to be trusted).
 * RTC: Motorola MC146818A data sheet: registers 0 sec, 2 min, 4 hour, 7 day, 8 month, 9 year; A bit 7
 * = update in progress; B bit 2 = binary (else BCD), bit 1 = 24-hour (else 12-hour, bit 7 of the
 * hour = PM). The century is the CMOS byte the FADT names, if any.
 * Locking: everything here is written once by clock_init before other CPUs run; `ticks` is written
 * only by CPU 0's timer interrupt.
 */
#include "kern/types.h"
#include "kern/time.h"
#include "kern/klib.h"
#include "kern/sysctl.h"
#include "kern/watchdog.h"
#include "arch/acpi.h"
#include "arch/cpu.h"
#include "arch/machdep.h"
#include "arch/x86.h"

volatile uint32_t ticks;
struct timeval boottime;

static int64_t tsc_freq;              /* TSC ticks per second; 0 until calibrated */
static uint64_t tsc_base;             /* TSC at clock_init: uptime 0 */
static uint32_t tsc_ns_mult;          /* ns = delta * tsc_ns_mult >> TSC_SHIFT */
static char tsc_calibration[16] = "none";
#define TSC_SHIFT 24                  /* keeps tsc_ns_mult < 2^32 for any TSC above 4 MHz */

SYSCTL_PROC(kern_boottime, "kern.boottime", CTLTYPE_OPAQUE | CTLFLAG_RD, &boottime, sizeof(boottime),
            NULL, "S,timeval", "System boot time (wall clock, from the CMOS RTC)");
SYSCTL_QUAD(machdep, tsc_freq, CTLFLAG_RD, &tsc_freq, "TSC frequency in Hz, calibrated at boot");
SYSCTL_STRING(machdep, tsc_calibration, CTLFLAG_RD, tsc_calibration, sizeof(tsc_calibration),
              "Reference clock the TSC was calibrated against (ACPI-PM, HPET or i8254)");

/* ---- reference clocks: each reads an up-counter of `bits` bits at `freq` Hz ----------------- */

struct refclock {
	const char *name;
	uint64_t    freq;
	uint32_t    mask;
	uint32_t  (*read)(void);
};

static uint32_t pmtmr_read(void)
{
	return inl(acpi.pm_tmr_port);
}

#define HPET_GCAP_ID    0x000
#define HPET_GEN_CONF   0x010
#define HPET_COUNTER    0x0f0
#define HPET_ENABLE_CNF 0x1
#define HPET_MAX_PERIOD 100000000u    /* fs; the spec's upper bound (100 ns) */

static uint32_t hpet_base;

static uint32_t hpet_read(void)
{
	return mmio_read32(hpet_base + HPET_COUNTER);   /* the low 32 bits are plenty for 100 ms */
}

/* The HPET's frequency after enabling it, or 0 if there is none that answers sanely. */
static uint64_t hpet_start(void)
{
	hpet_base = acpi.hpet_addr ? acpi.hpet_addr : HPET_DEFAULT_ADDR;
	uint32_t period_fs = mmio_read32(hpet_base + HPET_GCAP_ID + 4);
	if (period_fs == 0 || period_fs > HPET_MAX_PERIOD)
		return 0;
	uint32_t conf = mmio_read32(hpet_base + HPET_GEN_CONF);
	mmio_write32(hpet_base + HPET_GEN_CONF, conf | HPET_ENABLE_CNF);
	return 1000000000000000ull / period_fs;
}

#define PIT_CH0     0x40
#define PIT_CH2     0x42
#define PIT_CMD     0x43
#define PIT_GATE    0x61              /* bit 0: channel 2 gate, bit 1: speaker */
#define PIT_FREQ    1193182

static uint32_t pit_read(void)
{
	outb(PIT_CMD, 0x80);              /* latch channel 2 */
	uint32_t lo = inb(PIT_CH2);
	uint32_t hi = inb(PIT_CH2);
	return ~((hi << 8) | lo) & 0xffff;    /* it counts down; make it count up */
}

static void pit_start(void)
{
	outb(PIT_GATE, (inb(PIT_GATE) & ~0x02) | 0x01);
	outb(PIT_CMD, 0xb4);              /* channel 2, lo/hi byte, mode 2 (rate generator), binary */
	outb(PIT_CH2, 0);                 /* reload value 0 = 65536 */
	outb(PIT_CH2, 0);
}

static struct refclock refclock_choose(void)
{
	if (acpi.pm_tmr_port)
		return (struct refclock){ "ACPI-PM", 3579545, acpi.pm_tmr_32bit ? 0xffffffffu : 0xffffffu,
		                          pmtmr_read };
	uint64_t f = hpet_start();
	if (f)
		return (struct refclock){ "HPET", f, 0xffffffffu, hpet_read };
	kprintf("clock: no ACPI PM timer and no HPET; calibrating against the i8254 PIT\n");
	pit_start();
	return (struct refclock){ "i8254", PIT_FREQ, 0xffff, pit_read };
}

/*
 * Count TSC ticks over 100 ms of the reference clock. The reference is polled often enough
 * (microseconds apart) that summing masked differences is exact even for the 16-bit PIT.
 * The first and last reads are bracketed by rdtsc; the bracket width is the measurement's
 * uncertainty (the host may deschedule a virtual CPU mid-read). An attempt whose brackets are
 * within 1/20000 of the interval (0.005%) is taken at once; otherwise, after a few attempts, the
 * tightest one is used and its uncertainty reported, since a busy host may never give a clean one.
 */
static int64_t tsc_calibrate(const struct refclock *rc, uint32_t *ppm)
{
	uint64_t target = rc->freq / 10;
	int64_t best = 0;
	uint64_t best_err = ~0ull, best_dtsc = 1;
	for (int attempt = 0; attempt < 8; attempt++) {
		uint64_t a0 = rdtsc();
		uint32_t prev = rc->read();
		uint64_t b0 = rdtsc();
		uint64_t elapsed = 0, a1, b1;
		for (;;) {
			a1 = rdtsc();
			uint32_t now = rc->read();
			b1 = rdtsc();
			elapsed += (now - prev) & rc->mask;
			prev = now;
			if (elapsed >= target)
				break;
		}
		uint64_t dtsc = (a1 + b1) / 2 - (a0 + b0) / 2;
		uint64_t err = (b0 - a0) + (b1 - a1);
		if (err < best_err && dtsc > 0) {
			best_err = err;
			best_dtsc = dtsc;
			best = (int64_t)(dtsc * rc->freq / elapsed);
		}
		if (err <= dtsc / 20000)
			break;
	}
	*ppm = (uint32_t)(best_err * 1000000 / best_dtsc);
	return best;
}

/* ---- uptime -------------------------------------------------------------------------------- */

static uint64_t tsc_to_ns(uint64_t delta)
{
	uint64_t hi = delta >> 32, lo = delta & 0xffffffffu;
	return ((hi * tsc_ns_mult) << (32 - TSC_SHIFT)) + ((lo * tsc_ns_mult) >> TSC_SHIFT);
}

uint64_t nanouptime(void)
{
	if (tsc_freq == 0)
		return 0;
	return tsc_to_ns(rdtsc() - tsc_base);
}

void microuptime(struct timeval *tv)
{
	uint64_t us = nanouptime() / 1000;
	tv->tv_sec = (time_t)(us / 1000000);
	tv->tv_usec = (suseconds_t)(us % 1000000);
}

void microtime(struct timeval *tv)
{
	struct timeval up;
	microuptime(&up);
	tv->tv_sec = boottime.tv_sec + up.tv_sec;
	tv->tv_usec = boottime.tv_usec + up.tv_usec;
	if (tv->tv_usec >= 1000000) {
		tv->tv_usec -= 1000000;
		tv->tv_sec++;
	}
}

time_t time_second_now(void)
{
	struct timeval tv;
	microtime(&tv);
	return tv.tv_sec;
}

uint64_t tsc_freq_hz(void)
{
	return (uint64_t)tsc_freq;
}

void DELAY(uint32_t usec)
{
	if (tsc_freq == 0) {
		while (usec--)
			(void)inb(0x80);
		return;
	}
	uint64_t start = rdtsc();
	uint64_t wait = (uint64_t)usec * (uint64_t)tsc_freq / 1000000;
	while (rdtsc() - start < wait)
		pause();
}

/* ---- the CMOS real-time clock -------------------------------------------------------------- */

#define RTC_ADDR    0x70
#define RTC_DATA    0x71
#define RTC_SEC     0x00
#define RTC_MIN     0x02
#define RTC_HOUR    0x04
#define RTC_MDAY    0x07
#define RTC_MONTH   0x08
#define RTC_YEAR    0x09
#define RTC_STATUSA 0x0a
#define RTC_STATUSB 0x0b
#define RTCA_UIP    0x80
#define RTCB_24HR   0x02
#define RTCB_BINARY 0x04

struct rtc_time {
	uint8_t sec, min, hour, mday, month, year, century;
};

static uint8_t rtc_reg(uint8_t reg)
{
	outb(RTC_ADDR, reg);
	return inb(RTC_DATA);
}

/* One snapshot, taken when no update is in progress (the update takes under 2 ms). */
static void rtc_snapshot(struct rtc_time *t)
{
	for (int i = 0; i < 100000 && (rtc_reg(RTC_STATUSA) & RTCA_UIP); i++)
		;
	t->sec = rtc_reg(RTC_SEC);
	t->min = rtc_reg(RTC_MIN);
	t->hour = rtc_reg(RTC_HOUR);
	t->mday = rtc_reg(RTC_MDAY);
	t->month = rtc_reg(RTC_MONTH);
	t->year = rtc_reg(RTC_YEAR);
	t->century = acpi.rtc_century ? rtc_reg(acpi.rtc_century) : 0;
}

static uint8_t bcd2bin(uint8_t v)
{
	return (uint8_t)((v >> 4) * 10 + (v & 0xf));
}

static bool is_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Seconds since 1970-01-01 00:00:00 UTC (the RTC keeps UTC under QEMU), or -1 if invalid. */
static time_t rtc_to_unix(int year, int month, int mday, int hour, int min, int sec)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (year < 1970 || month < 1 || month > 12 || mday < 1 || hour > 23 || min > 59 || sec > 60)
		return -1;
	if (mday > mdays[month - 1] + (month == 2 && is_leap(year)))
		return -1;
	int64_t days = 0;
	for (int y = 1970; y < year; y++)
		days += is_leap(y) ? 366 : 365;
	for (int m = 1; m < month; m++)
		days += mdays[m - 1] + (m == 2 && is_leap(year));
	days += mday - 1;
	return ((days * 24 + hour) * 60 + min) * 60 + sec;
}

static time_t rtc_read(void)
{
	struct rtc_time a, b;
	rtc_snapshot(&b);
	do {                               /* until two snapshots agree: no update in between */
		a = b;
		rtc_snapshot(&b);
	} while (memcmp(&a, &b, sizeof(a)) != 0);

	uint8_t status = rtc_reg(RTC_STATUSB);
	bool pm = !(status & RTCB_24HR) && (a.hour & 0x80);
	a.hour &= 0x7f;
	if (!(status & RTCB_BINARY)) {
		a.sec = bcd2bin(a.sec);
		a.min = bcd2bin(a.min);
		a.hour = bcd2bin(a.hour);
		a.mday = bcd2bin(a.mday);
		a.month = bcd2bin(a.month);
		a.year = bcd2bin(a.year);
		a.century = bcd2bin(a.century);
	}
	if (!(status & RTCB_24HR))
		a.hour = (uint8_t)(a.hour % 12 + (pm ? 12 : 0));
	int year = a.century >= 19 && a.century <= 99 ? a.century * 100 + a.year
	                                              : (a.year < 70 ? 2000 : 1900) + a.year;
	time_t t = rtc_to_unix(year, a.month, a.mday, a.hour, a.min, a.sec);
	if (t < 0)
		kprintf("clock: the CMOS RTC holds an invalid date (%d-%02u-%02u %02u:%02u:%02u); "
		        "the clock starts at 1970-01-01\n", year, a.month, a.mday, a.hour, a.min, a.sec);
	else
		kprintf("clock: RTC %d-%02u-%02u %02u:%02u:%02u UTC\n", year, a.month, a.mday, a.hour,
		        a.min, a.sec);
	return t < 0 ? 0 : t;
}

void clock_init(void)
{
	uint32_t a, b, c, d;
	cpuid(1, &a, &b, &c, &d);
	if (!(d & (1u << 4)))
		panic("clock: this CPU has no time-stamp counter (CPUID.1:EDX.TSC = 0); wdrain needs one");
	struct refclock rc = refclock_choose();
	uint32_t ppm;
	int64_t f = tsc_calibrate(&rc, &ppm);
	if (f < 4000000)
		panic("clock: TSC calibration against the %s timer failed (%lld Hz, or reads too slow); "
		      "cannot keep time", rc.name, (long long)f);
	if (ppm > 50)
		kprintf("clock: the host was busy during calibration: TSC rate uncertain by %u ppm\n", ppm);
	tsc_ns_mult = (uint32_t)((1000000000ull << TSC_SHIFT) / (uint64_t)f);
	tsc_base = rdtsc();
	tsc_freq = f;
	strlcpy(tsc_calibration, rc.name, sizeof(tsc_calibration));
	kprintf("clock: TSC %u.%06u MHz (calibrated for 100 ms against the %s timer)\n",
	        (uint32_t)(f / 1000000), (uint32_t)(f % 1000000), rc.name);

	time_t now = rtc_read();
	struct timeval up;
	microuptime(&up);
	boottime.tv_sec = now - up.tv_sec - (up.tv_usec > 0);
	boottime.tv_usec = up.tv_usec > 0 ? 1000000 - up.tv_usec : 0;
}

/*
 * The watchdog's NMI source (kern/kern_watchdog.c): the i8254's channel 0 as a rate generator
 * (mode 2) with the largest divisor, 65536: 1193182 / 65536 = 18.2 Hz, on ISA IRQ 0, which the
 * IOAPIC delivers to the boot CPU as an NMI. (Channel 2 stays clock_init's reference counter.)
 * 0, or -1 if the IOAPIC does not have IRQ 0's GSI.
 */
int watchdog_arch_start(void)
{
	int gsi = (int)acpi.isa[0].gsi;

	if (!ioapic_has_gsi(gsi))
		return -1;
	outb(PIT_CMD, 0x34);              /* channel 0, lo/hi byte, mode 2 (rate generator), binary */
	outb(PIT_CH0, 0);                 /* reload value 0 = 65536 */
	outb(PIT_CH0, 0);
	ioapic_program_nmi(gsi, cpus[0].apicid);
	return 0;
}
