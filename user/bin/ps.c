/*
 * ps: list every process and kernel thread (like FreeBSD's `ps ax`) from the sysctl kern.proc,
 * an array of struct kinfo_proc (libutil's kinfo_getallproc). Columns: PID PPID STAT WCHAN
 * TIME COMMAND; WCHAN is the wait message of a sleeping process, TIME its CPU time
 * (minutes:seconds.hundredths), kernel threads show their name in brackets. -a and -x are
 * accepted (everything is always shown).
 * usage: ps [-ax]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <err.h>
#include <libutil.h>

int main(int argc, char **argv)
{
	struct kinfo_proc *kp;
	int c, n;

	while ((c = getopt(argc, argv, "ax")) != -1) {
		if (c == '?') {
			fprintf(stderr, "usage: ps [-ax]\n");
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "usage: ps [-ax]\n");
		return 1;
	}
	if (!(kp = kinfo_getallproc(&n)))
		err(1, "sysctl kern.proc");
	printf("  PID  PPID STAT WCHAN        TIME COMMAND\n");
	for (int i = 0; i < n; i++) {
		struct kinfo_proc *p = &kp[i];
		unsigned long long cs = p->ki_runtime / 10000;   /* hundredths of a second */
		char wchan[KI_WMESGLEN + 1], time[32];

		snprintf(wchan, sizeof wchan, "%.*s", KI_WMESGLEN, p->ki_wmesg);
		snprintf(time, sizeof time, "%llu:%02llu.%02llu", cs / 6000, cs / 100 % 60, cs % 100);
		printf("%5d %5d %-4c %-8s %8s %s%.*s%s\n", p->ki_pid, p->ki_ppid, p->ki_stat,
		       p->ki_stat == 'S' && wchan[0] ? wchan : "-", time, p->ki_kthread ? "[" : "",
		       KI_NAMELEN, p->ki_comm, p->ki_kthread ? "]" : "");
	}
	return 0;
}
