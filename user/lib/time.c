/*
 * time.c: calendar time and sleeping (user/libc, <time.h>, sleep/usleep of <unistd.h>).
 * wdrain keeps UTC only: localtime is gmtime, and %Z prints "UTC".
 */
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

static const char *const wdays[] = { "Sunday", "Monday", "Tuesday", "Wednesday",
                                     "Thursday", "Friday", "Saturday" };
static const char *const months[] = { "January", "February", "March", "April", "May", "June",
                                      "July", "August", "September", "October", "November",
                                      "December" };
static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

time_t time(time_t *t)
{
	struct timeval tv;
	time_t now = gettimeofday(&tv, NULL) < 0 ? (time_t)-1 : tv.tv_sec;

	if (t)
		*t = now;
	return now;
}

static int isleap(long long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

struct tm *gmtime_r(const time_t *t, struct tm *tm)
{
	long long days = *t / 86400, secs = *t % 86400, y = 1970;
	int m;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	tm->tm_hour = secs / 3600;
	tm->tm_min = secs / 60 % 60;
	tm->tm_sec = secs % 60;
	tm->tm_wday = (int)(((days + 4) % 7 + 7) % 7);   /* 1970-01-01 was a Thursday */
	while (days < 0)
		days += 365 + isleap(--y);
	while (days >= 365 + isleap(y))
		days -= 365 + isleap(y++);
	tm->tm_year = y - 1900;
	tm->tm_yday = days;
	for (m = 0; days >= mdays[m] + (m == 1 && isleap(y)); m++)
		days -= mdays[m] + (m == 1 && isleap(y));
	tm->tm_mon = m;
	tm->tm_mday = days + 1;
	tm->tm_isdst = 0;
	return tm;
}

struct tm *gmtime(const time_t *t)
{
	static struct tm tm;

	return gmtime_r(t, &tm);
}

struct tm *localtime(const time_t *t) { return gmtime(t); }

/*
 * Seconds since the epoch for a broken-down UTC time, from its year, month, day and time of day
 * (not tm_wday or tm_yday); a field out of its range carries into the next (month 12 is January of
 * the next year, day 0 the last of the month before).
 */
static long long epoch_seconds(const struct tm *tm)
{
	long long y = tm->tm_year + 1900 + tm->tm_mon / 12, days = tm->tm_mday - 1;
	int mon = tm->tm_mon % 12;

	if (mon < 0) {
		mon += 12;
		y--;
	}
	for (long long i = 1970; i < y; i++)
		days += 365 + isleap(i);
	for (long long i = y; i < 1970; i++)
		days -= 365 + isleap(i);
	for (int m = 0; m < mon; m++)
		days += mdays[m] + (m == 1 && isleap(y));
	return days * 86400 + tm->tm_hour * 3600LL + tm->tm_min * 60LL + tm->tm_sec;
}

/* timegm (BSD): the inverse of gmtime; *tm is normalised (its wday and yday filled in). */
time_t timegm(struct tm *tm)
{
	time_t t = (time_t)epoch_seconds(tm);

	gmtime_r(&t, tm);
	return t;
}

time_t mktime(struct tm *tm) { return timegm(tm); }

/* strftime: %a %A %b %B %c %d %D %e %F %H %I %j %l %m %M %n %p %R %s %S %t %T %y %Y %Z %%. */
size_t strftime(char *buf, size_t size, const char *fmt, const struct tm *tm)
{
	size_t len = 0;
	char tmp[64];

	for (; *fmt; fmt++) {
		const char *s = tmp;
		if (*fmt != '%') {
			tmp[0] = *fmt;
			tmp[1] = 0;
		} else {
			switch (*++fmt) {
			case 'a': snprintf(tmp, sizeof tmp, "%.3s", wdays[tm->tm_wday]); break;
			case 'A': s = wdays[tm->tm_wday]; break;
			case 'b': snprintf(tmp, sizeof tmp, "%.3s", months[tm->tm_mon]); break;
			case 'B': s = months[tm->tm_mon]; break;
			case 'c': snprintf(tmp, sizeof tmp, "%.3s %.3s %2d %02d:%02d:%02d %d", wdays[tm->tm_wday],
			                   months[tm->tm_mon], tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec,
			                   tm->tm_year + 1900); break;
			case 'd': snprintf(tmp, sizeof tmp, "%02d", tm->tm_mday); break;
			case 'D': snprintf(tmp, sizeof tmp, "%02d/%02d/%02d", tm->tm_mon + 1, tm->tm_mday,
			                   tm->tm_year % 100); break;
			case 'e': snprintf(tmp, sizeof tmp, "%2d", tm->tm_mday); break;
			case 'F': snprintf(tmp, sizeof tmp, "%d-%02d-%02d", tm->tm_year + 1900, tm->tm_mon + 1,
			                   tm->tm_mday); break;
			case 'H': snprintf(tmp, sizeof tmp, "%02d", tm->tm_hour); break;
			case 'I': snprintf(tmp, sizeof tmp, "%02d", (tm->tm_hour + 11) % 12 + 1); break;
			case 'l': snprintf(tmp, sizeof tmp, "%2d", (tm->tm_hour + 11) % 12 + 1); break;
			case 'j': snprintf(tmp, sizeof tmp, "%03d", tm->tm_yday + 1); break;
			case 'm': snprintf(tmp, sizeof tmp, "%02d", tm->tm_mon + 1); break;
			case 'M': snprintf(tmp, sizeof tmp, "%02d", tm->tm_min); break;
			case 'n': s = "\n"; break;
			case 'p': s = tm->tm_hour < 12 ? "AM" : "PM"; break;
			case 'R': snprintf(tmp, sizeof tmp, "%02d:%02d", tm->tm_hour, tm->tm_min); break;
			case 's': snprintf(tmp, sizeof tmp, "%lld", epoch_seconds(tm)); break;
			case 'S': snprintf(tmp, sizeof tmp, "%02d", tm->tm_sec); break;
			case 't': s = "\t"; break;
			case 'T': snprintf(tmp, sizeof tmp, "%02d:%02d:%02d", tm->tm_hour, tm->tm_min,
			                   tm->tm_sec); break;
			case 'y': snprintf(tmp, sizeof tmp, "%02d", tm->tm_year % 100); break;
			case 'Y': snprintf(tmp, sizeof tmp, "%d", tm->tm_year + 1900); break;
			case 'Z': s = "UTC"; break;
			case '%': s = "%"; break;
			case 0:   fmt--; s = "%"; break;
			default:  snprintf(tmp, sizeof tmp, "%%%c", *fmt); break;
			}
		}
		for (; *s; s++) {
			if (len + 1 >= size)
				return 0;
			buf[len++] = *s;
		}
	}
	if (size)
		buf[len] = 0;
	return len;
}

char *ctime(const time_t *t)
{
	static char buf[40];
	struct tm tm;

	strftime(buf, sizeof buf, "%c\n", gmtime_r(t, &tm));
	return buf;
}

unsigned int sleep(unsigned int seconds)
{
	struct timespec ts = { seconds, 0 }, rem = { 0, 0 };

	if (nanosleep(&ts, &rem) < 0)
		return (unsigned int)rem.tv_sec;
	return 0;
}

int usleep(unsigned int usec)
{
	struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };

	return nanosleep(&ts, NULL);
}
