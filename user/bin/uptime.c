/*
 * uptime: time of day and how long the system has been up, in FreeBSD's format
 * (" 5:04PM  up 2 mins"; "up 3 days, 4:05"; "up 30 secs"). wdrain keeps no load averages and
 * no login records, so those fields are left out rather than invented. usage: uptime
 */
#include <stdio.h>
#include <time.h>
#include <err.h>

int main(int argc, char **argv)
{
	struct timespec up;
	struct tm tm;
	time_t now;
	long long secs, days, hrs, mins;
	char clock[16];

	if (argc > 1) {
		fprintf(stderr, "usage: uptime\n");
		return 1;
	}
	if (clock_gettime(CLOCK_MONOTONIC, &up) < 0)
		err(1, "clock_gettime");
	time(&now);
	gmtime_r(&now, &tm);
	strftime(clock, sizeof clock, "%l:%M%p", &tm);
	printf("%s  up", clock);
	secs = up.tv_sec;
	days = secs / 86400;
	hrs = secs / 3600 % 24;
	mins = secs / 60 % 60;
	if (days > 0)
		printf(" %lld day%s%s", days, days > 1 ? "s" : "", hrs || mins ? "," : "");
	if (secs < 60)
		printf(" %lld sec%s", secs, secs != 1 ? "s" : "");
	else if (hrs > 0 && mins > 0)
		printf(" %2lld:%02lld", hrs, mins);
	else if (hrs > 0)
		printf(" %lld hr%s", hrs, hrs > 1 ? "s" : "");
	else if (mins > 0)
		printf(" %lld min%s", mins, mins > 1 ? "s" : "");
	putchar('\n');
	return 0;
}
