/* kinfo.c: kinfo_getallproc (user/libc, <libutil.h>), the process table for ps and the samplers. */
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
