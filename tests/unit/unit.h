/*
 * The host unit tests' checks: each prints `PASS name` or `FAIL name: expected X, got Y`
 * (docs/testing.md) and counts failures; a test's main ends with `return unit_exit();`.
 *
 * A lab's grader does not read those lines: it gives the test a descriptor and a token of its
 * own in the environment (WDRAIN_UNIT_FD, WDRAIN_UNIT_TOKEN), and each check is also written
 * there as `TOKEN PASS name` or `TOKEN FAIL name` (tests/lib/gradelib.py, Run.unit_test; what
 * that closes and what it leaves: labs/README.md, "Unit tests a student's code cannot rewrite").
 */
#ifndef _TESTS_UNIT_H_
#define _TESTS_UNIT_H_

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int failures;

/*
 * The grader's channel, taken before main and before any lab code runs (a lab's object may
 * have no constructor: tests/unit/lab_object.py), then scrubbed from the environment, also
 * from its original copy that /proc/self/environ shows.
 */
static int unit_fd = -1;
static char unit_token[64];

__attribute__((constructor)) static void unit_channel_open(void)
{
	char *fd = getenv("WDRAIN_UNIT_FD"), *token = getenv("WDRAIN_UNIT_TOKEN");

	if (fd && token && strlen(token) < sizeof(unit_token)) {
		unit_fd = atoi(fd);
		strcpy(unit_token, token);
		fcntl(unit_fd, F_SETFD, FD_CLOEXEC);    /* no program the test runs gets it */
	}
	if (token)
		memset(token, 'x', strlen(token));
	unsetenv("WDRAIN_UNIT_FD");
	unsetenv("WDRAIN_UNIT_TOKEN");
}

/* A check's verdict on the grader's descriptor, when a grader gave one. */
static inline void unit_report(const char *verdict, const char *name)
{
	if (unit_fd >= 0)
		dprintf(unit_fd, "%s %s %s\n", unit_token, verdict, name);
}

static inline void pass(const char *name)
{
	printf("PASS %s\n", name);
	unit_report("PASS", name);
}

static inline void fail(const char *name, const char *expected, const char *got)
{
	printf("FAIL %s: expected %s, got %s\n", name, expected, got);
	unit_report("FAIL", name);
	failures++;
}

/* Unsigned values, printed in hex (register and field values). */
static inline void check_u64(const char *name, uint64_t got, uint64_t want)
{
	char e[24], g[24];
	if (got == want)
		return pass(name);
	snprintf(e, sizeof(e), "0x%llx", (unsigned long long)want);
	snprintf(g, sizeof(g), "0x%llx", (unsigned long long)got);
	fail(name, e, g);
}

/* Signed values, printed in decimal (counts). */
static inline void check_int(const char *name, long long got, long long want)
{
	char e[24], g[24];
	if (got == want)
		return pass(name);
	snprintf(e, sizeof(e), "%lld", want);
	snprintf(g, sizeof(g), "%lld", got);
	fail(name, e, g);
}

/* Strings; NULL stands for "no string" and matches only NULL. */
static inline void check_str(const char *name, const char *got, const char *want)
{
	char e[256], g[256];
	if ((got == NULL && want == NULL) || (got && want && strcmp(got, want) == 0))
		return pass(name);
	snprintf(e, sizeof(e), want ? "\"%s\"" : "%s", want ? want : "(none)");
	snprintf(g, sizeof(g), got ? "\"%s\"" : "%s", got ? got : "(none)");
	fail(name, e, g);
}

/*
 * Run a shell command line made from fmt and ap, stderr joined to stdout: its exit status (-1 if
 * it did not exit), its output in out[size] (NUL-terminated, cut at size - 1).
 */
static inline int unit_vsh(char *out, size_t size, const char *fmt, va_list ap)
{
	char cmd[1024];
	FILE *p;
	size_t n;
	int st;

	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* unit_vsh with the arguments in place: unit_sh(out, sizeof(out), "tools/fsck/fsck %s", img). */
static inline int unit_sh(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int st;

	va_start(ap, fmt);
	st = unit_vsh(out, size, fmt, ap);
	va_end(ap);
	return st;
}

static inline int unit_exit(void)
{
	return failures ? 1 : 0;
}

#endif
