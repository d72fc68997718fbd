/* getrusage(2). */
#ifndef _SYS_RESOURCE_H_
#define _SYS_RESOURCE_H_

#include <sys/time.h>

#define RUSAGE_SELF      0
#define RUSAGE_CHILDREN  (-1)

struct rusage {
	struct timeval ru_utime;
	struct timeval ru_stime;
	int32_t ru_maxrss;      /* KB */
	int32_t ru_inblock;     /* block input operations */
	int32_t ru_oublock;     /* block output operations */
	int32_t ru_minflt;      /* page faults served without I/O */
	int32_t ru_majflt;      /* page faults that read a page (a page-in) */
};

#endif
