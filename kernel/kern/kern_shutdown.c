/*
 * reboot(2): sync and unmount the file systems, then power off (ACPI S5 through the PM1a
 * control port, which QEMU's pc and q35 machines implement at 0x604), halt, or reset (the 8042
 * keyboard controller's pulse-reset command 0xFE).
 */
#include "kern/types.h"
#include "kern/klib.h"
#include "kern/proc.h"
#include "kern/time.h"
#include "kern/syscall.h"
#include "arch/x86.h"
#include "arch/intr.h"
#include "arch/cpu.h"
#include "kern/watchdog.h"
#include "vfs/vfs.h"
#include <sys/reboot.h>
#include <sys/errno.h>

#define ACPI_PM1A_CNT   0x604
#define ACPI_SLP_EN_S5  0x2000     /* SLP_TYPa = 0 (S5 in QEMU's DSDT), SLP_EN = 1 */

int sys_reboot(register_t *args, register_t *rv)
{
	int howto = args[0];
	if (howto & ~(RB_HALT | RB_POWEROFF))
		return EINVAL;
	if (suser(cred_cur()) != 0)
		return EPERM;                      /* FreeBSD's reboot(2) is root's */
	int error = vfs_shutdown();
	watchdog_stop();
	if (error)
		kprintf("reboot: file systems not cleanly unmounted (error %d)\n", error);
	if (ncpu > 1)
		lapic_ipi_all_others(T_IPI_HALT);
	cli();
	if (howto & RB_POWEROFF) {
		kprintf("Powering off...\n");
		outw(ACPI_PM1A_CNT, ACPI_SLP_EN_S5);
		/* The write takes effect asynchronously; if it has not after a second, halt
		 * rather than fall through to a reset the caller did not ask for. */
		DELAY(1000000);
		kprintf("reboot: ACPI power-off did not take effect\n");
	}
	if (howto & (RB_HALT | RB_POWEROFF)) {
		kprintf("System halted\n");
		for (;;)
			hlt();
	}
	kprintf("Rebooting...\n");
	outb(0x64, 0xfe);
	for (;;)
		hlt();
}
