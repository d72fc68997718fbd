/* time.h: calendar time (UTC only: wdrain has no time zones), clocks and sleeping (user/libc). */
#ifndef _TIME_H_
#define _TIME_H_

#include <sys/types.h>
#include <sys/time.h>

struct tm {
	int tm_sec, tm_min, tm_hour;   /* 0-60, 0-59, 0-23 */
	int tm_mday, tm_mon, tm_year;  /* 1-31, 0-11, years since 1900 */
	int tm_wday, tm_yday;          /* 0-6 (Sunday = 0), 0-365 */
	int tm_isdst;
};

time_t     time(time_t *t);
struct tm *gmtime_r(const time_t *t, struct tm *tm);
struct tm *gmtime(const time_t *t);
struct tm *localtime(const time_t *t);          /* = gmtime */
size_t     strftime(char *buf, size_t size, const char *fmt, const struct tm *tm);
char      *ctime(const time_t *t);               /* "Thu Nov 14 22:13:20 2023\n" */
time_t     timegm(struct tm *tm);                /* gmtime's inverse; normalises *tm */
time_t     mktime(struct tm *tm);                /* = timegm */

int gettimeofday(struct timeval *tv, void *tz);
int clock_gettime(clockid_t clock, struct timespec *ts);
int nanosleep(const struct timespec *req, struct timespec *rem);

#endif
