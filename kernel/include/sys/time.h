/* Time structures. Shared by kernel and user/lib. */
#ifndef _SYS_TIME_H_
#define _SYS_TIME_H_

#include <sys/types.h>

struct timeval {
	time_t      tv_sec;
	suseconds_t tv_usec;
};

struct timespec {
	time_t  tv_sec;
	int32_t tv_nsec;
};

#define CLOCK_REALTIME   0
#define CLOCK_MONOTONIC  4   /* FreeBSD's value */
#define CLOCK_UPTIME     5

#endif
