/*
 * sysctl: read and set kernel variables by name, as FreeBSD's sysctl(8).
 *   sysctl name ...        "name: value" (a prefix such as "vfs" lists every node under it)
 *   sysctl name=value ...  set each and print "name: old -> new"
 *   sysctl -a              every node;  -n: values only;  -d: descriptions instead of values
 * Several assignments are made in the order given, and one the kernel refuses as out of range
 * (EINVAL) is tried once more after all the others: limits that depend on each other (the
 * kernel keeps vfs.hirunningspace >= vfs.lorunningspace) can then be given in either order.
 * Every name that fails is reported with its reason - "sysctl: vfs.hirunningspace=65536:
 * Invalid argument", "sysctl: unknown oid 'x'" - and the status is then 1; the empty name
 * is an unknown oid too.
 * Integers, 64-bit integers and strings print as such; kern.boottime (S,timeval) prints
 * FreeBSD-style "{ sec = N, usec = N } Thu Nov 14 22:13:20 2023"; other opaque nodes print
 * their format and length (and are skipped by -a, as on FreeBSD).
 * usage: sysctl [-dn] name[=value] ... | sysctl [-dn] -a
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <err.h>

static int nflag, dflag;

/*
 * Read a node's whole value into a malloc'd buffer; NULL and errno on failure. A value computed
 * when read (a string of counts) may grow between the size query and the read - this very
 * process's malloc can change the counts - so the buffer is twice the size asked for ("double
 * size just to be sure", as FreeBSD's sysctl(8) does), and an ENOMEM is retried a few times.
 */
static void *readval(const char *name, size_t *lenp)
{
	size_t len = 0, room;
	char *buf;
	int tries = 0;

	for (;;) {
		if (sysctl(name, NULL, &len, NULL, 0) < 0)
			return NULL;
		room = len * 2 + 16;
		if (!(buf = malloc(room + 1)))
			errx(1, "out of memory");
		len = room;
		if (sysctl(name, buf, &len, NULL, 0) == 0)
			break;
		free(buf);
		if (errno != ENOMEM || ++tries == 4)
			return NULL;
	}
	buf[len] = 0;
	*lenp = len;
	return buf;
}

static void printval(const struct sysctl_info *info, const void *val, size_t len)
{
	switch (info->kind & CTLTYPE) {
	case CTLTYPE_INT:
		printf("%d", len >= 4 ? *(const int32_t *)val : 0);
		break;
	case CTLTYPE_QUAD:
		printf("%lld", len >= 8 ? (long long)*(const int64_t *)val : 0LL);
		break;
	case CTLTYPE_STRING:
		printf("%s", (const char *)val);
		break;
	default:
		if (strcmp(info->fmt, "S,timeval") == 0 && len >= sizeof(struct timeval)) {
			const struct timeval *tv = val;
			time_t t = tv->tv_sec;
			char *s = ctime(&t);
			printf("{ sec = %lld, usec = %ld } %.*s", (long long)tv->tv_sec, (long)tv->tv_usec,
			       (int)strlen(s) - 1, s);
		} else {
			printf("Format:%s Length:%zu", info->fmt, len);
		}
		break;
	}
}

/* Print one leaf node; -1 (message printed) on failure. `listing` is set for -a and prefixes. */
static int show(const char *name, int listing)
{
	struct sysctl_info info;
	size_t len;
	void *val;

	if (sysctlinfo(name, &info) < 0) {
		warn("%s", name);
		return -1;
	}
	if (dflag) {
		if (nflag)
			printf("%s\n", info.descr);
		else
			printf("%s: %s\n", name, info.descr);
		return 0;
	}
	if (listing && (info.kind & CTLTYPE) == CTLTYPE_OPAQUE && strcmp(info.fmt, "S,timeval") != 0)
		return 0;
	if (!(val = readval(name, &len))) {
		warn("%s", name);
		return -1;
	}
	if (!nflag)
		printf("%s: ", name);
	printval(&info, val, len);
	putchar('\n');
	free(val);
	return 0;
}

/* Every node whose name starts with prefix ("" = all); 0 if at least one was found. */
static int showall(const char *prefix)
{
	char name[SYSCTL_NAMELEN], next[SYSCTL_NAMELEN];
	size_t pl = strlen(prefix);
	int found = 0, status = 0;

	strlcpy(name, prefix, sizeof name);
	while (sysctlnext(name, next, sizeof next) == 0) {
		if (pl && (strncmp(next, prefix, pl) != 0 || next[pl] != '.'))
			break;
		found = 1;
		if (show(next, 1) < 0)
			status = -1;
		strlcpy(name, next, sizeof name);
	}
	return found ? status : -2;
}

/*
 * name=value: parse value by the node's type and write it. 0, or -1 after a message; -2 without
 * one when the kernel said EINVAL and `retry` asks for a second try (the caller makes it).
 */
static int set(char *name, const char *value, int retry)
{
	struct sysctl_info info;
	void *old, *newp;
	size_t oldlen, newlen;
	int32_t iv;
	int64_t qv;
	char *end;

	if (sysctlinfo(name, &info) < 0) {
		if (errno == ENOENT)
			warnx("unknown oid '%s'", name);
		else
			warn("%s", name);
		return -1;
	}
	switch (info.kind & CTLTYPE) {
	case CTLTYPE_INT:
		errno = 0;
		iv = (int32_t)strtol(value, &end, 0);
		if (!*value || *end || errno) {
			warnx("invalid integer '%s'", value);
			return -1;
		}
		newp = &iv;
		newlen = sizeof iv;
		break;
	case CTLTYPE_QUAD:
		errno = 0;
		qv = strtoll(value, &end, 0);
		if (!*value || *end || errno) {
			warnx("invalid integer '%s'", value);
			return -1;
		}
		newp = &qv;
		newlen = sizeof qv;
		break;
	case CTLTYPE_STRING:
		newp = (void *)value;
		newlen = strlen(value) + 1;
		break;
	default:
		warnx("oid '%s' is an opaque value and cannot be set", name);
		return -1;
	}
	if (!(old = readval(name, &oldlen))) {
		warn("%s", name);
		return -1;
	}
	if (sysctl(name, NULL, NULL, newp, newlen) < 0) {
		if (errno == EINVAL && retry) {
			free(old);
			return -2;
		}
		if (errno == EPERM)
			warnx("oid '%s' is read only", name);
		else
			warn("%s=%s", name, value);
		free(old);
		return -1;
	}
	if (!nflag)
		printf("%s: ", name);
	printval(&info, old, oldlen);
	printf(" -> ");
	free(old);
	if ((old = readval(name, &oldlen))) {
		printval(&info, old, oldlen);
		free(old);
	}
	putchar('\n');
	return 0;
}

/* One operand: name=value (retry as for set), or a name or prefix to show. */
static int doarg(char *arg, int retry)
{
	struct sysctl_info info;
	char *eq = strchr(arg, '=');
	int r;

	if (eq) {
		*eq = 0;
		r = set(arg, eq + 1, retry);
		*eq = '=';
		return r;
	}
	if (!*arg) {
		warnx("unknown oid ''");
		return -1;
	}
	if (sysctlinfo(arg, &info) == 0)
		return show(arg, 0);
	if ((r = showall(arg)) == -2) {
		warnx("unknown oid '%s'", arg);
		return -1;
	}
	return r;
}

int main(int argc, char **argv)
{
	int c, aflag = 0, status = 0, ndeferred = 0;
	char **deferred = malloc(argc * sizeof *deferred);

	if (!deferred)
		errx(1, "out of memory");
	while ((c = getopt(argc, argv, "adn")) != -1) {
		switch (c) {
		case 'a': aflag = 1; break;
		case 'd': dflag = 1; break;
		case 'n': nflag = 1; break;
		default:  goto usage;
		}
	}
	if (aflag) {
		if (optind < argc)
			goto usage;
		return showall("") < 0;
	}
	if (optind == argc)
		goto usage;
	for (int i = optind; i < argc; i++) {
		int r = doarg(argv[i], argc - optind > 1);
		if (r == -2)
			deferred[ndeferred++] = argv[i];   /* refused: again after the others */
		else if (r < 0)
			status = 1;
	}
	for (int i = 0; i < ndeferred; i++)
		if (doarg(deferred[i], 0) < 0)
			status = 1;
	return status;
usage:
	fprintf(stderr, "usage: sysctl [-dn] name[=value] ...\n       sysctl [-dn] -a\n");
	return 1;
}
