/* sleep: pause for a number of seconds, which may have a fraction ("0.25"). usage: sleep seconds */
#include <stdio.h>
#include <time.h>
#include <ctype.h>
#include <errno.h>

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 0 };
	const char *p;
	long frac = 100000000;   /* ns per digit of the fraction */

	if (argc != 2 || !*argv[1])
		goto usage;
	for (p = argv[1]; isdigit((unsigned char)*p); p++)
		ts.tv_sec = ts.tv_sec * 10 + (*p - '0');
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++, frac /= 10)
			ts.tv_nsec += (*p - '0') * frac;
	if (*p)
		goto usage;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
usage:
	fprintf(stderr, "usage: sleep seconds\n");
	return 1;
}
