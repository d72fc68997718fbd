/* err.c: warn/warnx/err/errx (user/libc, <err.h>). Each message is one write to stderr. */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

const char *__progname = "";

const char *getprogname(void) { return __progname; }

static void report(int with_errno, const char *fmt, va_list ap)
{
	char msg[512];
	int n, saved = errno;

	n = snprintf(msg, sizeof msg, "%s: ", __progname);
	if (fmt && n < (int)sizeof msg)
		n += vsnprintf(msg + n, sizeof msg - n, fmt, ap);
	if (with_errno && n < (int)sizeof msg)
		n += snprintf(msg + n, sizeof msg - n, "%s%s", fmt ? ": " : "", strerror(saved));
	if (n >= (int)sizeof msg - 1)
		n = sizeof msg - 2;
	msg[n++] = '\n';
	fflush(stdout);
	fwrite(msg, 1, n, stderr);
}

void vwarn(const char *fmt, va_list ap)  { report(1, fmt, ap); }
void vwarnx(const char *fmt, va_list ap) { report(0, fmt, ap); }

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(1, fmt, ap);
	va_end(ap);
}

void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(0, fmt, ap);
	va_end(ap);
}

void err(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(1, fmt, ap);
	va_end(ap);
	exit(status);
}

void errx(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(0, fmt, ap);
	va_end(ap);
	exit(status);
}
