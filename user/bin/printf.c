/*
 * printf: formatted output (POSIX.1-2017 XCU printf; FreeBSD's usr.bin/printf messages).
 *   printf format [argument ...]
 *
 * The format is printed with its escapes (\\ \a \b \f \n \r \t \v, \ddd in octal) and its
 * conversions, each taking the next argument: %d %i (signed), %o %u %x %X (unsigned), %c (the
 * argument's first character), %s, %b (the argument with its escapes: those of the format,
 * \0ddd, and \c, which ends all output), %% (a percent sign). A conversion may have the flags
 * - + space # 0, a width and a precision, each also * (from the next argument). A numeric
 * argument is a C constant (decimal, 0 octal, 0x hex, with a sign) or a quote followed by a
 * character (its code); one that is not a number ("printf: abc: expected numeric value"), is
 * only partly one ("printf: 12abc: not completely converted") or is out of range ("Result too
 * large") is reported, counts as what was converted, and makes the status 1. Missing arguments
 * are 0 or the empty string. The format is used again while arguments remain (if it took any).
 * Floating-point conversions (%e %f %g %a) are not supported: wdrain's libc has no floating
 * point in printf, and POSIX makes them optional for this utility; they are refused like any
 * other unknown conversion ("printf: illegal format character f", status 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stdint.h>
#include <err.h>

static char **gargv;        /* the next argument */
static int status;
static int stopped;         /* \c in a %b argument: no more output at all */

static const char *nextarg(void)
{
	return *gargv ? *gargv++ : NULL;
}

/*
 * One escape at *pp (just past the backslash) into out; *pp moves past it. In a %b argument
 * (bflag) octal is \0ddd and \c stops everything; in the format it is \ddd. Returns the
 * number of bytes put (0 or 1).
 */
static int escape(const char **pp, char *out, int bflag)
{
	static const char from[] = "\\abfnrtv\"'", to[] = "\\\a\b\f\n\r\t\v\"'";
	const char *p = *pp, *k;
	int n = 0, v = 0;

	if (bflag && *p == 'c') {
		stopped = 1;
		*pp = p + 1;
		return 0;
	}
	if (*p >= '0' && *p <= '7') {
		if (bflag && *p == '0')
			p++;
		for (; n < 3 && *p >= '0' && *p <= '7'; n++)
			v = v * 8 + *p++ - '0';
		*out = (char)v;
		*pp = p;
		return 1;
	}
	if (*p && (k = strchr(from, *p))) {
		*out = to[k - from];
		*pp = p + 1;
		return 1;
	}
	*out = '\\';                     /* not an escape: the backslash itself */
	return 1;
}

/* The %b argument with its escapes, up to a \c. */
static char *bstring(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (!out)
		errx(1, "out of memory");
	while (*s && !stopped) {
		if (*s == '\\') {
			s++;
			o += escape(&s, o, 1);
		} else {
			*o++ = *s++;
		}
	}
	*o = 0;
	return out;
}

/* A numeric argument (see the top). */
static intmax_t number(const char *s, int issigned)
{
	char *end;
	intmax_t v;

	if (!s)
		return 0;
	if (*s == '\'' || *s == '"')
		return (unsigned char)s[1];
	errno = 0;
	v = issigned ? strtoll(s, &end, 0) : (intmax_t)strtoull(s, &end, 0);
	if (end == s) {
		warnx("%s: expected numeric value", s);
		status = 1;
	} else if (*end) {
		warnx("%s: not completely converted", s);
		status = 1;
	}
	if (errno == ERANGE) {
		warnx("%s: %s", s, strerror(ERANGE));
		status = 1;
	}
	return v;
}

/*
 * The conversion at *pp (its '%'): print it with the next argument(s). 1 if it took an
 * argument, 0 if not (%%), -1 after a bad conversion (reported).
 */
static int convert(const char **pp)
{
	char spec[64];
	const char *p = *pp + 1, *arg;
	size_t n = 0;
	int took = 0;

	spec[n++] = '%';
	while (*p && strchr("-+ 0#", *p) && n < 8)
		spec[n++] = *p++;
	for (int part = 0; part < 2; part++) {         /* the width, then the precision */
		if (part == 1) {
			if (*p != '.')
				break;
			spec[n++] = *p++;
		}
		if (*p == '*') {
			n += snprintf(spec + n, sizeof spec - n, "%d", (int)number(nextarg(), 1));
			p++;
			took = 1;
		}
		while (*p >= '0' && *p <= '9' && n < 40)
			spec[n++] = *p++;
	}
	*pp = p + (*p != 0);
	switch (*p) {
	case '%':
		putchar('%');
		return took;
	case 'd':
	case 'i':
		strcpy(spec + n, "jd");
		printf(spec, number(nextarg(), 1));
		return 1;
	case 'o':
	case 'u':
	case 'x':
	case 'X':
		spec[n++] = 'j';
		spec[n++] = *p;
		spec[n] = 0;
		printf(spec, (uintmax_t)number(nextarg(), 0));
		return 1;
	case 'c':
		strcpy(spec + n, "c");
		arg = nextarg();
		printf(spec, arg ? *arg : 0);
		return 1;
	case 's':
		strcpy(spec + n, "s");
		arg = nextarg();
		printf(spec, arg ? arg : "");
		return 1;
	case 'b': {
		char *b;
		strcpy(spec + n, "s");
		arg = nextarg();
		b = bstring(arg ? arg : "");
		printf(spec, b);
		free(b);
		return 1;
	}
	case 0:
		warnx("missing format character");
		return -1;
	default:
		warnx("illegal format character %c", *p);
		return -1;
	}
}

/* Print the format once; -1 after a bad conversion. *took says whether it used an argument. */
static int doformat(const char *f, int *took)
{
	char c;
	int r;

	*took = 0;
	while (*f && !stopped) {
		if (*f == '\\') {
			f++;
			if (escape(&f, &c, 0))
				putchar(c);
		} else if (*f == '%') {
			if ((r = convert(&f)) < 0)
				return -1;
			*took |= r;
		} else {
			putchar(*f++);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *format;
	int took;

	if (argc > 1 && strcmp(argv[1], "--") == 0) {
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: printf format [arguments ...]\n");
		return 1;
	}
	format = argv[1];
	gargv = argv + 2;
	do {
		if (doformat(format, &took) < 0) {
			fflush(stdout);
			return 1;
		}
	} while (*gargv && took && !stopped);
	fflush(stdout);
	return ferror(stdout) ? 1 : status;
}
