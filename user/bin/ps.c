/*
 * ps: list every process and kernel thread (like FreeBSD's `ps ax`) from the sysctl kern.proc,
 * an array of struct kinfo_proc (libutil's kinfo_getallproc). Columns: PID PPID STAT WCHAN
 * TIME COMMAND; WCHAN is the wait message of a sleeping process, TIME its CPU time
 * (minutes:seconds.hundredths), kernel threads show their name in brackets. -a and -x are
 * accepted (everything is always shown). -l adds the memory columns: RSS (resident KB), MINFLT
 * and MAJFLT (page faults served without and with a page-in, as getrusage's ru_minflt and
 * ru_majflt).
 * usage: ps [-alx]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <err.h>
#include <libutil.h>

int main(int argc, char **argv)
{
	struct kinfo_proc *kp;
	int c, n, lflag = 0;

	while ((c = getopt(argc, argv, "alx")) != -1) {
		if (c == '?') {
			fprintf(stderr, "usage: ps [-alx]\n");
			return 1;
		}
		if (c == 'l')
			lflag = 1;
	}
	if (optind < argc) {
		fprintf(stderr, "usage: ps [-alx]\n");
		return 1;
	}
	if (!(kp = kinfo_getallproc(&n)))
		err(1, "sysctl kern.proc");
	printf("  PID  PPID %sSTAT WCHAN        TIME COMMAND\n", lflag ? "  RSS MINFLT MAJFLT " : "");
	for (int i = 0; i < n; i++) {
		struct kinfo_proc *p = &kp[i];
		unsigned long long cs = p->ki_runtime / 10000;   /* hundredths of a second */
		char wchan[KI_WMESGLEN + 1], time[32];

		snprintf(wchan, sizeof wchan, "%.*s", KI_WMESGLEN, p->ki_wmesg);
		snprintf(time, sizeof time, "%llu:%02llu.%02llu", cs / 6000, cs / 100 % 60, cs % 100);
		printf("%5d %5d ", p->ki_pid, p->ki_ppid);
		if (lflag)
			printf("%5u %6d %6d ", p->ki_size / 1024, p->ki_minflt, p->ki_majflt);
		printf("%-4c %-8s %8s %s%.*s%s\n", p->ki_stat,
		       p->ki_stat == 'S' && wchan[0] ? wchan : "-", time, p->ki_kthread ? "[" : "",
		       KI_NAMELEN, p->ki_comm, p->ki_kthread ? "]" : "");
	}
	return 0;
}
