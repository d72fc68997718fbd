/*
 * stdlib.c: program start and exit, number conversion, qsort and the environment (user/libc).
 * environ starts as the envp array exec gave us; setenv/unsetenv replace it with a malloc'd
 * copy the first time they change it.
 */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <signal.h>
#include <stdio.h>

char **environ;

#define NATEXIT 32
static void (*atexit_fns[NATEXIT])(void);
static int natexit;

void __libc_start(int argc, char **argv, char **envp);
void __stdio_flushall(void);   /* lib/stdio.c */
int  main(int argc, char **argv, char **envp);

extern const char *__progname;   /* lib/err.c */

void __libc_start(int argc, char **argv, char **envp)
{
	const char *slash;

	environ = envp;
	if (argc > 0 && argv[0]) {
		slash = strrchr(argv[0], '/');
		__progname = slash ? slash + 1 : argv[0];
	}
	exit(main(argc, argv, envp));
}

int atexit(void (*fn)(void))
{
	if (natexit == NATEXIT)
		return -1;
	atexit_fns[natexit++] = fn;
	return 0;
}

void exit(int status)
{
	while (natexit > 0)
		atexit_fns[--natexit]();
	__stdio_flushall();
	_exit(status);
}

void abort(void)
{
	kill(getpid(), SIGABRT);
	_exit(127);
}

/*
 * rand_r (POSIX): the "minimal standard" generator of Park and Miller (CACM 31(10), 1988), as
 * FreeBSD's: x' = 16807 x mod (2^31 - 1), kept in *seed, so every caller has its own sequence
 * that is the same on every run. Values 0..RAND_MAX.
 */
int rand_r(unsigned int *seed)
{
	/* Schrage's method: 16807 x mod m without overflowing 32 bits (m = 127773 * 16807 + 2836). */
	long x = (long)(*seed % 0x7ffffffeu) + 1, hi = x / 127773, lo = x % 127773;

	x = 16807 * lo - 2836 * hi;
	if (x < 0)
		x += 0x7fffffff;
	*seed = (unsigned int)x - 1;
	return (int)(x - 1);
}

int abs(int x)   { return x < 0 ? -x : x; }
long labs(long x) { return x < 0 ? -x : x; }

/*
 * The core of the strto* family: skip space, take a sign, a 0x/0 prefix for base 0 or 16,
 * then digits up to `limit` (the magnitude allowed for this sign). On overflow the result
 * is clamped to the limit and errno is ERANGE.
 */
static unsigned long long strtoull_core(const char *s, char **end, int base, int *neg,
                                        unsigned long long poslimit, unsigned long long neglimit)
{
	const char *p = s;
	unsigned long long v = 0, limit;
	int any = 0, overflow = 0;

	while (isspace((unsigned char)*p))
		p++;
	*neg = 0;
	if (*p == '-' || *p == '+')
		*neg = *p++ == '-';
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    isxdigit((unsigned char)p[2])) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = *p == '0' ? 8 : 10;
	}
	limit = *neg ? neglimit : poslimit;
	for (;; p++) {
		int c = (unsigned char)*p, d;
		if (isdigit(c))
			d = c - '0';
		else if (isalpha(c))
			d = tolower(c) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		any = 1;
		if (v > (limit - d) / base)
			overflow = 1;
		else
			v = v * base + d;
	}
	if (end)
		*end = (char *)(any ? p : s);
	if (overflow) {
		errno = ERANGE;
		v = limit;
	}
	return v;
}

long long strtoll(const char *s, char **end, int base)
{
	int neg;
	unsigned long long v = strtoull_core(s, end, base, &neg, LLONG_MAX, (unsigned long long)LLONG_MAX + 1);

	return neg ? (long long)(0 - v) : (long long)v;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
	int neg;
	unsigned long long v = strtoull_core(s, end, base, &neg, ULLONG_MAX, ULLONG_MAX);

	return neg ? 0 - v : v;
}

long strtol(const char *s, char **end, int base)
{
	int neg;
	unsigned long long v = strtoull_core(s, end, base, &neg, LONG_MAX, (unsigned long long)LONG_MAX + 1);

	return neg ? (long)(0 - v) : (long)v;
}

unsigned long strtoul(const char *s, char **end, int base)
{
	int neg;
	unsigned long long v = strtoull_core(s, end, base, &neg, ULONG_MAX, ULONG_MAX);

	return neg ? (unsigned long)(0 - v) : (unsigned long)v;
}

int atoi(const char *s)        { return (int)strtol(s, NULL, 10); }
long atol(const char *s)       { return strtol(s, NULL, 10); }
long long atoll(const char *s) { return strtoll(s, NULL, 10); }

/* qsort: insertion sort for small runs, otherwise quicksort on the middle element. */
static void swap(char *a, char *b, size_t size)
{
	while (size--) {
		char t = *a;
		*a++ = *b;
		*b++ = t;
	}
}

void qsort(void *base, size_t nmemb, size_t size, int (*cmp)(const void *, const void *))
{
	char *a = base;
	size_t i, j, last;

	while (nmemb > 8) {
		swap(a, a + nmemb / 2 * size, size);   /* pivot to the front */
		for (last = 0, i = 1; i < nmemb; i++)
			if (cmp(a + i * size, a) < 0)
				swap(a + ++last * size, a + i * size, size);
		swap(a, a + last * size, size);
		/* recurse into the smaller half, loop on the larger: O(log n) stack */
		if (last < nmemb - last - 1) {
			qsort(a, last, size, cmp);
			a += (last + 1) * size;
			nmemb -= last + 1;
		} else {
			qsort(a + (last + 1) * size, nmemb - last - 1, size, cmp);
			nmemb = last;
		}
	}
	for (i = 1; i < nmemb; i++)
		for (j = i; j > 0 && cmp(a + (j - 1) * size, a + j * size) > 0; j--)
			swap(a + (j - 1) * size, a + j * size, size);
}

/* The environment entry "name=..." for name, or NULL; *idx gets its index. */
static char *envfind(const char *name, int *idx)
{
	size_t n = strcspn(name, "=");
	int i;

	for (i = 0; environ && environ[i]; i++) {
		if (strncmp(environ[i], name, n) == 0 && environ[i][n] == '=') {
			*idx = i;
			return environ[i];
		}
	}
	*idx = i;
	return NULL;
}

char *getenv(const char *name)
{
	int i;
	char *e = envfind(name, &i);

	return e ? e + strcspn(name, "=") + 1 : NULL;
}

static int env_owned;   /* environ is our malloc'd copy */

static int env_own(void)
{
	int n = 0, i;
	char **copy;

	if (env_owned)
		return 0;
	while (environ && environ[n])
		n++;
	if (!(copy = malloc((n + 1) * sizeof *copy)))
		return -1;
	for (i = 0; i < n; i++)
		copy[i] = environ[i];
	copy[n] = NULL;
	environ = copy;
	env_owned = 1;
	return 0;
}

int setenv(const char *name, const char *value, int overwrite)
{
	int i;
	size_t nl = strlen(name);
	char *entry, **grown;

	if (!*name || strchr(name, '=')) {
		errno = EINVAL;
		return -1;
	}
	if (envfind(name, &i) && !overwrite)
		return 0;
	if (env_own() < 0 || !(entry = malloc(nl + strlen(value) + 2)))
		return -1;
	memcpy(entry, name, nl);
	entry[nl] = '=';
	strcpy(entry + nl + 1, value);
	if (!environ[i]) {
		if (!(grown = realloc(environ, (i + 2) * sizeof *grown))) {
			free(entry);
			return -1;
		}
		environ = grown;
		environ[i + 1] = NULL;
	}
	environ[i] = entry;   /* the old string may be exec's; it is not freed */
	return 0;
}

int unsetenv(const char *name)
{
	int i;

	if (env_own() < 0)
		return -1;
	while (envfind(name, &i))
		for (; environ[i]; i++)
			environ[i] = environ[i + 1];
	return 0;
}
