/*
 * setmode.c: setmode(3) and getmode(3), the mode language of chmod(1), mkdir -m, mkfifo -m and
 * the shell's umask (FreeBSD's libc has them in lib/libc/gen/setmode.c; this is wdrain's own).
 *
 *   set = setmode("u+x,go-w")   - check a mode and remember it (and the umask now); NULL and
 *                                 errno EINVAL if it is not one. free(set) when done.
 *   getmode(set, old)           - the mode that results from applying it to mode `old`.
 *
 * A mode is an octal number (absolute: the permission bits become it) or a comma-separated
 * list of clauses [ugoa]*([-+=][rwxXstugo]*)+ as POSIX chmod describes: who (u, g, o, a; none
 * means a, but then + and - leave the umask's bits alone and = clears everything and sets what
 * the umask allows), an operator, and permissions: r w x, X (x if a directory or some x is
 * set), s (set-ID of u and/or g), t (sticky), or u, g, o to copy those bits.
 */
#include <unistd.h>
#include <libutil.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>

struct modeset {
	mode_t cmask;                   /* the umask when setmode was called */
	char   spec[];                  /* the mode as given */
};

/*
 * The who letters of one clause, as the bits they name (u: set-user-ID and the owner's rwx; g:
 * set-group-ID and the group's; o: the others' and the sticky bit; a: all); 0 for none.
 */
static mode_t parse_who(const char **sp)
{
	mode_t who = 0;

	for (;; (*sp)++) {
		switch (**sp) {
		case 'u': who |= S_ISUID | S_IRWXU; break;
		case 'g': who |= S_ISGID | S_IRWXG; break;
		case 'o': who |= S_ISTXT | S_IRWXO; break;
		case 'a': who |= ALLPERMS; break;
		default:  return who;
		}
	}
}

/* The bits of the class `c` (u, g or o) of mode m, copied to all three classes. */
static mode_t copy_class(char c, mode_t m)
{
	mode_t b = c == 'u' ? (m >> 6) & 7 : c == 'g' ? (m >> 3) & 7 : m & 7;

	return b << 6 | b << 3 | b;
}

/* The permission letters after an operator, as bits (before who limits them); -1 if bad. */
static long parse_perm(const char **sp, mode_t old)
{
	long perm = 0;

	for (;; (*sp)++) {
		switch (**sp) {
		case 'r': perm |= S_IRUSR | S_IRGRP | S_IROTH; break;
		case 'w': perm |= S_IWUSR | S_IWGRP | S_IWOTH; break;
		case 'x': perm |= S_IXUSR | S_IXGRP | S_IXOTH; break;
		case 'X':
			if (S_ISDIR(old) || (old & (S_IXUSR | S_IXGRP | S_IXOTH)))
				perm |= S_IXUSR | S_IXGRP | S_IXOTH;
			break;
		case 's': perm |= S_ISUID | S_ISGID; break;
		case 't': perm |= S_ISTXT; break;
		case 'u': case 'g': case 'o': perm |= copy_class(**sp, old); break;
		case '\0': case ',': case '+': case '-': case '=': return perm;
		default: return -1;
		}
	}
}

/* Apply a symbolic mode to `old`; -1 if it is not one. */
static int apply_symbolic(const char *s, mode_t old, mode_t cmask, mode_t *newp)
{
	mode_t m = old & ALLPERMS;

	for (;;) {
		mode_t who = parse_who(&s), limit = who ? who : ALLPERMS & ~cmask;

		if (*s != '+' && *s != '-' && *s != '=')
			return -1;
		while (*s == '+' || *s == '-' || *s == '=') {
			char op = *s++;
			long perm = parse_perm(&s, m);

			if (perm < 0)
				return -1;
			perm &= (long)limit;
			if (op == '+')
				m |= (mode_t)perm;
			else if (op == '-')
				m &= ~(mode_t)perm;
			else
				m = (m & ~(who ? who : ALLPERMS)) | (mode_t)perm;
		}
		if (*s == '\0')
			break;
		if (*s++ != ',')
			return -1;
	}
	*newp = (old & ~ALLPERMS) | m;
	return 0;
}

/* Apply the mode `spec`: octal (absolute) or symbolic. -1 if it is neither. */
static int apply(const char *spec, mode_t old, mode_t cmask, mode_t *newp)
{
	char *end;
	long v;

	if (*spec >= '0' && *spec <= '7') {
		v = strtol(spec, &end, 8);
		if (*end != '\0' || v < 0 || v > ALLPERMS)
			return -1;
		*newp = (old & ~ALLPERMS) | (mode_t)v;
		return 0;
	}
	return apply_symbolic(spec, old, cmask, newp);
}

void *setmode(const char *mode_str)
{
	struct modeset *set;
	mode_t cmask = umask(0), dummy;

	umask(cmask);
	if (apply(mode_str, 0, cmask, &dummy) < 0) {
		errno = EINVAL;
		return NULL;
	}
	set = malloc(sizeof(*set) + strlen(mode_str) + 1);
	if (set == NULL)
		return NULL;
	set->cmask = cmask;
	strcpy(set->spec, mode_str);
	return set;
}

mode_t getmode(const void *set, mode_t mode)
{
	const struct modeset *ms = set;
	mode_t m = mode;

	apply(ms->spec, mode, ms->cmask, &m);
	return m;
}
