/*
 * kinfo.c: kinfo_getallproc and proc_running (user/libc, <libutil.h>), the process table for ps,
 * the samplers and the loads of tools/experiment.
 */
#include <libutil.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>

/* The table can grow between asking its size and reading it: leave room for 16 more and retry. */
struct kinfo_proc *kinfo_getallproc(int *cntp)
{
	struct kinfo_proc *kp = NULL;
	size_t len;

	for (int tries = 0; tries < 5; tries++) {
		if (sysctl("kern.proc", NULL, &len, NULL, 0) < 0)
			break;
		len += 16 * sizeof *kp;
		free(kp);
		if (!(kp = malloc(len))) {
			errno = ENOMEM;
			return NULL;
		}
		if (sysctl("kern.proc", kp, &len, NULL, 0) == 0) {
			*cntp = len / sizeof *kp;
			return kp;
		}
		if (errno != ENOMEM)
			break;
	}
	free(kp);
	return NULL;
}

/* Process pid still runs: it is in the table and not a zombie (1 if the table cannot be read). */
int proc_running(pid_t pid)
{
	int n, found = 0;
	struct kinfo_proc *kp = kinfo_getallproc(&n);

	if (kp == NULL)
		return 1;
	for (int i = 0; i < n; i++)
		if (kp[i].ki_pid == pid && kp[i].ki_stat != 'Z')
			found = 1;
	free(kp);
	return found;
}
