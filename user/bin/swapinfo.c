/*
 * swapinfo: swap space in use, after FreeBSD's swapinfo(8) (pstat -s).
 *   swapinfo [-k]
 * One line per swap device with its size, the space used and free in 1 KB blocks and the
 * percentage used, and a Total line when there is more than one (-k is the default and is
 * accepted). Reads vm.swap_info (an array of struct xswdev).
 *   Device          1K-blocks     Used    Avail Capacity
 *   /dev/da3           262144    10240   251904     4%
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <err.h>
#include <sys/sysctl.h>

static void line(const char *name, unsigned long total, unsigned long used)
{
	printf("%-15s %9lu %8lu %8lu %7lu%%\n", name, total, used, total - used,
	       total ? (used * 100 + total / 2) / total : 0);
}

int main(int argc, char **argv)
{
	struct xswdev x[8];
	size_t len = sizeof x;
	int c;
	while ((c = getopt(argc, argv, "k")) != -1) {
		if (c != 'k') {
			fprintf(stderr, "usage: swapinfo [-k]\n");
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "usage: swapinfo [-k]\n");
		return 2;
	}
	if (sysctl("vm.swap_info", x, &len, NULL, 0) != 0)
		err(1, "sysctl vm.swap_info");
	int n = (int)(len / sizeof x[0]);
	unsigned long total = 0, used = 0;
	printf("Device          1K-blocks     Used    Avail Capacity\n");
	for (int i = 0; i < n; i++) {
		char name[24];
		snprintf(name, sizeof name, "/dev/%s", x[i].xsw_name);
		line(name, x[i].xsw_nblks * 4ul, x[i].xsw_used * 4ul);
		total += x[i].xsw_nblks * 4ul;
		used += x[i].xsw_used * 4ul;
	}
	if (n > 1)
		line("Total", total, used);
	return 0;
}
