/* linerec.c: line records and monotonic_us of <libutil.h> (user/libc). */
#include <libutil.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <err.h>

#define LINEMAX 16384

static int lr_fd = 1;
static const char *lr_label;
static char line[LINEMAX];
static size_t linelen;
static int write_failed;

int lr_open(const char *path, const char *label)
{
	lr_label = label;
	if (path && (lr_fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0666)) < 0)
		return -1;
	return 0;
}

/* Append to the line; text that does not fit is cut (the line still ends with "\n"). */
static void lr_vprintf(const char *fmt, va_list ap)
{
	int n = vsnprintf(line + linelen, sizeof line - 1 - linelen, fmt, ap);

	if (n > 0)
		linelen = linelen + n < sizeof line - 1 ? linelen + n : sizeof line - 2;
}

void lr_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_vprintf(fmt, ap);
	va_end(ap);
}

void lr_begin(void)
{
	linelen = 0;
	if (lr_label)
		lr_printf("%s,", lr_label);
}

void lr_end(void)
{
	line[linelen++] = '\n';
	if (write(lr_fd, line, linelen) < 0 && !write_failed) {
		warn("write");
		write_failed = 1;
	}
	linelen = 0;
}

void lr_meta(const char *fmt, ...)
{
	va_list ap;

	lr_begin();
	lr_printf("#");
	va_start(ap, fmt);
	lr_vprintf(fmt, ap);
	va_end(ap);
	lr_end();
}

long long monotonic_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}
