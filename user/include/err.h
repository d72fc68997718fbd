/*
 * err.h: BSD error reporting (user/libc, lib/err.c). Messages go to stderr prefixed with the
 * program name (the last part of argv[0]):
 *   warn("%s", f)  -> "prog: f: strerror(errno)"      warnx("bad")   -> "prog: bad"
 *   err(1, ...)/errx(1, ...) do the same, then exit(1).
 */
#ifndef _ERR_H_
#define _ERR_H_

#include <stdarg.h>

extern const char *__progname;
const char *getprogname(void);

void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void err(int status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void errx(int status, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void vwarn(const char *fmt, va_list ap);
void vwarnx(const char *fmt, va_list ap);

#endif
