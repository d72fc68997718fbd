/*
 * halt, poweroff, reboot: sync the disks and stop the machine (one program, chosen by argv[0]).
 *   reboot          reboot(RB_AUTOBOOT)
 *   halt [-p]       reboot(RB_POWEROFF): a halted virtual machine is of no use, so halt powers
 *   poweroff        off as well (FreeBSD's halt -p); in QEMU the VM exits.
 * -n skips the sync. usage: halt [-np] | poweroff [-n] | reboot [-n]
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/reboot.h>
#include <err.h>

int main(int argc, char **argv)
{
	int isreboot = strcmp(getprogname(), "reboot") == 0;
	int c, nosync = 0;

	while ((c = getopt(argc, argv, isreboot ? "n" : "np")) != -1) {
		if (c == 'n')
			nosync = 1;
		else if (c != 'p')
			goto usage;
	}
	if (optind < argc)
		goto usage;
	if (!nosync)
		sync();
	reboot(isreboot ? RB_AUTOBOOT : RB_POWEROFF);
	err(1, "reboot");
usage:
	fprintf(stderr, "usage: %s [-n%s]\n", getprogname(), isreboot ? "" : "p");
	return 1;
}
